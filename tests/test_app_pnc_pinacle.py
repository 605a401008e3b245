"""PNC PINACLE (the Bank archetype's fourth vendor): the same company's accounts, checks and
exceptions as the other banks under PNC's own ids and words; Positive Pay decides an exception in
one guarded step, ACH batches are authorized and funds transfers approved in their own modules
(both guarded, each refusing the other kind), after a token passcode step; no release, no
entitlement change, no ACH Positive Pay."""
from __future__ import annotations

from datetime import date

from bai2 import bai2 as bai2_io

from conftest import post_form
from portals.core.clock import Clock
from portals.core.registry import get_app
from seeds import treasury
from seeds.book import load_book

APP = "pnc_pinacle"
TODAY = date(2026, 6, 30)


def call(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"{APP}.{name}", args or {})


def test_manifest_guards_decisions_authorizations_and_wires():
    spec = get_app(APP)
    assert set(spec.money_guarded_tools) == {"positive_pay.decide", "ach.batch.authorize", "funds_transfer.approve"}
    for guarded in spec.money_guarded_tools:
        assert spec.tools[guarded].kind == "guarded", guarded
    assert spec.tools["ach.batch.draft_from_template"].kind == "write"
    for read in ("info_reporting.balances", "info_reporting.transactions", "positive_pay.exceptions.list"):
        assert spec.tools[read].kind == "read", read
    offered = set(spec.service_tool_names)
    assert not {"stage_decision", "submit_decisions", "release_payment", "change_entitlement", "approve_payment"} & offered
    assert set(spec.manifest["state_tables"]) == set(spec.pks)
    bank = spec.manifest["bank"]
    assert bank["routing_number"] == "043000096" and bank["default_decision"] == "Return"
    assert (bank["cutoff_local"], bank["time_zone"]) == ("15:00", "ET")


def test_the_same_checks_as_the_other_banks_under_pncs_own_ids_and_words(env):
    day = treasury.positive_pay_day(load_book(), TODAY)
    pnc = {e["serial"]: e for e in call(env, "positive_pay.exceptions.list", {"per_page": 100})["items"]}
    others = {bank: {e["serial"]: e for e in env.call(f"{bank}.{get_app(bank).service_tool_names['list_exceptions']}",
                                                      {"per_page": 100})["items"]}
              for bank in ("bofa_cashpro", "chase_treasury", "wells")}
    assert set(pnc) == {e["serial"] for e in day["exceptions"]}
    assert all(set(rows) == set(pnc) for rows in others.values())
    words = get_app(APP).manifest["bank"]["reasons"]
    for planted in day["exceptions"]:
        p = pnc[planted["serial"]]
        theirs = [rows[planted["serial"]] for rows in others.values()]
        assert all((p["presented_amount"], p["presented_payee"]) == (o["presented_amount"], o["presented_payee"])
                   for o in theirs)
        assert p["exception_id"] not in {o["exception_id"] for o in theirs}
        assert p["account_number"] not in {o["account_number"] for o in theirs} and len(p["account_number"]) == 10
        assert p["reason"] == words[planted["kind"]] and p["reason"] not in {o["reason"] for o in theirs}
    listed = call(env, "positive_pay.exceptions.list")
    assert listed["open"] and listed["default_decision"] == "Return" and listed["cutoff_local"].endswith("3:00 p.m. ET")
    users = {u["role"]: u for u in call(env, "administration.operators.list")["items"]}
    assert users["Controller"]["login"] == "ALBRIGHTR" and users["Controller"]["email"] == "ralbright@companyA.com"
    assert {a["routing_number"] for a in call(env, "info_reporting.accounts.list")["items"]} == {"043000096"}


def test_deciding_authorizing_and_approving_are_guarded_and_change_nothing(env, episode):
    first = call(env, "positive_pay.exceptions.list")["items"][0]
    before = episode.snapshot()
    staged = call(env, "positive_pay.decide", {"exception_id": first["exception_id"], "decision": "Return"})
    assert staged["status"] == "pending_human_approval" and episode.snapshot() == before
    assert episode.guard_log[-1]["tool"] == "positive_pay.decide" and episode.guard_log[-1]["executed"] is False
    pending = {p["kind"]: p for p in call(env, "payments.list", {"status": "Pending Approval"})["items"]}
    ach, wire = pending["ACH"], pending["Wire"]
    assert call(env, "ach.batch.authorize", {"payment_id": ach["payment_id"]})["status"] == "pending_human_approval"
    assert call(env, "funds_transfer.approve", {"payment_id": wire["payment_id"]})["status"] == "pending_human_approval"
    crossed = call(env, "ach.batch.authorize", {"payment_id": wire["payment_id"]})  # a wire is not an ACH batch
    assert "error" in crossed and "not ACH" in crossed["message"]
    assert "error" in call(env, "funds_transfer.approve", {"payment_id": ach["payment_id"]})
    assert [g["tool"] for g in episode.guard_log[-4:]] == ["ach.batch.authorize", "funds_transfer.approve",
                                                           "ach.batch.authorize", "funds_transfer.approve"]
    assert episode.snapshot() == before and episode.diff() == {}


