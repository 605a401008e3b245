"""A residential job's estimate and its client change orders (Ressio).

The estimate is locked when the job is sold; its totals are the budget's Original column. A change
order is built in the product, sent to the client (the homeowner) and accepted or declined there;
an accepted one is then applied to the budget, each line adding its amount to the Approved Changes
of the budget line with its cost code and cost type (a line the budget lacks is added at zero
original). A change order can instead be put on hold with a reason and a note. Which change orders
to apply is the company's policy, not the product's rule: the product applies whichever it is
asked to. Sending a change order to the client is guarded: it is checked and staged.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.sorting import DATE, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, MaxLen, service

from .change_order_models import ClientChangeOrder, ClientChangeOrderLine, JobEstimate
from .models import BudgetLine, Project
from .queries import check_paging, contains, paged, project_by_number

ZERO = Decimal("0")
ClientStatus = Literal["Awaiting Client", "Accepted", "Declined"]
BudgetStatus = Literal["Not Applied", "Applied", "On Hold"]
HoldReason = Literal["Estimate not locked", "Amount differs", "Not accepted", "Other"]
HOLD_REASONS = ("Estimate not locked", "Amount differs", "Not accepted", "Other")
CO_SORT = {"number": (ClientChangeOrder.number, TEXT), "title": (ClientChangeOrder.title, TEXT),
           "sent": (ClientChangeOrder.sent_date, DATE), "client_status": (ClientChangeOrder.client_status, TEXT),
           "budget_status": (ClientChangeOrder.budget_status, TEXT)}


# -- the estimate --------------------------------------------------------------------------------

@service(READ)
def get_job_estimate(ctx: ServiceContext, project_number: str) -> dict:
    """Show a job's estimate: its number, whether it is Locked (sold; its totals are the budget's
    Original column) or Unlocked (being repriced), when and by whom that was set, and its total.

    Args:
        project_number: The job number, e.g. "9999".
    """
    project = project_by_number(ctx.session, project_number)
    e = ctx.session.scalar(select(JobEstimate).where(JobEstimate.project_id == project.project_id))
    if e is None:
        raise NotFound(f"Job {project.project_number} has no estimate.", "project_number")
    return {"project_number": project.project_number, "project_name": project.name, "number": e.number,
            "status": e.status, "status_date": e.status_date, "status_by": e.status_by, "total": e.total}


# -- client change orders -------------------------------------------------------------------------

def _lines(session, co: ClientChangeOrder) -> list[ClientChangeOrderLine]:
    return list(session.scalars(select(ClientChangeOrderLine)
                                .where(ClientChangeOrderLine.change_order_id == co.change_order_id)
                                .order_by(ClientChangeOrderLine.line_no)))


def _row(session, co: ClientChangeOrder, project: Project) -> dict:
    lines = _lines(session, co)
    return {"project_number": project.project_number, "number": co.number, "title": co.title,
            "sent_date": co.sent_date, "client_status": co.client_status,
            "client_status_date": co.client_status_date, "signed_amount": co.signed_amount,
            "amount": sum((x.amount for x in lines), start=ZERO), "budget_status": co.budget_status,
            "applied_date": co.applied_date, "hold_reason": co.hold_reason, "hold_note": co.hold_note}


def _change_order(session, project_number: str, number: str) -> tuple[ClientChangeOrder, Project]:
    project = project_by_number(session, project_number)
    co = session.scalar(select(ClientChangeOrder).where(ClientChangeOrder.project_id == project.project_id,
                                                        ClientChangeOrder.number == number.strip()))
    if co is None:
        raise NotFound(f"There is no change order {number!r} on job {project.project_number}; list the job's "
                       f"change orders to see their numbers.", "number")
    return co, project


@service(READ)
def list_client_change_orders(ctx: ServiceContext, project_number: str, client_status: ClientStatus | None = None,
                              budget_status: BudgetStatus | None = None, search: str | None = None,
                              sort: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List a job's change orders sent to the client: what the client did with each (Awaiting
    Client, Accepted or Declined), the amount of its lines and the amount the client signed for,
    and where it stands on the budget (Not Applied, Applied or On Hold).

    Args:
        project_number: The job number, e.g. "9999".
        client_status: Only change orders the client has left in this status.
        budget_status: Only change orders in this budget status.
        search: Text to find in the change order number or title.
        sort: A column to sort by (number, title, sent, client_status, budget_status); a leading
            "-" sorts descending.
        page: Page number, starting at 1.
        per_page: Change orders per page, 1 to 100.
    """
    check_paging(page, per_page)
    project = project_by_number(ctx.session, project_number)
    stmt = select(ClientChangeOrder).where(ClientChangeOrder.project_id == project.project_id)
    if client_status:
        stmt = stmt.where(ClientChangeOrder.client_status == client_status)
    if budget_status:
        stmt = stmt.where(ClientChangeOrder.budget_status == budget_status)
    if search and search.strip():
        stmt = stmt.where(or_(contains(ClientChangeOrder.number, search), contains(ClientChangeOrder.title, search)))
    stmt = stmt.order_by(*sort_order(sort, CO_SORT, (ClientChangeOrder.number,)))
    return paged(ctx.session, stmt, page, per_page, lambda r: _row(ctx.session, r[0], project))


