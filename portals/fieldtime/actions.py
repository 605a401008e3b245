"""FieldTime writes: correcting and adding time entries, approving a worker's week, locking a pay
week and exporting its approved time to payroll; signing a timecard for a worker is guarded (a
signature is the worker's or the foreman's own, never the agent's)."""
from __future__ import annotations

from decimal import Decimal, InvalidOperation

from sqlalchemy import select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.tools import GUARDED, WRITE, service

from .models import CostCode, Employee, PayrollExport, PeriodLock, Project, TimeEntry
from .records import (entry_row, export_row, get_employee_row, get_entry_row, get_project_row, week_of, week_text)
from .seed import clock_out, settings

APPROVER = "Office"


def _hours(value, field: str = "hours") -> Decimal:
    try:
        h = Decimal(str(value).strip())
    except InvalidOperation:
        raise ToolError(f"{str(value)[:20]!r} is not a number of hours.", field) from None
    if not h.is_finite() or h <= 0 or h > 24 or (h * 4) != (h * 4).to_integral():
        raise ToolError("Hours run from a quarter hour to 24, in quarter hours.", field)
    return h


def _code(session, project: Project, code, field: str = "cost_code") -> str:
    text = str(code or "").strip()
    if session.scalar(select(CostCode).where(CostCode.project_id == project.project_id, CostCode.code == text)) is None:
        raise ToolError(f"Project {project.project_id} has no cost code {text[:20]!r}.", field)
    return text


def _open_week(session, week: str, field: str) -> None:
    if session.get(PeriodLock, week) is not None:
        raise ToolError(f"The week ending {week} is locked; its time can no longer change here.", field)


def _editable(session, t: TimeEntry) -> None:
    if t.status == "Exported":
        raise ToolError(f"Time entry {t.entry_id} was exported to payroll and can no longer change.", "entry_id")
    _open_week(session, t.week_ending, "entry_id")


@service(WRITE)
def update_time_entry(ctx: ServiceContext, entry_id: int, hours: str | None = None, cost_code: str | None = None,
                      project_id: str | None = None, note: str | None = None) -> dict:
    """Correct a time entry not yet exported: its hours, cost code or project. A corrected entry
    goes back to Submitted for the foreman to approve again.

    Args:
        entry_id: The time entry's id.
        hours: The hours worked that day, in quarter hours.
        cost_code: The cost code, as the project's cost codes list it.
        project_id: The {project_id_name} the hours belong to.
        note: Why the entry changed.
    """
    t = get_entry_row(ctx.session, entry_id)
    _editable(ctx.session, t)
    if hours in (None, "") and not cost_code and not project_id:
        raise ToolError("Give the hours, cost code or project to change.", "hours")
    project = get_project_row(ctx.session, project_id) if project_id else ctx.session.get(Project, t.project_id)
    if hours not in (None, ""):
        t.hours = _hours(hours)
        t.clock_out = clock_out(t.clock_in, t.hours)
    t.cost_code = _code(ctx.session, project, cost_code or t.cost_code)
    t.project_id = project.project_id
    t.status, t.approved_by, t.approved_at = "Submitted", None, None
    if note:
        t.note = note.strip()[:200]
    ctx.session.flush()
    return entry_row(t, ctx.session.get(Employee, t.employee_id), project)


@service(WRITE)
def create_time_entry(ctx: ServiceContext, employee_id: str, project_id: str, cost_code: str, work_date: str,
                      hours: str, note: str | None = None) -> dict:
    """Add a day's time for an employee on a project and cost code, Submitted for the foreman.

    Args:
        employee_id: The {employee_id_name}.
        project_id: The {project_id_name}.
        cost_code: The cost code, as the project's cost codes list it.
        work_date: The day worked (YYYY-MM-DD).
        hours: The hours worked, in quarter hours.
        note: Why the time is added.
    """
    e = get_employee_row(ctx.session, employee_id)
    p = get_project_row(ctx.session, project_id)
    code = _code(ctx.session, p, cost_code)
    try:
        week = week_of(str(work_date).strip())
    except ValueError:
        raise ToolError(f"The work date must be a date like YYYY-MM-DD, not {str(work_date)[:40]!r}.", "work_date") from None
    if work_date > ctx.clock.today().isoformat():
        raise ToolError("Time cannot be entered for a day that has not come yet.", "work_date")
    _open_week(ctx.session, week, "work_date")
    h = _hours(hours)
    eid = stable_id(ctx.app, "entry", p.project_id, e.employee_id, work_date, code, "added")
    if ctx.session.get(TimeEntry, eid) is not None:
        raise ToolError(f"{e.first_name} {e.last_name} already has added time on {work_date} on this project and "
                        "cost code; correct that entry.", "work_date")
    start = settings(ctx.spec).get("clock_in", "07:00")
    t = TimeEntry(entry_id=eid, employee_id=e.employee_id, project_id=p.project_id, cost_code=code,
                  work_date=str(work_date).strip(), week_ending=week, clock_in=start, clock_out=clock_out(start, h),
                  hours=h, status="Submitted", approved_by=None, approved_at=None, export_id=None, signed_off=None,
                  note=(note or "").strip()[:200] or None)
    ctx.session.add(t)
    ctx.session.flush()
    return entry_row(t, e, p)


