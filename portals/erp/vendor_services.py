"""The AP vendor master and vendor payment holds."""
from __future__ import annotations

from decimal import Decimal
from typing import Literal

from sqlalchemy import or_, select

from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.tools import READ, WRITE, Text, service

from . import lookups as L
from .models import APBill, PaymentHold, Vendor


@service(READ)
def query_vendors(ctx, search: str | None = None, vendor_id: str | None = None,
                  status: Literal["active", "inactive"] | None = None,
                  page: int = 1, per_page: int = 25) -> dict:
    """Search the vendor master by name fragment or id.

    Args:
        search: Part of the vendor name, DBA, trade or email.
        vendor_id: Exactly this vendor ({vendor_id_format}).
        status: active or inactive.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(Vendor)
    if vendor_id:
        query = query.where(Vendor.vendor_key == vendor_id.strip())
    if search:
        query = query.where(or_(L.name_match(Vendor.name, search), L.name_match(Vendor.dba, search),
                                L.name_match(Vendor.trade, search), L.name_match(Vendor.email, search)))
    if status:
        query = query.where(Vendor.status == status)
    return L.page_of(ctx, query.order_by(Vendor.name, Vendor.vendor_key), page, per_page, L.vendor_row)


@service(READ)
def get_vendor(ctx, vendor_id: str) -> dict:
    """Get one vendor with its open balance, payment hold, the expiry of the certificate of
    insurance on its compliance record (coi_expires) and its most recent bills.

    Args:
        vendor_id: The vendor in this product's own id ({vendor_id_format}).
    """
    vendor = L.vendor(ctx, vendor_id)
    out = L.vendor_row(vendor)
    unpaid = ctx.session.scalars(select(APBill.amount).where(
        APBill.vendor_key == vendor.vendor_key, APBill.status != "paid"))
    out["open_balance"] = sum(unpaid, start=Decimal("0.00"))
    hold = L.active_hold(ctx, vendor.vendor_key)
    out["payment_hold"] = {"hold_id": hold.hold_id, "reason": hold.reason, "placed_at": hold.placed_at} if hold else None
    recent = ctx.session.scalars(select(APBill).where(APBill.vendor_key == vendor.vendor_key)
                                 .order_by(APBill.bill_date.desc(), APBill.bill_id).limit(10))
    out["recent_bills"] = [L.bill_row(b) for b in recent]
    return out


@service(WRITE)
def create_payment_hold(ctx, vendor_id: str, reason: Text) -> dict:
    """Put a vendor on payment hold so none of its bills can be paid until a person lifts it.

    A hold stops money; it never moves any.

    Args:
        vendor_id: The vendor in this product's own id ({vendor_id_format}).
        reason: Why payments are held, e.g. "Certificate of insurance expired; no current certificate on file".
    """
    vendor = L.vendor(ctx, vendor_id)
    if not reason.strip():
        raise ToolError("Give a reason for the hold.", "reason")
    existing = L.active_hold(ctx, vendor.vendor_key)
    if existing:
        raise ToolError(f"Vendor {vendor.vendor_key} is already on payment hold ({existing.reason}).",
                        "vendor_id", code="duplicate")
    hold = PaymentHold(hold_id=f"HOLD-{stable_id(ctx.app, 'hold', vendor.vendor_key)}",
                       vendor_key=vendor.vendor_key, reason=reason.strip(), status="active",
                       placed_at=ctx.clock.iso())
    ctx.session.add(hold)
    return {"hold_id": hold.hold_id, "vendor_id": vendor.vendor_key, "vendor_name": vendor.name,
            "reason": hold.reason, "status": hold.status, "placed_at": hold.placed_at}


@service(READ)
def list_payment_holds(ctx, vendor_id: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List vendor payment holds.

    Args:
        vendor_id: Only this vendor's holds.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(PaymentHold)
    if vendor_id:
        query = query.where(PaymentHold.vendor_key == L.vendor(ctx, vendor_id).vendor_key)

    def shape(h):
        return {"hold_id": h.hold_id, "vendor_id": h.vendor_key,
                "vendor_name": ctx.session.get(Vendor, h.vendor_key).name,
                "reason": h.reason, "status": h.status, "placed_at": h.placed_at}
    return L.page_of(ctx, query.order_by(PaymentHold.placed_at.desc(), PaymentHold.hold_id), page, per_page, shape)
