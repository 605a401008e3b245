"""The bill of quantities some residential estimating products bill the client contract from:
per item a unit, the contract quantity and rate behind one billing-schedule (SOV) line, and the
quantity the site measured in place to date; variation items are measured work on a client
change order, shown with that change order's status.

The product shows the measurement as measured (a line measured past its quantity reads over
100 %); what a claim may take of it is the claimant's call, and the client pay app form refuses
only a line billed past its scheduled value.
"""
from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.ids import stable_id
from portals.core.tools import READ, service

from .models import BoqItem, ChangeOrder, ReestimateLine
from .queries import check_paging, contains, project_by_number

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def seed_boq(session, app: str, book: dict, projects: dict) -> None:
    """The book's BOQ items (seeds/boq.py) for the jobs this product holds."""
    for i in book.get("boq", {}).get("items", []):
        if i["job"] not in projects:
            continue
        session.add(BoqItem(
            item_id=stable_id(app, "boq_item", i["job"], i["item_code"]), project_id=projects[i["job"]].project_id,
            item_code=i["item_code"], line_no=int(i["line_no"]), description=i["description"], unit=i["unit"],
            quantity=Decimal(i["quantity"]), rate=Decimal(i["rate"]), measured_qty=Decimal(i["measured_qty"]),
            measured_on=date.fromisoformat(i["measured_on"]) if i.get("measured_on") else None,
            change_order=i.get("change_order", "")))


def seed_reestimates(session, app: str, book: dict, projects: dict) -> None:
    """The estimator's cost re-estimates (seeds/reestimate.py) for the jobs this product holds."""
    for i in book.get("boq", {}).get("reestimates", []):
        if i["job"] not in projects:
            continue
        session.add(ReestimateLine(
            line_id=stable_id(app, "reestimate", i["job"], i["cost_code"], i["cost_type"]),
            project_id=projects[i["job"]].project_id, cost_code=i["cost_code"], cost_type=i["cost_type"],
            description=i["description"], reestimate=Decimal(i["reestimate"]),
            estimated_on=date.fromisoformat(i["estimated_on"]) if i.get("estimated_on") else None))


def _value(qty: Decimal, rate: Decimal) -> Decimal:
    return (qty * rate).quantize(CENT, rounding=ROUND_HALF_UP)


def _row(item: BoqItem, co_status: dict) -> dict:
    contract = _value(item.quantity, item.rate)
    pct = (item.measured_qty * 100 / item.quantity).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP) \
        if item.quantity else Decimal("0.0")
    return {"item_code": item.item_code, "line_no": item.line_no, "description": item.description,
            "kind": "variation" if item.change_order else "contract", "unit": item.unit,
            "quantity": item.quantity, "rate": item.rate, "contract_value": contract,
            "measured_qty": item.measured_qty, "measured_pct": pct,
            "measured_value": _value(item.measured_qty, item.rate),
            "measured_on": item.measured_on.isoformat() if item.measured_on else None,
            "change_order": item.change_order, "change_order_status": co_status.get(item.change_order, "")}


@service(READ)
def get_boq(ctx: ServiceContext, project_number: str, search: str | None = None,
            kind: Literal["contract", "variation"] | None = None, page: int = 1, per_page: int = 100) -> dict:
    """Show a project's bill of quantities (BOQ): per item its billing-schedule line, unit,
    contract quantity, rate and contract value (quantity x rate), and the quantity the site
    measured in place to date with its percent of the contract quantity and its value (measured
    quantity x rate, to the cent). A variation item is work measured on a client change order,
    shown with the change order's status. `totals` covers every item that matches the filters.

    Args:
        project_number: The project number, e.g. "9999".
        search: Text to find in the item code or description.
        kind: Only contract items or only variation items.
        page: Page number, starting at 1.
        per_page: Items per page, 1 to 100.
    """
    check_paging(page, per_page)
    project = project_by_number(ctx.session, project_number)
    stmt = select(BoqItem).where(BoqItem.project_id == project.project_id).order_by(BoqItem.line_no, BoqItem.item_code)
    if search:
        stmt = stmt.where(or_(contains(BoqItem.item_code, search), contains(BoqItem.description, search)))
    if kind == "variation":
        stmt = stmt.where(BoqItem.change_order != "")
    elif kind == "contract":
        stmt = stmt.where(BoqItem.change_order == "")
    co_status = dict(ctx.session.execute(select(ChangeOrder.change_order_id, ChangeOrder.status)
                                         .where(ChangeOrder.project_id == project.project_id)).all())
    rows = [_row(i, co_status) for i in ctx.session.scalars(stmt)]
    totals = {k: sum((r[k] for r in rows), start=ZERO) for k in ("contract_value", "measured_value")}
    start = (page - 1) * per_page
    return {"project_number": project.project_number, "project_name": project.name,
            "items": rows[start:start + per_page], "totals": totals, "page": page, "per_page": per_page,
            "total": len(rows), "pages": -(-len(rows) // per_page)}


@service(READ)
def get_reestimate(ctx: ServiceContext, project_number: str, search: str | None = None,
                   cost_type: Literal["L", "M", "S", "E", "O"] | None = None,
                   page: int = 1, per_page: int = 100) -> dict:
    """Show a project's current cost re-estimate: per company cost code and cost type, the
    estimator's re-estimated cost to build it and the date of the re-estimate. `total` covers
    every line that matches the filters.

    Args:
        project_number: The project number, e.g. "9999".
        search: Text to find in the cost code or description.
        cost_type: Only this cost type: L, M, S, E or O.
        page: Page number, starting at 1.
        per_page: Lines per page, 1 to 100.
    """
    check_paging(page, per_page)
    project = project_by_number(ctx.session, project_number)
    stmt = (select(ReestimateLine).where(ReestimateLine.project_id == project.project_id)
            .order_by(ReestimateLine.cost_code, ReestimateLine.cost_type))
    if search:
        stmt = stmt.where(or_(contains(ReestimateLine.cost_code, search), contains(ReestimateLine.description, search)))
    if cost_type:
        stmt = stmt.where(ReestimateLine.cost_type == cost_type)
    rows = [{"cost_code": r.cost_code, "description": r.description, "cost_type": r.cost_type,
             "reestimate": r.reestimate, "estimated_on": r.estimated_on.isoformat() if r.estimated_on else None}
            for r in ctx.session.scalars(stmt)]
    start = (page - 1) * per_page
    return {"project_number": project.project_number, "project_name": project.name,
            "items": rows[start:start + per_page], "totals": {"reestimate": sum((r["reestimate"] for r in rows), start=ZERO)},
            "page": page, "per_page": per_page, "total": len(rows), "pages": -(-len(rows) // per_page)}