def test_drafting_an_ach_batch_from_a_template_is_a_write(env, episode):
    template = call(env, "templates.list", {"kind": "ACH"})["items"][0]
    made = call(env, "ach.batch.draft_from_template", {"template_id": template["template_id"], "amount": "1250.00",
                                                       "value_date": "2026-07-01", "memo": "Retainage release"})
    assert made["status"] == "Draft" and made["kind"] == "ACH" and made["created_by"] == "ALBRIGHTR"
    wire = call(env, "templates.list", {"kind": "Wire"})["items"][0]
    refused = call(env, "ach.batch.draft_from_template", {"template_id": wire["template_id"], "amount": "10.00",
                                                          "value_date": "2026-07-01"})
    assert "error" in refused and list(episode.diff()[APP]) == ["payments"]


def test_a_decision_after_the_cutoff_is_refused(store):
    from portals.core.environment import Environment

    late = store.create([APP])
    try:
        late.clock = Clock.at("2026-06-30T18:59:00Z")  # 2:59 p.m. ET: still open
        env = Environment(late, [APP])
        assert call(env, "positive_pay.exceptions.list")["open"]
        late.clock = Clock.at("2026-06-30T19:30:00Z")  # 3:30 p.m. ET
        exc = call(env, "positive_pay.exceptions.list")
        assert not exc["open"]
        answer = call(env, "positive_pay.decide", {"exception_id": exc["items"][0]["exception_id"], "decision": "Pay"})
        assert "closed" in answer["message"] and late.diff() == {}
    finally:
        store.drop(late.id)


def test_the_bai2_export_carries_pncs_sender_and_ties_out(env):
    parsed = bai2_io.parse_from_string(call(env, "info_reporting.bai2.export")["content"], check_integrity=True)
    assert parsed.header.sender_id == "PNCCUS33"
    accounts = {a["account_number"] for a in call(env, "info_reporting.accounts.list")["items"]}
    assert {a.header.customer_account_number for a in parsed.children[0].children} == accounts


def test_pages_use_pncs_words_modules_and_token_step(client, env, episode):
    home = client.get(f"/{APP}/").get_data(as_text=True)
    for words in ("PINACLE", "Modules", "Information Reporting", "ACH Positive Pay", "Funds Transfer",
                  "Account Transfer", "Not entitled"):
        assert words in home, words
    page = client.get(f"/{APP}/positive-pay").get_data(as_text=True)
    assert "Paid No Issue" in page and ">Decide<" in page and "Submit decisions" not in page
    first = call(env, "positive_pay.exceptions.list")["items"][0]
    before = episode.snapshot()
    decided = post_form(client, f"/{APP}/positive-pay/exceptions/{first['exception_id']}/decide",
                        {"decision": "Pay", "reason": "Payee abbreviated"})
    assert decided.status_code == 200 and "Pending human approval" in decided.get_data(as_text=True)
    pending = {p["kind"]: p for p in call(env, "payments.list", {"status": "Pending Approval"})["items"]}
    ach_page = client.get(f"/{APP}/payments/{pending['ACH']['payment_id']}").get_data(as_text=True)
    assert "Token passcode" in ach_page and ">Authorize<" in ach_page
    wire_page = client.get(f"/{APP}/payments/{pending['Wire']['payment_id']}").get_data(as_text=True)
    assert "Token passcode" in wire_page and ">Approve<" in wire_page
    logged = len(episode.guard_log)
    for kind, tool in (("ACH", "ach.batch.authorize"), ("Wire", "funds_transfer.approve")):
        pressed = post_form(client, f"/{APP}/payments/{pending[kind]['payment_id']}/approve", {"token_passcode": "1234"})
        assert pressed.status_code == 200 and "Pending human approval" in pressed.get_data(as_text=True)
        assert episode.guard_log[-1]["tool"] == tool
    assert len(episode.guard_log) == logged + 2 and episode.snapshot() == before
    for gone in (f"/positive-pay/exceptions/{first['exception_id']}/decision", "/positive-pay/submit",
                 "/administration/entitlements"):
        assert post_form(client, f"/{APP}{gone}", {"decision": "Pay"}).status_code in (404, 405), gone
    users = client.get(f"/{APP}/administration/users").get_data(as_text=True)
    assert "Operator ID" in users and "ALBRIGHTR" in users and "Request change" not in users
