"""Build LCPtracker from the book: each prevailing-wage job as a project under the agency's contract
number, its wage determination, the employees on its payrolls and eight weeks of payroll records
imported from payroll; every past week's CPR certified and submitted, the last week's in draft."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from portals.core.ids import stable_id

from .models import Cpr, Employee, PayrollRecord, Project, WageRate

CERTIFIER = "Dana Pruitt, Payroll Manager"


def craft_names(book: dict) -> dict:
    """Foundation's craft code -> the wage determination's classification."""
    return {r["craft"]: r["classification"] for wd in book.get("wage_determinations", []) for r in wd["rates"]}


def _payroll_number(start: str, week_ending: str) -> int:
    first = date.fromisoformat(start)
    first_sat = first + timedelta(days=(5 - first.weekday()) % 7)
    return (date.fromisoformat(week_ending) - first_sat).days // 7 + 1


def seed(session, book, rng, clock, spec) -> None:
    app = spec.name
    jobs = {j["job"]: j for j in book.get("jobs", [])}
    company = book.get("meta", {}).get("company_name", "Company A Builders, Inc.")
    crafts = craft_names(book)
    projects = {}
    for wd in book.get("wage_determinations", []):
        job = jobs[wd["job"]]
        pid = stable_id(app, "project", wd["contract_number"])
        projects[wd["job"]] = (pid, job)
        session.add(Project(project_id=pid, contract_number=wd["contract_number"], name=job["name"],
                            awarding_agency=wd["awarding_agency"], location=f"{job['address']}, {job['city']}, {job['state']}",
                            county=wd["county"], state=wd["state"], wd_number=wd["wd_number"],
                            wd_modification=wd["modification"], prime_contractor=company, start_date=job["start_date"]))
        for r in wd["rates"]:
            session.add(WageRate(rate_id=stable_id(app, "rate", pid, r["classification"], r["level"]), project_id=pid,
                                 classification=r["classification"], level=r["level"], base_rate=Decimal(r["base"]),
                                 fringe_rate=Decimal(r["fringe"]), apprentice_ratio=r["apprentice_ratio"],
                                 pct_of_journeyworker=int(r["pct_of_journeyworker"]) if r.get("pct_of_journeyworker") else None))
    workers = {w["worker_id"]: w for w in book.get("workers", [])}
    employees = {}
    weeks = set()
    for t in book.get("timecards", []):
        w = workers[t["worker_id"]]
        if w["worker_id"] not in employees:
            eid = stable_id(app, "employee", w["ssn"])
            employees[w["worker_id"]] = eid
            session.add(Employee(employee_id=eid, first_name=w["first_name"], last_name=w["last_name"],
                                 ssn_last4=w["ssn"][-4:], classification=crafts.get(w["craft"], w["craft"]),
                                 level=w["level"], apprentice_registration=w.get("apprentice_program"),
                                 union_local=w.get("union_local")))
        pid, _job = projects[t["job"]]
        weeks.add((t["job"], t["week_ending"]))
        session.add(PayrollRecord(
            record_id=stable_id(app, "record", pid, t["week_ending"], w["ssn"]), project_id=pid,
            week_ending=t["week_ending"], employee_id=employees[w["worker_id"]],
            classification=crafts.get(t["craft"], t["craft"]), level=t["level"], daily_hours=",".join(t["hours"]),
            st_hours=Decimal(t["st_hours"]), ot_hours=Decimal(t["ot_hours"]), st_rate=Decimal(t["st_rate"]),
            ot_rate=Decimal(t["ot_rate"]), fringe_plan=Decimal(t["fringe_plan"]), fringe_cash=Decimal(t["fringe_cash"]),
            fringe_method=t["fringe_method"], gross=Decimal(t["gross"]), fica=Decimal(t["fica"]),
            withholding=Decimal(t["withholding"]), net=Decimal(t["net"])))
    last = max((w for _j, w in weeks), default=None)
    for job, week in sorted(weeks):
        pid, j = projects[job]
        draft = week == last
        session.add(Cpr(cpr_id=stable_id(app, "cpr", pid, week), project_id=pid, week_ending=week,
                        payroll_number=_payroll_number(j["start_date"], week), status="Draft" if draft else "Submitted",
                        certified_by=None if draft else CERTIFIER,
                        submitted_at=None if draft else f"{(date.fromisoformat(week) + timedelta(days=4)).isoformat()}T15:00:00Z"))
    session.flush()
