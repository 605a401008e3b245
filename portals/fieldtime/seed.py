"""Build a field-time system from the book: the source of the hours payroll pays.

The book's field workforce are the employees (under the payroll's employee number, the
manifest's `[fieldtime] employee_id_field`), its active jobs the projects (under `job_field`, or
the company's own job number), each with the payroll's phases as cost codes, and every day a
certified-payroll timecard has hours is one time entry (seeds/fieldtime.py), on the phase of the
worker's craft, clocked in at the crew's start time. Each prevailing-wage job has a crew whose
foreman (its first journeyworker) approved the crew's time; every week before the last was
exported to payroll in a batch. The last week is approved and waits to be exported, except
where the book's field-time exceptions leave a day Submitted or put it on another job.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from portals.core.ids import stable_id
from portals.payroll.seed import PHASE
from seeds.fieldtime import field_entries

from .models import CostCode, Crew, Employee, PayrollExport, Project, TimeEntry

PHASE_WORDS = {"061000": "Rough Carpentry", "312300": "Earth Moving", "260500": "Electrical Common Work",
               "032000": "Concrete Reinforcing", "033000": "Cast-in-Place Concrete",
               "221100": "Facility Water Distribution"}
LUNCH = timedelta(minutes=30)


def settings(spec) -> dict:
    return spec.manifest.get("fieldtime", {})


def project_number(job: dict, spec) -> str:
    field = settings(spec).get("job_field")
    return str((job.get(field) if field else None) or job["job"])


def clock_out(start: str, hours: Decimal) -> str:
    begin = datetime.strptime(start, "%H:%M")
    return (begin + timedelta(minutes=int(hours * 60)) + LUNCH).strftime("%H:%M")


def seed(session, book, rng, clock, spec) -> None:
    app, cfg = spec.name, settings(spec)
    emp_field = cfg.get("employee_id_field", "foundation_employee")
    start = cfg.get("clock_in", "07:00")
    workers = {w["worker_id"]: w for w in book.get("workers", [])}
    emp = {wid: str(w[emp_field]) for wid, w in workers.items()}
    for wid, w in sorted(workers.items(), key=lambda kv: emp[kv[0]]):
        session.add(Employee(employee_id=emp[wid], first_name=w["first_name"], last_name=w["last_name"],
                             trade=w["craft"], level=w["level"], status="Active"))
    jobs = {j["job"]: j for j in book.get("jobs", []) if j["status"] == "active"}
    number = {job: project_number(j, spec) for job, j in jobs.items()}
    for job, j in sorted(jobs.items(), key=lambda kv: number[kv[0]]):
        session.add(Project(project_id=number[job], name=j["name"], city=j["city"], state=j["state"], status="Active"))
        for code, words in sorted(PHASE_WORDS.items()):
            session.add(CostCode(cost_code_id=stable_id(app, "costcode", number[job], code), project_id=number[job],
                                 code=code, description=words))
    cards = book.get("timecards", [])
    for job in sorted({c["job"] for c in cards}):
        crew = sorted({c["worker_id"] for c in cards if c["job"] == job and c["level"] == "J"})
        session.add(Crew(crew_id=stable_id(app, "crew", job), project_id=number[job],
                         name=f"{jobs[job]['name']} crew", foreman_id=emp[crew[0]]))
    foreman = {job: emp[sorted({c["worker_id"] for c in cards if c["job"] == job and c["level"] == "J"})[0]]
               for job in {c["job"] for c in cards}}
    entries = field_entries(cards, book.get("field_time_exceptions", []), workers)
    weeks = sorted({e["week_ending"] for e in entries})
    exports = {}
    for week in weeks[:-1]:
        sent = [e for e in entries if e["week_ending"] == week and e["status"] == "Exported"]
        exports[week] = stable_id(app, "export", week)
        session.add(PayrollExport(export_id=exports[week], week_ending=week, entries=len(sent),
                                  hours=sum((Decimal(e["hours"]) for e in sent), Decimal(0)), status="Imported",
                                  created_at=f"{(datetime.fromisoformat(week) + timedelta(days=1)).date()}T13:00:00Z"))
    for e in entries:
        hours = Decimal(e["hours"])
        approved = e["status"] != "Submitted"
        session.add(TimeEntry(
            entry_id=stable_id(app, "entry", e["job"], e["worker_id"], e["work_date"]), employee_id=emp[e["worker_id"]],
            project_id=number[e["job"]], cost_code=PHASE.get(e["craft"], PHASE["OPER"]), work_date=e["work_date"],
            week_ending=e["week_ending"], clock_in=start, clock_out=clock_out(start, hours), hours=hours,
            status=e["status"], approved_by=foreman[e["job"]] if approved else None,
            approved_at=f"{e['work_date']}T16:45:00Z" if approved else None,
            export_id=exports.get(e["week_ending"]) if e["status"] == "Exported" else None,
            signed_off=f"{e['work_date']}T{clock_out(start, hours)}:00Z"[:20] if approved else None, note=None))
    session.flush()