@service(READ)
def get_client_change_order(ctx: ServiceContext, project_number: str, number: str) -> dict:
    """Show one change order: the client's decision and the amount signed for, its budget status
    and hold, and its lines (cost code, cost type, description, amount).

    Args:
        project_number: The job number, e.g. "9999".
        number: The change order number, from client_change_orders.list.
    """
    co, project = _change_order(ctx.session, project_number, number)
    return {**_row(ctx.session, co, project),
            "lines": [{"line_no": x.line_no, "cost_code": x.cost_code, "cost_type": x.cost_type,
                       "description": x.description, "amount": x.amount} for x in _lines(ctx.session, co)]}


@service(WRITE)
def apply_client_change_order(ctx: ServiceContext, project_number: str, number: str) -> dict:
    """Apply a change order to the job's budget: each of its lines adds its amount to the Approved
    Changes of the budget line with the same cost code and cost type (the Revised budget rises by
    it). A change order on hold is released by applying it; one already applied cannot be applied
    again.

    Args:
        project_number: The job number, e.g. "9999".
        number: The change order number, from client_change_orders.list.
    """
    co, project = _change_order(ctx.session, project_number, number)
    if co.budget_status == "Applied":
        raise ToolError(f"Change order {co.number} was applied to the budget on {co.applied_date}; it cannot be "
                        f"applied twice.", "number", "wrong_state")
    lines = _lines(ctx.session, co)
    if not lines:
        raise ToolError(f"Change order {co.number} has no lines to apply.", "number", "wrong_state")
    for x in lines:
        budget = ctx.session.scalar(select(BudgetLine).where(
            BudgetLine.project_id == project.project_id, BudgetLine.cost_code == x.cost_code,
            BudgetLine.cost_type == x.cost_type))
        if budget is None:
            budget = BudgetLine(budget_line_id=stable_id(ctx.app, "budget", project.project_number, x.cost_code,
                                                         x.cost_type),
                                project_id=project.project_id, cost_code=x.cost_code, cost_type=x.cost_type,
                                original_budget=ZERO, approved_changes=ZERO, forecast_to_complete=ZERO)
            ctx.session.add(budget)
        budget.approved_changes = budget.approved_changes + x.amount
    co.budget_status, co.applied_date, co.hold_reason, co.hold_note = "Applied", ctx.clock.today(), "", ""
    ctx.session.flush()
    return get_client_change_order(ctx, project.project_number, co.number)


@service(WRITE)
def hold_client_change_order(ctx: ServiceContext, project_number: str, number: str, reason: HoldReason,
                             note: Annotated[str, MaxLen(500)]) -> dict:
    """Put a change order on hold instead of applying it to the budget, with a reason and a note
    saying why. One already applied cannot be held.

    Args:
        project_number: The job number, e.g. "9999".
        number: The change order number, from client_change_orders.list.
        reason: Estimate not locked, Amount differs, Not accepted or Other.
        note: Why it is held, for the project manager.
    """
    co, project = _change_order(ctx.session, project_number, number)
    if reason not in HOLD_REASONS:
        raise ToolError(f"Reason must be one of: {', '.join(HOLD_REASONS)}.", "reason")
    if not note.strip():
        raise ToolError("Say why the change order is held.", "note")
    if co.budget_status == "Applied":
        raise ToolError(f"Change order {co.number} was applied to the budget on {co.applied_date}; it cannot be "
                        f"held.", "number", "wrong_state")
    if co.budget_status == "On Hold":
        raise ToolError(f"Change order {co.number} is already on hold ({co.hold_reason}).", "number", "wrong_state")
    co.budget_status, co.hold_reason, co.hold_note = "On Hold", reason, note.strip()
    ctx.session.flush()
    return get_client_change_order(ctx, project.project_number, co.number)


@service(GUARDED)
def send_client_change_order(ctx: ServiceContext, project_number: str, number: str) -> dict:
    """Send a change order to the client for acceptance (or send it again). Anything sent to the
    client needs a person's approval: this checks the change order and stages the request;
    nothing is sent.

    Args:
        project_number: The job number, e.g. "9999".
        number: The change order number, from client_change_orders.list.
    """
    co, project = _change_order(ctx.session, project_number, number)
    if co.budget_status == "Applied":
        raise ToolError(f"Change order {co.number} is already applied to the budget; there is nothing to send.",
                        "number", "wrong_state")
    found = get_client_change_order(ctx, project.project_number, co.number)
    return {"action": "Send change order to client", "project_number": project.project_number,
            "number": co.number, "client": project.customer, "amount": found["amount"]}
