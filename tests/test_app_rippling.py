"""Rippling (the Payroll archetype's third vendor): the same company's workers, weeks, hours and
pay as FOUNDATION Payroll under Rippling's own worker ids and words; a payroll run goes Timesheets
-> Approve Timesheets -> Preview -> Approve, approving the run and changing a worker's bank
account are guarded, and there is no direct-deposit file or tax deposit to make (Rippling moves
the money)."""
from __future__ import annotations

import re
from decimal import Decimal

from conftest import post_form
from portals.core.clock import Clock
from portals.core.episode import build_template
from portals.core.registry import get_app
from seeds.book import load_book

APPS = ["rippling", "foundation_payroll"]
APP = "rippling"
LAST, PREVIOUS = "2026-06-27", "2026-06-20"


def call(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"{APP}.{name}", args or {})


def _worker(book=None) -> dict:
    """A worker on the last week's payroll."""
    book = book or load_book()
    on = sorted({t["worker_id"] for t in book["timecards"] if t["week_ending"] == LAST})
    return next(w for w in book["workers"] if w["worker_id"] == on[0])


def test_manifest_tools_guards_and_tables():
    spec = get_app(APP)
    assert set(spec.money_guarded_tools) == {"payroll_run.approve", "worker.bank_account.update"}
    for name, kind in (("workers.list", "read"), ("paystubs.list", "read"), ("projects.list", "read"),
                       ("time_entries.list", "read"), ("time_entries.create", "write"),
                       ("payroll_runs.list", "read"), ("payroll_run.preview", "read"),
                       ("payroll_run.approve", "guarded"), ("worker.bank_account.update", "guarded")):
        assert spec.tools[name].kind == kind, name
    # Rippling moves the money and files the taxes after Submit: no file or deposit of its own to make
    assert not {"create_direct_deposit_file", "make_tax_deposit"} & set(spec.service_tool_names)
    assert set(spec.manifest["state_tables"]) == set(spec.pks)
    for tool in spec.tools.values():
        text = tool.description + " ".join(p.description for p in tool.params)
        assert not re.search(r"\{[a-z_]+\}", text), tool.name  # every placeholder filled
    assert "Rippling worker id" in spec.tools["workers.get"].params[0].description


def test_seeded_from_the_same_book_under_rippling_ids():
    spec, clock, book = get_app(APP), Clock.at("2026-06-30T17:00:00Z"), load_book()
    first = build_template(spec, book, 7, clock)
    assert first.snapshot() == build_template(spec, book, 7, clock).snapshot()
    employees = first.rows("employees")
    assert set(employees) == {w["rippling_id"] for w in book["workers"]}
    assert all(re.fullmatch(r"[0-9a-f]{24}", no) for no in employees)
    assert len(first.rows("timecards")) == len(book["timecards"]) and len(first.rows("pay_runs")) == 8
    assert {r["pay_group"] for r in first.rows("pay_runs").values()} == {"Weekly"}


def test_the_same_pay_as_foundation_payroll(env):
    w = _worker()
    stubs = call(env, "paystubs.list", {"employee_no": w["rippling_id"]})
    fnd = env.call("foundation_payroll.employees.get", {"employee_no": w["foundation_employee"]})
    assert stubs["name"] == fnd["name"] and [s["period_end"] for s in stubs["items"]] == [c["period_end"] for c in fnd["checks"]]
    for s, c in zip(stubs["items"], fnd["checks"]):
        assert (s["gross"], s["net"], s["hours"]) == (c["gross"], c["net"], c["hours"])
    assert stubs["items"][0]["statement_status"] == "Preview" and stubs["items"][-1]["statement_status"] == "Final"
    last = stubs["items"][-1]
    assert sum(Decimal(e["earnings"]) for e in last["earnings"]) == Decimal(last["gross"])
    found = call(env, "workers.list", {"query": w["last_name"]})["items"]
    assert w["rippling_id"] in {x["employee_no"] for x in found}
    wd = load_book()["wage_determinations"][0]
    departments = call(env, "projects.list", {"query": wd["contract_number"]})["items"]
    assert [d["job_no"] for d in departments] == [wd["job"]]  # coded with the company's job numbers


def test_hours_import_and_the_run_goes_to_preview(env, episode):
    w = _worker()
    card = call(env, "time_entries.list", {"employee_no": w["rippling_id"], "period_end": LAST})["items"][0]
    rates = call(env, "projects.get", {"job_no": card["job_no"]})["rates"]
    other = next(r["class_code"] for r in rates if r["class_code"] != card["class_code"])
    appended = call(env, "time_entries.import", {
        "period_end": LAST, "lines": [f"{w['rippling_id']}|{card['job_no']}|{card['cost_code']}|{other}|0,2,2,0,0,0,0"]})
    assert appended["imported"] == 1 and appended["pay_run_status"] == "Open"
    assert "error" in call(env, "payroll_run.preview", {"period_end": LAST})
    assert call(env, "timesheets.approve", {"period_end": LAST})["status"] == "Proofed"
    assert call(env, "payroll_run.calculate", {"period_end": LAST})["status"] == "Calculated"
    assert call(env, "payroll_run.preview", {"period_end": LAST})["employees"] >= 1
    assert set(episode.diff()[APP]) >= {"timecards", "pay_runs"}


