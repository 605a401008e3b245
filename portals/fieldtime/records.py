"""FieldTime reads: projects and their cost codes and crews, employees, time entries (by week,
project, employee, status and cost code), a project's weekly time card and the payroll exports."""
from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.paging import paged
from portals.core.sorting import DATE, MONEY, TEXT, sort_order
from portals.core.tools import READ, service

from .models import CostCode, Crew, Employee, PayrollExport, PeriodLock, Project, TimeEntry

DAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
STATUSES = ("Submitted", "Approved", "Exported")
PROJECT_SORT = {"project_id": (Project.project_id, TEXT), "name": (Project.name, TEXT), "state": (Project.state, TEXT)}
EMPLOYEE_SORT = {"employee_id": (Employee.employee_id, TEXT), "name": (Employee.last_name, TEXT),
                 "trade": (Employee.trade, TEXT)}
ENTRY_SORT = {"work_date": (TimeEntry.work_date, DATE), "employee": (Employee.last_name, TEXT),
              "project_id": (TimeEntry.project_id, TEXT), "cost_code": (TimeEntry.cost_code, TEXT),
              "hours": (TimeEntry.hours, MONEY), "status": (TimeEntry.status, TEXT)}


def week_text(value, field: str = "week_ending") -> str:
    """A pay week, named by the Saturday it ends."""
    try:
        day = date.fromisoformat(str(value).strip())
    except ValueError:
        raise ToolError(f"The week ending must be a date like YYYY-MM-DD, not {str(value)[:40]!r}.", field) from None
    if day.weekday() != 5:
        raise ToolError(f"A pay week ends on a Saturday; {day.isoformat()} is a {day.strftime('%A')}.", field)
    return day.isoformat()


def week_of(work_date: str) -> str:
    day = date.fromisoformat(work_date)
    return (day + timedelta(days=(5 - day.weekday()) % 7)).isoformat()


def get_project_row(session, project_id, field: str = "project_id") -> Project:
    row = session.get(Project, str(project_id or "").strip())
    if row is None:
        raise NotFound(f"There is no project {str(project_id).strip()[:20]!r}.", field)
    return row


def get_employee_row(session, employee_id, field: str = "employee_id") -> Employee:
    row = session.get(Employee, str(employee_id or "").strip())
    if row is None:
        raise NotFound(f"There is no employee {str(employee_id).strip()[:20]!r}.", field)
    return row


def get_entry_row(session, entry_id: int) -> TimeEntry:
    row = session.get(TimeEntry, entry_id)
    if row is None:
        raise NotFound(f"There is no time entry {entry_id}.", "entry_id")
    return row


def name(e: Employee | None) -> str:
    return f"{e.last_name}, {e.first_name}" if e else ""


def employee_row(e: Employee) -> dict:
    return {"employee_id": e.employee_id, "first_name": e.first_name, "last_name": e.last_name, "name": name(e),
            "trade": e.trade, "level": e.level, "status": e.status}


def project_row(p: Project) -> dict:
    return {"project_id": p.project_id, "name": p.name, "city": p.city, "state": p.state, "status": p.status}


def entry_row(t: TimeEntry, e: Employee | None = None, p: Project | None = None) -> dict:
    return {"entry_id": t.entry_id, "employee_id": t.employee_id, "employee": name(e), "project_id": t.project_id,
            "project": p.name if p else "", "cost_code": t.cost_code, "work_date": t.work_date,
            "day": DAYS[(date.fromisoformat(t.work_date).weekday() + 1) % 7], "week_ending": t.week_ending,
            "clock_in": t.clock_in, "clock_out": t.clock_out, "hours": t.hours, "status": t.status,
            "approved_by": t.approved_by, "approved_at": t.approved_at, "export_id": t.export_id,
            "signed_off": t.signed_off, "note": t.note}


def export_row(x: PayrollExport) -> dict:
    return {"export_id": x.export_id, "week_ending": x.week_ending, "entries": x.entries, "hours": x.hours,
            "status": x.status, "created_at": x.created_at}


@service(READ)
def list_projects(ctx: ServiceContext, query: str | None = None, page: int = 1, per_page: int = 25,
                  sort: str | None = None) -> dict:
    """List the {projects} time is kept on: {project_id_name}, name and location.

    Args:
        query: Words to find in the {project_id_name} or the project name.
        page: Page number, starting at 1.
        per_page: Projects per page, 1 to 100.
        sort: Sort by project_id, name or state; a leading "-" sorts descending.
    """
    stmt = select(Project)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Project.project_id.ilike(like), Project.name.ilike(like)))
    stmt = stmt.order_by(*sort_order(sort, PROJECT_SORT, (Project.project_id,)))
    return paged(ctx.session, stmt, page, per_page, project_row)


