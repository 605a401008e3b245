"""Build Plaid from the book: one Item, the company's login at the bank its treasury portal is
(the manifest's [plaid] institution), linked for auth, balance and transactions; that bank's
accounts under Plaid's ids with the bank's own account numbers (shown by their last four) and
balances; the last 90 days of the bank's items as Plaid returns them (seeds/plaid.py: money out
positive, the day's unposted items pending); and the integration's API log (a nightly sync and
balance check)."""
from __future__ import annotations

from datetime import timedelta

from seeds import plaid as P

from .plaid_models import Account, ApiLog, Item, Transaction
from .seed import digits
from .settings import bank_settings


def _bank(cfg: dict):
    from portals.core.registry import get_app

    return get_app(cfg["institution_app"])


def seed_plaid(session, book, rng, clock, spec) -> None:
    cfg = spec.manifest["plaid"]
    bank_spec = _bank(cfg)
    bank = bank_settings(bank_spec)
    today = clock.today()
    item_id = P.plaid_id("item", cfg["institution_id"])
    updated = f"{today.isoformat()}T{cfg['sync_time']}Z"
    session.add(Item(item_id=item_id, institution_id=cfg["institution_id"], institution_name=cfg["institution_name"],
                     products="auth,balance,transactions", status="HEALTHY", linked_at=cfg["linked_at"],
                     last_successful_update=updated, webhook=cfg.get("webhook")))
    data = P.account_items(book, today, cfg["institution_name"])
    seq = 0
    for a in bank.accounts:
        number = digits(bank_spec.name, "account", a["key"], n=bank.account_digits)
        account_id = P.plaid_id("account", cfg["institution_id"], a["key"])
        d = data[a["key"]]
        session.add(Account(account_id=account_id, item_id=item_id, name=a["name"],
                            official_name=f"{bank.short_name} {a['kind']}", mask=number[-4:], type="depository",
                            subtype="money market" if a["key"] == "money_market" else "checking",
                            current=d["current"], available=d["available"], iso_currency_code="USD",
                            account_number=number, routing_number=bank.routing_number,
                            wire_routing=bank.routing_number))
        for t in d["transactions"]:
            seq += 1
            session.add(Transaction(transaction_id=P.plaid_id("txn", cfg["institution_id"], *t["key"]),
                                    account_id=account_id, seq=seq, amount=t["amount"], iso_currency_code="USD",
                                    date=t["date"], authorized_date=t["authorized_date"], name=t["name"],
                                    merchant_name=t["merchant_name"], pending=t["pending"],
                                    payment_channel=t["payment_channel"], category=t["category"],
                                    pfc_primary=t["pfc_primary"], pfc_detailed=t["pfc_detailed"],
                                    check_number=t["check_number"]))
    for back in range(int(cfg.get("log_days", 14))):
        day = today - timedelta(days=back)
        for n, endpoint in enumerate(("/transactions/sync", "/accounts/balance/get")):
            session.add(ApiLog(request_id=P.plaid_id("request", day.isoformat(), endpoint)[:15],
                               at=f"{day.isoformat()}T{cfg['sync_time'][:5]}:{n:02d}Z", endpoint=endpoint,
                               item_id=item_id, status_code=200, error_code=None, environment="Production"))
    session.flush()
