"""The pay run: timecard entry and correction, job hours proofing, the pre-check register, the
registers and the certified payroll report; finalizing, the direct-deposit file and the tax deposit
are a person's steps (guarded: staged, never done)."""
from __future__ import annotations

import base64
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from sqlalchemy import delete, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.tools import GUARDED, READ, WRITE, Amount, service

from .certified import pdf_text, render_certified_payroll
from .models import (Check, Craft, DirectDepositFile, Employee, Job, JobRate, PayClass, PayRun, TaxDeposit,
                     Timecard, Union)
from .records import check_row, get_employee_row, get_job_row, get_run_row, get_timecard_row, job_row, run_row, \
    timecard_row

CENT = Decimal("0.01")
FICA, FWT = Decimal("0.0765"), Decimal("0.11")
OPEN, PROOFED, CALCULATED, FINALIZED = "Open", "Proofed", "Calculated", "Finalized"


def q(value: Decimal) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def parse_hours(text: str, field: str = "daily_hours") -> list[Decimal]:
    parts = [p.strip() for p in str(text or "").split(",")]
    if len(parts) != 7:
        raise ToolError("Daily hours are seven numbers, Sunday to Saturday, separated by commas.", field)
    out = []
    for p in parts:
        try:
            h = Decimal(p or "0")
        except InvalidOperation:
            raise ToolError(f"{p[:20]!r} is not a number of hours.", field) from None
        if not h.is_finite() or h < 0 or h > 24 or (h * 4) != (h * 4).to_integral():
            raise ToolError(f"Hours in a day run from 0 to 24 in quarter hours; {p[:20]!r} is not.", field)
        out.append(h)
    if sum(out) == 0:
        raise ToolError("A timecard needs some hours.", field)
    return out


def _hours_text(hours: list[Decimal]) -> str:
    return ",".join(format(h.normalize(), "f") if h != h.to_integral() else str(int(h)) for h in hours)


def _open_run(session, period_end, field: str = "period_end") -> PayRun:
    run = get_run_row(session, period_end, field)
    if run.status == FINALIZED:
        raise ToolError(f"The payroll for the period ending {run.period_end} is finalized; timecards can no longer "
                        "change there (enter an adjustment in an open payroll).", field)
    return run


def _reopen(session, run: PayRun) -> None:
    """A timecard changed: the proofing and the pre-check register no longer hold."""
    session.execute(delete(Check).where(Check.pay_run_id == run.pay_run_id))
    run.status, run.proofed_at, run.calculated_at = OPEN, None, None


def _class(session, code: str, field: str = "class_code") -> PayClass:
    row = session.get(PayClass, str(code or "").strip().upper())
    if row is None:
        raise ToolError(f"There is no pay class {str(code).strip()[:20]!r}.", field)
    return row


def _cost_code(code: str, field: str = "cost_code") -> str:
    text = str(code or "").strip()
    if not (text.isdigit() and len(text) == 6):
        raise ToolError("A cost code (phase) is six digits.", field)
    return text


def _price(session, job: Job, pay_class: PayClass, employee: Employee) -> dict:
    """The rates a timecard gets: the job's prevailing-wage rate for the class, overtime at 1.5 x
    base, the fringe to plans or, for an employee paid the fringe in cash, added to both rates."""
    rate = session.scalar(select(JobRate).where(JobRate.job_no == job.job_no, JobRate.class_code == pay_class.class_code))
    if rate is None:
        raise ToolError(f"Job {job.job_no} has no wage rate for pay class {pay_class.class_code}.", "class_code")
    base, fringe = rate.base_rate, rate.fringe_rate
    cash = fringe if employee.fringe_in_cash else Decimal(0)
    return {"reg_rate": base + cash, "ot_rate": q(base * Decimal("1.5")) + cash,
            "fringe_plan_rate": Decimal(0) if employee.fringe_in_cash else fringe, "fringe_cash_rate": cash,
            "certified_class": rate.classification}