def test_bad_hours_are_refused_and_change_nothing(env, episode):
    before = episode.snapshot()
    w = _worker()
    for lines, words in (([f"NOBODY|{load_book()['wage_determinations'][0]['job']}|061000||8,8,8,8,8,0,0"], "no employee"),
                         ([f"{w['rippling_id']}|1042|061000||8,8"], "seven numbers"), ([], "no timecard lines")):
        answer = call(env, "time_entries.import", {"period_end": LAST, "lines": lines})
        assert "error" in answer and words in answer["message"].lower(), answer
    assert "error" in call(env, "time_entries.import", {"period_end": PREVIOUS, "lines": [
        f"{w['rippling_id']}|1042|061000||8,8,8,8,8,0,0"]})  # an approved run takes no more hours
    assert episode.snapshot() == before


def test_approving_and_changing_a_bank_account_are_guarded(env, episode):
    before = episode.snapshot()
    w = _worker()
    staged = call(env, "payroll_run.approve", {"period_end": LAST})
    assert staged["status"] == "pending_human_approval" and staged["staged"]["action"] == "finalize payroll"
    moved = call(env, "worker.bank_account.update", {"employee_no": w["rippling_id"], "routing_number": "121000248",
                                                   "account_number": "000123456789"})
    assert moved["status"] == "pending_human_approval" and moved["staged"]["account"] == "xxxx6789"
    bad = call(env, "worker.bank_account.update", {"employee_no": w["rippling_id"], "routing_number": "121000249",
                                                 "account_number": "000123456789"})
    assert "error" in bad and "routing number" in bad["message"]
    assert [g["tool"] for g in episode.guard_log] == ["payroll_run.approve", "worker.bank_account.update",
                                                      "worker.bank_account.update"]
    assert episode.guard_log[-1].get("refused") and episode.snapshot() == before


def test_pages_use_rippling_words_and_offer_only_its_steps(client, episode):
    home = client.get(f"/{APP}/").get_data(as_text=True)
    for words in ("rp-rail", "RIPPLING", "Payroll", "Time &amp; Attendance", "People", "Payroll Runs", "Timesheets"):
        assert words in home, words
    assert "FOUNDATION" not in home and "Timecard List" not in home and "Workforce Now" not in home
    cycle = client.get(f"/{APP}/payrolls/{LAST}").get_data(as_text=True)
    for words in ("fd-flow", "Timesheets", "Approve Timesheets", "Preview", "Approve Payroll"):
        assert words in cycle, words
    assert "Create Direct Deposit File" not in cycle and "Tax Deposit" not in cycle and "Union Deductions" not in cycle
    before = episode.snapshot()
    for gone in (f"/payrolls/{LAST}/dd-file", f"/payrolls/{LAST}/tax-deposit"):
        assert post_form(client, f"/{APP}{gone}", {}).status_code == 404, gone
    assert client.get(f"/{APP}/unions").status_code == 404 and client.get(f"/{APP}/tax-deposits").status_code == 404
    submitted = post_form(client, f"/{APP}/payrolls/{LAST}/finalize", {})
    assert submitted.status_code == 200 and "Pending human approval" in submitted.get_data(as_text=True)
    w = _worker()
    page = client.get(f"/{APP}/employees/{w['rippling_id']}").get_data(as_text=True)
    assert w["rippling_id"] in page
    assert "Paystubs" in page and "Bank Account" in page
    changed = post_form(client, f"/{APP}/employees/{w['rippling_id']}/pay-distribution",
                        {"routing_number": "121000248", "account_number": "55554444", "account_type": "Savings"})
    assert changed.status_code == 200 and "Pending human approval" in changed.get_data(as_text=True)
    refused = post_form(client, f"/{APP}/employees/{w['rippling_id']}/pay-distribution",
                        {"routing_number": "12", "account_number": "55554444"})
    assert refused.status_code == 422 and "Refused" in refused.get_data(as_text=True)
    assert episode.snapshot() == before and len(episode.guard_log) == 3


def test_foundation_payroll_keeps_its_own_words_and_steps(client):
    page = client.get(f"/foundation_payroll/payrolls/{LAST}").get_data(as_text=True)
    for words in ("Timecard List", "Job Hours Proofing", "Pre-Check Register", "Finalize Payroll",
                  "Create Direct Deposit File", "Make 941 Tax Deposit", "Union Deductions"):
        assert words in page, words
    assert "Pay Distributions" not in client.get("/foundation_payroll/employees").get_data(as_text=True)
