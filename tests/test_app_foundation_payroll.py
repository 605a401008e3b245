"""FOUNDATION Payroll: the payroll source of the certified payroll LCPtracker imports. Employees,
crafts and classes, unions and fringes, jobs with their prevailing-wage rates, timecards by job,
phase and class, the pay run (Timecard List -> Job Hours Proofing -> Pre-Check Register), the
registers, the Certified Payroll PDF, and the guarded finalize, direct-deposit file and 941 deposit."""
from __future__ import annotations

import base64
import io
from decimal import ROUND_HALF_UP, Decimal

from pypdf import PdfReader

from conftest import post_form
from portals.core.clock import Clock
from portals.core.episode import build_template
from portals.core.registry import get_app
from seeds.book import load_book

APPS = ["foundation_payroll"]
APP = "foundation_payroll"
LAST, PREVIOUS, EARLIER = "2026-06-27", "2026-06-20", "2026-06-13"


def t(name: str) -> str:
    return f"{APP}.{name}"


def refused(env, tool: str, args: dict) -> str:
    answer = env.call(t(tool), args)
    assert "error" in answer, answer
    return answer["message"]


def _workers():
    return {w["worker_id"]: w for w in load_book()["workers"]}


def _jobs():
    return {j["job"]: j for j in load_book()["jobs"]}


def test_manifest_tools_and_tables():
    spec = get_app(APP)
    assert spec.kind == "payroll" and set(spec.money_guarded_tools) == {
        "payroll.finalize", "direct_deposit.create_file", "tax.941.deposit"}
    assert set(spec.manifest["state_tables"]) == set(spec.pks)
    assert {"employees.list", "timecards.import", "payroll.calculate", "reports.pre_check_register",
            "reports.union_fringe_register", "reports.certified_payroll"} <= set(spec.tools)


def test_seeding_is_byte_identical_and_dense():
    spec, clock, book = get_app(APP), Clock.at("2026-06-30T17:00:00Z"), load_book()
    first = build_template(spec, book, 7, clock)
    assert first.snapshot() == build_template(spec, book, 7, clock).snapshot()
    assert len(first.rows("employees")) == len(book["workers"]) == 320
    assert len(first.rows("timecards")) == len(book["timecards"]) >= 800
    assert len(first.rows("pay_runs")) == 8


def test_it_is_the_payroll_source_of_every_certified_record(episode):
    """Every book timecard (what LCPtracker imported) is a timecard here under the product's own
    employee number and job number, with the same days, hours, rates, fringe and earnings, and the
    week's check carries the same FICA, withholding and net."""
    book, workers, jobs = load_book(), _workers(), _jobs()
    conn = episode.app(APP).conn
    runs = {r[0]: r[1] for r in conn.execute("SELECT pay_run_id, period_end FROM pay_runs")}
    cards = {(runs[r[0]], r[1], r[2]): r[3:] for r in conn.execute(
        "SELECT pay_run_id, employee_no, job_no, daily_hours, reg_hours, ot_hours, reg_rate, ot_rate, "
        "fringe_plan_rate, fringe_cash_rate, earnings, certified_class FROM timecards")}
    checks = {(runs[r[0]], r[1]): r[2:] for r in conn.execute(
        "SELECT pay_run_id, employee_no, gross, fica, federal_wh, net FROM checks")}
    assert len(cards) == len(book["timecards"])
    for tc in book["timecards"]:
        w, j = workers[tc["worker_id"]], jobs[tc["job"]]
        got = cards[(tc["week_ending"], w["foundation_employee"], j["foundation_job"])]
        assert got[0] == ",".join(tc["hours"]), tc
        assert [Decimal(v) for v in got[1:8]] == [Decimal(tc[k]) for k in (
            "st_hours", "ot_hours", "st_rate", "ot_rate", "fringe_plan", "fringe_cash", "gross")], tc
        assert [Decimal(v) for v in checks[(tc["week_ending"], w["foundation_employee"])]] == [
            Decimal(tc[k]) for k in ("gross", "fica", "withholding", "net")], tc
    assert not {k[1] for k in cards} & set(workers)  # the product's employee numbers, not the company's ids


