"""Subcontract change orders (Vista SL Change Orders): entered into the open SL batch, they change
a subcontract's current cost only once a person posts the batch.
"""
from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from sqlalchemy import func, select

from portals.core.errors import NotFound, ToolError
from portals.core.money import parse_amount
from portals.core.tools import READ, WRITE, MaxLen, service

from . import lookups as L
from .models import Commitment, CommitmentItem, SLChangeOrder

CLOSED = ("Complete", "Void", "Terminated")


def co_row(o: SLChangeOrder) -> dict:
    return {"subcontract": o.subcontract, "item": o.item, "change_order": o.change_order, "act_date": o.act_date,
            "description": o.description, "amount": o.amount, "status": o.status}


@service(READ)
def list_sl_change_orders(ctx, subcontract: str | None = None, project_id: str | None = None,
                          status: Literal["open", "posted"] | None = None,
                          page: int = 1, per_page: int = 25) -> dict:
    """List subcontract change orders, newest first: open ones wait in the SL batch, posted ones
    are part of the subcontract's current cost.

    Args:
        subcontract: Only this subcontract, e.g. 9999-01.
        project_id: Only subcontracts of this {job_word} ({job_format}).
        status: open (in an unposted batch) or posted.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(SLChangeOrder)
    if subcontract:
        query = query.where(SLChangeOrder.subcontract == subcontract.strip())
    if project_id:
        job = L.job(ctx, project_id)
        query = query.where(SLChangeOrder.subcontract.in_(select(Commitment.number).where(Commitment.job == job.job)))
    if status:
        query = query.where(SLChangeOrder.status == status)
    query = query.order_by(SLChangeOrder.act_date.desc(), SLChangeOrder.co_key)
    return L.page_of(ctx, query, page, per_page, co_row)


@service(WRITE)
def create_sl_change_order(ctx, subcontract: str, description: Annotated[str, MaxLen(300)], amount: str,
                           act_date: date, item: int = 1) -> dict:
    """Enter a change order on a subcontract item. It goes into the open SL batch and changes the
    subcontract's current cost only when a person posts that batch.

    Args:
        subcontract: The subcontract number, e.g. 9999-01.
        description: What changed, e.g. "Added scope per RFI 99".
        amount: The change in cost, e.g. 12345.67, or -12345.67 for a deduct; not zero.
        act_date: The change order's actual date, YYYY-MM-DD.
        item: The subcontract item changed, from 1. Default 1.
    """
    found = ctx.session.get(Commitment, subcontract.strip())
    if found is None:
        raise NotFound(f"There is no subcontract {subcontract.strip()!r}.", "subcontract")
    if found.type != "subcontract":
        raise ToolError(f"{found.number} is a purchase order; its changes are entered on the purchase order, "
                        "not as subcontract change orders.", "subcontract")
    if found.status in CLOSED:
        raise ToolError(f"Subcontract {found.number} is {found.status}; it takes no change orders.", "subcontract")
    if ctx.session.get(CommitmentItem, f"{found.number}|{item}") is None:
        raise NotFound(f"Subcontract {found.number} has no item {item}.", "item")
    if not description.strip():
        raise ToolError("Describe the change order.", "description")
    value = parse_amount(amount, "amount", allow_negative=True, allow_zero=False)
    top = ctx.session.scalar(select(func.max(SLChangeOrder.change_order))
                             .where(SLChangeOrder.subcontract == found.number)) or 0
    order = SLChangeOrder(co_key=f"{found.number}|{top + 1}", subcontract=found.number, item=item,
                          change_order=top + 1, act_date=act_date.isoformat(), description=description.strip(),
                          amount=value, status="open", entered_at=ctx.clock.iso())
    ctx.session.add(order)
    ctx.session.flush()
    return co_row(order)
