"""Pay statements (each payroll's check or deposit advice for one employee, with the earnings lines
behind it) and pay distributions (where an employee's net pay is deposited). Changing a pay
distribution is a person's step: bank details are what payroll fraud goes after, so the service
validates the change and the guard stages it; nothing here writes."""
from __future__ import annotations

from typing import Literal

from sqlalchemy import select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.tools import GUARDED, READ, service

from .models import Check, Job, PayRun, Timecard
from .records import check_row, get_employee_row, get_run_row

STATUS_WORDS = {"Finalized": "Final"}  # a statement of a payroll not yet finalized is a preview


@service(READ)
def list_pay_statements(ctx: ServiceContext, employee_no: str, period_end: str | None = None) -> dict:
    """List an employee's pay statements, newest first: each payroll's hours, gross, FICA, federal
    withholding and net, how it was paid, and its earnings lines by job (hours, rates, earnings).

    Args:
        employee_no: The {employee_id_name}, as the {employee_list} shows it.
        period_end: Only the payroll of the week ending this Saturday (YYYY-MM-DD).
    """
    e = get_employee_row(ctx.session, employee_no)
    stmt = (select(Check, PayRun).join(PayRun, PayRun.pay_run_id == Check.pay_run_id)
            .where(Check.employee_no == e.employee_no))
    if period_end:
        stmt = stmt.where(PayRun.pay_run_id == get_run_row(ctx.session, period_end).pay_run_id)
    rows = ctx.session.execute(stmt.order_by(PayRun.period_end.desc())).all()
    jobs = dict(ctx.session.execute(select(Job.job_no, Job.name)).all())
    out = []
    for c, r in rows:
        cards = ctx.session.scalars(select(Timecard).where(Timecard.pay_run_id == r.pay_run_id,
                                                           Timecard.employee_no == e.employee_no)
                                    .order_by(Timecard.job_no, Timecard.timecard_id)).all()
        out.append({**check_row(c, e), "period_end": r.period_end, "pay_date": r.check_date,
                    "statement_status": STATUS_WORDS.get(r.status, "Preview"),
                    "earnings": [{"job_no": t.job_no, "job_name": jobs.get(t.job_no, ""), "class_code": t.class_code,
                                  "reg_hours": t.reg_hours, "ot_hours": t.ot_hours, "reg_rate": t.reg_rate,
                                  "ot_rate": t.ot_rate, "fringe_cash_rate": t.fringe_cash_rate,
                                  "earnings": t.earnings} for t in cards]})
    return {"employee_no": e.employee_no, "name": f"{e.last_name}, {e.first_name}", "items": out,
            "total": len(out)}


def _digits(value: str, field: str, what: str, low: int, high: int) -> str:
    text = str(value or "").strip().replace(" ", "").replace("-", "")
    if not (text.isdigit() and low <= len(text) <= high):
        span = f"{low}" if low == high else f"{low} to {high}"
        raise ToolError(f"The {what} is {span} digits.", field)
    return text


def _routing(value: str) -> str:
    text = _digits(value, "routing_number", "routing number", 9, 9)
    d = [int(ch) for ch in text]
    if (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]) % 10:
        raise ToolError(f"{text} is not a valid ABA routing number (its check digit does not match).",
                        "routing_number")
    return text


@service(GUARDED)
def update_pay_distribution(ctx: ServiceContext, employee_no: str, routing_number: str, account_number: str,
                            account_type: Literal["Checking", "Savings"] = "Checking") -> dict:
    """Change where an employee's net pay is deposited (direct deposit). Needs a person's approval.

    Args:
        employee_no: The {employee_id_name}, as the {employee_list} shows it.
        routing_number: The bank's nine-digit ABA routing number.
        account_number: The account number, 4 to 17 digits.
        account_type: Checking or Savings.
    """
    e = get_employee_row(ctx.session, employee_no)
    routing = _routing(routing_number)
    account = _digits(account_number, "account_number", "account number", 4, 17)
    return {"action": "change direct deposit", "employee_no": e.employee_no,
            "employee": f"{e.last_name}, {e.first_name}", "routing_number": routing,
            "account": f"xxxx{account[-4:]}", "account_type": account_type,
            "was": f"xxxx{e.dd_account_last4}" if e.dd_account_last4 else "paper check"}