def test_jobs_carry_foundation_numbers_and_the_wage_determination(env):
    book = load_book()
    wd = next(w for w in book["wage_determinations"] if w["job"] == "2041")
    job_no = _jobs()["2041"]["foundation_job"]
    assert job_no != "2041"
    found = env.call(t("jobs.list"), {"query": wd["contract_number"]})["items"]
    assert [j["job_no"] for j in found] == [job_no]
    job = env.call(t("jobs.get"), {"job_no": job_no})
    carp = next(r for r in job["rates"] if r["class_code"] == "CARP-J")
    book_j = next(r for r in wd["rates"] if r["craft"] == "CARP" and r["level"] == "J")
    assert (Decimal(carp["base_rate"]), Decimal(carp["fringe_rate"]), carp["classification"]) == (
        Decimal(book_j["base"]), Decimal(book_j["fringe"]), "Carpenter")
    assert job["certified"] and len(job["payrolls"]) == 8
    assert "no job" in refused(env, "jobs.get", {"job_no": "2041"})
    assert env.call(t("jobs.list"), {"certified": True, "per_page": 100})["total"] == len(book["wage_determinations"])


def test_employees_search_filter_sort_and_detail(env):
    w = load_book()["workers"][0]
    found = env.call(t("employees.list"), {"query": w["foundation_employee"]})["items"]
    assert [e["employee_no"] for e in found] == [w["foundation_employee"]] and found[0]["ssn_last4"] == w["ssn"][-4:]
    carps = env.call(t("employees.list"), {"craft": "CARP", "per_page": 100, "sort": "-employee_no"})
    assert carps["total"] > 20 and all(e["craft"] == "CARP" for e in carps["items"])
    assert [e["employee_no"] for e in carps["items"]] == sorted((e["employee_no"] for e in carps["items"]), reverse=True)
    union = env.call(t("unions.list"), {})["items"][0]
    members = env.call(t("employees.list"), {"union_code": union["union_code"], "per_page": 100})
    assert members["total"] == union["members"] > 0
    assert sum(union["fringe_split"].values()) == 100
    assert "Level must be" in refused(env, "employees.list", {"level": "X"})
    some = next(tc for tc in load_book()["timecards"] if tc["week_ending"] == LAST)
    no = _workers()[some["worker_id"]]["foundation_employee"]
    detail = env.call(t("employees.get"), {"employee_no": no})
    assert detail["checks"][0]["period_end"] == LAST and detail["timecards"]
    crafts = env.call(t("crafts.list"), {})["items"]
    assert {c["craft"] for c in crafts} == {"CARP", "LAB", "ELEC", "OPER", "IRON", "CEMT", "PLUM"}


def test_timecard_list_filters_and_sorts(env):
    job_no = _jobs()["3100"]["foundation_job"]
    book = [tc for tc in load_book()["timecards"] if tc["job"] == "3100" and tc["week_ending"] == LAST]
    rows = env.call(t("timecards.list"), {"period_end": LAST, "job_no": job_no, "per_page": 100})
    assert rows["total"] == len(book)
    top = env.call(t("timecards.list"), {"period_end": LAST, "job_no": job_no, "sort": "-earnings", "per_page": 3})
    assert [Decimal(r["earnings"]) for r in top["items"]] == sorted((Decimal(tc["gross"]) for tc in book), reverse=True)[:3]
    assert "Saturday" in refused(env, "timecards.list", {"period_end": "2026-06-26"})
    assert "no payroll" in refused(env, "timecards.list", {"period_end": "2026-01-03"})


def _a_card(env, period: str = LAST) -> dict:
    return env.call(t("timecards.list"), {"period_end": period, "per_page": 1})["items"][0]