def _fill(card: Timecard, hours: list[Decimal]) -> None:
    total = sum(hours)
    card.daily_hours = _hours_text(hours)
    card.reg_hours, card.ot_hours = min(total, Decimal(40)), max(total - 40, Decimal(0))
    card.earnings = q(card.reg_hours * card.reg_rate + card.ot_hours * card.ot_rate)


def _new_card(session, app: str, run: PayRun, employee_no, job_no, cost_code, class_code, daily_hours,
              field_prefix: str = "") -> Timecard:
    f = lambda name: f"{field_prefix}{name}" if field_prefix else name  # noqa: E731
    employee = get_employee_row(session, employee_no, f("employee_no"))
    job = get_job_row(session, job_no, f("job_no"))
    pay_class = _class(session, class_code or employee.class_code, f("class_code"))
    code = _cost_code(cost_code, f("cost_code"))
    hours = parse_hours(daily_hours, f("daily_hours"))
    try:
        price = _price(session, job, pay_class, employee)
    except ToolError as err:
        raise ToolError(err.message, f("class_code")) from None
    tid = stable_id(app, "timecard", run.period_end, employee.employee_no, job.job_no, pay_class.class_code)
    if session.get(Timecard, tid) is not None:
        raise ToolError(f"Employee {employee.employee_no} already has a timecard on job {job.job_no} under class "
                        f"{pay_class.class_code} for the period ending {run.period_end}; correct that one.", f("employee_no"))
    card = Timecard(timecard_id=tid, pay_run_id=run.pay_run_id, employee_no=employee.employee_no, job_no=job.job_no,
                    cost_code=code, cost_class="L", class_code=pay_class.class_code, source="Entered", **price)
    _fill(card, hours)
    return card


@service(WRITE)
def create_timecard(ctx: ServiceContext, period_end: str, employee_no: str, job_no: str, cost_code: str,
                    daily_hours: str, class_code: str | None = None) -> dict:
    """Enter a timecard in an open payroll: an employee's week on a job, phase and pay class. Rates
    come from the job's wage rates; overtime is the hours over 40 in the week. The payroll goes back
    to Open (proof job hours and run the pre-check register again).

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
        employee_no: The employee number.
        job_no: The job the hours are charged to, as the job list shows it.
        cost_code: The phase (cost code) the hours are charged to: six digits.
        daily_hours: Hours Sunday to Saturday, seven numbers separated by commas.
        class_code: The pay class worked, as the craft list shows it; the employee's own class if empty.
    """
    run = _open_run(ctx.session, period_end)
    card = _new_card(ctx.session, ctx.app, run, employee_no, job_no, cost_code, class_code, daily_hours)
    ctx.session.add(card)
    _reopen(ctx.session, run)
    ctx.session.flush()
    return {**timecard_row(card, ctx.session.get(Employee, card.employee_no), run), "pay_run_status": run.status}


@service(WRITE)
def update_timecard(ctx: ServiceContext, timecard_id: int, daily_hours: str | None = None,
                    class_code: str | None = None, cost_code: str | None = None, reg_rate: Amount | None = None,
                    fringe_plan_rate: Amount | None = None, fringe_cash_rate: Amount | None = None) -> dict:
    """Correct a timecard in an open payroll. A new pay class takes the job's wage rate for it;
    rates given here override (the overtime rate follows: 1.5 x the base plus any cash fringe).
    Earnings are recalculated and the payroll goes back to Open.

    Args:
        timecard_id: The timecard's id.
        daily_hours: Hours Sunday to Saturday, seven numbers separated by commas.
        class_code: The pay class worked.
        cost_code: The phase (cost code): six digits.
        reg_rate: The regular hourly rate, including any fringe paid in cash.
        fringe_plan_rate: The fringe per hour paid to plans.
        fringe_cash_rate: The fringe per hour paid in cash (included in the regular rate).
    """
    card = get_timecard_row(ctx.session, timecard_id)
    run = _open_run(ctx.session, ctx.session.get(PayRun, card.pay_run_id).period_end, "timecard_id")
    employee = ctx.session.get(Employee, card.employee_no)
    hours = parse_hours(daily_hours) if daily_hours not in (None, "") else [Decimal(h) for h in card.daily_hours.split(",")]
    if class_code:
        pay_class = _class(ctx.session, class_code)
        price = _price(ctx.session, ctx.session.get(Job, card.job_no), pay_class, employee)
        for key, value in price.items():
            setattr(card, key, value)
        card.class_code = pay_class.class_code
    if cost_code:
        card.cost_code = _cost_code(cost_code)
    if reg_rate is not None or fringe_cash_rate is not None:
        cash = fringe_cash_rate if fringe_cash_rate is not None else card.fringe_cash_rate
        reg = reg_rate if reg_rate is not None else card.reg_rate - card.fringe_cash_rate + cash
        if reg <= 0 or cash > reg:
            raise ToolError("The regular rate must be more than zero and include the cash fringe.", "reg_rate")
        card.reg_rate, card.fringe_cash_rate = reg, cash
        card.ot_rate = q((reg - cash) * Decimal("1.5")) + cash
    if fringe_plan_rate is not None:
        card.fringe_plan_rate = fringe_plan_rate
    _fill(card, hours)
    _reopen(ctx.session, run)
    ctx.session.flush()
    return {**timecard_row(card, employee, run), "pay_run_status": run.status}


