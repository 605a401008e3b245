"""Project change requests: a proposed change's cost and price effect, before it is approved.

Entering one changes nothing else: budgets and contracts move only when a person approves it
(approving is a write like any other; whether the agent should is the task's judgment).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from sqlalchemy import or_, select

from portals.core.errors import NotFound, ToolError
from portals.core.money import parse_amount
from portals.core.tools import READ, WRITE, MaxLen, service

from . import entities as E
from . import lookups as L
from .models import BudgetLine, ChangeRequest

ZERO = Decimal("0.00")

CHANGE_TYPES = ("owner", "subcontract", "internal")
STATUSES = ("Pending", "Approved", "Void")


def change_request_row(c: ChangeRequest) -> dict:
    return {"change_request_id": c.change_request_id, "project_id": c.job, "change_type": c.change_type,
            "description": c.description, "request_date": c.request_date, "task_id": c.cost_code,
            "cost_type_id": c.cost_type, "cost_effect": c.cost_effect, "price_effect": c.price_effect,
            "status": c.status}


@service(READ)
def list_change_requests(ctx, project_id: str | None = None,
                         status: Literal["Pending", "Approved", "Void"] | None = None,
                         change_type: Literal["owner", "subcontract", "internal"] | None = None,
                         search: str | None = None, entity_id: str | None = None,
                         page: int = 1, per_page: int = 25) -> dict:
    """Search project change requests, newest first.

    Args:
        project_id: Only this {job_word} ({job_format}).
        status: Pending, Approved or Void.
        change_type: owner (changes the owner contract), subcontract or internal.
        search: Part of the change request id or description.
        entity_id: Only {job_word}s of this {entity_word} ({entity_format}).
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(ChangeRequest)
    if project_id:
        query = query.where(ChangeRequest.job == L.job(ctx, project_id).job)
    for column, value in ((ChangeRequest.status, status), (ChangeRequest.change_type, change_type)):
        if value:
            query = query.where(column == value)
    if search:
        query = query.where(or_(L.name_match(ChangeRequest.change_request_id, search),
                                L.name_match(ChangeRequest.description, search)))
    query = E.only_entity(ctx, query, ChangeRequest.job, entity_id)
    query = query.order_by(ChangeRequest.request_date.desc(), ChangeRequest.change_request_id.desc())
    return L.page_of(ctx, query, page, per_page, change_request_row)


@service(READ)
def get_change_request(ctx, change_request_id: str) -> dict:
    """Get one change request.

    Args:
        change_request_id: The change request id, e.g. CR-99999.
    """
    found = ctx.session.get(ChangeRequest, change_request_id.strip())
    if found is None:
        raise NotFound(f"There is no change request {change_request_id.strip()!r}.", "change_request_id")
    out = change_request_row(found)
    out["entered_at"] = found.entered_at
    return out


def _next_id(ctx) -> str:
    numbers = ctx.session.scalars(select(ChangeRequest.change_request_id)
                                  .where(ChangeRequest.change_request_id.like("CR-%")))
    top = max((int(n[3:]) for n in numbers if n[3:].isdigit()), default=0)
    return f"CR-{top + 1:05d}"


@service(WRITE)
def create_change_request(ctx, project_id: str, description: Annotated[str, MaxLen(300)], task_id: str,
                          cost_type_id: str, cost_effect: str,
                          change_type: Literal["owner", "subcontract", "internal"] = "owner",
                          price_effect: str = "0.00", request_date: date | None = None) -> dict:
    """Enter a change request on a {job_word}; it is Pending until a person approves it, and nothing
    else changes (budget and contract move only on approval).

    Args:
        project_id: The {job_word} ({job_format}).
        description: What changes, e.g. "Owner-requested added scope".
        task_id: The cost code the change is coded to ({cost_code_format}).
        cost_type_id: Cost type: L, M, S, E or O.
        cost_effect: The change in cost, e.g. 12345.67, or -12345.67 for a credit.
        change_type: owner (also changes the owner contract), subcontract or internal. Default owner.
        price_effect: The change in the owner contract price, e.g. 12345.67; 0.00 for none.
        request_date: The date of the request, YYYY-MM-DD; left out, today.
    """
    job = L.job(ctx, project_id)
    if job.status != "active":
        raise ToolError(f"{ctx.spec.word('job')} {job.job} is {job.status}; it takes no change requests.",
                        "project_id")
    if not description.strip():
        raise ToolError("Describe the change.", "description")
    code = L.cost_code(ctx, task_id)
    ctype = L.cost_type(ctx, cost_type_id)
    cost = parse_amount(cost_effect, "cost_effect", allow_negative=True)
    price = parse_amount(price_effect, "price_effect", allow_negative=True)
    if cost == 0 and price == 0:
        raise ToolError("A change request changes the cost, the price or both; both are zero.", "cost_effect")
    if change_type != "owner" and price != 0:
        raise ToolError(f"Only an owner change request changes the contract price; a {change_type} one "
                        "has a price effect of 0.00.", "price_effect")
    found = ChangeRequest(change_request_id=_next_id(ctx), job=job.job, change_type=change_type,
                          description=description.strip(), request_date=(request_date or ctx.clock.today()).isoformat(),
                          cost_code=code.code, cost_type=ctype.code, cost_effect=cost, price_effect=price,
                          status="Pending", entered_at=ctx.clock.iso())
    ctx.session.add(found)
    ctx.session.flush()
    return change_request_row(found)



@service(WRITE)
def approve_change_request(ctx, change_request_id: str) -> dict:
    """Approve a Pending change request, as the project manager does: its cost effect joins the
    budget of its {job_word}, cost code and cost type, and an owner change's price effect joins the
    owner contract.

    Args:
        change_request_id: The change request id, e.g. CR-99999.
    """
    found = ctx.session.get(ChangeRequest, change_request_id.strip())
    if found is None:
        raise NotFound(f"There is no change request {change_request_id.strip()!r}.", "change_request_id")
    if found.status != "Pending":
        raise ToolError(f"Change request {found.change_request_id} is {found.status}; only a Pending one is "
                        "approved.", "change_request_id")
    job = L.job(ctx, found.job)
    key = f"{job.job}|{found.cost_code}|{found.cost_type}"
    line = ctx.session.get(BudgetLine, key)
    if line is None:  # a change may open a cost code and cost type the budget did not have
        line = BudgetLine(line_key=key, job=job.job, cost_code=found.cost_code, cost_type=found.cost_type,
                          original_budget=ZERO, approved_changes=ZERO, forecast_to_complete=ZERO)
        ctx.session.add(line)
    line.approved_changes += found.cost_effect
    job.approved_changes += found.cost_effect
    job.contract_amount += found.price_effect
    found.status = "Approved"
    ctx.session.flush()
    return change_request_row(found)
