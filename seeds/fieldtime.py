"""Field time: the foremen's daily time (Rhumbix, busybusy) that payroll's hours come from.

Field time is the SOURCE of the certified-payroll timecards (seeds/payroll.py): every day a
worker has hours on a timecard is one field-time entry on that job, on the phase (cost code) of
the worker's craft, approved by the crew's foreman; every week before the last was exported to
payroll. The week payroll still has open (the last) carries a few planted exceptions on the
instance jobs of P_field_time_recon, each a difference between approved field time and what
payroll is about to pay (registered in seeds/divergences.py, found by seeds/consistency.py):

- unapproved_paid: one day the foreman has not approved yet (Submitted), which payroll pays;
- unapproved_unpaid: a Submitted day payroll rightly does not pay (it looks like a miss; it is not);
- other_job: days field time puts on another prevailing-wage job, payroll charged to this one;
- not_in_payroll: a worker with a week of approved time on the job and no payroll timecard.
"""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

DAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
# the jobs whose last week P_field_time_recon reconciles, and the job each one's moved days went to
JOBS = {"2014": "2200", "2041": "1990"}
WEEK = "2026-06-27"
KINDS = ("unapproved_paid", "unapproved_unpaid", "other_job", "not_in_payroll")
NEW_HIRE_HOURS = ["0", "8", "8", "8", "8", "8", "0"]
WEEKEND_HOURS = "5"  # the Submitted Saturday nobody approved (and payroll did not pay)


def day_date(week_ending: str, day: int) -> str:
    """The date of day `day` (0 = Sunday) of the week ending Saturday `week_ending`."""
    return (date.fromisoformat(week_ending) - timedelta(days=6 - day)).isoformat()


def _h(text) -> Decimal:
    return Decimal(str(text))


def plant(job: str, to_job: str, week: list[dict], free: list[dict], order=None) -> list[dict]:
    """The four exceptions on one job's week: `week` its payroll timecards, `free` the workers on no
    timecard at all (the new hire comes from them). Among the cards (or workers) an exception could
    take, the first by worker id, or by `order(worker_id)` (the private split's salted order).
    Raises LookupError when the week has no card an exception needs."""
    rank = order or (lambda wid: wid)
    cards = sorted(week, key=lambda c: rank(c["worker_id"]))
    used: set[str] = set()

    def pick(ok):
        for c in cards:
            if c["worker_id"] not in used and ok(c):
                used.add(c["worker_id"])
                return c
        raise LookupError(job)

    worked = lambda c, d: _h(c["hours"][d]) > 0  # noqa: E731
    paid = pick(lambda c: worked(c, 6) or any(worked(c, d) for d in range(1, 6)))
    paid_day = 6 if worked(paid, 6) else max(d for d in range(1, 6) if worked(paid, d))
    unpaid = pick(lambda c: not worked(c, 6) and sum(worked(c, d) for d in range(1, 6)) >= 3)
    moved = pick(lambda c: sum(worked(c, d) for d in range(1, 6)) >= 4)
    days = [d for d in range(1, 6) if worked(moved, d)][1:3]  # two midweek days on the other job
    hire = next((w for w in sorted(free, key=lambda w: rank(w["worker_id"])) if w["level"] == "J"), None)
    if hire is None:
        raise LookupError(job)
    base = {"job": job, "week_ending": WEEK}
    return [
        {**base, "kind": "unapproved_paid", "worker_id": paid["worker_id"], "days": [DAYS[paid_day]]},
        {**base, "kind": "unapproved_unpaid", "worker_id": unpaid["worker_id"], "days": ["Sat"],
         "hours": WEEKEND_HOURS},
        {**base, "kind": "other_job", "worker_id": moved["worker_id"], "days": [DAYS[d] for d in days],
         "to_job": to_job},
        {**base, "kind": "not_in_payroll", "worker_id": hire["worker_id"], "craft": hire["craft"],
         "level": hire["level"], "hours": list(NEW_HIRE_HOURS)},
    ]


def build_field_time_exceptions(timecards: list[dict], workers: list[dict]) -> list[dict]:
    """The public instances' exceptions (P_field_time_recon), in the last week of each job of JOBS."""
    on_cards = {c["worker_id"] for c in timecards}
    free = [w for w in workers if w["worker_id"] not in on_cards]
    out: list[dict] = []
    for job, to_job in JOBS.items():
        week = [c for c in timecards if c["job"] == job and c["week_ending"] == WEEK]
        planted = plant(job, to_job, week, free)
        hire = next(e["worker_id"] for e in planted if e["kind"] == "not_in_payroll")
        free = [w for w in free if w["worker_id"] != hire]
        out += planted
    return out


def field_entries(timecards: list[dict], exceptions: list[dict], workers: dict) -> list[dict]:
    """Every day of field time: job, worker, date, hours, craft and status (Approved; Exported for
    the weeks already sent to payroll; Submitted where an exception says the foreman has not
    approved it), with the exceptions applied."""
    last = max((c["week_ending"] for c in timecards), default=WEEK)
    entries: dict[tuple, dict] = {}
    for c in timecards:
        for d, text in enumerate(c["hours"]):
            if _h(text) > 0:
                entries[(c["job"], c["worker_id"], c["week_ending"], d)] = {
                    "job": c["job"], "worker_id": c["worker_id"], "week_ending": c["week_ending"], "day": d,
                    "work_date": day_date(c["week_ending"], d), "hours": text, "craft": c["craft"],
                    "status": "Approved" if c["week_ending"] == last else "Exported"}
    for e in exceptions:
        days = [DAYS.index(d) for d in e.get("days", [])]
        key = lambda job, d: (job, e["worker_id"], e["week_ending"], d)  # noqa: E731
        if e["kind"] == "unapproved_paid":
            for d in days:
                entries[key(e["job"], d)]["status"] = "Submitted"
        elif e["kind"] == "unapproved_unpaid":
            craft = workers[e["worker_id"]]["craft"]
            for d in days:
                entries[key(e["job"], d)] = {"job": e["job"], "worker_id": e["worker_id"],
                                             "week_ending": e["week_ending"], "day": d,
                                             "work_date": day_date(e["week_ending"], d), "hours": e["hours"],
                                             "craft": craft, "status": "Submitted"}
        elif e["kind"] == "other_job":
            for d in days:
                entry = entries.pop(key(e["job"], d))
                entries[key(e["to_job"], d)] = {**entry, "job": e["to_job"]}
        elif e["kind"] == "not_in_payroll":
            for d, text in enumerate(e["hours"]):
                if _h(text) > 0:
                    entries[key(e["job"], d)] = {"job": e["job"], "worker_id": e["worker_id"],
                                                 "week_ending": e["week_ending"], "day": d,
                                                 "work_date": day_date(e["week_ending"], d), "hours": text,
                                                 "craft": e["craft"], "status": "Approved"}
    return [entries[k] for k in sorted(entries)]
