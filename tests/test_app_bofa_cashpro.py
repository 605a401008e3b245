"""Bank of America CashPro (the Bank archetype): accounts and balances that tie to the transactions,
BAI2 files that parse with the bai2 package with their control totals tied out, payment drafts
and the guarded approvals, the positive-pay issue files that tie to the ERP's check register and
round-trip through the upload, the day's check exceptions with staged decisions, and the guards."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from bai2 import bai2 as bai2_io
from bai2.constants import AsOfDateModifier

from conftest import post_form
from portals.core.clock import Clock
from portals.core.episode import build_template
from portals.core.registry import get_app
from seeds import treasury
from seeds.book import load_book

APP = "bofa_cashpro"
APPS = [APP]
TODAY = date(2026, 6, 30)


def call(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"{APP}.{name}", args or {})


def refused(env, name: str, args: dict) -> str:
    answer = call(env, name, args)
    assert "error" in answer, answer
    return answer["message"]


def operating(env) -> dict:
    return next(a for a in call(env, "accounts.list")["items"] if a["positive_pay"] != "None")


def test_manifest_tools_and_tables():
    spec = get_app(APP)
    assert set(spec.money_guarded_tools) == {"payments.approve", "payments.release", "positive_pay.decision.submit",
                                             "admin.entitlements.change"}
    assert set(spec.manifest["state_tables"]) == set(spec.pks)
    assert {"balances.get", "transactions.search", "reports.bai2.download", "positive_pay.exceptions.list",
            "payments.wire.draft"} <= set(spec.tools)
    assert spec.tools["positive_pay.decision.stage"].kind == "write"


def test_seeding_is_byte_identical_and_dense():
    spec, clock = get_app(APP), Clock.at("2026-06-30T17:00:00Z")
    first = build_template(spec, load_book(), 7, clock)
    assert first.snapshot() == build_template(spec, load_book(), 7, clock).snapshot()
    assert len(first.rows("transactions")) >= 1000 and len(first.rows("issued_checks")) >= 500
    assert len(first.rows("issue_files")) >= 50 and len(first.rows("check_exceptions")) == 9


def test_balances_tie_to_the_transactions(env):
    for account in call(env, "accounts.list")["items"]:
        day = call(env, "balances.get", {"account": account["account_number"], "as_of_date": "2026-06-29"})["items"][0]
        rows, page = [], 1
        while True:
            chunk = call(env, "transactions.search", {"account": account["account_number"], "date_from": "2026-06-29",
                                                      "date_to": "2026-06-29", "per_page": 100, "page": page})
            rows += chunk["items"]
            if page >= (chunk["pages"] or 1):
                break
            page += 1
        credits = sum((Decimal(t["amount"]) for t in rows if t["direction"] == "credit"), Decimal(0))
        debits = sum((Decimal(t["amount"]) for t in rows if t["direction"] == "debit"), Decimal(0))
        assert Decimal(day["closing_ledger"]) == Decimal(day["opening_ledger"]) + credits - debits
        assert Decimal(day["total_credits"]) == credits and day["debit_count"] == sum(t["direction"] == "debit" for t in rows)
        assert Decimal(account["previous_day_closing_ledger"]) == Decimal(day["closing_ledger"])
    assert "future" in refused(env, "balances.get", {"as_of_date": "2026-07-02"})
    assert refused(env, "balances.get", {"account": "0000"})


def test_transactions_search_filters_and_sorts(env):
    ops = operating(env)
    checks = call(env, "transactions.search", {"account": ops["account_masked"][-4:], "type_code": "475",
                                               "sort": "-amount", "per_page": 5})
    amounts = [Decimal(t["amount"]) for t in checks["items"]]
    assert checks["total"] > 300 and amounts == sorted(amounts, reverse=True)
    serial = checks["items"][0]["customer_reference"]
    assert [t["customer_reference"] for t in call(env, "transactions.search", {"reference": serial})["items"]] == [serial]
    intraday = call(env, "transactions.search", {"report": "intraday", "per_page": 100})["items"]
    assert intraday and {t["posted_date"] for t in intraday} == {TODAY.isoformat()}
    assert {t["status"] for t in intraday} == {"Intraday"}
    prev = call(env, "transactions.search", {"report": "previous_day", "per_page": 100})["items"]
    assert {t["posted_date"] for t in prev} == {"2026-06-29"}
    big = call(env, "transactions.search", {"amount_min": "1000000.00", "per_page": 100})["items"]
    assert big and all(Decimal(t["amount"]) >= 1000000 for t in big)
    assert "not a BAI2 type code" in refused(env, "transactions.search", {"type_code": "999"})
    assert refused(env, "transactions.search", {"date_from": "2026-06-30", "date_to": "2026-06-01"})


@pytest.mark.parametrize("report", ["previous_day", "intraday"])
def test_bai2_files_parse_with_the_bai2_package_and_their_control_totals_tie_out(env, report):
    found = call(env, "reports.bai2.download", {"report": report})
    parsed = bai2_io.parse_from_string(found["content"], check_integrity=True)  # raises on a bad total or count
    (group,) = parsed.children
    assert parsed.header.sender_id == "BOFAUS3N" and parsed.trailer.number_of_groups == 1
    assert group.header.as_of_date == (TODAY if report == "intraday" else date(2026, 6, 29))
    assert group.header.as_of_date_modifier == (AsOfDateModifier.interim_same_day if report == "intraday"
                                                else AsOfDateModifier.final_previous_day)
    assert group.trailer.group_control_total == sum(a.trailer.account_control_total for a in group.children)
    assert parsed.trailer.file_control_total == group.trailer.group_control_total
    balances = {b["account_number"]: b for b in call(env, "balances.get", {"as_of_date": group.header.as_of_date.isoformat()})["items"]}
    assert {a.header.customer_account_number for a in group.children} == set(balances)
    for account in group.children:
        b = balances[account.header.customer_account_number]
        summary = {s.type_code.code: s for s in account.header.summary_items}
        details = account.children
        credits = sum(t.amount for t in details if t.type_code.transaction.value == "credit")
        debits = sum(t.amount for t in details if t.type_code.transaction.value == "debit")
        assert summary["100"].amount == credits and summary["100"].item_count == b["credit_count"]
        assert summary["400"].amount == debits and summary["400"].item_count == b["debit_count"]
        closing = "030" if report == "intraday" else "015"
        assert summary[closing].amount == round(Decimal(b["closing_ledger"]) * 100)
        assert summary["040"].amount + credits - debits == summary[closing].amount
        assert account.trailer.account_control_total == sum(s.amount for s in account.header.summary_items) + \
            sum(t.amount for t in details)
    # one account, an earlier day; a weekend and today are refused for the previous-day report
    one = call(env, "reports.bai2.download", {"report": "previous_day", "as_of_date": "2026-06-15",
                                              "account": operating(env)["account_number"]})
    assert len(bai2_io.parse_from_string(one["content"]).children[0].children) == 1
    assert "Saturday" in refused(env, "reports.bai2.download", {"as_of_date": "2026-06-27"})
    assert refused(env, "reports.bai2.download", {"as_of_date": TODAY.isoformat()})


@pytest.mark.parametrize("erp_app", ["sage_intacct", "vista_erp"])
def test_the_issue_files_tie_to_the_erps_check_register(store, env, erp_app):
    """Every check the ERP wrote in the bank's year (Intacct's payments, Vista's AP Payment
    History) is on an issue record with its number, date, amount and payee; a voided check is
    Void, and its replacement has a new number."""
    book = load_book()
    legal = {v["vendor_id"]: v["legal_name"] for v in book["vendors"]}
    erp = store.template(erp_app)
    vendors = {r["vendor_key"]: r["canonical_id"] for r in erp.rows("vendors").values()}
    issued = {r["serial"]: r for r in store.template(APP).rows("issued_checks").values()}
    first = min(r["issue_date"] for r in issued.values())
    checks = [p for p in erp.rows("payments").values() if p["method"] == "Check" and p["payment_date"] >= first]
    assert len(checks) == len(issued) > 500
    for p in checks:
        r = issued[p["document_number"]]
        assert (r["issue_date"], r["amount"], r["payee"]) == (p["payment_date"], p["amount"], legal[vendors[p["vendor_key"]]])
        assert (r["status"] == "Void") == (p["state"] == "voided")
    register = treasury.disbursements(book, TODAY)
    reissued = [p for p in register if p["reissue_of"]]
    assert reissued and all(p["number"] != p["reissue_of"] for p in reissued)
    assert all(issued[p["number"]]["status"] != "Void" for p in reissued if p["number"] in issued)


def test_the_days_exceptions_are_the_planted_ones(env):
    day = treasury.positive_pay_day(load_book(), TODAY)
    listed = call(env, "positive_pay.exceptions.list", {"per_page": 100})
    assert listed["open"] and listed["default_decision"] == "Return" and listed["cutoff_local"].endswith("2:00 p.m. ET")
    by_serial = {e["serial"]: e for e in listed["items"]}
    assert set(by_serial) == {e["serial"] for e in day["exceptions"]}
    for planted in day["exceptions"]:
        e = by_serial[planted["serial"]]
        assert Decimal(e["presented_amount"]) == planted["amount"] and e["presented_payee"] == planted["payee"]
        assert e["decision"] is None and e["status"] == "Open"
        if planted["kind"] == "not_issued":
            assert e["issued"] is None and e["reason"] == "No issue record"
        elif planted["kind"] == "duplicate":
            got = call(env, "positive_pay.exceptions.get", {"exception_id": e["exception_id"]})
            assert e["issued"]["status"] == "Paid" and len(got["earlier_payments"]) == 1
        elif planted["kind"] == "amount_transposed":
            assert e["issued"]["amount"] != e["presented_amount"] and sorted(e["issued"]["amount"]) == sorted(e["presented_amount"])
        elif planted["kind"] in ("payee_truncated", "payee_abbreviated"):
            assert e["issued"]["amount"] == e["presented_amount"] and e["reason"] == "Payee name mismatch"
        elif planted["kind"] == "issue_loaded_twice":  # its run's issue file was loaded twice
            assert e["reason"] == "Duplicate issue record" and e["issued"]["amount"] == e["presented_amount"]
            records = call(env, "positive_pay.issued_checks.search", {"serial": planted["serial"]})["items"]
            assert len(records) == 2 and len({r["file_id"] for r in records}) == 2
            files = call(env, "positive_pay.issue_files.list", {"per_page": 100})["items"]
            names = [f["name"] for f in files if f["file_id"] in {r["file_id"] for r in records}]
            assert len(names) == 2 and names[0] == names[1] == f"ISSUE_{day['loaded_twice']['run'].replace('-', '')}.csv"
            texts = {call(env, "positive_pay.issue_file.download", {"file_id": r["file_id"]})["content"] for r in records}
            assert len(texts) == 1  # the same file, loaded twice
    # presented checks that matched are paid today, and none of the exceptions is
    paid_today = {t["customer_reference"] for t in call(env, "transactions.search", {"report": "intraday", "type_code": "475",
                                                                                     "per_page": 100})["items"]}
    assert paid_today and not paid_today & set(by_serial)


def test_a_staged_decision_is_a_write_and_submitting_is_guarded(env, episode):
    items = call(env, "positive_pay.exceptions.list")["items"]
    before = episode.snapshot()
    staged = call(env, "positive_pay.decision.stage", {"exception_id": items[0]["exception_id"], "decision": "Return",
                                                       "reason": "Not on the register"})
    assert staged["decision"] == "Return" and staged["status"] == "Open"
    assert len(episode.diff()[APP]["check_exceptions"]["changed"]) == 1
    assert list(episode.diff()[APP]) == ["check_exceptions"]
    assert call(env, "positive_pay.exceptions.list", {"decision": "Return"})["total"] == 1
    assert call(env, "positive_pay.exceptions.list", {"decision": "Undecided"})["total"] == len(items) - 1
    after_stage = episode.snapshot()
    submitted = call(env, "positive_pay.decision.submit", {})
    assert submitted["status"] == "pending_human_approval" and episode.snapshot() == after_stage
    assert submitted["staged"]["decisions"] == [{"serial": items[0]["serial"], "decision": "Return"}]
    assert episode.guard_log[-1]["tool"] == "positive_pay.decision.submit" and episode.guard_log[-1]["executed"] is False
    for bad in ({"exception_id": items[0]["exception_id"], "decision": "Maybe"}, {"exception_id": 1, "decision": "Pay"}):
        refused(env, "positive_pay.decision.stage", bad)
    assert before != after_stage


def test_decisions_after_the_cutoff_are_refused(store):
    from portals.core.environment import Environment

    late = store.create([APP])
    try:
        late.clock = Clock.at("2026-06-30T18:30:00Z")
        env = Environment(late, [APP])
        exc = call(env, "positive_pay.exceptions.list")
        assert not exc["open"]
        assert "closed" in refused(env, "positive_pay.decision.stage", {"exception_id": exc["items"][0]["exception_id"],
                                                                         "decision": "Pay"})
        assert late.diff() == {}
    finally:
        store.drop(late.id)


def test_a_positive_pay_issue_file_round_trips_through_the_upload(client, env, episode):
    ops = operating(env)
    text = ("Account Number,Check Number,Issue Date,Amount,Payee,Action\n"
            f"{ops['account_number']},49001,2026-06-30,1250.00,\"Test Payee One, LLC\",I\n"
            f"{ops['account_number']},49002,2026-06-30,980.15,Test Payee Two,I\n")
    response = post_form(client, f"/{APP}/positive-pay/issue-files", {"file_name": "ISSUE_TEST.csv", "content": text})
    assert response.status_code == 302
    uploaded = call(env, "positive_pay.issue_files.list", {"sort": "-uploaded_at", "per_page": 1})["items"][0]
    assert uploaded["name"] == "ISSUE_TEST.csv" and uploaded["records"] == 2 and uploaded["issued_total"] == "2230.15"
    download = client.get(f"/{APP}/positive-pay/issue-files/{uploaded['file_id']}/download")
    assert download.status_code == 200 and download.get_data(as_text=True) == text
    assert call(env, "positive_pay.issued_checks.search", {"serial": "49002"})["items"][0]["status"] == "Outstanding"
    # the same file again, a check already issued, a bad line: nothing loaded
    before = episode.snapshot()
    assert "already loaded" in refused(env, "positive_pay.issue_file.upload", {"file_name": "again.csv", "content": text})
    assert "already on an issue record" in refused(env, "positive_pay.issue_file.upload", {
        "file_name": "x.csv", "content": text.replace("980.15", "980.16")})
    assert "Line 2" in refused(env, "positive_pay.issue_file.upload", {"file_name": "x.csv",
                                                                       "content": text.replace("1250.00", "12.5.0")})
    assert "header" in refused(env, "positive_pay.issue_file.upload", {"file_name": "x.csv", "content": "a,b\n1,2\n"})
    bad = post_form(client, f"/{APP}/positive-pay/issue-files", {"file_name": "x.csv", "content": "nonsense"})
    assert bad.status_code == 422 and episode.snapshot() == before
    # a seeded file downloads as it was loaded and is refused when loaded again
    seeded = call(env, "positive_pay.issue_files.list", {"sort": "uploaded_at", "per_page": 1})["items"][0]
    content = call(env, "positive_pay.issue_file.download", {"file_id": seeded["file_id"]})["content"]
    assert content.count("\n") == seeded["records"] + 1
    assert "already loaded" in refused(env, "positive_pay.issue_file.upload", {"file_name": "x.csv", "content": content})


def test_a_draft_is_a_write_and_approving_or_releasing_is_guarded(env, episode):
    wire = call(env, "payments.templates.list", {"kind": "Wire"})["items"][0]
    ach = call(env, "payments.templates.list", {"kind": "ACH"})["items"][0]
    made = call(env, "payments.wire.draft", {"template_id": wire["template_id"], "amount": "2500.00",
                                             "value_date": "2026-07-01", "memo": "Test"})
    assert made["status"] == "Draft" and made["beneficiary"] == wire["beneficiary"]
    assert list(episode.diff()[APP]) == ["payments"]
    assert "ACH template" in refused(env, "payments.wire.draft", {"template_id": ach["template_id"], "amount": "1.00",
                                                                  "value_date": "2026-07-01"})
    assert "Saturday" in refused(env, "payments.ach.draft", {"template_id": ach["template_id"], "amount": "1.00",
                                                             "value_date": "2026-07-04"})
    assert "past" in refused(env, "payments.ach.draft", {"template_id": ach["template_id"], "amount": "1.00",
                                                         "value_date": "2026-06-01"})
    before = episode.snapshot()
    queue = call(env, "payments.list", {"status": "Pending Approval"})["items"]
    assert queue and call(env, "payments.approve", {"payment_id": queue[0]["payment_id"]})["status"] == "pending_human_approval"
    approved = call(env, "payments.list", {"status": "Approved"})["items"][0]
    assert call(env, "payments.release", {"payment_id": approved["payment_id"]})["status"] == "pending_human_approval"
    assert "only an approved payment" in refused(env, "payments.release", {"payment_id": made["payment_id"]})
    assert "pending approval" in refused(env, "payments.approve", {"payment_id": made["payment_id"]})
    assert episode.snapshot() == before and [g["tool"] for g in episode.guard_log] == \
        ["payments.approve", "payments.release", "payments.release", "payments.approve"]
    released = call(env, "payments.list", {"status": "Released", "kind": "ACH", "per_page": 100})
    assert released["total"] >= 40  # one ACH batch per payment date, each the day's settlement debit


def test_released_ach_batches_are_the_settlement_debits(env):
    batches = call(env, "payments.list", {"status": "Released", "kind": "ACH", "per_page": 100})["items"]
    debits = {t["posted_date"]: t["amount"] for t in call(env, "transactions.search",
                                                          {"type_code": "469", "per_page": 100})["items"]}
    assert {b["value_date"]: b["amount"] for b in batches} == {d: a for d, a in debits.items()
                                                              if d in {b["value_date"] for b in batches}}


def test_entitlement_changes_are_guarded(env, episode):
    users = call(env, "admin.users.list")["items"]
    assert users and all(u["entitlements"] for u in users)
    staged = call(env, "admin.entitlements.change", {"login": "DPRUITT", "service_name": "Payments", "permission": "Release"})
    assert staged["status"] == "pending_human_approval" and episode.diff() == {}
    assert "already has" in refused(env, "admin.entitlements.change", {"login": "DPRUITT", "service_name": "Payments",
                                                                       "permission": "Create"})


def test_pages_use_cashpros_words_and_answer_bad_input_clearly(client, env, episode):
    home = client.get(f"/{APP}/").get_data(as_text=True)
    for words in ("Accounts", "Payments", "Fraud Protection", "Administration", "Account Balances"):
        assert words in home
    exc = client.get(f"/{APP}/positive-pay").get_data(as_text=True)
    assert "Decisions are due by" in exc and "Submit decisions" in exc and "Payee name mismatch" in exc
    bai = client.get(f"/{APP}/reports/bai2?report=previous_day")
    assert bai.status_code == 200 and bai.data.startswith(b"01,")
    assert client.get(f"/{APP}/reports/bai2?report=previous_day&as_of_date=2026-06-27").status_code == 422
    first = call(env, "positive_pay.exceptions.list")["items"][0]
    ok = post_form(client, f"/{APP}/positive-pay/exceptions/{first['exception_id']}/decision",
                   {"decision": "Pay", "reason": "Payee abbreviated"})
    assert ok.status_code == 302 and "Pay (saved)" in client.get(ok.headers["Location"]).get_data(as_text=True)
    again = post_form(client, f"/{APP}/positive-pay/exceptions/{first['exception_id']}/decision?done=staged"
                      f"&presented_date=2026-06-30", {"decision": "Return"})  # posted from the page a save led to
    assert again.status_code == 302 and "presented_date=2026-06-30" in again.headers["Location"]
    assert post_form(client, f"/{APP}/positive-pay/exceptions/{first['exception_id']}/decision",
                     {"decision": "Later"}).status_code == 422
    wire = call(env, "payments.templates.list", {"kind": "Wire"})["items"][0]
    assert post_form(client, f"/{APP}/payments/new", {"template_id": str(wire["template_id"]), "amount": "abc",
                                                      "value_date": "2026-07-01"}).status_code == 422
    assert client.get(f"/{APP}/payments/1").status_code == 404
    assert client.get(f"/{APP}/positive-pay/exceptions/1").status_code == 404
    for url in ("/transactions?sort=-amount", "/payments?status=Released", "/payments/templates?kind=ACH",
                "/positive-pay/issued-checks?status=Void", "/positive-pay/issue-files", "/payments/approvals",
                "/administration/users", "/reports?as_of_date=2026-06-15"):
        assert client.get(f"/{APP}{url}").status_code == 200, url
    hx = client.get(f"/{APP}/transactions?type_code=475&sort=-amount", headers={"HX-Request": "true", "HX-Target": "results"})
    assert hx.get_data(as_text=True).lstrip().startswith('<section id="results"')
