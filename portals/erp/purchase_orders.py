"""Subcontracts and purchase orders, each in its own module (Vista SL and PO): header, items with
original, current and invoiced cost, and a subcontract's change orders.
"""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import or_, select

from portals.core.errors import NotFound, ToolError
from portals.core.tools import READ, service

from . import lookups as L
from .models import APBill, Commitment, CommitmentItem, SLChangeOrder, Vendor
from .sl_change_orders import co_row

KINDS = {"subcontract": "subcontract", "purchase_order": "purchase order"}


def _sum(values) -> Decimal:
    return sum(values, start=Decimal("0.00"))


def _costs(ctx, c: Commitment) -> dict:
    posted = _sum(ctx.session.scalars(select(SLChangeOrder.amount).where(
        SLChangeOrder.subcontract == c.number, SLChangeOrder.status == "posted")))
    invoiced = _sum(ctx.session.scalars(select(APBill.amount).where(
        APBill.commitment == c.number, APBill.state == "posted")))
    current = c.amount + posted
    return {"orig_cost": c.amount, "change_orders": posted, "cur_cost": current, "inv_cost": invoiced,
            "remaining": current - invoiced}


def _row(ctx, c: Commitment) -> dict:
    vendor = ctx.session.get(Vendor, c.vendor_key)
    return {**L.commitment_row(c, vendor.name if vendor else None), **_costs(ctx, c)}


def _list(ctx, kind, project_id, vendor_id, status, search, page, per_page) -> dict:
    query = select(Commitment).where(Commitment.type == kind)
    if project_id:
        query = query.where(Commitment.job == L.job(ctx, project_id).job)
    if vendor_id:
        query = query.where(Commitment.vendor_key == L.vendor(ctx, vendor_id).vendor_key)
    if status:
        query = query.where(Commitment.status == status.strip())
    if search:
        query = query.where(or_(L.name_match(Commitment.number, search), L.name_match(Commitment.title, search)))
    return L.page_of(ctx, query.order_by(Commitment.job, Commitment.number), page, per_page, lambda c: _row(ctx, c),
                     {Vendor: "vendor_key"})


def _get(ctx, kind: str, number: str, field: str) -> dict:
    found = ctx.session.get(Commitment, number.strip())
    if found is None:
        raise NotFound(f"There is no {KINDS[kind]} {number.strip()!r}.", field)
    if found.type != kind:
        raise ToolError(f"{found.number} is a {KINDS.get(found.type, found.type)}, not a {KINDS[kind]}.", field)
    out = _row(ctx, found)
    orders = ctx.session.scalars(select(SLChangeOrder).where(SLChangeOrder.subcontract == found.number)
                                 .order_by(SLChangeOrder.change_order)).all()
    items = ctx.session.scalars(select(CommitmentItem).where(CommitmentItem.number == found.number)
                                .order_by(CommitmentItem.item)).all()
    out["items"] = [{"item": i.item, "project_id": i.job, "task_id": i.cost_code, "cost_type_id": i.cost_type,
                     "description": i.description, "um": i.um, "orig_cost": i.orig_cost,
                     "cur_cost": i.orig_cost + _sum(o.amount for o in orders if o.item == i.item and o.status == "posted")}
                    for i in items]
    out["bills"] = [L.bill_row(b) for b in ctx.session.scalars(
        select(APBill).where(APBill.commitment == found.number).order_by(APBill.bill_date.desc(), APBill.bill_id))]
    if kind == "subcontract":
        out["change_order_list"] = [co_row(o) for o in orders]
    return out


@service(READ)
def list_subcontracts(ctx, project_id: str | None = None, vendor_id: str | None = None,
                      status: str | None = None, search: str | None = None,
                      page: int = 1, per_page: int = 25) -> dict:
    """List subcontracts with original, current (with posted change orders) and invoiced cost.

    Args:
        project_id: Only this {job_word} ({job_format}).
        vendor_id: Only this vendor ({vendor_id_format}).
        status: Only this status, e.g. Approved, Complete.
        search: Part of the number or description.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    return _list(ctx, "subcontract", project_id, vendor_id, status, search, page, per_page)


@service(READ)
def get_subcontract(ctx, subcontract: str) -> dict:
    """Get one subcontract: its items, change orders and the invoices billed against it.

    Args:
        subcontract: The subcontract number, e.g. 9999-01.
    """
    return _get(ctx, "subcontract", subcontract, "subcontract")


@service(READ)
def list_purchase_orders(ctx, project_id: str | None = None, vendor_id: str | None = None,
                         status: str | None = None, search: str | None = None,
                         page: int = 1, per_page: int = 25) -> dict:
    """List purchase orders with original, current and invoiced cost.

    Args:
        project_id: Only this {job_word} ({job_format}).
        vendor_id: Only this vendor ({vendor_id_format}).
        status: Only this status, e.g. Approved, Complete.
        search: Part of the PO number or description.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    return _list(ctx, "purchase_order", project_id, vendor_id, status, search, page, per_page)


@service(READ)
def get_purchase_order(ctx, purchase_order: str) -> dict:
    """Get one purchase order: its items and the invoices billed against it.

    Args:
        purchase_order: The PO number, e.g. 9999-01.
    """
    return _get(ctx, "purchase_order", purchase_order, "purchase_order")
