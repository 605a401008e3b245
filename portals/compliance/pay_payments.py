"""Corpay's payments: payment files (uploading one from the ERP's export), the payments they hold,
Pending Approval, and the guarded approval that releases a payment to be paid."""
from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.money import parse_amount
from portals.core.paging import paged
from portals.core.sorting import sort_order
from portals.core.tools import GUARDED, READ, WRITE, service

from .pay import FILE_SORT, PAYMENT_SORT, PaymentStatus, _clean, _get, file_row, payment_row
from .pay_models import Payment, PaymentFile, Supplier

MAX_ROWS = 500


@service(READ)
def list_payments(ctx: ServiceContext, status: PaymentStatus | None = None, supplier_id: int | None = None,
                  file_id: int | None = None, query: str | None = None, page: int = 1, per_page: int = 25,
                  sort: str | None = None) -> dict:
    """List payments with their supplier, method, pay date and status.

    Args:
        status: Only payments in this status.
        supplier_id: Only this supplier's payments.
        file_id: Only the payments of this payment file.
        query: Words to find in the supplier's name or number or the payment's reference.
        page: Page number, starting at 1.
        per_page: Payments per page, 1 to 100.
        sort: Sort by supplier, amount, pay_date, status or reference; a leading "-" sorts descending.
    """
    stmt = select(Payment, Supplier).join(Supplier, Supplier.supplier_id == Payment.supplier_id)
    if status:
        stmt = stmt.where(Payment.status == status)
    if supplier_id is not None:
        stmt = stmt.where(Payment.supplier_id == supplier_id)
    if file_id is not None:
        stmt = stmt.where(Payment.file_id == file_id)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Supplier.name.ilike(like), Supplier.supplier_number.ilike(like),
                              Payment.reference.ilike(like)))
    stmt = stmt.order_by(*sort_order(sort, PAYMENT_SORT, (Payment.pay_date.desc(), Supplier.name, Payment.payment_id)))
    return paged(ctx.session, stmt, page, per_page, payment_row)


@service(READ)
def list_pending_approval(ctx: ServiceContext, query: str | None = None, page: int = 1, per_page: int = 25,
                          sort: str | None = None) -> dict:
    """List the payments waiting in Pending Approval, with whether the supplier is on hold.

    Args:
        query: Words to find in the supplier's name or number or the payment's reference.
        page: Page number, starting at 1.
        per_page: Payments per page, 1 to 100.
        sort: Sort by supplier, amount, pay_date, status or reference; a leading "-" sorts descending.
    """
    return list_payments(ctx, status="Pending Approval", query=query, page=page, per_page=per_page, sort=sort)


@service(READ)
def get_payment(ctx: ServiceContext, payment_id: int) -> dict:
    """Get a payment with its supplier and payment file.

    Args:
        payment_id: The payment's id, as the payment list shows it.
    """
    p = _get(ctx.session, Payment, payment_id, "payment", "payment_id")
    s = ctx.session.get(Supplier, p.supplier_id)
    f = ctx.session.get(PaymentFile, p.file_id)
    return {**payment_row(p, s), "supplier_number": s.supplier_number, "file_name": f.file_name if f else ""}


