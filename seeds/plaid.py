"""The company's bank accounts as Plaid returns them: the bank's own items (seeds/treasury.py
bank_activity, the same the treasury portals show) seen through Plaid's conventions.

Plaid's differences, each registered in seeds/divergences.py and checked by seeds/consistency.py:
- the sign: Plaid's `amount` is positive when money leaves the account and negative when it comes
  in, where the bank reports a debit or a credit of a positive amount;
- the ids: Plaid keys Items, accounts and transactions by its own 37-character ids and shows an
  account by the last four digits of its number (`mask`);
- pending: the day's items the bank has not posted yet come back `pending: true`, and Plaid only
  returns the last 90 days (its default `days_requested`).
Names: `name` is the bank's description as given; `merchant_name` the counterparty Plaid
recognizes (the owner who paid, the IRS, the bank itself for its fees), null for a check or an ACH
settlement it cannot attribute. Categories are Plaid's personal-finance taxonomy; which one Plaid
assigns each BAI type is modelled here, not taken from a published mapping."""
from __future__ import annotations

import hashlib
from datetime import date, timedelta
from decimal import Decimal

from seeds import treasury

DAYS = 90  # /transactions/sync's default history
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# BAI type code -> (legacy category, personal_finance_category primary, detailed, channel)
CATEGORIES = {
    "475": ("Transfer > Debit", "TRANSFER_OUT", "TRANSFER_OUT_WITHDRAWAL", "other"),
    "469": ("Transfer > Debit", "TRANSFER_OUT", "TRANSFER_OUT_OTHER_TRANSFER_OUT", "online"),
    "506": ("Transfer > Internal Account Transfer", "TRANSFER_OUT", "TRANSFER_OUT_ACCOUNT_TRANSFER", "online"),
    "206": ("Transfer > Internal Account Transfer", "TRANSFER_IN", "TRANSFER_IN_ACCOUNT_TRANSFER", "online"),
    "673": ("Transfer > Payroll", "TRANSFER_OUT", "TRANSFER_OUT_OTHER_TRANSFER_OUT", "online"),
    "455": ("Tax > Payment", "GOVERNMENT_AND_NON_PROFIT", "GOVERNMENT_AND_NON_PROFIT_TAX_PAYMENT", "online"),
    "661": ("Bank Fees", "BANK_FEES", "BANK_FEES_OTHER_BANK_FEES", "other"),
    "195": ("Transfer > Wire", "TRANSFER_IN", "TRANSFER_IN_DEPOSIT", "online"),
    "165": ("Transfer > Credit", "TRANSFER_IN", "TRANSFER_IN_DEPOSIT", "online"),
    "354": ("Interest > Interest Earned", "INCOME", "INCOME_INTEREST_EARNED", "other"),
}


def plaid_id(*parts: object) -> str:
    """A Plaid-style id: 37 letters and digits, hashed from a natural key."""
    number = int.from_bytes(hashlib.sha256("\x1f".join(map(str, ("plaid", *parts))).encode()).digest(), "big")
    out = ""
    while len(out) < 37:
        number, r = divmod(number, 62)
        out += ALPHABET[r]
    return out


def signed(item: dict) -> Decimal:
    """Plaid's amount for a bank item: money out positive, money in negative."""
    return item["amount"] if item["direction"] == "debit" else -item["amount"]


def merchant(item: dict, bank: str, owners: list[str]) -> str | None:
    if item["type_code"] == "661":
        return bank
    if item["type_code"] == "455":
        return "IRS"
    if item["type_code"] in ("195", "165"):
        text = item["text"]
        return next((o for o in owners if treasury.bank_payee(o)[:22] in text), None)
    return None


def account_items(book: dict, today: date, bank: str) -> dict:
    """Each account key -> {"current", "available", "transactions": [...]}: the last DAYS days of
    the bank's items in Plaid's shape, the day's (not yet posted) ones pending, oldest first."""
    activity = treasury.bank_activity(book, today)
    owners = sorted({j["customer"] for j in book.get("jobs", [])})
    since = today - timedelta(days=DAYS)
    out = {}
    for key, data in activity.items():
        posted = data["opening_balance"]
        rows, pending_out = [], Decimal(0)
        for n, item in enumerate(data["items"], start=1):
            when = date.fromisoformat(item["date"])
            pending = when >= today
            if not pending:
                posted += -signed(item)
            elif signed(item) > 0:
                pending_out += signed(item)
            if when < since:
                continue
            legacy, primary, detailed, channel = CATEGORIES[item["type_code"]]
            rows.append({"key": (key, n), "amount": signed(item), "date": item["date"],
                         "authorized_date": item["date"] if pending else None, "name": item["text"],
                         "merchant_name": merchant(item, bank, owners), "pending": pending,
                         "payment_channel": channel, "category": legacy, "pfc_primary": primary,
                         "pfc_detailed": detailed,
                         "check_number": item["customer_reference"] if item["type_code"] == "475" else None})
        out[key] = {"current": posted, "available": posted - pending_out, "transactions": rows}
    return out
