"""Plaid (the Bank archetype's bank-data line): one Item linked at the company's bank, its
accounts under Plaid's ids with the bank's own numbers and balances, the last 90 days of the
bank's transactions in Plaid's shape (money out positive, the day's unposted items pending), a
/transactions/sync cursor, the API log, and the Plaid Dashboard's few read-only pages; creating a
transfer is the one guarded step."""
from __future__ import annotations

import re
from decimal import Decimal

from portals.core.clock import Clock
from portals.core.episode import build_template
from portals.core.registry import get_app
from seeds.book import load_book

APPS = ["plaid", "bofa_cashpro"]
APP = "plaid"
TODAY = "2026-06-30"


def call(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"{APP}.{name}", args or {})


def item_id(env) -> str:
    return call(env, "items.list")["items"][0]["item_id"]


def test_manifest_reads_and_guards_only_transfers():
    spec = get_app(APP)
    assert spec.kind == "bank" and spec.manifest["line"] == "data"
    assert set(spec.money_guarded_tools) == {"transfer.create"}
    assert {t.kind for n, t in spec.tools.items() if n != "transfer.create"} == {"read"}
    assert set(spec.manifest["state_tables"]) == set(spec.pks)


def test_seeded_from_the_same_book_deterministically():
    spec, clock, book = get_app(APP), Clock.at("2026-06-30T17:00:00Z"), load_book()
    first = build_template(spec, book, 7, clock)
    assert first.snapshot() == build_template(spec, book, 7, clock).snapshot()
    ids = list(first.rows("items")) + list(first.rows("accounts")) + list(first.rows("transactions"))
    assert all(re.fullmatch(r"[0-9A-Za-z]{37}", i) for i in ids)
    dates = sorted(t["date"] for t in first.rows("transactions").values())
    assert dates[0] >= "2026-04-01" and dates[-1] == TODAY  # 90 days of history


def test_the_banks_items_with_plaids_sign_and_the_banks_numbers(env):
    item = call(env, "item.get", {"item_id": item_id(env)})
    assert item["institution_name"] == "Bank of America" and item["products"] == ["auth", "balance", "transactions"]
    bofa = {a["name"]: a for a in env.call("bofa_cashpro.accounts.list", {})["items"]}
    numbers = {n["account_id"]: n for n in call(env, "auth.get", {"item_id": item["item_id"]})["numbers"]["ach"]}
    for a in item["accounts"]:
        assert numbers[a["account_id"]]["account"] == bofa[a["name"]]["account_number"]  # the bank's own number
        assert a["mask"] == bofa[a["name"]]["account_number"][-4:]
    operating = next(a for a in item["accounts"] if a["name"] == "Operating")
    fee = call(env, "transactions.get", {"account_id": operating["account_id"], "query": "ANALYSIS FEE"})["items"][0]
    bank = env.call("bofa_cashpro.transactions.search", {"query": "ANALYSIS FEE", "date_from": fee["date"],
                                                         "date_to": fee["date"]})["items"][0]
    assert bank["direction"] == "debit" and Decimal(fee["amount"]) == Decimal(bank["amount"]) > 0  # money out: positive
    assert fee["merchant_name"] == "Bank of America" and fee["personal_finance_category"]["primary"] == "BANK_FEES"
    receipt = call(env, "transactions.get", {"account_id": operating["account_id"], "query": "CCD PAYMENT"})["items"][0]
    assert Decimal(receipt["amount"]) < 0  # money in: negative


def test_pending_items_and_balances(env):
    item = call(env, "accounts.balance.get", {"item_id": item_id(env)})
    pending = call(env, "transactions.get", {"pending": True, "per_page": 100})
    assert pending["total"] >= 1 and {t["date"] for t in pending["items"]} == {TODAY}
    operating = next(a for a in item["accounts"] if a["name"] == "Operating")
    held = sum(Decimal(t["amount"]) for t in pending["items"] if t["account_id"] == operating["account_id"])
    b = operating["balances"]
    assert Decimal(b["current"]) - Decimal(b["available"]) == held  # available takes off what is pending


def test_sync_pages_through_every_transaction_once(env):
    iid, cursor, seen = item_id(env), "", []
    while True:
        page = call(env, "transactions.sync", {"item_id": iid, "cursor": cursor, "count": 150})
        seen += [t["transaction_id"] for t in page["added"]]
        cursor = page["next_cursor"]
        if not page["has_more"]:
            break
    assert len(seen) == len(set(seen)) == call(env, "transactions.get", {"per_page": 1})["total"]
    again = call(env, "transactions.sync", {"item_id": iid, "cursor": cursor})
    assert again["added"] == [] and again["has_more"] is False and again["next_cursor"] == cursor
    assert "cursor" in call(env, "transactions.sync", {"item_id": iid, "cursor": "not-a-cursor"})["message"]


def test_bad_input_is_refused_and_nothing_changes(env, episode):
    before = episode.snapshot()
    for name, args, words in (("item.get", {"item_id": "nope"}, "no item"),
                              ("transactions.get", {"start_date": "June 1"}, "yyyy-mm-dd"),
                              ("transactions.get", {"start_date": "2026-06-30", "end_date": "2026-06-01"}, "after"),
                              ("transactions.sync", {"item_id": item_id(env), "count": 0}, "count"),
                              ("transaction.get", {"transaction_id": "x"}, "no transaction")):
        answer = call(env, name, args)
        assert "error" in answer and words in answer["message"].lower(), (name, answer)
    assert episode.snapshot() == before


def test_a_transfer_is_staged_never_made(env, episode):
    before = episode.snapshot()
    account = call(env, "item.get", {"item_id": item_id(env)})["accounts"][0]["account_id"]
    staged = call(env, "transfer.create", {"account_id": account, "type": "debit", "amount": "125.00",
                                           "description": "Rent"})
    assert staged["status"] == "pending_human_approval" and staged["staged"]["amount"] == "125.00"
    refused = call(env, "transfer.create", {"account_id": account, "type": "debit", "amount": "-5",
                                            "description": "Rent"})
    assert "error" in refused
    assert [g["tool"] for g in episode.guard_log] == ["transfer.create", "transfer.create"]
    assert episode.snapshot() == before


def test_dashboard_pages_read_in_plaids_words(client, env):
    home = client.get(f"/{APP}/").get_data(as_text=True)
    for words in ("PLAID", "Dashboard", "Items", "Accounts", "Transactions", "Logs", "Bank of America"):
        assert words in home, words
    assert "CashPro" not in home
    iid = item_id(env)
    assert "Available" in client.get(f"/{APP}/items/{iid}").get_data(as_text=True)
    assert "Operating" in client.get(f"/{APP}/accounts").get_data(as_text=True)
    page = client.get(f"/{APP}/transactions?pending=true&sort=-amount").get_data(as_text=True)
    assert "positive is money out" in page and "CHECK" in page
    txn = call(env, "transactions.get", {"per_page": 1})["items"][0]["transaction_id"]
    assert "Personal finance category" in client.get(f"/{APP}/transactions/{txn}").get_data(as_text=True)
    assert "/transactions/sync" in client.get(f"/{APP}/logs").get_data(as_text=True)
    bad = client.get(f"/{APP}/transactions?start_date=soon")  # a clear error, never a 500
    assert bad.status_code == 400 and "YYYY-MM-DD" in bad.get_data(as_text=True)
    assert client.get(f"/{APP}/items/nope").status_code == 404
    assert client.get(f"/{APP}/transactions/nope").status_code == 404
