"""LCPtracker read services: projects and their wage determination, employees, payroll records."""
from __future__ import annotations

from datetime import date

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.sorting import DATE, MONEY, TEXT, sort_help, sort_order
from portals.core.tools import READ, service
from portals.core.paging import MAX_PER_PAGE, check_paging, paged  # noqa: F401 (re-exported)

from .models import Cpr, Employee, PayrollRecord, Project, RecordNote, WageRate

PROJECT_SORT = {"contract_number": (Project.contract_number, TEXT), "name": (Project.name, TEXT),
                "agency": (Project.awarding_agency, TEXT), "start_date": (Project.start_date, DATE)}
EMPLOYEE_SORT = {"name": (Employee.last_name, TEXT), "classification": (Employee.classification, TEXT),
                 "level": (Employee.level, TEXT)}
RECORD_SORT = {"week_ending": (PayrollRecord.week_ending, DATE), "employee": (Employee.last_name, TEXT),
               "classification": (PayrollRecord.classification, TEXT), "gross": (PayrollRecord.gross, MONEY),
               "st_hours": (PayrollRecord.st_hours, MONEY), "ot_hours": (PayrollRecord.ot_hours, MONEY)}
LEVELS = ("J", "A1", "A2", "A3", "A4")
DAYS = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")




def week_text(value: str | None, field: str = "week_ending") -> str | None:
    if value is None:
        return None
    try:
        day = date.fromisoformat(str(value).strip())
    except ValueError:
        raise ToolError(f"Week ending must be a date like 2026-06-27, not {str(value)[:40]!r}.", field) from None
    if day.weekday() != 5:
        raise ToolError(f"A payroll week ends on a Saturday; {day.isoformat()} is a {day.strftime('%A')}.", field)
    return day.isoformat()


def get_project_row(session, project_id: int) -> Project:
    row = session.get(Project, project_id)
    if row is None:
        raise NotFound(f"There is no project with id {project_id}.", "project_id")
    return row


def project_summary(p: Project) -> dict:
    return {"project_id": p.project_id, "contract_number": p.contract_number, "name": p.name,
            "awarding_agency": p.awarding_agency, "location": p.location, "county": p.county, "state": p.state,
            "wd_number": p.wd_number, "wd_modification": p.wd_modification, "prime_contractor": p.prime_contractor,
            "start_date": p.start_date}


def rate_row(r: WageRate) -> dict:
    return {"classification": r.classification, "level": r.level, "base_rate": r.base_rate,
            "fringe_rate": r.fringe_rate, "total_rate": r.base_rate + r.fringe_rate,
            "apprentice_ratio": r.apprentice_ratio, "pct_of_journeyworker": r.pct_of_journeyworker}


def employee_row(e: Employee) -> dict:
    return {"employee_id": e.employee_id, "first_name": e.first_name, "last_name": e.last_name,
            "name": f"{e.first_name} {e.last_name}", "ssn_last4": e.ssn_last4, "classification": e.classification,
            "level": e.level, "apprentice_registration": e.apprentice_registration, "union_local": e.union_local}


def record_row(r: PayrollRecord, e: Employee | None, p: Project | None = None) -> dict:
    hours = r.daily_hours.split(",")
    return {"record_id": r.record_id, "project_id": r.project_id,
            "contract_number": p.contract_number if p else None, "week_ending": r.week_ending,
            "employee_id": r.employee_id, "employee": f"{e.first_name} {e.last_name}" if e else "",
            "ssn_last4": e.ssn_last4 if e else "", "classification": r.classification, "level": r.level,
            "daily_hours": dict(zip(DAYS, hours)), "st_hours": r.st_hours, "ot_hours": r.ot_hours,
            "st_rate": r.st_rate, "ot_rate": r.ot_rate, "fringe_plan": r.fringe_plan, "fringe_cash": r.fringe_cash,
            "fringe_method": r.fringe_method, "gross": r.gross, "fica": r.fica, "withholding": r.withholding,
            "net": r.net}


def cpr_row(c: Cpr) -> dict:
    return {"cpr_id": c.cpr_id, "project_id": c.project_id, "week_ending": c.week_ending,
            "payroll_number": c.payroll_number, "status": c.status, "certified_by": c.certified_by,
            "submitted_at": c.submitted_at}