@service(WRITE)
def import_timecards(ctx: ServiceContext, period_end: str, lines: list[str]) -> dict:
    """{import_what}, all or none: one line per timecard,
    "employee_no|job_no|cost_code|class_code|daily_hours" ({import_keys}class_code may be empty for the
    employee's own class; daily_hours are seven comma-separated numbers, Sunday to Saturday).

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
        lines: The timecard lines to import.
    """
    run = _open_run(ctx.session, period_end)
    if not lines:
        raise ToolError("There are no timecard lines to import.", "lines")
    cards, seen = [], set()
    for n, line in enumerate(lines, start=1):
        parts = [p.strip() for p in str(line).split("|")]
        if len(parts) != 5:
            raise ToolError(f"Line {n}: a line is employee_no|job_no|cost_code|class_code|daily_hours.", "lines")
        try:
            card = _new_card(ctx.session, ctx.app, run, *parts)
        except ToolError as err:
            raise ToolError(f"Line {n}: {err.message}", "lines") from None
        if card.timecard_id in seen:
            raise ToolError(f"Line {n}: the same employee, job and class appear twice.", "lines")
        seen.add(card.timecard_id)
        cards.append(card)
    ctx.session.add_all(cards)
    _reopen(ctx.session, run)
    ctx.session.flush()
    return {"period_end": run.period_end, "imported": len(cards), "timecard_ids": [c.timecard_id for c in cards],
            "pay_run_status": run.status}


def _run_cards(session, run: PayRun) -> list[tuple]:
    return session.execute(select(Timecard, Employee).join(Employee, Employee.employee_no == Timecard.employee_no)
                           .where(Timecard.pay_run_id == run.pay_run_id)
                           .order_by(Timecard.job_no, Timecard.cost_code, Timecard.class_code, Employee.last_name,
                                     Employee.first_name, Timecard.timecard_id)).all()


def _proofing(session, run: PayRun) -> dict:
    groups: dict[tuple, dict] = {}
    exceptions = []
    jobs = {j.job_no: j for j in session.scalars(select(Job)).all()}
    rated = {(r.job_no, r.class_code) for r in session.scalars(select(JobRate)).all()}
    for card, employee in _run_cards(session, run):
        g = groups.setdefault((card.job_no, card.cost_code, card.cost_class, card.class_code),
                              {"employees": 0, "reg_hours": Decimal(0), "ot_hours": Decimal(0), "earnings": Decimal(0)})
        g["employees"] += 1
        g["reg_hours"] += card.reg_hours
        g["ot_hours"] += card.ot_hours
        g["earnings"] += card.earnings
        job = jobs.get(card.job_no)
        if job is not None and job.certified and (card.job_no, card.class_code) not in rated:
            exceptions.append({"timecard_id": card.timecard_id, "employee_no": employee.employee_no,
                               "message": f"Class {card.class_code} has no wage rate on certified job {card.job_no}."})
    lines = [{"job_no": k[0], "job_name": jobs[k[0]].name if k[0] in jobs else "", "cost_code": k[1],
              "cost_class": k[2], "class_code": k[3], **v, "total_hours": v["reg_hours"] + v["ot_hours"]}
             for k, v in sorted(groups.items())]
    return {**run_row(run), "lines": lines, "exceptions": exceptions,
            "total_hours": sum((l["total_hours"] for l in lines), Decimal(0)),
            "total_earnings": sum((l["earnings"] for l in lines), Decimal(0))}