def test_the_pay_run_flow_timecards_proofing_pre_check(env, episode):
    """Correcting a timecard reopens the payroll; the pre-check register needs proofed hours; the
    recalculated register follows the corrected hours; nothing is finalized or paid."""
    run = env.call(t("payrolls.get"), {"period_end": LAST})
    assert run["status"] == "Calculated" and run["checks"] > 0 and run["tax_deposit"] is None
    before = env.call(t("reports.pre_check_register"), {"period_end": LAST})
    card = _a_card(env)
    fixed = env.call(t("timecards.update"), {"timecard_id": card["timecard_id"], "daily_hours": "0,10,10,10,10,10,0"})
    assert Decimal(fixed["reg_hours"]) == 40 and Decimal(fixed["ot_hours"]) == 10 and fixed["pay_run_status"] == "Open"
    expected = (Decimal(40) * Decimal(card["reg_rate"]) + Decimal(10) * Decimal(card["ot_rate"])).quantize(Decimal("0.01"))
    assert Decimal(fixed["earnings"]) == expected
    assert "not been run" in refused(env, "reports.pre_check_register", {"period_end": LAST})
    assert "Proof job hours" in refused(env, "payroll.calculate", {"period_end": LAST})
    proofing = env.call(t("payroll.job_hours_proofing"), {"period_end": LAST})
    assert proofing["status"] == "Proofed" and proofing["lines"]
    assert sum(Decimal(l["earnings"]) for l in proofing["lines"]) == Decimal(proofing["total_earnings"])
    register = env.call(t("payroll.calculate"), {"period_end": LAST})
    assert register["status"] == "Calculated" and register["employees"] == before["employees"]
    mine = next(c for c in register["checks"] if c["employee_no"] == card["employee_no"])
    assert Decimal(mine["gross"]) == expected and mine["check_number"] is None
    others = {c["employee_no"]: c for c in before["checks"] if c["employee_no"] != card["employee_no"]}
    assert all(others[c["employee_no"]] == c for c in register["checks"] if c["employee_no"] in others)
    diff = episode.diff()[APP]
    assert set(diff) <= {"timecards", "checks", "pay_runs"}
    assert env.call(t("payrolls.get"), {"period_end": LAST})["status"] == "Calculated"


def test_bad_timecards_are_refused_and_nothing_changes(env, episode):
    card = _a_card(env)
    job_no = card["job_no"]
    for args, says in [({"period_end": LAST, "employee_no": "00000", "job_no": job_no, "cost_code": "061000",
                         "daily_hours": "0,8,8,8,8,8,0"}, "no employee"),
                       ({"period_end": LAST, "employee_no": card["employee_no"], "job_no": job_no, "cost_code": "061000",
                         "daily_hours": "8,8"}, "seven numbers"),
                       ({"period_end": LAST, "employee_no": card["employee_no"], "job_no": job_no, "cost_code": "61",
                         "daily_hours": "0,8,8,8,8,8,0"}, "six digits"),
                       ({"period_end": LAST, "employee_no": card["employee_no"], "job_no": job_no, "cost_code": "061000",
                         "daily_hours": "0,8,8,30,8,8,0"}, "0 to 24"),
                       ({"period_end": LAST, "employee_no": card["employee_no"], "job_no": job_no, "cost_code": "061000",
                         "class_code": card["class_code"], "daily_hours": "0,8,8,8,8,8,0"}, "already has a timecard"),
                       ({"period_end": PREVIOUS, "employee_no": card["employee_no"], "job_no": job_no,
                         "cost_code": "061000", "daily_hours": "0,8,8,8,8,8,0"}, "finalized")]:
        assert says in refused(env, "timecards.create", args), says
    old = _a_card(env, PREVIOUS)
    assert "finalized" in refused(env, "timecards.update", {"timecard_id": old["timecard_id"], "daily_hours": "0,1,1,1,1,1,0"})
    assert "Line 2" in refused(env, "timecards.import", {"period_end": LAST, "lines": [
        f"{card['employee_no']}|{job_no}|061000|CARP-A1|0,8,8,8,8,8,0", "nonsense"]})
    assert episode.diff() == {}


