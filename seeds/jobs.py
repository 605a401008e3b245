"""Jobs: 31 active and 8 closed, with owners, PMs, contract amounts and schedules."""
from __future__ import annotations

import random
from datetime import date

from . import names as N
from .reference import N_ACTIVE_JOBS, N_CLOSED_JOBS, PUBLIC_JOBS, REQUIRED_ACTIVE_JOBS
from .util import add_days, add_months, iso, money, round_to

TYPE_WEIGHTS = [("commercial", 5), ("healthcare", 3), ("multifamily", 3), ("industrial", 3),
                ("education", 2), ("public_works", 2)]
FIXED_CONTRACTS = {"1042": "14280000.00"}


def _pm(rng: random.Random, job: str, used_by_9140: tuple) -> tuple[str, str]:
    first, last = rng.choice(N.PM_NAMES)
    if (first, last) == used_by_9140 or job == "9140":
        first, last = used_by_9140
        return f"{first} {last}", "pm@companyA.com"
    return f"{first} {last}", f"{first.lower()}.{last.lower()}@companyA.com"


def _job_numbers(rng: random.Random) -> tuple[list[str], list[str]]:
    taken = set(REQUIRED_ACTIVE_JOBS)
    extra: list[str] = []
    while len(extra) < (N_ACTIVE_JOBS - len(REQUIRED_ACTIVE_JOBS)) + N_CLOSED_JOBS:
        number = str(rng.randint(1003, 9890))
        if number not in taken:
            taken.add(number)
            extra.append(number)
    active = REQUIRED_ACTIVE_JOBS + extra[: N_ACTIVE_JOBS - len(REQUIRED_ACTIVE_JOBS)]
    closed = extra[N_ACTIVE_JOBS - len(REQUIRED_ACTIVE_JOBS):]
    return active, closed


def _name(rng: random.Random, job_type: str, city: str) -> str:
    words = rng.choice(N.JOB_TYPES[job_type][0]).format(n=rng.randint(2, 9))
    prefix = rng.choice([city, rng.choice(N.PLACE_WORDS), rng.choice(N.LAST_NAMES) + " Park",
                         rng.choice(N.STREETS) + " Street"])
    return f"{prefix} {words}"


def _owner(rng: random.Random, job_type: str, city: str, state: str) -> str:
    pattern = rng.choice(N.JOB_TYPES[job_type][1])
    return pattern.format(city=city, county=rng.choice(N.COUNTIES), state_name=N.STATE_NAMES[state],
                          place=rng.choice(N.PLACE_WORDS), last=rng.choice(N.LAST_NAMES))


def build_jobs(rng: random.Random) -> list[dict]:
    """All jobs, sorted by job number."""
    active, closed = _job_numbers(rng)
    pm_9140 = N.PM_NAMES[0]
    types = [t for t, w in TYPE_WEIGHTS for _ in range(w)]
    jobs, used_names = [], set()
    for job in active + closed:
        is_active = job in active
        job_type = "public_works" if job in PUBLIC_JOBS else rng.choice(types)
        city, state, zip3, _ = rng.choice(N.CITIES[:14] if rng.random() < 0.8 else N.CITIES)
        name = _name(rng, job_type, city)
        while name in used_names:
            name = _name(rng, job_type, city)
        used_names.add(name)
        if is_active:
            start = add_days(date(2024, 4, 1), rng.randint(0, 660))
            months = rng.randint(14, 30)
            end = add_months(start, months)
            if end <= date(2026, 8, 31):
                end = add_days(date(2026, 9, 1), rng.randint(0, 200))
        else:
            start = add_days(date(2021, 3, 1), rng.randint(0, 800))
            end = add_months(start, rng.randint(10, 20))
        amount = FIXED_CONTRACTS.get(job) or money(round_to(rng.uniform(2.2e6, 32e6), 500))
        pm_name, pm_email = _pm(rng, job, pm_9140)
        jobs.append({
            "job": job,
            "name": name,
            "customer": _owner(rng, job_type, city, state),
            "address": f"{rng.randint(100, 9800)} {rng.choice(N.STREETS)} {rng.choice(N.STREET_SUFFIXES)}",
            "city": city,
            "state": state,
            "status": "active" if is_active else "closed",
            "contract_amount": amount,
            "retainage_pct": "5.00" if job_type == "public_works" and rng.random() < 0.6 else "10.00",
            "pm_name": pm_name,
            "pm_email": pm_email,
            "start_date": iso(start),
            "est_completion": iso(end),
            "job_type": job_type,
        })
    return sorted(jobs, key=lambda j: j["job"])


def progress(job: dict, on: date | None = None) -> float:
    """Fraction of the schedule elapsed at the clock (1.0 for closed jobs)."""
    if job["status"] == "closed":
        return 1.0
    start, end = date.fromisoformat(job["start_date"]), date.fromisoformat(job["est_completion"])
    on = on or date(2026, 6, 30)
    return max(0.03, min(0.97, (on - start).days / max(1, (end - start).days)))
