"""Retainage: what each subcontract bill withheld, held until it is released with final payment.

Reading it is free; releasing it pays the subcontractor, so the release is guarded: staged for a
person, never executed.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

from sqlalchemy import func, select

from portals.core.errors import NotFound, ToolError
from portals.core.tools import GUARDED, READ, service

from . import entities as E
from . import lookups as L
from .models import APBill, Commitment, Retainage, Vendor


def retainage_row(ctx, r: Retainage, bill: APBill | None = None) -> dict:
    bill = bill or ctx.session.get(APBill, r.bill_id)
    vendor = ctx.session.get(Vendor, r.vendor_key)
    return {"retainage_id": r.retainage_id, "bill_id": r.bill_id, "bill_number": bill.bill_number if bill else None,
            "bill_date": bill.bill_date if bill else None, "bill_amount": bill.amount if bill else None,
            "vendor_id": r.vendor_key, "vendor_name": vendor.name if vendor else None, "project_id": r.job,
            "commitment": r.commitment, "retainage_pct": r.retainage_pct, "held": r.held, "state": r.state,
            "released_date": r.released_date, "release_payment_id": r.release_payment_id}


def _filtered(ctx, project_id, vendor_id, commitment, state, entity_id):
    query = select(Retainage)
    if project_id:
        query = query.where(Retainage.job == L.job(ctx, project_id).job)
    if vendor_id:
        query = query.where(Retainage.vendor_key == L.vendor(ctx, vendor_id).vendor_key)
    if commitment:
        query = query.where(Retainage.commitment == commitment.strip())
    if state:
        query = query.where(Retainage.state == state)
    return E.only_entity(ctx, query, Retainage.job, entity_id)


def _totals(ctx, query) -> dict:
    sub = query.order_by(None).subquery()
    out = {"held": Decimal("0.00"), "released": Decimal("0.00")}
    for state, held in ctx.session.execute(select(sub.c.state, sub.c.held)):
        out[state] = out.get(state, Decimal("0.00")) + held
    return out


@service(READ)
def query_retainage(ctx, project_id: str | None = None, vendor_id: str | None = None,
                    commitment: str | None = None, state: Literal["held", "released"] | None = None,
                    entity_id: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """Search retainage by bill: what each subcontract bill withheld, and whether it is still held
    or was released (and by which payment). The answer also totals held and released retainage.

    Args:
        project_id: Only this {job_word} ({job_format}).
        vendor_id: Only this vendor ({vendor_id_format}).
        commitment: Only this subcontract, e.g. 9999-01.
        state: held or released.
        entity_id: Only {job_word}s of this {entity_word} ({entity_format}).
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = _filtered(ctx, project_id, vendor_id, commitment, state, entity_id)
    out = L.page_of(ctx, query.order_by(Retainage.job, Retainage.commitment, Retainage.retainage_id), page,
                    per_page, lambda r: retainage_row(ctx, r), {APBill: "bill_id", Vendor: "vendor_key"})
    return {**out, "totals": _totals(ctx, query)}


def _commitment(ctx, number: str) -> Commitment:
    found = ctx.session.get(Commitment, number.strip())
    if found is None:
        raise NotFound(f"There is no commitment {number.strip()!r}.", "commitment")
    return found


@service(READ)
def get_retainage(ctx, commitment: str) -> dict:
    """Get the retainage of one subcontract: every bill's retainage, the totals held and released.

    Args:
        commitment: The subcontract number, e.g. 9999-01.
    """
    found = _commitment(ctx, commitment)
    rows = ctx.session.execute(select(Retainage, APBill).join(APBill, APBill.bill_id == Retainage.bill_id)
                               .where(Retainage.commitment == found.number)
                               .order_by(APBill.bill_date, APBill.bill_id)).all()
    vendor = ctx.session.get(Vendor, found.vendor_key)
    items = [retainage_row(ctx, r, b) for r, b in rows]
    held = sum((i["held"] for i in items if i["state"] == "held"), start=Decimal("0.00"))
    released = sum((i["held"] for i in items if i["state"] == "released"), start=Decimal("0.00"))
    return {"commitment": found.number, "title": found.title, "status": found.status, "project_id": found.job,
            "vendor_id": found.vendor_key, "vendor_name": vendor.name if vendor else None,
            "retainage_pct": found.retainage_pct, "amount": found.amount, "held": held, "released": released,
            "bills": items}


@service(GUARDED)
def release_retainage(ctx, commitment: str, bill_numbers: list[str] | None = None,
                      release_date: date | None = None) -> dict:
    """Release retainage held on a subcontract for payment to the subcontractor. GUARDED: the release
    is staged for a person's approval and nothing is paid or released.

    Args:
        commitment: The subcontract whose retainage is released, e.g. 9999-01.
        bill_numbers: Release only the retainage of these bills (invoice numbers); left out, all held.
        release_date: The release date, YYYY-MM-DD; left out, today.
    """
    found = _commitment(ctx, commitment)
    query = select(Retainage, APBill).join(APBill, APBill.bill_id == Retainage.bill_id).where(
        Retainage.commitment == found.number, Retainage.state == "held")
    wanted = {n.strip().lower() for n in bill_numbers or ()}
    if wanted:
        query = query.where(func.lower(APBill.bill_number).in_(wanted))
    rows = ctx.session.execute(query.order_by(APBill.bill_date, APBill.bill_id)).all()
    if wanted:
        missing = sorted(wanted - {b.bill_number.lower() for _r, b in rows})
        if missing:
            raise NotFound(f"Commitment {found.number} holds no retainage on bill {missing[0]!r}.", "bill_numbers")
    if not rows:
        raise ToolError(f"Commitment {found.number} has no retainage held; there is nothing to release.",
                        "commitment")
    vendor = ctx.session.get(Vendor, found.vendor_key)
    if L.active_hold(ctx, found.vendor_key):
        raise ToolError(f"Vendor {found.vendor_key} has a payment hold; its retainage cannot be released.",
                        "commitment")
    if vendor is not None and vendor.status != "active":
        raise ToolError(f"Vendor {found.vendor_key} is {vendor.status}; its retainage cannot be released.",
                        "commitment")
    total = sum((r.held for r, _b in rows), start=Decimal("0.00"))
    return {"action": "release retainage", "commitment": found.number, "project_id": found.job,
            "vendor_id": found.vendor_key, "release_date": release_date or ctx.clock.today(),
            "bills": [{"bill_number": b.bill_number, "held": r.held} for r, b in rows], "total": total}