def test_import_enters_timecards_all_or_none(env, episode):
    book, workers = load_book(), _workers()
    on_cards = {tc["worker_id"] for tc in book["timecards"]}
    idle = next(w for w in book["workers"] if w["worker_id"] not in on_cards and w["level"] == "J")
    job_no = _jobs()["1042"]["foundation_job"]
    done = env.call(t("timecards.import"), {"period_end": LAST, "lines": [
        f"{idle['foundation_employee']}||312300||0,8,8,8,8,8,4".replace("||312300", f"|{job_no}|312300")]})
    assert done["imported"] == 1 and done["pay_run_status"] == "Open"
    made = env.call(t("timecards.get"), {"timecard_id": done["timecard_ids"][0]})
    assert made["class_code"] == f"{idle['craft']}-J" and Decimal(made["reg_hours"]) == 40 and Decimal(made["ot_hours"]) == 4
    assert made["source"] == "Entered" and workers[idle["worker_id"]]["foundation_employee"] == made["employee_no"]


def test_registers_add_up(env):
    register = env.call(t("reports.pre_check_register"), {"period_end": PREVIOUS})
    assert register["status"] == "Finalized" and all(c["check_number"] for c in register["checks"])
    totals = register["totals"]
    assert Decimal(totals["gross"]) - Decimal(totals["fica"]) - Decimal(totals["federal_wh"]) == Decimal(totals["net"])
    deposit = env.call(t("payrolls.get"), {"period_end": PREVIOUS})["tax_deposit"]
    assert deposit["liability"] == register["tax_liability"] and deposit["status"] == "Due"
    fringes = env.call(t("reports.union_fringe_register"), {"period_end": PREVIOUS})["unions"]
    assert fringes
    for u in fringes:
        for m in u["members"]:
            assert Decimal(m["health_welfare"]) + Decimal(m["pension"]) + Decimal(m["training"]) == Decimal(m["total"])
            assert Decimal(m["total"]) == (Decimal(m["hours"]) * Decimal(m["fringe_rate"])).quantize(Decimal("0.01"), ROUND_HALF_UP)
    wc = env.call(t("reports.workers_comp_register"), {"period_end": PREVIOUS})
    assert Decimal(wc["total_wages"]) == Decimal(totals["gross"])
    assert "no union" in refused(env, "reports.union_fringe_register", {"period_end": PREVIOUS, "union_code": "X"})


def test_certified_payroll_is_a_pdf_that_reads_back_as_lcptracker_imported_it(env):
    book, workers = load_book(), _workers()
    job = _jobs()["2014"]
    wd = next(w for w in book["wage_determinations"] if w["job"] == "2014")
    report = env.call(t("reports.certified_payroll"), {"job_no": job["foundation_job"], "period_end": LAST})
    data = base64.b64decode(report["content_base64"])
    assert data.startswith(b"%PDF")
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)
    assert job["foundation_job"] in text and wd["contract_number"] in text and "STATEMENT OF COMPLIANCE" in text
    cards = [tc for tc in book["timecards"] if tc["job"] == "2014" and tc["week_ending"] == LAST]
    assert sorted(Decimal(l["earnings"]) for l in report["lines"]) == sorted(Decimal(tc["gross"]) for tc in cards)
    for tc in cards:
        w = workers[tc["worker_id"]]
        assert w["foundation_employee"] in text and f"xxx-xx-{w['ssn'][-4:]}" in text
        assert f"{Decimal(tc['gross']):,.2f}" in text
    assert job["foundation_job"] in report["text"] and report["name"].endswith(".pdf")
    assert "not set up for certified payroll" in refused(env, "reports.certified_payroll", {
        "job_no": next(j["foundation_job"] for j in book["jobs"] if j["status"] == "active"
                       and j["job"] not in {wd["job"] for wd in book["wage_determinations"]}),
        "period_end": LAST})


