"""Build a payroll system from the book: it is the payroll source of the certified payroll records
LCPtracker imports, so every employee, week, hour and dollar is the book's.

The book's field workforce are the employees (under the product's own employee number, the
manifest's `[payroll] employee_id_field`), its jobs are the product's jobs (under `job_field`),
each prevailing-wage job carries its wage determination as job rates by pay class, and each week
of the book's timecards is a weekly pay run: its timecards by job, phase (cost code), cost class
and pay class, and the checks the pre-check register calculated (gross, FICA, federal withholding,
net, as the book paid them). Every past week is finalized, its direct-deposit file transmitted and
its 941 deposit made when due; the last week's payroll is calculated and waits to be finalized.
"""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from portals.core.ids import stable_id
from seeds.payroll import CRAFTS, UNIONS

from .models import (Check, Craft, DirectDepositFile, Employee, Job, JobRate, PayClass, PayRun, TaxDeposit,
                     Timecard, Union)

LEVEL_WORDS = {"J": "Journeyman", "A1": "Apprentice 1st period", "A2": "Apprentice 2nd period",
               "A3": "Apprentice 3rd period", "A4": "Apprentice 4th period"}
CRAFT_WORDS = {"CARP": "Carpenter", "LAB": "Laborer", "ELEC": "Electrician", "OPER": "Operator",
               "IRON": "Ironworker (Rebar)", "CEMT": "Cement Mason", "PLUM": "Plumber"}
WC = {"CARP": ("5403", "9.84"), "LAB": ("5606", "7.12"), "ELEC": ("5190", "4.38"), "OPER": ("6217", "6.05"),
      "IRON": ("5102", "10.92"), "CEMT": ("5213", "7.67"), "PLUM": ("5183", "4.91")}
# the phase a craft's hours are charged to (the job's cost code, labor cost class)
PHASE = {"CARP": "061000", "LAB": "312300", "ELEC": "260500", "OPER": "312300", "IRON": "032000",
         "CEMT": "033000", "PLUM": "221100"}
GENERAL_CLASS = ("OPR", "OPER", "J", "Operator (general)")  # a class no wage determination lists
CHECK_START, ADVICE_START = 48101, 700001


def class_code(craft: str, level: str) -> str:
    if craft not in CRAFT_WORDS:
        return GENERAL_CLASS[0]
    return f"{craft}-{level}"


def union_code(name: str) -> str:
    return "L" + name.rsplit(" ", 1)[-1]


def _settings(spec) -> dict:
    return spec.manifest.get("payroll", {})


def _d(value) -> Decimal:
    return Decimal(str(value))


def check_date(period_end: str, spec) -> str:
    return (date.fromisoformat(period_end) + timedelta(days=int(_settings(spec).get("check_day_offset", 5)))).isoformat()