@service(WRITE)
def approve_timecard(ctx: ServiceContext, employee_id: str, week_ending: str, project_id: str | None = None) -> dict:
    """Approve an employee's Submitted time for a week (on one project, or all), as the office.

    Args:
        employee_id: The {employee_id_name}.
        week_ending: The Saturday the week ends (YYYY-MM-DD).
        project_id: Only time on this project, by its {project_id_name}.
    """
    e = get_employee_row(ctx.session, employee_id)
    week = week_text(week_ending)
    stmt = select(TimeEntry).where(TimeEntry.employee_id == e.employee_id, TimeEntry.week_ending == week,
                                   TimeEntry.status == "Submitted")
    if project_id:
        stmt = stmt.where(TimeEntry.project_id == get_project_row(ctx.session, project_id).project_id)
    rows = ctx.session.scalars(stmt.order_by(TimeEntry.work_date)).all()
    if not rows:
        raise ToolError(f"{e.first_name} {e.last_name} has no time waiting for approval in the week ending {week}.",
                        "employee_id")
    _open_week(ctx.session, week, "week_ending")
    stamp = ctx.clock.iso()[:19] + "Z"
    for t in rows:
        t.status, t.approved_by, t.approved_at = "Approved", APPROVER, stamp
    ctx.session.flush()
    return {"employee_id": e.employee_id, "week_ending": week, "approved": len(rows),
            "hours": sum((t.hours for t in rows), Decimal(0))}


@service(WRITE)
def lock_time_period(ctx: ServiceContext, week_ending: str) -> dict:
    """Lock a pay week: its time can no longer be added or changed in the field.

    Args:
        week_ending: The Saturday the week ends (YYYY-MM-DD).
    """
    week = week_text(week_ending)
    if ctx.session.get(PeriodLock, week) is not None:
        raise ToolError(f"The week ending {week} is already locked.", "week_ending")
    if week >= ctx.clock.today().isoformat():
        raise ToolError("A week can be locked only after it ends.", "week_ending")
    ctx.session.add(PeriodLock(week_ending=week, locked_at=ctx.clock.iso()[:19] + "Z"))
    ctx.session.flush()
    return {"week_ending": week, "locked": True}


@service(WRITE)
def create_payroll_export(ctx: ServiceContext, week_ending: str) -> dict:
    """Export a week's approved time to payroll as one batch; Submitted time stays behind.

    Args:
        week_ending: The Saturday the week ends (YYYY-MM-DD).
    """
    week = week_text(week_ending)
    rows = ctx.session.scalars(select(TimeEntry).where(TimeEntry.week_ending == week, TimeEntry.status == "Approved")
                               .order_by(TimeEntry.entry_id)).all()
    if not rows:
        raise ToolError(f"The week ending {week} has no approved time waiting to be exported.", "week_ending")
    n = len(ctx.session.scalars(select(PayrollExport.export_id).where(PayrollExport.week_ending == week)).all())
    x = PayrollExport(export_id=stable_id(ctx.app, "export", week, n), week_ending=week, entries=len(rows),
                      hours=sum((t.hours for t in rows), Decimal(0)), status="Created",
                      created_at=ctx.clock.iso()[:19] + "Z")
    ctx.session.add(x)
    for t in rows:
        t.status, t.export_id = "Exported", x.export_id
    ctx.session.flush()
    return export_row(x)


@service(GUARDED)
def sign_timecard(ctx: ServiceContext, employee_id: str, week_ending: str) -> dict:
    """Sign an employee's timecard for a week: the signature attests the hours are true. Only the
    person who signs may do it; it needs a person's approval.

    Args:
        employee_id: The {employee_id_name}.
        week_ending: The Saturday the week ends (YYYY-MM-DD).
    """
    e = get_employee_row(ctx.session, employee_id)
    week = week_text(week_ending)
    rows = ctx.session.scalars(select(TimeEntry).where(TimeEntry.employee_id == e.employee_id,
                                                       TimeEntry.week_ending == week)).all()
    if not rows:
        raise ToolError(f"{e.first_name} {e.last_name} has no time in the week ending {week}.", "week_ending")
    return {"action": "sign timecard", "employee": f"{e.first_name} {e.last_name}", "week_ending": week,
            "hours": sum((t.hours for t in rows), Decimal(0))}