@service(WRITE)
def proof_job_hours(ctx: ServiceContext, period_end: str) -> dict:
    """Job Hours Proofing: the payroll's hours and earnings by job, phase, cost class and pay class,
    with the timecards whose class has no wage rate on a certified job. Proofing marks an open
    payroll Proofed, ready for the pre-check register.

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
    """
    run = _open_run(ctx.session, period_end)
    if not _run_cards(ctx.session, run):
        raise ToolError(f"The payroll for the period ending {run.period_end} has no timecards to proof.", "period_end")
    if run.status == OPEN:
        run.status, run.proofed_at = PROOFED, ctx.clock.iso()
    ctx.session.flush()
    return _proofing(ctx.session, run)


def _register(session, run: PayRun) -> dict:
    rows = session.execute(select(Check, Employee).join(Employee, Employee.employee_no == Check.employee_no)
                           .where(Check.pay_run_id == run.pay_run_id)
                           .order_by(Employee.last_name, Employee.first_name, Employee.employee_no)).all()
    checks = [check_row(c, e) for c, e in rows]
    totals = {k: sum((c[k] for c in checks), Decimal(0)) for k in ("hours", "gross", "fica", "federal_wh", "net")}
    direct = [c for c in checks if c["pay_method"] == "Direct deposit"]
    return {**run_row(run), "checks": checks, "totals": totals, "employees": len(checks),
            "direct_deposits": len(direct), "direct_deposit_total": sum((c["net"] for c in direct), Decimal(0)),
            "employer_fica": totals["fica"], "tax_liability": totals["federal_wh"] + 2 * totals["fica"]}


@service(WRITE)
def run_pre_check_register(ctx: ServiceContext, period_end: str) -> dict:
    """Run the pre-check register: calculate every employee's check from the proofed timecards
    (gross, FICA, federal withholding, net, check or direct deposit). Nothing is paid: the
    payroll becomes Calculated, ready for a person to finalize.

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
    """
    run = _open_run(ctx.session, period_end)
    if run.status == OPEN:
        raise ToolError(f"Proof job hours for the period ending {run.period_end} before running the pre-check register.",
                        "period_end")
    ctx.session.execute(delete(Check).where(Check.pay_run_id == run.pay_run_id))
    sums: dict[str, dict] = {}
    for card, employee in _run_cards(ctx.session, run):
        s = sums.setdefault(employee.employee_no, {"e": employee, "hours": Decimal(0), "gross": Decimal(0),
                                                   "fica": Decimal(0), "fwt": Decimal(0)})
        fica, fwt = q(card.earnings * FICA), q(card.earnings * FWT)
        s["hours"] += card.reg_hours + card.ot_hours
        s["gross"] += card.earnings
        s["fica"] += fica
        s["fwt"] += fwt
    for no, s in sorted(sums.items()):
        ctx.session.add(Check(check_id=stable_id(ctx.app, "check", run.period_end, no), pay_run_id=run.pay_run_id,
                              employee_no=no, check_number=None,
                              pay_method="Direct deposit" if s["e"].direct_deposit else "Check", hours=s["hours"],
                              gross=s["gross"], fica=s["fica"], federal_wh=s["fwt"],
                              net=s["gross"] - s["fica"] - s["fwt"]))
    run.status, run.calculated_at = CALCULATED, ctx.clock.iso()
    ctx.session.flush()
    return _register(ctx.session, run)


