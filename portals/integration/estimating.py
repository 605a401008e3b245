"""HeavyBid's services (the integration utility's estimating line): estimates, biditems,
activities and resources, the bid summary, the export to accounting, and the guarded bid
submission."""
from __future__ import annotations

from decimal import Decimal
from typing import Literal

from sqlalchemy import func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.paging import paged
from portals.core.sorting import MONEY, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, service

from .est_models import Activity, Biditem, Estimate, Export, ExportLine, Resource

STATUSES = ("Pending", "Submitted", "Won", "Lost")
RESOURCE_TYPES = ("Labor", "Equipment", "Material", "Subcontract")
Status = Literal["Pending", "Submitted", "Won", "Lost"]
ResourceType = Literal["Labor", "Equipment", "Material", "Subcontract"]

ESTIMATE_SORT = {"code": (Estimate.code, TEXT), "name": (Estimate.name, TEXT), "bid_date": (Estimate.bid_date, TEXT),
                 "status": (Estimate.status, TEXT), "bid_total": (Estimate.bid_total, MONEY)}
RESOURCE_SORT = {"code": (Resource.code, TEXT), "type": (Resource.type, TEXT), "total": (Resource.total, MONEY),
                 "activity": (Activity.code, TEXT)}


def estimate_row(e: Estimate) -> dict:
    return {"estimate_id": e.estimate_id, "code": e.code, "name": e.name, "owner": e.owner, "city": e.city,
            "state": e.state, "bid_date": e.bid_date, "estimator": e.estimator, "master": e.master,
            "status": e.status, "profit_pct": e.profit_pct, "bond_pct": e.bond_pct, "notes": e.notes,
            "direct_cost": e.direct_cost, "bid_total": e.bid_total}


def biditem_row(b: Biditem) -> dict:
    return {"biditem_id": b.biditem_id, "estimate_id": b.estimate_id, "client_code": b.client_code,
            "description": b.description, "unit": b.unit, "quantity": b.quantity, "alternate": b.alternate,
            "direct_cost": b.direct_cost, "unit_price": b.unit_price, "bid_total": b.bid_total}


def activity_row(a: Activity, b: Biditem | None = None) -> dict:
    return {"activity_id": a.activity_id, "biditem_id": a.biditem_id, "biditem": b.client_code if b else None,
            "code": a.code, "description": a.description, "total": a.total}


def resource_row(r: Resource, a: Activity | None = None, b: Biditem | None = None) -> dict:
    return {"resource_id": r.resource_id, "activity_id": r.activity_id, "activity": a.code if a else None,
            "biditem": b.client_code if b else None, "code": r.code, "type": r.type,
            "description": r.description, "unit": r.unit, "quantity": r.quantity, "unit_cost": r.unit_cost,
            "total": r.total}


def export_row(x: Export) -> dict:
    return {"export_id": x.export_id, "estimate_id": x.estimate_id, "file_name": x.file_name,
            "exported_at": x.exported_at, "include_alternates": x.include_alternates,
            "cost_total": x.cost_total, "revenue_total": x.revenue_total}


def line_row(line: ExportLine) -> dict:
    return {"sheet": line.sheet, "line_no": line.line_no, "biditem": line.biditem, "activity": line.activity,
            "resource_type": line.resource_type, "resource": line.resource, "description": line.description,
            "unit": line.unit, "quantity": line.quantity, "unit_price": line.unit_price, "amount": line.amount}


def _estimate(ctx: ServiceContext, estimate_id: int) -> Estimate:
    e = ctx.session.get(Estimate, estimate_id)
    if e is None:
        raise NotFound(f"There is no estimate with id {estimate_id}.", "estimate_id")
    return e