@service(READ)
def get_project(ctx: ServiceContext, project_id: str) -> dict:
    """Get a project: its cost codes, its crew and foreman, and its hours by week and status.

    Args:
        project_id: The {project_id_name}, as the {project_list} shows it.
    """
    p = get_project_row(ctx.session, project_id)
    codes = ctx.session.scalars(select(CostCode).where(CostCode.project_id == p.project_id).order_by(CostCode.code)).all()
    crews = ctx.session.scalars(select(Crew).where(Crew.project_id == p.project_id).order_by(Crew.crew_id)).all()
    weeks = ctx.session.execute(select(TimeEntry.week_ending, TimeEntry.status, func.count(), func.sum(TimeEntry.hours))
                                .where(TimeEntry.project_id == p.project_id)
                                .group_by(TimeEntry.week_ending, TimeEntry.status)
                                .order_by(TimeEntry.week_ending.desc(), TimeEntry.status)).all()
    return {**project_row(p),
            "cost_codes": [{"code": c.code, "description": c.description} for c in codes],
            "crews": [{"crew_id": c.crew_id, "name": c.name, "foreman_id": c.foreman_id,
                       "foreman": name(ctx.session.get(Employee, c.foreman_id))} for c in crews],
            "weeks": [{"week_ending": w, "status": s, "entries": n, "hours": Decimal(str(h or 0))}
                      for w, s, n, h in weeks]}


@service(READ)
def list_cost_codes(ctx: ServiceContext, project_id: str) -> dict:
    """List a project's cost codes (the phases payroll charges labor to).

    Args:
        project_id: The {project_id_name}, as the {project_list} shows it.
    """
    p = get_project_row(ctx.session, project_id)
    codes = ctx.session.scalars(select(CostCode).where(CostCode.project_id == p.project_id).order_by(CostCode.code)).all()
    return {"project_id": p.project_id, "items": [{"code": c.code, "description": c.description} for c in codes]}


@service(READ)
def list_employees(ctx: ServiceContext, query: str | None = None, trade: str | None = None, page: int = 1,
                   per_page: int = 25, sort: str | None = None) -> dict:
    """List {employees}: {employee_id_name}, name, trade and level.

    Args:
        query: Words to find in the name or the {employee_id_name}.
        trade: Only this trade code, as the {employee_list} shows it.
        page: Page number, starting at 1.
        per_page: Employees per page, 1 to 100.
        sort: Sort by employee_id, name or trade; a leading "-" sorts descending.
    """
    stmt = select(Employee)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Employee.first_name.ilike(like), Employee.last_name.ilike(like),
                              Employee.employee_id == word))
    if trade:
        stmt = stmt.where(Employee.trade == trade.strip().upper())
    stmt = stmt.order_by(*sort_order(sort, EMPLOYEE_SORT, (Employee.last_name, Employee.first_name, Employee.employee_id)))
    return paged(ctx.session, stmt, page, per_page, employee_row)


@service(READ)
def get_employee(ctx: ServiceContext, employee_id: str, week_ending: str | None = None) -> dict:
    """Get an employee and their time entries for a week (the latest week with time if empty).

    Args:
        employee_id: The {employee_id_name}, as the {employee_list} shows it.
        week_ending: The Saturday the week ends (YYYY-MM-DD).
    """
    e = get_employee_row(ctx.session, employee_id)
    weeks = ctx.session.scalars(select(TimeEntry.week_ending).where(TimeEntry.employee_id == e.employee_id)
                                .distinct().order_by(TimeEntry.week_ending.desc())).all()
    week = week_text(week_ending) if week_ending else (weeks[0] if weeks else None)
    rows = ctx.session.execute(select(TimeEntry, Project).join(Project, Project.project_id == TimeEntry.project_id)
                               .where(TimeEntry.employee_id == e.employee_id, TimeEntry.week_ending == week)
                               .order_by(TimeEntry.work_date, TimeEntry.project_id)).all()
    return {**employee_row(e), "weeks": list(weeks), "week_ending": week,
            "entries": [entry_row(t, e, p) for t, p in rows],
            "hours": sum((t.hours for t, _p in rows), Decimal(0))}