def _calculated(session, period_end) -> PayRun:
    run = get_run_row(session, period_end)
    if run.status not in (CALCULATED, FINALIZED):
        raise ToolError(f"The pre-check register has not been run for the period ending {run.period_end} "
                        f"(the payroll is {run.status}).", "period_end")
    return run


@service(READ)
def get_pre_check_register(ctx: ServiceContext, period_end: str) -> dict:
    """The pre-check register (or, once finalized, the payroll register): each employee's hours,
    gross, FICA, federal withholding, net and pay method, with the payroll's totals and tax liability.

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
    """
    return _register(ctx.session, _calculated(ctx.session, period_end))


@service(READ)
def get_union_fringe_register(ctx: ServiceContext, period_end: str, union_code: str | None = None) -> dict:
    """The union deductions/fringes register: per union local, each member's hours and the fringe
    owed to plans, split among the health and welfare, pension and training funds.

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
        union_code: Only this union local.
    """
    run = get_run_row(ctx.session, period_end)
    unions = {u.union_code: u for u in ctx.session.scalars(select(Union)).all()}
    if union_code and union_code.strip().upper() not in unions:
        raise ToolError(f"There is no union {union_code.strip()[:20]!r}.", "union_code")
    out: dict[str, dict] = {}
    for card, employee in _run_cards(ctx.session, run):
        code = employee.union_code
        if code is None or (union_code and code != union_code.strip().upper()):
            continue
        u = unions[code]
        hours = card.reg_hours + card.ot_hours
        owed = q(hours * card.fringe_plan_rate)
        health, training = q(owed * u.health_pct / 100), q(owed * u.training_pct / 100)
        entry = out.setdefault(code, {"union_code": code, "name": u.name, "members": [], "hours": Decimal(0),
                                      "contributions": Decimal(0)})
        entry["members"].append({"employee_no": employee.employee_no, "employee": f"{employee.last_name}, {employee.first_name}",
                                 "job_no": card.job_no, "hours": hours, "fringe_rate": card.fringe_plan_rate,
                                 "health_welfare": health, "pension": owed - health - training, "training": training,
                                 "total": owed})
        entry["hours"] += hours
        entry["contributions"] += owed
    return {**run_row(run), "unions": [out[k] for k in sorted(out)]}


@service(READ)
def get_workers_comp_register(ctx: ServiceContext, period_end: str) -> dict:
    """The workers' compensation register: wages by craft and class code, and the premium at its rate per $100.

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
    """
    run = get_run_row(ctx.session, period_end)
    crafts = {c.craft_code: c for c in ctx.session.scalars(select(Craft)).all()}
    classes = {p.class_code: p.craft_code for p in ctx.session.scalars(select(PayClass)).all()}
    wages: dict[str, Decimal] = {}
    for card, _e in _run_cards(ctx.session, run):
        craft = classes.get(card.class_code, "LAB")
        wages[craft] = wages.get(craft, Decimal(0)) + card.earnings
    lines = [{"craft": k, "wc_code": crafts[k].wc_code, "wages": v, "rate": crafts[k].wc_rate,
              "premium": q(v * crafts[k].wc_rate / 100)} for k, v in sorted(wages.items())]
    return {**run_row(run), "lines": lines, "total_wages": sum((l["wages"] for l in lines), Decimal(0)),
            "total_premium": sum((l["premium"] for l in lines), Decimal(0))}


def payroll_number(start: str, week_ending: str) -> int:
    first = date.fromisoformat(start)
    first_sat = first + timedelta(days=(5 - first.weekday()) % 7)
    return (date.fromisoformat(week_ending) - first_sat).days // 7 + 1