def test_finalize_direct_deposit_and_tax_deposit_are_staged_never_done(env, episode):
    before = episode.snapshot()
    for tool, period in (("payroll.finalize", LAST), ("direct_deposit.create_file", LAST), ("tax.941.deposit", PREVIOUS)):
        staged = env.call(t(tool), {"period_end": period})
        assert staged["status"] == "pending_human_approval", (tool, staged)
        assert episode.guard_log[-1]["tool"] == tool and episode.guard_log[-1]["executed"] is False
    assert episode.snapshot() == before
    for tool, period, says in (("payroll.finalize", PREVIOUS, "already finalized"),
                               ("direct_deposit.create_file", PREVIOUS, "already transmitted"),
                               ("tax.941.deposit", EARLIER, "already deposited"),
                               ("tax.941.deposit", LAST, "not finalized")):
        assert says in refused(env, tool, {"period_end": period}), tool
        assert episode.guard_log[-1]["refused"]
    card = _a_card(env)
    env.call(t("timecards.update"), {"timecard_id": card["timecard_id"], "cost_code": "033000"})
    assert "before finalizing" in refused(env, "payroll.finalize", {"period_end": LAST})
    assert "not been run" in refused(env, "direct_deposit.create_file", {"period_end": LAST})


def test_pages_walk_the_pay_run(client, env, episode):
    base = f"/{APP}"
    home = client.get(f"{base}/").get_data(as_text=True)
    assert "Payroll Processing" in home and LAST in home and "Daily" in home and "Maintenance" in home
    page = client.get(f"{base}/payrolls/{LAST}").get_data(as_text=True)
    assert "Pre-Check Register" in page and "Finalize Payroll" in page
    card = _a_card(env)
    bad = post_form(client, f"{base}/timecards/{card['timecard_id']}", {"daily_hours": "1,2"})
    assert bad.status_code == 422 and "seven numbers" in bad.get_data(as_text=True) and episode.diff() == {}
    ok = post_form(client, f"{base}/timecards/{card['timecard_id']}", {"daily_hours": "0,9,9,9,9,9,0"})
    assert ok.status_code == 302 and "Timecard saved" in client.get(ok.headers["Location"]).get_data(as_text=True)
    early = post_form(client, f"{base}/payrolls/{LAST}/calculate", {})
    assert early.status_code == 422 and "Proof job hours" in early.get_data(as_text=True)
    proofed = post_form(client, f"{base}/payrolls/{LAST}/proof", {})
    assert proofed.status_code == 200 and "Job Hours Proofing" in proofed.get_data(as_text=True)
    calc = post_form(client, f"{base}/payrolls/{LAST}/calculate", {})
    assert calc.status_code == 302 and "Pre-check register calculated" in client.get(calc.headers["Location"]).get_data(as_text=True)
    staged = post_form(client, f"{base}/payrolls/{LAST}/finalize", {})
    assert staged.status_code == 200 and "Pending human approval — nothing was finalized" in staged.get_data(as_text=True)
    new = post_form(client, f"{base}/timecards/new", {"period_end": LAST, "employee_no": "00000", "job_no": card["job_no"],
                                                      "cost_code": "061000", "daily_hours": "0,8,8,8,8,8,0"})
    assert new.status_code == 422 and "no employee" in new.get_data(as_text=True)
    pdf = client.get(f"{base}/jobs/{card['job_no']}/certified-payroll/{LAST}.pdf")
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    for url in ("/employees", "/crafts", "/unions", "/jobs", "/reports", "/tax-deposits", f"/jobs/{card['job_no']}",
                f"/employees/{card['employee_no']}", f"/payrolls/{PREVIOUS}/union-fringes",
                f"/payrolls/{PREVIOUS}/workers-comp", "/timecards/new"):
        assert client.get(f"{base}{url}").status_code == 200, url
    assert client.get(f"{base}/payrolls/2026-01-03").status_code == 404
    assert client.get(f"{base}/employees/00000").status_code == 404


def test_a_filter_or_sort_swaps_only_the_results_table(client):
    hx = {"HX-Request": "true", "HX-Target": "results"}
    for url, shown in [(f"/{APP}/employees?craft=ELEC&sort=-name", "Employee #"),
                       (f"/{APP}/employees?query=zzzz", "No employees match."),
                       (f"/{APP}/jobs?certified=true&sort=name", "Contract No."),
                       (f"/{APP}/timecards?period_end={LAST}&sort=-earnings", "Earnings")]:
        response = client.get(url, headers=hx)
        html = response.get_data(as_text=True)
        assert response.status_code == 200, url
        assert html.lstrip().startswith('<section id="results"') and shown in html, url
