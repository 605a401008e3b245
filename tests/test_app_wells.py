"""Wells Fargo Vantage (the Bank archetype's third vendor): the same company's accounts, checks and
exceptions as CashPro and Chase Connect under Wells Fargo's own ids and words; Fraud Manager
decides an exception in one guarded step (no staging, no Submit), verifying a payment is guarded,
and the portal offers no release and no entitlement change."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from bai2 import bai2 as bai2_io

from conftest import post_form
from portals.core.clock import Clock
from portals.core.registry import get_app
from seeds import treasury
from seeds.book import load_book

APP = "wells"
TODAY = date(2026, 6, 30)


def call(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"{APP}.{name}", args or {})


def test_manifest_guards_the_decision_itself():
    spec = get_app(APP)
    assert set(spec.money_guarded_tools) == {"wires.verify", "fraud_manager.decide"}
    assert spec.tools["fraud_manager.decide"].kind == "guarded" and spec.tools["wires.verify"].kind == "guarded"
    assert spec.tools["fraud_manager.issue_file.upload"].kind == "write"
    for read in ("accounts.balances.get", "reports.previous_day.get", "fraud_manager.exceptions.list"):
        assert spec.tools[read].kind == "read", read
    assert not {"stage_decision", "submit_decisions", "release_payment", "change_entitlement"} & set(spec.service_tool_names)
    assert set(spec.manifest["state_tables"]) == set(spec.pks)
    bank = spec.manifest["bank"]
    assert bank["routing_number"] == "121000248" and bank["default_decision"] == "Return"
    assert (bank["cutoff_local"], bank["time_zone"]) == ("13:00", "PT")


def test_the_same_checks_as_the_other_banks_under_wells_own_ids_and_words(env):
    day = treasury.positive_pay_day(load_book(), TODAY)
    wells = {e["serial"]: e for e in call(env, "fraud_manager.exceptions.list", {"per_page": 100})["items"]}
    bofa = {e["serial"]: e for e in env.call("bofa_cashpro.positive_pay.exceptions.list", {"per_page": 100})["items"]}
    chase = {e["serial"]: e for e in env.call("chase_treasury.positive_pay.exceptions.list", {"per_page": 100})["items"]}
    assert set(wells) == set(bofa) == set(chase) == {e["serial"] for e in day["exceptions"]}
    words = get_app(APP).manifest["bank"]["reasons"]
    for planted in day["exceptions"]:
        w, b, c = wells[planted["serial"]], bofa[planted["serial"]], chase[planted["serial"]]
        assert (w["presented_amount"], w["presented_payee"]) == (b["presented_amount"], b["presented_payee"])
        assert len({w["exception_id"], b["exception_id"], c["exception_id"]}) == 3
        assert len({w["account_number"], b["account_number"], c["account_number"]}) == 3
        assert w["reason"] == words[planted["kind"]] and w["reason"] not in (b["reason"], c["reason"])
        assert (w["issued"] or {}).get("amount") == (b["issued"] or {}).get("amount")
    listed = call(env, "fraud_manager.exceptions.list")
    assert listed["open"] and listed["default_decision"] == "Return" and listed["cutoff_local"].endswith("1:00 p.m. PT")
    users = {u["role"]: u for u in call(env, "administration.users.list")["items"]}
    assert users["Controller"]["login"] == "RALBRIG1" and users["Controller"]["name"] == "Renee Albright"
    assert {a["routing_number"] for a in call(env, "accounts.list")["items"]} == {"121000248"}


def test_deciding_is_guarded_and_changes_nothing(env, episode):
    first = call(env, "fraud_manager.exceptions.list")["items"][0]
    before = episode.snapshot()
    staged = call(env, "fraud_manager.decide", {"exception_id": first["exception_id"], "decision": "Return",
                                                "reason": "Not on the register"})
    assert staged["status"] == "pending_human_approval" and episode.snapshot() == before
    assert staged["staged"] == {"action": "decide", "exception_id": first["exception_id"], "serial": first["serial"],
                                "presented_date": TODAY.isoformat(), "decision": "Return", "reason": "Not on the register"}
    assert episode.guard_log[-1]["tool"] == "fraud_manager.decide" and episode.guard_log[-1]["executed"] is False
    assert "error" in call(env, "fraud_manager.decide", {"exception_id": first["exception_id"], "decision": "Maybe"})
    pending = call(env, "payments.list", {"status": "Pending Approval"})["items"][0]
    verified = call(env, "wires.verify", {"payment_id": pending["payment_id"]})
    assert verified["status"] == "pending_human_approval" and episode.snapshot() == before
    assert episode.diff() == {}


def test_a_decision_after_the_cutoff_is_refused(store):
    from portals.core.environment import Environment

    late = store.create([APP])
    try:
        late.clock = Clock.at("2026-06-30T19:59:00Z")  # 12:59 p.m. PT: still open
        env = Environment(late, [APP])
        assert call(env, "fraud_manager.exceptions.list")["open"]
        late.clock = Clock.at("2026-06-30T20:30:00Z")  # 1:30 p.m. PT
        exc = call(env, "fraud_manager.exceptions.list")
        assert not exc["open"]
        answer = call(env, "fraud_manager.decide", {"exception_id": exc["items"][0]["exception_id"], "decision": "Pay"})
        assert "closed" in answer["message"] and late.diff() == {}
    finally:
        store.drop(late.id)


def test_the_previous_day_report_carries_wells_sender_and_ties_out(env):
    parsed = bai2_io.parse_from_string(call(env, "reports.previous_day.get")["content"], check_integrity=True)
    assert parsed.header.sender_id == "WFBIUS6S"
    accounts = {a["account_number"] for a in call(env, "accounts.list")["items"]}
    assert {a.header.customer_account_number for a in parsed.children[0].children} == accounts


def test_pages_use_wells_words_and_offer_only_its_steps(client, env, episode):
    home = client.get(f"/{APP}/").get_data(as_text=True)
    for words in ("WELLS FARGO", "Vantage", "My Services", "Fraud Manager", "cc-card", "Available balance"):
        assert words in home, words
    page = client.get(f"/{APP}/positive-pay").get_data(as_text=True)
    assert "Fraud Manager" in page and "Payee Does Not Match" in page and ">Decide<" in page
    assert "Submit decisions" not in page and "Save decision" not in page
    first = call(env, "fraud_manager.exceptions.list")["items"][0]
    before = episode.snapshot()
    decided = post_form(client, f"/{APP}/positive-pay/exceptions/{first['exception_id']}/decide",
                        {"decision": "Pay", "reason": "Payee abbreviated"})
    body = decided.get_data(as_text=True)
    assert decided.status_code == 200 and "Pending human approval" in body and episode.snapshot() == before
    assert post_form(client, f"/{APP}/positive-pay/exceptions/{first['exception_id']}/decide",
                     {"decision": "Later"}).status_code == 422
    for gone in (f"/positive-pay/exceptions/{first['exception_id']}/decision", "/positive-pay/submit",
                 "/administration/entitlements"):
        assert post_form(client, f"/{APP}{gone}", {"decision": "Pay"}).status_code in (404, 405), gone
    approved = call(env, "payments.list", {"status": "Approved"})["items"][0]
    assert post_form(client, f"/{APP}/payments/{approved['payment_id']}/release", {}).status_code in (404, 405)
    assert "Release" not in client.get(f"/{APP}/payments/{approved['payment_id']}").get_data(as_text=True).split("<main")[1]
    users = client.get(f"/{APP}/administration/users").get_data(as_text=True)
    assert "ralbright@companyA.com" in users and "RALBRIG1" in users and "Request change" not in users
    assert Decimal(call(env, "accounts.list")["items"][0]["current_ledger"]) > 0