@service(READ)
def list_payment_files(ctx: ServiceContext, page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List the payment files uploaded, newest first.

    Args:
        page: Page number, starting at 1.
        per_page: Files per page, 1 to 100.
        sort: Sort by uploaded, total or name; a leading "-" sorts descending.
    """
    stmt = select(PaymentFile).order_by(*sort_order(sort, FILE_SORT, (PaymentFile.uploaded_at.desc(),
                                                                       PaymentFile.file_id)))
    return paged(ctx.session, stmt, page, per_page, file_row)


@service(READ)
def get_payment_file(ctx: ServiceContext, file_id: int) -> dict:
    """Get a payment file with its payments.

    Args:
        file_id: The file's id, as the file list shows it.
    """
    f = _get(ctx.session, PaymentFile, file_id, "payment file", "file_id")
    rows = ctx.session.execute(select(Payment, Supplier).join(Supplier, Supplier.supplier_id == Payment.supplier_id)
                               .where(Payment.file_id == file_id).order_by(Supplier.name, Payment.payment_id)).all()
    return {**file_row(f), "items": [payment_row(p, s) for p, s in rows]}


def _parse_file(session, content: str) -> list[tuple[Supplier, str, Decimal]]:
    """Rows of `supplier_number,reference,amount` (a header row is allowed), each checked."""
    rows = [r for r in csv.reader(io.StringIO(content or "")) if any(c.strip() for c in r)]
    if rows and rows[0] and rows[0][0].strip().lower() in ("supplier_number", "supplier"):
        rows = rows[1:]
    if not rows:
        raise ToolError("The payment file has no payment rows.", "content")
    if len(rows) > MAX_ROWS:
        raise ToolError(f"A payment file holds at most {MAX_ROWS} payments.", "content")
    out = []
    for n, row in enumerate(rows, 1):
        if len(row) != 3:
            raise ToolError(f"Row {n}: expected supplier_number,reference,amount.", "content")
        number, ref, amount = (c.strip() for c in row)
        sup = session.scalar(select(Supplier).where(Supplier.supplier_number == number.upper()))
        if sup is None:
            raise ToolError(f"Row {n}: no supplier numbered {number[:20]!r}.", "content")
        if sup.status != "Active":
            raise ToolError(f"Row {n}: {sup.name} is inactive.", "content")
        if not ref or len(ref) > 40:
            raise ToolError(f"Row {n}: a reference of 1 to 40 characters is required.", "content")
        try:
            value = parse_amount(amount)
        except (ToolError, ValueError, ArithmeticError):
            raise ToolError(f"Row {n}: {amount[:20]!r} is not an amount.", "content") from None
        if value is None or value <= 0:
            raise ToolError(f"Row {n}: the amount must be more than zero.", "content")
        out.append((sup, ref, value))
    return out


@service(WRITE)
def upload_payment_file(ctx: ServiceContext, file_name: str, content: str, pay_date: str) -> dict:
    """Upload a payment file exported from the ERP; its payments wait in Pending Approval.

    Args:
        file_name: The file's name, e.g. VISTA_AP_20260710.csv.
        content: CSV rows of supplier_number,reference,amount (a header row is allowed).
        pay_date: The date to pay, YYYY-MM-DD, not before today.
    """
    name = _clean(file_name, "file_name", limit=120, required=True)
    day = (pay_date or "").strip()
    try:
        when = date.fromisoformat(day)
    except ValueError:
        raise ToolError("Pay date must be a date like 2026-07-10.", "pay_date") from None
    if when < ctx.clock.today():
        raise ToolError("Pay date cannot be in the past.", "pay_date")
    rows = _parse_file(ctx.session, content)
    fid = stable_id(ctx.app, "file", "upload", ctx.clock.iso(), name, content)
    if ctx.session.get(PaymentFile, fid) is not None:
        raise ToolError("This file was already uploaded.", "content")
    total = sum((v for _, _, v in rows), Decimal("0"))
    ctx.session.add(PaymentFile(file_id=fid, file_name=name, uploaded_at=ctx.clock.iso(), uploaded_by="You",
                                payments=len(rows), total=total))
    for n, (sup, ref, value) in enumerate(rows):
        ctx.session.add(Payment(payment_id=stable_id(ctx.app, "payment", fid, n), file_id=fid,
                                supplier_id=sup.supplier_id, reference=ref, amount=value, method=sup.payment_method,
                                pay_date=when.isoformat(), status="Pending Approval"))
    ctx.session.flush()
    return get_payment_file(ctx, fid)


@service(GUARDED)
def approve_payment(ctx: ServiceContext, payment_id: int) -> dict:
    """Approve a payment in Pending Approval so Corpay pays it. Needs a person's approval.

    Args:
        payment_id: The payment to approve.
    """
    p = _get(ctx.session, Payment, payment_id, "payment", "payment_id")
    if p.status != "Pending Approval":
        raise ToolError(f"This payment is {p.status.lower()}, not pending approval.", "payment_id")
    s = ctx.session.get(Supplier, p.supplier_id)
    return {"action": "approve payment", "supplier": s.name, "amount": str(p.amount), "method": p.method,
            "pay_date": p.pay_date}