def seed(session, book, rng, clock, spec) -> None:
    app, cfg = spec.name, _settings(spec)
    emp_field, job_field = cfg.get("employee_id_field", "worker_id"), cfg.get("job_field")
    today = clock.today().isoformat()
    for code, _cls, *_rest in CRAFTS:
        session.add(Craft(craft_code=code, description=CRAFT_WORDS[code], wc_code=WC[code][0], wc_rate=_d(WC[code][1])))
        for level, words in LEVEL_WORDS.items():
            session.add(PayClass(class_code=class_code(code, level), craft_code=code, level=level,
                                 description=f"{CRAFT_WORDS[code]} {words}"))
    session.add(PayClass(class_code=GENERAL_CLASS[0], craft_code=GENERAL_CLASS[1], level=GENERAL_CLASS[2],
                         description=GENERAL_CLASS[3]))
    for craft, name in sorted(UNIONS.items()):
        h = stable_id(app, "union", name) % 11
        session.add(Union(union_code=union_code(name), name=name, craft_code=craft, health_pct=50 + h,
                          pension_pct=42 - h, training_pct=8))
    job_no = {j["job"]: (j.get(job_field) if job_field else None) or j["job"] for j in book.get("jobs", [])}
    wds = {wd["job"]: wd for wd in book.get("wage_determinations", [])}
    for j in sorted(book.get("jobs", []), key=lambda j: job_no[j["job"]]):
        if j["status"] != "active":
            continue
        wd = wds.get(j["job"])
        session.add(Job(job_no=job_no[j["job"]], name=j["name"], state=j["state"], certified=wd is not None,
                        awarding_agency=wd["awarding_agency"] if wd else None,
                        contract_number=wd["contract_number"] if wd else None,
                        wd_number=wd["wd_number"] if wd else None, start_date=j["start_date"]))
        for r in (wd or {}).get("rates", []):
            code = class_code(r["craft"], r["level"])
            session.add(JobRate(rate_id=stable_id(app, "rate", job_no[j["job"]], code), job_no=job_no[j["job"]],
                                class_code=code, classification=r["classification"], base_rate=_d(r["base"]),
                                fringe_rate=_d(r["fringe"])))
    classification = {(wd["job"], class_code(r["craft"], r["level"])): r["classification"]
                      for wd in wds.values() for r in wd["rates"]}
    cards = book.get("timecards", [])
    cash_cards: dict[str, list[bool]] = {}
    for t in cards:
        cash_cards.setdefault(t["worker_id"], []).append(t["fringe_method"] == "4(b)")
    workers = {}
    for w in sorted(book.get("workers", []), key=lambda w: w[emp_field]):
        no = str(w[emp_field])
        workers[w["worker_id"]] = no
        marks = cash_cards.get(w["worker_id"], [])
        dd = stable_id(app, "dd", no) % 10 < 7
        session.add(Employee(
            employee_no=no, first_name=w["first_name"], last_name=w["last_name"], ssn_last4=w["ssn"][-4:],
            craft_code=w["craft"], level=w["level"], class_code=class_code(w["craft"], w["level"]),
            union_code=union_code(w["union_local"]) if w.get("union_local") else None,
            pay_group=cfg.get("pay_group", "WEEKLY"), status="Active", hire_date=w["hire_date"],
            apprentice_program=w.get("apprentice_program"), fringe_in_cash=sum(marks) * 2 > len(marks),
            direct_deposit=dd, dd_account_last4=f"{stable_id(app, 'acct', no) % 10000:04d}" if dd else None))
    weeks = sorted({t["week_ending"] for t in cards})
    runs = {}
    for week in weeks:
        last = week == weeks[-1]
        run = PayRun(pay_run_id=stable_id(app, "payrun", week), pay_group=cfg.get("pay_group", "WEEKLY"),
                     period_end=week, check_date=check_date(week, spec), status="Calculated" if last else "Finalized",
                     proofed_at=f"{week_after(week, 2)}T15:10:00Z", calculated_at=f"{week_after(week, 2)}T15:40:00Z",
                     finalized_at=None if last else f"{week_after(week, 3)}T14:00:00Z")
        runs[week] = run
        session.add(run)
    checks: dict[tuple, dict] = {}
    for t in cards:
        no, job = workers[t["worker_id"]], job_no[t["job"]]
        code = class_code(t["craft"], t["level"])
        reg, ot = _d(t["st_hours"]), _d(t["ot_hours"])
        session.add(Timecard(
            timecard_id=stable_id(app, "timecard", t["week_ending"], no, job, code), pay_run_id=runs[t["week_ending"]].pay_run_id,
            employee_no=no, job_no=job, cost_code=PHASE.get(t["craft"], PHASE["OPER"]), cost_class="L",
            class_code=code, certified_class=classification.get((t["job"], code), t["craft"] if code == GENERAL_CLASS[0] else code),
            daily_hours=",".join(t["hours"]), reg_hours=reg, ot_hours=ot, reg_rate=_d(t["st_rate"]),
            ot_rate=_d(t["ot_rate"]), fringe_plan_rate=_d(t["fringe_plan"]), fringe_cash_rate=_d(t["fringe_cash"]),
            earnings=_d(t["gross"]), source="Imported"))
        c = checks.setdefault((t["week_ending"], no), {"hours": Decimal(0), "gross": Decimal(0), "fica": Decimal(0),
                                                       "fwt": Decimal(0), "net": Decimal(0)})
        for key, field in (("gross", "gross"), ("fica", "fica"), ("fwt", "withholding"), ("net", "net")):
            c[key] += _d(t[field])
        c["hours"] += reg + ot
    dd = {w[emp_field]: stable_id(app, "dd", str(w[emp_field])) % 10 < 7 for w in book.get("workers", [])}
    number = {"Check": CHECK_START, "Direct deposit": ADVICE_START}
    for (week, no), c in sorted(checks.items()):
        method = "Direct deposit" if dd[no] else "Check"
        final = runs[week].status == "Finalized"
        session.add(Check(check_id=stable_id(app, "check", week, no), pay_run_id=runs[week].pay_run_id, employee_no=no,
                          check_number=(("D" if method == "Direct deposit" else "") + str(number[method])) if final else None,
                          pay_method=method, hours=c["hours"], gross=c["gross"], fica=c["fica"], federal_wh=c["fwt"],
                          net=c["net"]))
        if final:
            number[method] += 1
    for week, run in runs.items():
        if run.status != "Finalized":
            continue
        mine = [c for (w, _no), c in checks.items() if w == week]
        liability = sum((c["fwt"] + 2 * c["fica"] for c in mine), Decimal(0))
        due = (date.fromisoformat(run.check_date) + timedelta(days=6)).isoformat()  # semi-weekly: the next Wednesday
        paid = due < today
        session.add(TaxDeposit(deposit_id=stable_id(app, "deposit", week), pay_run_id=run.pay_run_id, form="941",
                               liability=liability, due_date=due, status="Deposited" if paid else "Due",
                               deposited_on=due if paid else None))
        direct = [c for (w, no), c in checks.items() if w == week and dd[no]]
        session.add(DirectDepositFile(file_id=stable_id(app, "ddfile", week), pay_run_id=run.pay_run_id,
                                      entries=len(direct), total=sum((c["net"] for c in direct), Decimal(0)),
                                      status="Transmitted",
                                      created_on=(date.fromisoformat(run.check_date) - timedelta(days=2)).isoformat()))
    session.flush()


def week_after(week: str, days: int) -> str:
    return (date.fromisoformat(week) + timedelta(days=days)).isoformat()