@service(READ)
def get_certified_payroll(ctx: ServiceContext, job_no: str, period_end: str) -> dict:
    """The Certified Payroll report (WH-347 format) of a job's week as a PDF: its text page by page,
    the file as base64, and its lines.

    Args:
        job_no: The certified job, as the job list shows it.
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
    """
    job = get_job_row(ctx.session, job_no)
    run = get_run_row(ctx.session, period_end)
    if not job.certified:
        raise ToolError(f"Job {job.job_no} is not set up for certified payroll.", "job_no")
    rows = ctx.session.execute(select(Timecard, Employee).join(Employee, Employee.employee_no == Timecard.employee_no)
                               .where(Timecard.pay_run_id == run.pay_run_id, Timecard.job_no == job.job_no)
                               .order_by(Employee.last_name, Employee.first_name, Timecard.timecard_id)).all()
    if not rows:
        raise ToolError(f"Job {job.job_no} has no timecards in the payroll for the period ending {run.period_end}.",
                        "job_no")
    checks = {c.employee_no: c for c in ctx.session.scalars(select(Check).where(Check.pay_run_id == run.pay_run_id)).all()}
    number = payroll_number(job.start_date, run.period_end)
    company = ctx.spec.manifest.get("payroll", {}).get("company", "Company A Builders, Inc.")
    data = render_certified_payroll(ctx.spec.label, company, job_row(job), run_row(run), number,
                                    [(t, e, checks.get(e.employee_no)) for t, e in rows])
    return {"name": f"Certified Payroll {job.job_no} {run.period_end}.pdf", "job_no": job.job_no,
            "period_end": run.period_end, "payroll_number": number, "size": len(data),
            "lines": [timecard_row(t, e, run) for t, e in rows], "text": pdf_text(data),
            "content_base64": base64.b64encode(data).decode()}


@service(GUARDED)
def finalize_payroll(ctx: ServiceContext, period_end: str) -> dict:
    """Finalize a calculated payroll: issue the checks and direct deposits and post labor and
    burden to the jobs. Needs a person's approval.

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
    """
    run = get_run_row(ctx.session, period_end)
    if run.status == FINALIZED:
        raise ToolError(f"The payroll for the period ending {run.period_end} is already finalized.", "period_end")
    if run.status != CALCULATED:
        raise ToolError(f"Run the pre-check register for the period ending {run.period_end} before finalizing "
                        f"(the payroll is {run.status}).", "period_end")
    reg = _register(ctx.session, run)
    return {"action": "finalize payroll", "period_end": run.period_end, "check_date": run.check_date,
            "employees": reg["employees"], "net": reg["totals"]["net"]}


@service(GUARDED)
def create_direct_deposit_file(ctx: ServiceContext, period_end: str) -> dict:
    """Create the direct-deposit (ACH) file of a payroll's direct deposits and send it to the bank.
    Needs a person's approval.

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
    """
    run = _calculated(ctx.session, period_end)
    done = ctx.session.scalar(select(DirectDepositFile).where(DirectDepositFile.pay_run_id == run.pay_run_id))
    if done is not None:
        raise ToolError(f"The direct-deposit file for the period ending {run.period_end} was already "
                        f"{done.status.lower()} on {done.created_on}.", "period_end")
    reg = _register(ctx.session, run)
    if not reg["direct_deposits"]:
        raise ToolError("This payroll has no direct deposits.", "period_end")
    return {"action": "create direct-deposit file", "period_end": run.period_end, "entries": reg["direct_deposits"],
            "total": reg["direct_deposit_total"]}


@service(GUARDED)
def make_tax_deposit(ctx: ServiceContext, period_end: str) -> dict:
    """Make the federal (941) tax deposit a finalized payroll owes. Needs a person's approval.

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
    """
    run = get_run_row(ctx.session, period_end)
    deposit = ctx.session.scalar(select(TaxDeposit).where(TaxDeposit.pay_run_id == run.pay_run_id))
    if deposit is None:
        raise ToolError(f"The payroll for the period ending {run.period_end} is not finalized; it owes no deposit yet.",
                        "period_end")
    if deposit.status == "Deposited":
        raise ToolError(f"The 941 deposit for the period ending {run.period_end} was already deposited on "
                        f"{deposit.deposited_on}.", "period_end")
    return {"action": "941 tax deposit", "period_end": run.period_end, "amount": deposit.liability,
            "due_date": deposit.due_date}
