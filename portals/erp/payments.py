"""AP payments: the history of checks and ACH payments (read-only), and paying bills (guarded).

A payment applies to one or more of a vendor's bills. A subcontract bill is paid net of the
retainage held on it; the retainage is paid later by its own release payment.
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
from .ap import _payable_problem
from .models import APBill, Payment, PaymentDetail, Retainage, Vendor

METHODS = ("Check", "ACH", "Card")


def payment_row(ctx, p: Payment) -> dict:
    vendor = ctx.session.get(Vendor, p.vendor_key)
    return {"payment_id": p.payment_id, "vendor_id": p.vendor_key, "vendor_name": vendor.name if vendor else None,
            "entity_id": p.entity_id, "payment_date": p.payment_date, "method": p.method,
            "document_number": p.document_number, "bank_account": p.bank_account, "kind": p.kind,
            "amount": p.amount, "state": p.state}


@service(READ)
def query_payments(ctx, vendor_id: str | None = None, entity_id: str | None = None,
                   method: Literal["Check", "ACH", "Card"] | None = None,
                   state: Literal["paid", "cleared", "voided"] | None = None,
                   kind: Literal["bills", "retainage"] | None = None, document_number: str | None = None,
                   date_from: date | None = None, date_to: date | None = None,
                   page: int = 1, per_page: int = 25) -> dict:
    """Search AP payments already made (checks, ACH and company-card payments), newest first.
    Read-only history.

    Args:
        vendor_id: Only payments to this vendor ({vendor_id_format}).
        entity_id: Only payments made by this {entity_word} ({entity_format}).
        method: Check, ACH or Card (paid with the company card).
        state: paid (outstanding), cleared (cleared the bank) or voided.
        kind: bills (paying bills, net of retainage) or retainage (a retainage release).
        document_number: The check number or ACH reference, or part of it.
        date_from: First payment date, YYYY-MM-DD.
        date_to: Last payment date, YYYY-MM-DD.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(Payment)
    if vendor_id:
        query = query.where(Payment.vendor_key == L.vendor(ctx, vendor_id).vendor_key)
    if entity_id:
        query = query.where(Payment.entity_id == E.entity(ctx, entity_id).entity_id)
    for column, value in ((Payment.method, method), (Payment.state, state), (Payment.kind, kind)):
        if value:
            query = query.where(column == value)
    if document_number:
        query = query.where(L.name_match(Payment.document_number, document_number.strip()))
    if date_from:
        query = query.where(Payment.payment_date >= date_from.isoformat())
    if date_to:
        query = query.where(Payment.payment_date <= date_to.isoformat())
    query = query.order_by(Payment.payment_date.desc(), Payment.payment_id.desc())
    return L.page_of(ctx, query, page, per_page, lambda p: payment_row(ctx, p), {Vendor: "vendor_key"})


@service(READ)
def get_payment(ctx, payment_id: str) -> dict:
    """Get one payment with the bills it paid and how much went to each.

    Args:
        payment_id: The payment's record id, as the payment search returns it, e.g. PYMT-99999.
    """
    payment = ctx.session.get(Payment, payment_id.strip())
    if payment is None:
        raise NotFound(f"There is no payment {payment_id.strip()!r}.", "payment_id")
    out = payment_row(ctx, payment)
    details = ctx.session.execute(select(PaymentDetail, APBill).join(APBill, APBill.bill_id == PaymentDetail.bill_id)
                                  .where(PaymentDetail.payment_id == payment.payment_id)
                                  .order_by(APBill.bill_date, APBill.bill_id)).all()
    out["bills"] = [{"bill_id": b.bill_id, "bill_number": b.bill_number, "bill_date": b.bill_date,
                     "project_id": b.job, "bill_amount": b.amount, "paid": d.amount} for d, b in details]
    return out


def held_on(ctx, bill_id: str) -> Decimal:
    """Retainage still held on a bill (what a payment of the bill leaves unpaid)."""
    held = ctx.session.scalars(select(Retainage.held).where(Retainage.bill_id == bill_id,
                                                            Retainage.state == "held"))
    return sum(held, start=Decimal("0.00"))


@service(GUARDED)
def create_payment(ctx, vendor_id: str, bill_numbers: list[str], payment_date: date | None = None,
                   method: Literal["Check", "ACH"] = "Check") -> dict:
    """Pay a vendor's posted, open bills (net of retainage held). GUARDED: the payment is staged for a
    person's approval and nothing is paid.

    Args:
        vendor_id: The vendor to pay ({vendor_id_format}).
        bill_numbers: The vendor's invoice numbers of the bills to pay, e.g. ["ACME-0001"].
        payment_date: The payment date, YYYY-MM-DD; left out, today.
        method: Check or ACH. Default Check.
    """
    vendor = L.vendor(ctx, vendor_id)
    if not bill_numbers:
        raise ToolError("Name the bills to pay.", "bill_numbers")
    wanted = {n.strip().lower() for n in bill_numbers}
    bills = ctx.session.scalars(select(APBill).where(APBill.vendor_key == vendor.vendor_key,
                                                     func.lower(APBill.bill_number).in_(wanted))
                                .order_by(APBill.bill_date, APBill.bill_id)).all()
    missing = sorted(wanted - {b.bill_number.lower() for b in bills})
    if missing:
        raise NotFound(f"Vendor {vendor.vendor_key} has no bill {missing[0]!r}.", "bill_numbers")
    lines = []
    for bill in bills:
        problem = "it is a draft awaiting approval" if bill.state != "posted" else _payable_problem(ctx, bill)
        if problem:
            raise ToolError(f"Bill {bill.bill_number} cannot be paid: {problem}.", "bill_numbers")
        held = held_on(ctx, bill.bill_id)
        lines.append({"bill_number": bill.bill_number, "bill_amount": bill.amount, "retainage_held": held,
                      "to_pay": bill.amount - held})
    total = sum((line["to_pay"] for line in lines), start=Decimal("0.00"))
    return {"action": "payment", "vendor_id": vendor.vendor_key, "vendor_name": vendor.name, "method": method,
            "payment_date": payment_date or ctx.clock.today(), "bills": lines, "total": total}
