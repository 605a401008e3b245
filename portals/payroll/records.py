"""Payroll read services: employees, crafts and pay classes, unions, jobs and their prevailing-wage
rates, pay runs, timecards and the tax deposits."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.sorting import DATE, MONEY, TEXT, sort_order
from portals.core.tools import READ, service
from portals.core.paging import MAX_PER_PAGE, check_paging, paged  # noqa: F401 (re-exported)

from .models import (Check, Craft, DirectDepositFile, Employee, Job, JobRate, PayClass, PayRun, TaxDeposit,
                     Timecard, Union)

DAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
LEVELS = ("J", "A1", "A2", "A3", "A4")
EMPLOYEE_SORT = {"employee_no": (Employee.employee_no, TEXT), "name": (Employee.last_name, TEXT),
                 "craft": (Employee.craft_code, TEXT), "class": (Employee.class_code, TEXT),
                 "hire_date": (Employee.hire_date, DATE)}
JOB_SORT = {"job_no": (Job.job_no, TEXT), "name": (Job.name, TEXT), "state": (Job.state, TEXT)}
TIMECARD_SORT = {"period_end": (PayRun.period_end, DATE), "employee": (Employee.last_name, TEXT),
                 "job_no": (Timecard.job_no, TEXT), "class": (Timecard.class_code, TEXT),
                 "reg_hours": (Timecard.reg_hours, MONEY), "ot_hours": (Timecard.ot_hours, MONEY),
                 "earnings": (Timecard.earnings, MONEY)}




def period_text(value, field: str = "period_end") -> str:
    try:
        day = date.fromisoformat(str(value).strip())
    except ValueError:
        raise ToolError(f"The period end must be a date like YYYY-MM-DD, not {str(value)[:40]!r}.", field) from None
    if day.weekday() != 5:
        raise ToolError(f"A weekly payroll period ends on a Saturday; {day.isoformat()} is a {day.strftime('%A')}.", field)
    return day.isoformat()


def get_run_row(session, period_end, field: str = "period_end") -> PayRun:
    week = period_text(period_end, field)
    row = session.scalar(select(PayRun).where(PayRun.period_end == week))
    if row is None:
        raise NotFound(f"There is no payroll for the period ending {week}.", field)
    return row


def get_employee_row(session, employee_no: str, field: str = "employee_no") -> Employee:
    row = session.get(Employee, str(employee_no).strip())
    if row is None:
        raise NotFound(f"There is no employee number {str(employee_no).strip()[:20]!r}.", field)
    return row


def get_job_row(session, job_no: str, field: str = "job_no") -> Job:
    row = session.get(Job, str(job_no).strip())
    if row is None:
        raise NotFound(f"There is no job {str(job_no).strip()[:20]!r}.", field)
    return row


def employee_row(e: Employee) -> dict:
    return {"employee_no": e.employee_no, "first_name": e.first_name, "last_name": e.last_name,
            "name": f"{e.last_name}, {e.first_name}", "ssn_last4": e.ssn_last4, "craft": e.craft_code,
            "level": e.level, "class_code": e.class_code, "union_code": e.union_code, "pay_group": e.pay_group,
            "status": e.status, "hire_date": e.hire_date, "apprentice_program": e.apprentice_program,
            "fringe_in_cash": e.fringe_in_cash, "pay_method": "Direct deposit" if e.direct_deposit else "Check",
            "dd_account": f"xxxx{e.dd_account_last4}" if e.dd_account_last4 else None}


def job_row(j: Job) -> dict:
    return {"job_no": j.job_no, "name": j.name, "state": j.state, "certified": j.certified,
            "awarding_agency": j.awarding_agency, "contract_number": j.contract_number, "wd_number": j.wd_number,
            "start_date": j.start_date}


def run_row(r: PayRun) -> dict:
    return {"pay_run_id": r.pay_run_id, "pay_group": r.pay_group, "period_end": r.period_end,
            "check_date": r.check_date, "status": r.status, "proofed_at": r.proofed_at,
            "calculated_at": r.calculated_at, "finalized_at": r.finalized_at}


def timecard_row(t: Timecard, e: Employee | None = None, r: PayRun | None = None) -> dict:
    return {"timecard_id": t.timecard_id, "period_end": r.period_end if r else None, "employee_no": t.employee_no,
            "employee": f"{e.last_name}, {e.first_name}" if e else "", "job_no": t.job_no, "cost_code": t.cost_code,
            "cost_class": t.cost_class, "class_code": t.class_code, "certified_class": t.certified_class,
            "daily_hours": dict(zip(DAYS, t.daily_hours.split(","))), "reg_hours": t.reg_hours,
            "ot_hours": t.ot_hours, "reg_rate": t.reg_rate, "ot_rate": t.ot_rate,
            "fringe_plan_rate": t.fringe_plan_rate, "fringe_cash_rate": t.fringe_cash_rate,
            "earnings": t.earnings, "source": t.source}


def check_row(c: Check, e: Employee | None = None) -> dict:
    return {"check_id": c.check_id, "employee_no": c.employee_no,
            "employee": f"{e.last_name}, {e.first_name}" if e else "", "check_number": c.check_number,
            "pay_method": c.pay_method, "hours": c.hours, "gross": c.gross, "fica": c.fica,
            "federal_wh": c.federal_wh, "net": c.net}


@service(READ)
def list_employees(ctx: ServiceContext, query: str | None = None, craft: str | None = None,
                   union_code: str | None = None, level: str | None = None, page: int = 1, per_page: int = 25,
                   sort: str | None = None) -> dict:
    """List {employees}: {employee_id_name}, name, last four of the SSN, craft, pay class, union.

    Args:
        query: Words to find in the name, the {employee_id_name}, or the last four digits of the SSN.
        craft: Only this craft code, as the craft list shows it.
        union_code: Only members of this union local, as the union list shows it.
        level: Only this level: J (journeyman) or A1 to A4 (apprentice period).
        page: Page number, starting at 1.
        per_page: Employees per page, 1 to 100.
        sort: Sort by employee_no, name, craft, class or hire_date; a leading "-" sorts descending.
    """
    stmt = select(Employee)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Employee.first_name.ilike(like), Employee.last_name.ilike(like),
                              Employee.employee_no == word, Employee.ssn_last4 == word))
    if craft:
        stmt = stmt.where(Employee.craft_code == craft.strip().upper())
    if union_code:
        stmt = stmt.where(Employee.union_code == union_code.strip().upper())
    if level:
        if level not in LEVELS:
            raise ToolError(f"Level must be one of: {', '.join(LEVELS)}.", "level")
        stmt = stmt.where(Employee.level == level)
    stmt = stmt.order_by(*sort_order(sort, EMPLOYEE_SORT, (Employee.last_name, Employee.first_name, Employee.employee_no)))
    return paged(ctx.session, stmt, page, per_page, employee_row)


@service(READ)
def get_employee(ctx: ServiceContext, employee_no: str) -> dict:
    """Get an employee's master record and pay history: each payroll's check and timecards.

    Args:
        employee_no: The {employee_id_name}, as the {employee_list} shows it.
    """
    e = get_employee_row(ctx.session, employee_no)
    checks = ctx.session.execute(select(Check, PayRun).join(PayRun, PayRun.pay_run_id == Check.pay_run_id)
                                 .where(Check.employee_no == e.employee_no).order_by(PayRun.period_end.desc())).all()
    cards = ctx.session.execute(select(Timecard, PayRun).join(PayRun, PayRun.pay_run_id == Timecard.pay_run_id)
                                .where(Timecard.employee_no == e.employee_no)
                                .order_by(PayRun.period_end.desc(), Timecard.job_no)).all()
    return {**employee_row(e),
            "checks": [{**check_row(c), "period_end": r.period_end, "check_date": r.check_date} for c, r in checks],
            "timecards": [timecard_row(t, e, r) for t, r in cards]}


@service(READ)
def list_crafts(ctx: ServiceContext) -> dict:
    """List the crafts and their pay classes (a craft at a level), with each craft's workers' comp class."""
    crafts = ctx.session.scalars(select(Craft).order_by(Craft.craft_code)).all()
    classes = ctx.session.scalars(select(PayClass).order_by(PayClass.craft_code, PayClass.class_code)).all()
    return {"items": [{"craft": c.craft_code, "description": c.description, "wc_code": c.wc_code,
                       "wc_rate": c.wc_rate,
                       "classes": [{"class_code": p.class_code, "level": p.level, "description": p.description}
                                   for p in classes if p.craft_code == c.craft_code]} for c in crafts]}


@service(READ)
def list_unions(ctx: ServiceContext) -> dict:
    """List the union locals, the craft each represents, its members and how its fringe is split
    among the health and welfare, pension and training funds."""
    members = dict(ctx.session.execute(select(Employee.union_code, func.count()).group_by(Employee.union_code)).all())
    rows = ctx.session.scalars(select(Union).order_by(Union.union_code)).all()
    return {"items": [{"union_code": u.union_code, "name": u.name, "craft": u.craft_code,
                       "members": members.get(u.union_code, 0),
                       "fringe_split": {"Health and welfare": u.health_pct, "Pension": u.pension_pct,
                                        "Training": u.training_pct}} for u in rows]}


@service(READ)
def list_jobs(ctx: ServiceContext, query: str | None = None, certified: bool | None = None, page: int = 1,
              per_page: int = 25, sort: str | None = None) -> dict:
    """List the {jobs} labor is charged to, with their certified (prevailing-wage) setup.

    Args:
        query: Words to find in the job number, job name or the owner's contract number.
        certified: Only certified payroll jobs (true) or only the others (false).
        page: Page number, starting at 1.
        per_page: Jobs per page, 1 to 100.
        sort: Sort by job_no, name or state; a leading "-" sorts descending.
    """
    stmt = select(Job)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Job.job_no.ilike(like), Job.name.ilike(like), Job.contract_number.ilike(like)))
    if certified is not None:
        stmt = stmt.where(Job.certified == certified)
    stmt = stmt.order_by(*sort_order(sort, JOB_SORT, (Job.job_no,)))
    return paged(ctx.session, stmt, page, per_page, job_row)


@service(READ)
def get_job(ctx: ServiceContext, job_no: str) -> dict:
    """Get a job's certified payroll setup and its prevailing-wage rates by pay class.

    Args:
        job_no: The {job_id_name}, as the {job_list} shows it.
    """
    j = get_job_row(ctx.session, job_no)
    rates = ctx.session.scalars(select(JobRate).where(JobRate.job_no == j.job_no).order_by(JobRate.class_code)).all()
    weeks: dict[str, list] = {}
    for week, reg, ot in ctx.session.execute(select(PayRun.period_end, Timecard.reg_hours, Timecard.ot_hours)
                                             .join(Timecard, Timecard.pay_run_id == PayRun.pay_run_id)
                                             .where(Timecard.job_no == j.job_no)).all():
        w = weeks.setdefault(week, [0, Decimal(0)])
        w[0] += 1
        w[1] += reg + ot
    return {**job_row(j), "rates": [{"class_code": r.class_code, "classification": r.classification,
                                     "base_rate": r.base_rate, "fringe_rate": r.fringe_rate,
                                     "total_rate": r.base_rate + r.fringe_rate} for r in rates],
            "payrolls": [{"period_end": w, "timecards": n, "hours": h} for w, (n, h) in sorted(weeks.items(), reverse=True)]}


@service(READ)
def list_pay_runs(ctx: ServiceContext) -> dict:
    """List the weekly payrolls: period end, check date, status and totals."""
    runs = ctx.session.scalars(select(PayRun).order_by(PayRun.period_end.desc())).all()
    totals: dict[int, list] = {}
    for rid, gross, net in ctx.session.execute(select(Check.pay_run_id, Check.gross, Check.net)).all():
        t = totals.setdefault(rid, [0, Decimal(0), Decimal(0)])
        t[0], t[1], t[2] = t[0] + 1, t[1] + gross, t[2] + net
    cards = dict(ctx.session.execute(select(Timecard.pay_run_id, func.count()).group_by(Timecard.pay_run_id)).all())
    out = []
    for r in runs:
        n, gross, net = totals.get(r.pay_run_id, (0, None, None))
        out.append({**run_row(r), "timecards": cards.get(r.pay_run_id, 0), "checks": n, "gross": gross, "net": net})
    return {"items": out, "total": len(out)}


@service(READ)
def get_pay_run(ctx: ServiceContext, period_end: str) -> dict:
    """Get a weekly payroll: its status in the flow (Open, Proofed, Calculated, Finalized), its
    totals, its direct-deposit file and its 941 tax deposit.

    Args:
        period_end: The Saturday the payroll week ends (YYYY-MM-DD).
    """
    r = get_run_row(ctx.session, period_end)
    listed = next(x for x in list_pay_runs(ctx)["items"] if x["pay_run_id"] == r.pay_run_id)
    dd = ctx.session.scalar(select(DirectDepositFile).where(DirectDepositFile.pay_run_id == r.pay_run_id))
    dep = ctx.session.scalar(select(TaxDeposit).where(TaxDeposit.pay_run_id == r.pay_run_id))
    jobs = ctx.session.scalars(select(Timecard.job_no).where(Timecard.pay_run_id == r.pay_run_id)
                               .group_by(Timecard.job_no).order_by(Timecard.job_no)).all()
    return {**listed, "jobs": list(jobs),
            "direct_deposit_file": {"entries": dd.entries, "total": dd.total, "status": dd.status,
                                    "created_on": dd.created_on} if dd else None,
            "tax_deposit": deposit_row(dep, r) if dep else None}


def deposit_row(d: TaxDeposit, r: PayRun) -> dict:
    return {"deposit_id": d.deposit_id, "period_end": r.period_end, "check_date": r.check_date, "form": d.form,
            "liability": d.liability, "due_date": d.due_date, "status": d.status, "deposited_on": d.deposited_on}


@service(READ)
def list_tax_deposits(ctx: ServiceContext, status: str | None = None) -> dict:
    """List the federal (941) tax deposits each finalized payroll owes: withholding plus employee
    and employer FICA, the due date and whether it was deposited.

    Args:
        status: Only deposits in this status: Due or Deposited.
    """
    stmt = select(TaxDeposit, PayRun).join(PayRun, PayRun.pay_run_id == TaxDeposit.pay_run_id)
    if status:
        if status not in ("Due", "Deposited"):
            raise ToolError("Status must be Due or Deposited.", "status")
        stmt = stmt.where(TaxDeposit.status == status)
    rows = ctx.session.execute(stmt.order_by(PayRun.period_end.desc())).all()
    return {"items": [deposit_row(d, r) for d, r in rows], "total": len(rows)}


@service(READ)
def list_timecards(ctx: ServiceContext, period_end: str | None = None, job_no: str | None = None,
                   employee_no: str | None = None, class_code: str | None = None, query: str | None = None,
                   page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """The timecard list: each employee's week by job, phase (cost code), cost class and pay class,
    with daily hours, regular and overtime hours, rates, fringe and earnings.

    Args:
        period_end: Only the payroll of the week ending this Saturday (YYYY-MM-DD).
        job_no: Only timecards charged to this job.
        employee_no: Only this employee's timecards.
        class_code: Only timecards paid under this pay class.
        query: Words to find in the employee's name or number.
        page: Page number, starting at 1.
        per_page: Timecards per page, 1 to 100.
        sort: Sort by period_end, employee, job_no, class, reg_hours, ot_hours or earnings; "-" sorts descending.
    """
    stmt = (select(Timecard, Employee, PayRun).join(Employee, Employee.employee_no == Timecard.employee_no)
            .join(PayRun, PayRun.pay_run_id == Timecard.pay_run_id))
    if period_end:
        stmt = stmt.where(Timecard.pay_run_id == get_run_row(ctx.session, period_end).pay_run_id)
    if job_no:
        stmt = stmt.where(Timecard.job_no == get_job_row(ctx.session, job_no).job_no)
    if employee_no:
        stmt = stmt.where(Timecard.employee_no == str(employee_no).strip())
    if class_code:
        stmt = stmt.where(Timecard.class_code == class_code.strip().upper())
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Employee.first_name.ilike(like), Employee.last_name.ilike(like),
                              Employee.employee_no == word))
    stmt = stmt.order_by(*sort_order(sort, TIMECARD_SORT, (PayRun.period_end.desc(), Timecard.job_no,
                                                           Employee.last_name, Timecard.timecard_id)))
    return paged(ctx.session, stmt, page, per_page, timecard_row)


def get_timecard_row(session, timecard_id: int) -> Timecard:
    row = session.get(Timecard, timecard_id)
    if row is None:
        raise NotFound(f"There is no timecard {timecard_id}.", "timecard_id")
    return row


@service(READ)
def get_timecard(ctx: ServiceContext, timecard_id: int) -> dict:
    """Get one timecard with its employee and payroll.

    Args:
        timecard_id: The timecard's id, as the timecard list shows it.
    """
    t = get_timecard_row(ctx.session, timecard_id)
    e, r = ctx.session.get(Employee, t.employee_no), ctx.session.get(PayRun, t.pay_run_id)
    j = ctx.session.get(Job, t.job_no)
    return {**timecard_row(t, e, r), "job_name": j.name if j else "", "pay_run_status": r.status,
            "apprentice_program": e.apprentice_program, "level": e.level}