@service(READ)
def list_projects(ctx: ServiceContext, query: str | None = None, state: str | None = None,
                  page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List the prevailing-wage projects, each filed under the awarding agency's contract number.

    Args:
        query: Words to find in the contract number, project name or awarding agency.
        state: Only projects in this state (two letters, e.g. "NC").
        page: Page number, starting at 1.
        per_page: Projects per page, 1 to 100.
        sort: Sort by contract_number, name, agency or start_date; a leading "-" sorts descending.
    """
    stmt = select(Project)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Project.contract_number.ilike(like), Project.name.ilike(like),
                              Project.awarding_agency.ilike(like)))
    if state:
        stmt = stmt.where(Project.state == state.strip().upper())
    stmt = stmt.order_by(*sort_order(sort, PROJECT_SORT, (Project.contract_number,)))
    return paged(ctx.session, stmt, page, per_page, project_summary)


@service(READ)
def get_project(ctx: ServiceContext, project_id: int) -> dict:
    """Get a project: its agency, location, wage determination number and its weekly CPRs.

    Args:
        project_id: The project's id, as the project list shows it.
    """
    p = get_project_row(ctx.session, project_id)
    cprs = ctx.session.scalars(select(Cpr).where(Cpr.project_id == p.project_id).order_by(Cpr.week_ending)).all()
    return {**project_summary(p), "cprs": [cpr_row(c) for c in cprs]}


@service(READ)
def get_wage_rates(ctx: ServiceContext, project_id: int, classification: str | None = None) -> dict:
    """The project's wage determination: base and fringe per classification and level, and apprentice ratios.

    Level J is the journeyworker; A1 to A4 are apprentice levels paid a share of the journeyworker rate.
    The apprentice ratio "1:3" allows one apprentice for every three journeyworkers of the craft.

    Args:
        project_id: The project's id.
        classification: Only this classification, e.g. "Carpenter".
    """
    p = get_project_row(ctx.session, project_id)
    stmt = select(WageRate).where(WageRate.project_id == p.project_id)
    if classification:
        stmt = stmt.where(WageRate.classification == classification.strip())
    rows = ctx.session.scalars(stmt.order_by(WageRate.classification, WageRate.level)).all()
    if classification and not rows:
        raise NotFound(f"{classification.strip()!r} is not a classification of wage determination {p.wd_number}.",
                       "classification")
    return {"project_id": p.project_id, "contract_number": p.contract_number, "wd_number": p.wd_number,
            "wd_modification": p.wd_modification, "rates": [rate_row(r) for r in rows]}


@service(READ)
def list_employees(ctx: ServiceContext, query: str | None = None, classification: str | None = None,
                   level: str | None = None, page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List the contractor's employees: name, last four of the SSN, craft and apprenticeship.

    Args:
        query: Words to find in the employee's name, or the last four digits of the SSN.
        classification: Only employees of this classification, e.g. "Electrician".
        level: Only this level: J (journeyworker) or A1 to A4 (apprentice).
        page: Page number, starting at 1.
        per_page: Employees per page, 1 to 100.
        sort: Sort by name, classification or level; a leading "-" sorts descending.
    """
    stmt = select(Employee)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Employee.first_name.ilike(like), Employee.last_name.ilike(like),
                              Employee.ssn_last4 == word))
    if classification:
        stmt = stmt.where(Employee.classification == classification.strip())
    if level:
        if level not in LEVELS:
            raise ToolError(f"Level must be one of: {', '.join(LEVELS)}.", "level")
        stmt = stmt.where(Employee.level == level)
    stmt = stmt.order_by(*sort_order(sort, EMPLOYEE_SORT, (Employee.last_name, Employee.first_name, Employee.employee_id)))
    return paged(ctx.session, stmt, page, per_page, employee_row)


