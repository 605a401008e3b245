"""The PM firm master (Vista PMFM): subcontractors, suppliers and owners as project management
knows them, keyed by vendor group and firm number. A firm is not an AP vendor: it may name the
AP vendor it pays through, or not, and its name is spelled as the PM typed it.
"""
from __future__ import annotations

from typing import Literal

from sqlalchemy import or_, select

from portals.core.errors import NotFound
from portals.core.tools import READ, service

from . import lookups as L
from .models import Commitment, PMFirm, Vendor

FIRM_TYPES = ("SUB", "SUPPLIER", "OWNER")


def firm_row(f: PMFirm) -> dict:
    return {"vendor_group": f.vendor_group, "firm_number": f.firm_number, "firm_name": f.firm_name,
            "sort_name": f.sort_name, "firm_type": f.firm_type, "vendor_id": f.vendor_key, "contact": f.contact,
            "phone": f.phone, "email": f.email, "address": f.address, "city": f.city, "state": f.state,
            "zip": f.zip}


@service(READ)
def list_firms(ctx, search: str | None = None, firm_type: Literal["SUB", "SUPPLIER", "OWNER"] | None = None,
               page: int = 1, per_page: int = 25) -> dict:
    """Search the PM firm master (firms as project management keys them, apart from AP vendors).

    Args:
        search: Part of the firm name, sort name, email or city.
        firm_type: SUB, SUPPLIER or OWNER.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(PMFirm)
    if search:
        query = query.where(or_(L.name_match(PMFirm.firm_name, search), L.name_match(PMFirm.sort_name, search),
                                L.name_match(PMFirm.email, search), L.name_match(PMFirm.city, search)))
    if firm_type:
        query = query.where(PMFirm.firm_type == firm_type)
    return L.page_of(ctx, query.order_by(PMFirm.sort_name, PMFirm.firm_number), page, per_page, firm_row)


@service(READ)
def get_firm(ctx, firm_number: int) -> dict:
    """Get one PM firm, the AP vendor it is linked to (if any) and that vendor's commitments.

    Args:
        firm_number: The firm number, e.g. 9999.
    """
    found = ctx.session.scalar(select(PMFirm).where(PMFirm.firm_number == firm_number))
    if found is None:
        raise NotFound(f"There is no firm number {firm_number}.", "firm_number")
    out = firm_row(found)
    vendor = ctx.session.get(Vendor, found.vendor_key) if found.vendor_key else None
    out["vendor"] = L.vendor_row(vendor) if vendor else None
    held = ctx.session.scalars(select(Commitment).where(Commitment.vendor_key == found.vendor_key)
                               .order_by(Commitment.job, Commitment.number)) if vendor else []
    out["commitments"] = [L.commitment_row(c, vendor.name) for c in held]
    return out
