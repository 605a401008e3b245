"""Avalara Returns: each nexus state's monthly sales and use tax return, its figures summed from
the period's committed transactions (sales tax collected, consumer use tax accrued); approving a
return for filing (and the payment that goes with it) is a person's step."""
from __future__ import annotations

from decimal import Decimal
from typing import Literal

from sqlalchemy import select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.paging import paged
from portals.core.sorting import TEXT, sort_order
from portals.core.tools import GUARDED, READ, service

from .salestax_models import TaxReturn, Transaction

RETURN_STATUSES = ("Open", "Approved", "Filed")
ReturnStatus = Literal["Open", "Approved", "Filed"]
RETURN_SORT = {"period": (TaxReturn.period, TEXT), "region": (TaxReturn.region, TEXT),
               "due": (TaxReturn.due_date, TEXT), "status": (TaxReturn.status, TEXT)}


def _figures(session, r: TaxReturn) -> dict:
    rows = session.scalars(select(Transaction).where(Transaction.status == "Committed",
                                                     Transaction.ship_to_region == r.region,
                                                     Transaction.doc_date.like(f"{r.period}-%"))).all()
    sales = sum((Decimal(t.total_tax) for t in rows if t.doc_type == "SalesInvoice"), Decimal(0))
    use = sum((Decimal(t.use_tax) for t in rows if t.doc_type == "PurchaseInvoice"), Decimal(0))
    return {"transactions": len(rows), "sales_tax": sales, "use_tax": use, "total_due": sales + use}


def return_row(session, r: TaxReturn) -> dict:
    return {"return_id": r.return_id, "region": r.region, "form": r.form, "period": r.period,
            "due_date": r.due_date, "status": r.status, "filed_at": r.filed_at, **_figures(session, r)}


@service(READ)
def list_returns(ctx: ServiceContext, status: ReturnStatus | None = None, region: str | None = None,
                 page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List the sales and use tax returns on the filing calendar, newest period first.

    Args:
        status: Only Open, Approved or Filed returns.
        region: Only this state's returns (two-letter code).
        page: Page number, starting at 1.
        per_page: Returns per page, 1 to 100.
        sort: Sort by period, region, due or status; a leading "-" sorts descending.
    """
    stmt = select(TaxReturn)
    if status:
        stmt = stmt.where(TaxReturn.status == status)
    if region:
        stmt = stmt.where(TaxReturn.region == region.strip().upper()[:2])
    stmt = stmt.order_by(*sort_order(sort, RETURN_SORT, (TaxReturn.period.desc(), TaxReturn.region,
                                                          TaxReturn.return_id)))
    return paged(ctx.session, stmt, page, per_page, lambda r: return_row(ctx.session, r))


def _get(ctx: ServiceContext, return_id: int) -> TaxReturn:
    r = ctx.session.get(TaxReturn, return_id)
    if r is None:
        raise NotFound(f"There is no return with id {return_id}.", "return_id")
    return r


@service(READ)
def get_return(ctx: ServiceContext, return_id: int) -> dict:
    """Get a return with its liability by kind and the committed transactions it reports.

    Args:
        return_id: The return's id, as the returns list shows it.
    """
    r = _get(ctx, return_id)
    rows = ctx.session.scalars(select(Transaction).where(Transaction.status == "Committed",
                                                         Transaction.ship_to_region == r.region,
                                                         Transaction.doc_date.like(f"{r.period}-%"))
                               .order_by(Transaction.doc_date, Transaction.code)).all()
    return {**return_row(ctx.session, r), "items": [
        {"transaction_id": t.transaction_id, "code": t.code, "type": t.doc_type, "date": t.doc_date,
         "ship_to_city": t.ship_to_city, "tax": t.use_tax if t.doc_type == "PurchaseInvoice" else t.total_tax}
        for t in rows]}


@service(GUARDED)
def approve_return(ctx: ServiceContext, return_id: int) -> dict:
    """Approve an open return for filing and payment. Needs a person's approval.

    Args:
        return_id: The return to approve.
    """
    r = _get(ctx, return_id)
    if r.status != "Open":
        raise ToolError(f"The {r.region} return for {r.period} is {r.status.lower()}, not open.", "return_id")
    figures = _figures(ctx.session, r)
    return {"action": "approve return", "region": r.region, "period": r.period,
            "total_due": str(figures["total_due"])}