@service(READ)
def list_estimates(ctx: ServiceContext, query: str | None = None, status: Status | None = None,
                   page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List estimates (bids) with their code, owner, bid date, status and bid total.

    Args:
        query: Words to find in the estimate code, name or owner.
        status: Only estimates pending, submitted, won or lost.
        page: Page number, starting at 1.
        per_page: Estimates per page, 1 to 100.
        sort: Sort by code, name, bid_date, status or bid_total; a leading "-" sorts descending.
    """
    stmt = select(Estimate)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Estimate.code.ilike(like), Estimate.name.ilike(like), Estimate.owner.ilike(like)))
    if status:
        stmt = stmt.where(Estimate.status == status)
    stmt = stmt.order_by(*sort_order(sort, ESTIMATE_SORT, (Estimate.bid_date.desc(), Estimate.estimate_id)))
    return paged(ctx.session, stmt, page, per_page, estimate_row)


@service(READ)
def get_estimate(ctx: ServiceContext, estimate_id: int) -> dict:
    """Get an estimate's information: owner, bid date, markups, notes (such as a notice of award)
    and its exports to accounting.

    Args:
        estimate_id: The estimate's id, as the estimate list shows it.
    """
    e = _estimate(ctx, estimate_id)
    exports = ctx.session.scalars(select(Export).where(Export.estimate_id == estimate_id)
                                  .order_by(Export.exported_at.desc(), Export.export_id)).all()
    return {**estimate_row(e), "exports": [export_row(x) for x in exports]}


@service(READ)
def list_biditems(ctx: ServiceContext, estimate_id: int, page: int = 1, per_page: int = 50) -> dict:
    """List an estimate's biditems (the owner's pay items): client code, quantity, unit, unit price
    and total; alternates carry their number.

    Args:
        estimate_id: The estimate.
        page: Page number, starting at 1.
        per_page: Biditems per page, 1 to 100.
    """
    _estimate(ctx, estimate_id)
    stmt = select(Biditem).where(Biditem.estimate_id == estimate_id).order_by(Biditem.client_code)
    return paged(ctx.session, stmt, page, per_page, biditem_row)


@service(READ)
def list_activities(ctx: ServiceContext, estimate_id: int, biditem_id: int | None = None,
                    page: int = 1, per_page: int = 50) -> dict:
    """List an estimate's activities (by HeavyBid activity code) with their biditem and cost.

    Args:
        estimate_id: The estimate.
        biditem_id: Only the activities under this biditem.
        page: Page number, starting at 1.
        per_page: Activities per page, 1 to 100.
    """
    _estimate(ctx, estimate_id)
    stmt = (select(Activity, Biditem).join(Biditem, Biditem.biditem_id == Activity.biditem_id)
            .where(Activity.estimate_id == estimate_id))
    if biditem_id is not None:
        stmt = stmt.where(Activity.biditem_id == biditem_id)
    return paged(ctx.session, stmt.order_by(Biditem.client_code, Activity.code), page, per_page, activity_row)


@service(READ)
def list_resources(ctx: ServiceContext, estimate_id: int, type: ResourceType | None = None,
                   activity_id: int | None = None, query: str | None = None, page: int = 1, per_page: int = 50,
                   sort: str | None = None) -> dict:
    """List the resources an estimate spends, each with its activity code, biditem, type, quantity,
    unit cost and total.

    Args:
        estimate_id: The estimate.
        type: Only Labor, Equipment, Material or Subcontract resources.
        activity_id: Only this activity's resources.
        query: Words to find in the resource code or description.
        page: Page number, starting at 1.
        per_page: Resources per page, 1 to 100.
        sort: Sort by code, type, total or activity; a leading "-" sorts descending.
    """
    _estimate(ctx, estimate_id)
    stmt = (select(Resource, Activity, Biditem).join(Activity, Activity.activity_id == Resource.activity_id)
            .join(Biditem, Biditem.biditem_id == Activity.biditem_id).where(Resource.estimate_id == estimate_id))
    if type:
        stmt = stmt.where(Resource.type == type)
    if activity_id is not None:
        stmt = stmt.where(Resource.activity_id == activity_id)
    for word in (query or "").split():
        stmt = stmt.where(or_(Resource.code.ilike(f"%{word}%"), Resource.description.ilike(f"%{word}%")))
    stmt = stmt.order_by(*sort_order(sort, RESOURCE_SORT, (Biditem.client_code, Activity.code, Resource.resource_id)))
    return paged(ctx.session, stmt, page, per_page, resource_row)


@service(READ)
def get_bid_summary(ctx: ServiceContext, estimate_id: int) -> dict:
    """The bid summary: direct cost by resource type, the markups (profit and bond), and the base
    bid and each alternate's total.

    Args:
        estimate_id: The estimate.
    """
    e = _estimate(ctx, estimate_id)
    by_type = dict(ctx.session.execute(select(Resource.type, func.count()).where(Resource.estimate_id == estimate_id)
                                       .group_by(Resource.type)).all())
    costs = {t: Decimal("0") for t in RESOURCE_TYPES}
    for r in ctx.session.scalars(select(Resource).where(Resource.estimate_id == estimate_id)):
        costs[r.type] += Decimal(r.total)
    items = ctx.session.scalars(select(Biditem).where(Biditem.estimate_id == estimate_id)
                                .order_by(Biditem.client_code)).all()
    base = sum((Decimal(b.bid_total) for b in items if not b.alternate), Decimal("0"))
    alternates = [{"alternate": b.alternate, "biditem": b.client_code, "description": b.description,
                   "bid_total": b.bid_total} for b in items if b.alternate]
    direct = sum(costs.values(), Decimal("0"))
    return {"estimate_id": e.estimate_id, "code": e.code, "name": e.name,
            "cost_by_type": [{"type": t, "resources": by_type.get(t, 0), "total": f"{costs[t]:.2f}"}
                             for t in RESOURCE_TYPES],
            "direct_cost": f"{direct:.2f}", "profit_pct": e.profit_pct, "bond_pct": e.bond_pct,
            "base_bid": f"{base:.2f}", "alternates": alternates}


def _alternates(text: str | None, offered: set[str]) -> list[str]:
    wanted = sorted({part.strip() for part in (text or "").replace(";", ",").split(",") if part.strip()})
    unknown = [a for a in wanted if a not in offered]
    if unknown:
        raise ToolError(f"This estimate has no alternate {', '.join(unknown)}; its alternates are "
                        f"{', '.join(sorted(offered)) or 'none'}.", "alternates")
    return wanted


@service(WRITE)
def export_budget(ctx: ServiceContext, estimate_id: int, alternates: str | None = None) -> dict:
    """Export an estimate to accounting: the cost budget by biditem, activity code and resource
    type (each activity's resources of one type summed; activity codes are not yet cost codes),
    and the revenue items (biditems with quantity and unit price). The base bid is always
    exported; alternates only when named.

    Args:
        estimate_id: The estimate to export.
        alternates: The alternates to include, by number, comma-separated (e.g. "1"); blank for base bid only.
    """
    e = _estimate(ctx, estimate_id)
    items = ctx.session.scalars(select(Biditem).where(Biditem.estimate_id == estimate_id)
                                .order_by(Biditem.client_code)).all()
    chosen = set(_alternates(alternates, {b.alternate for b in items if b.alternate}))
    items = [b for b in items if not b.alternate or b.alternate in chosen]
    count = ctx.session.scalar(select(func.count()).select_from(Export).where(Export.estimate_id == estimate_id))
    export_id = stable_id(ctx.app, "export", e.code, count + 1)
    cost_lines, revenue_lines = [], []
    for b in items:
        acts = ctx.session.scalars(select(Activity).where(Activity.biditem_id == b.biditem_id)
                                   .order_by(Activity.code)).all()
        for a in acts:
            sums: dict[str, Decimal] = {}
            for r in ctx.session.scalars(select(Resource).where(Resource.activity_id == a.activity_id)
                                         .order_by(Resource.resource_id)):
                # a resource the codebook maps on its own (trucking) keeps its own line
                key = f"{r.type}|{r.code}" if r.code == "TRKHAUL" else f"{r.type}|"
                sums[key] = sums.get(key, Decimal("0")) + Decimal(r.total)
            for key in sorted(sums, key=lambda k: (RESOURCE_TYPES.index(k.split("|")[0]), k)):
                rtype, rcode = key.split("|")
                cost_lines.append((b.client_code, a.code, rtype, rcode or None, a.description, sums[key]))
        revenue_lines.append(b)
    cost_total = sum((c[5] for c in cost_lines), Decimal("0"))
    revenue_total = sum((Decimal(b.bid_total) for b in revenue_lines), Decimal("0"))
    x = Export(export_id=export_id, estimate_id=e.estimate_id, file_name=f"{e.code}_Accounting_Export_{count + 1}.xlsx",
               exported_at=ctx.clock.iso(), include_alternates=",".join(sorted(chosen)),
               cost_total=cost_total, revenue_total=revenue_total)
    ctx.session.add(x)
    for n, (bid, act, rtype, rcode, desc, amount) in enumerate(cost_lines, 1):
        ctx.session.add(ExportLine(line_id=stable_id(ctx.app, "export-line", export_id, "C", n), export_id=export_id,
                                   sheet="Cost", line_no=n, biditem=bid, activity=act, resource_type=rtype,
                                   resource=rcode, description=desc, unit=None, quantity=None, unit_price=None,
                                   amount=amount))
    for n, b in enumerate(revenue_lines, 1):
        ctx.session.add(ExportLine(line_id=stable_id(ctx.app, "export-line", export_id, "R", n), export_id=export_id,
                                   sheet="Revenue", line_no=n, biditem=b.client_code, activity=None,
                                   resource_type=None, resource=None, description=b.description, unit=b.unit,
                                   quantity=b.quantity, unit_price=b.unit_price, amount=b.bid_total))
    ctx.session.flush()
    return get_export(ctx, export_id)


@service(READ)
def get_export(ctx: ServiceContext, export_id: int) -> dict:
    """Get an export to accounting with its cost lines and revenue lines.

    Args:
        export_id: The export's id, as the estimate shows it.
    """
    x = ctx.session.get(Export, export_id)
    if x is None:
        raise NotFound(f"There is no export with id {export_id}.", "export_id")
    lines = ctx.session.scalars(select(ExportLine).where(ExportLine.export_id == export_id)
                                .order_by(ExportLine.sheet, ExportLine.line_no)).all()
    return {**export_row(x), "cost_lines": [line_row(n) for n in lines if n.sheet == "Cost"],
            "revenue_lines": [line_row(n) for n in lines if n.sheet == "Revenue"]}


@service(GUARDED)
def submit_bid(ctx: ServiceContext, estimate_id: int) -> dict:
    """Submit an estimate's bid to the owner. Needs a person's approval.

    Args:
        estimate_id: The estimate to submit.
    """
    e = _estimate(ctx, estimate_id)
    if e.status != "Pending":
        raise ToolError(f"Estimate {e.code} is {e.status.lower()}; only a pending bid can be submitted.",
                        "estimate_id")
    return {"action": "submit bid", "estimate": e.code, "name": e.name, "bid_total": e.bid_total}
