"""A bank's own settings, read from its manifest's [bank] table."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone


@dataclass(frozen=True)
class BankSettings:
    bank_name: str
    short_name: str
    routing_number: str
    sender_id: str
    cutoff_local: str
    utc_offset_hours: int
    time_zone: str
    default_decision: str
    payee_match: str
    uploaded_by: str
    company: str
    accounts: tuple
    users: tuple
    reasons: dict  # the bank's words for each kind of exception
    account_digits: int = 12  # how long the bank's account numbers are

    def login_of(self, role: str) -> str:
        """The login of the portal's user in this role (the Controller, the AP Specialist...)."""
        return next(u["login"] for u in self.users if u["role"] == role)

    def cutoff_utc(self, day: str) -> datetime:
        hour, minute = (int(x) for x in self.cutoff_local.split(":"))
        local = datetime.fromisoformat(f"{day}T{hour:02d}:{minute:02d}:00")
        return (local - timedelta(hours=self.utc_offset_hours)).replace(tzinfo=timezone.utc)

    def cutoff_text(self) -> str:
        hour, minute = (int(x) for x in self.cutoff_local.split(":"))
        suffix = "a.m." if hour < 12 else "p.m."
        return f"{(hour - 1) % 12 + 1}:{minute:02d} {suffix} {self.time_zone}"

    def local(self, moment: datetime) -> datetime:
        return (moment + timedelta(hours=self.utc_offset_hours)).replace(tzinfo=None)


REASONS = {"payee_truncated": "Payee name mismatch", "payee_abbreviated": "Payee name mismatch",
           "payee_different": "Payee name mismatch", "amount_transposed": "Amount mismatch",
           "duplicate": "Duplicate item – already paid", "stale_dated": "Stale dated",
           "voided": "Item voided", "not_issued": "No issue record",
           "issue_loaded_twice": "Duplicate issue record"}


def bank_settings(spec) -> BankSettings:
    b = spec.manifest["bank"]
    return BankSettings(bank_name=b["bank_name"], short_name=b["short_name"], routing_number=b["routing_number"],
                        sender_id=b["sender_id"], cutoff_local=b["cutoff_local"],
                        utc_offset_hours=int(b["utc_offset_hours"]), time_zone=b["time_zone"],
                        default_decision=b["default_decision"], payee_match=b["payee_match"],
                        uploaded_by=b["uploaded_by"], company=b["company"], accounts=tuple(b["accounts"]),
                        users=tuple(b.get("users", [])), reasons={**REASONS, **b.get("reasons", {})},
                        account_digits=int(b.get("account_digits", 12)))