@service(READ)
def list_time_entries(ctx: ServiceContext, week_ending: str | None = None, project_id: str | None = None,
                      employee_id: str | None = None, status: str | None = None, cost_code: str | None = None,
                      query: str | None = None, page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List {time_entries}: one worker's hours on one day, project and cost code, with who approved them.

    Args:
        week_ending: Only the week ending this Saturday (YYYY-MM-DD).
        project_id: Only this project, by its {project_id_name}.
        employee_id: Only this employee, by their {employee_id_name}.
        status: Only entries in this status: Submitted (waiting for the foreman), Approved or Exported.
        cost_code: Only this cost code.
        query: Words to find in the employee's name.
        page: Page number, starting at 1.
        per_page: Entries per page, 1 to 100.
        sort: Sort by work_date, employee, project_id, cost_code, hours or status; a leading "-" sorts descending.
    """
    stmt = (select(TimeEntry, Employee, Project).join(Employee, Employee.employee_id == TimeEntry.employee_id)
            .join(Project, Project.project_id == TimeEntry.project_id))
    if week_ending:
        stmt = stmt.where(TimeEntry.week_ending == week_text(week_ending))
    if project_id:
        stmt = stmt.where(TimeEntry.project_id == get_project_row(ctx.session, project_id).project_id)
    if employee_id:
        stmt = stmt.where(TimeEntry.employee_id == str(employee_id).strip())
    if status:
        if status not in STATUSES:
            raise ToolError(f"Status must be one of: {', '.join(STATUSES)}.", "status")
        stmt = stmt.where(TimeEntry.status == status)
    if cost_code:
        stmt = stmt.where(TimeEntry.cost_code == cost_code.strip())
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Employee.first_name.ilike(like), Employee.last_name.ilike(like)))
    stmt = stmt.order_by(*sort_order(sort, ENTRY_SORT, (TimeEntry.work_date.desc(), Employee.last_name,
                                                        Employee.first_name, TimeEntry.entry_id)))
    return paged(ctx.session, stmt, page, per_page, entry_row)


@service(READ)
def get_time_entry(ctx: ServiceContext, entry_id: int) -> dict:
    """Get one time entry.

    Args:
        entry_id: The time entry's id.
    """
    t = get_entry_row(ctx.session, entry_id)
    locked = ctx.session.get(PeriodLock, t.week_ending) is not None
    return {**entry_row(t, ctx.session.get(Employee, t.employee_id), ctx.session.get(Project, t.project_id)),
            "period_locked": locked}


@service(READ)
def get_weekly_timecard(ctx: ServiceContext, project_id: str, week_ending: str) -> dict:
    """A project's weekly time card: one row per employee and cost code with the hours of each day,
    Sunday to Saturday, and the days still waiting for the foreman's approval.

    Args:
        project_id: The {project_id_name}, as the {project_list} shows it.
        week_ending: The Saturday the week ends (YYYY-MM-DD).
    """
    p = get_project_row(ctx.session, project_id)
    week = week_text(week_ending)
    rows = ctx.session.execute(select(TimeEntry, Employee).join(Employee, Employee.employee_id == TimeEntry.employee_id)
                               .where(TimeEntry.project_id == p.project_id, TimeEntry.week_ending == week)
                               .order_by(Employee.last_name, Employee.first_name, TimeEntry.cost_code)).all()
    grid: dict[tuple, dict] = {}
    for t, e in rows:
        row = grid.setdefault((name(e), e.employee_id, t.cost_code), {
            "employee_id": e.employee_id, "employee": name(e), "trade": e.trade, "cost_code": t.cost_code,
            "hours": {d: Decimal(0) for d in DAYS}, "submitted": [], "total": Decimal(0)})
        day = DAYS[(date.fromisoformat(t.work_date).weekday() + 1) % 7]
        row["hours"][day] += t.hours
        row["total"] += t.hours
        if t.status == "Submitted":
            row["submitted"].append(day)
    totals = defaultdict(Decimal)
    for row in grid.values():
        for d, h in row["hours"].items():
            totals[d] += h
    locked = ctx.session.get(PeriodLock, week) is not None
    return {"project_id": p.project_id, "project": p.name, "week_ending": week, "period_locked": locked,
            "rows": [grid[k] for k in sorted(grid)], "totals": {d: totals[d] for d in DAYS},
            "total": sum(totals.values(), Decimal(0))}


@service(READ)
def export_workshifts(ctx: ServiceContext, week_ending: str, project_id: str | None = None) -> dict:
    """Export a week's workshifts: each project's day with its foreman and every worker's hours by
    cost code and status.

    Args:
        week_ending: The Saturday the week ends (YYYY-MM-DD).
        project_id: Only this project, by its {project_id_name}.
    """
    week = week_text(week_ending)
    stmt = (select(TimeEntry, Employee).join(Employee, Employee.employee_id == TimeEntry.employee_id)
            .where(TimeEntry.week_ending == week))
    if project_id:
        stmt = stmt.where(TimeEntry.project_id == get_project_row(ctx.session, project_id).project_id)
    foremen = {c.project_id: c.foreman_id for c in ctx.session.scalars(select(Crew)).all()}
    shifts: dict[tuple, dict] = {}
    for t, e in ctx.session.execute(stmt.order_by(TimeEntry.project_id, TimeEntry.work_date, Employee.last_name,
                                                  Employee.first_name, TimeEntry.cost_code)).all():
        shift = shifts.setdefault((t.project_id, t.work_date), {
            "project_id": t.project_id, "date": t.work_date, "foreman_id": foremen.get(t.project_id), "entries": []})
        shift["entries"].append({"entry_id": t.entry_id, "employee_id": e.employee_id, "employee": name(e),
                                 "cost_code": t.cost_code, "hours": t.hours, "status": t.status})
    return {"week_ending": week, "workshifts": [shifts[k] for k in sorted(shifts)]}


@service(READ)
def list_payroll_exports(ctx: ServiceContext) -> dict:
    """List the payroll exports: each week's batch of approved time sent to payroll, with its status."""
    rows = ctx.session.scalars(select(PayrollExport).order_by(PayrollExport.week_ending.desc())).all()
    locks = {r.week_ending: r.locked_at for r in ctx.session.scalars(select(PeriodLock)).all()}
    return {"items": [export_row(x) for x in rows], "locked_weeks": locks}