@service(READ)
def get_employee(ctx: ServiceContext, employee_id: int) -> dict:
    """Get an employee and the payroll weeks they appear on.

    Args:
        employee_id: The employee's id, as the employee list shows it.
    """
    e = ctx.session.get(Employee, employee_id)
    if e is None:
        raise NotFound(f"There is no employee with id {employee_id}.", "employee_id")
    rows = ctx.session.execute(select(PayrollRecord, Project).join(Project, Project.project_id == PayrollRecord.project_id)
                               .where(PayrollRecord.employee_id == employee_id)
                               .order_by(PayrollRecord.week_ending, Project.contract_number)).all()
    return {**employee_row(e), "records": [{"record_id": r.record_id, "contract_number": p.contract_number,
                                             "project_id": p.project_id, "week_ending": r.week_ending,
                                             "classification": r.classification, "gross": r.gross}
                                            for r, p in rows]}


@service(READ)
def list_payroll_records(ctx: ServiceContext, project_id: int | None = None, week_ending: str | None = None,
                         employee_id: int | None = None, classification: str | None = None,
                         query: str | None = None, page: int = 1, per_page: int = 25,
                         sort: str | None = None) -> dict:
    """List weekly payroll records imported from payroll: hours by day, rates, fringe, gross and net.

    Args:
        project_id: Only this project's records.
        week_ending: Only the week ending this Saturday, e.g. "2026-06-27".
        employee_id: Only this employee's records.
        classification: Only records paid under this classification.
        query: Words to find in the employee's name, or the last four digits of the SSN.
        page: Page number, starting at 1.
        per_page: Records per page, 1 to 100.
        sort: Sort by week_ending, employee, classification, gross, st_hours or ot_hours; "-" sorts descending.
    """
    week = week_text(week_ending)
    stmt = (select(PayrollRecord, Employee, Project).join(Employee, Employee.employee_id == PayrollRecord.employee_id)
            .join(Project, Project.project_id == PayrollRecord.project_id))
    if project_id is not None:
        get_project_row(ctx.session, project_id)
        stmt = stmt.where(PayrollRecord.project_id == project_id)
    if week:
        stmt = stmt.where(PayrollRecord.week_ending == week)
    if employee_id is not None:
        stmt = stmt.where(PayrollRecord.employee_id == employee_id)
    if classification:
        stmt = stmt.where(PayrollRecord.classification == classification.strip())
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Employee.first_name.ilike(like), Employee.last_name.ilike(like),
                              Employee.ssn_last4 == word))
    stmt = stmt.order_by(*sort_order(sort, RECORD_SORT, (PayrollRecord.week_ending.desc(), Project.contract_number,
                                                         Employee.last_name, PayrollRecord.record_id)))
    return paged(ctx.session, stmt, page, per_page, record_row)


def notes_of(session, record_id: int) -> list[dict]:
    rows = session.scalars(select(RecordNote).where(RecordNote.record_id == record_id)
                           .order_by(RecordNote.created_at, RecordNote.note_id)).all()
    return [{"note_id": n.note_id, "category": n.category, "note": n.note, "created_at": n.created_at} for n in rows]


def get_record_row(session, record_id: int) -> PayrollRecord:
    row = session.get(PayrollRecord, record_id)
    if row is None:
        raise NotFound(f"There is no payroll record with id {record_id}.", "record_id")
    return row


@service(READ)
def get_payroll_record(ctx: ServiceContext, record_id: int) -> dict:
    """Get one payroll record with its employee's apprenticeship and the compliance notes on it.

    Args:
        record_id: The payroll record's id.
    """
    r = get_record_row(ctx.session, record_id)
    e = ctx.session.get(Employee, r.employee_id)
    p = ctx.session.get(Project, r.project_id)
    return {**record_row(r, e, p), "project_name": p.name,
            "apprentice_registration": e.apprentice_registration, "notes": notes_of(ctx.session, record_id)}


def week_records(session, project: Project, week: str) -> list[tuple]:
    rows = session.execute(select(PayrollRecord, Employee).join(Employee, Employee.employee_id == PayrollRecord.employee_id)
                           .where(PayrollRecord.project_id == project.project_id, PayrollRecord.week_ending == week)
                           .order_by(Employee.last_name, Employee.first_name, PayrollRecord.record_id)).all()
    return rows


def get_cpr_row(session, project: Project, week: str) -> Cpr:
    row = session.scalar(select(Cpr).where(Cpr.project_id == project.project_id, Cpr.week_ending == week))
    if row is None:
        raise NotFound(f"Project {project.contract_number} has no payroll for the week ending {week}.", "week_ending")
    return row
