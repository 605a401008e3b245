"""Corpay's services (the compliance archetype's payments line): suppliers and their payment
method, bank-detail change requests, payment files and payments, holds, and the guarded steps a
person takes (approving a payment, changing a supplier's bank details)."""
from __future__ import annotations

import re
from typing import Literal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.paging import paged
from portals.core.sorting import MONEY, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, service

from .pay_models import BankChange, Payment, PaymentFile, Supplier

PAYMENT_STATUSES = ("Pending Approval", "Approved", "Paid", "Void")
METHODS = ("ACH", "Check", "Virtual Card", "Wire")
CHANGE_STATUSES = ("Pending review", "Applied", "Rejected")
PaymentStatus = Literal["Pending Approval", "Approved", "Paid", "Void"]
Method = Literal["ACH", "Check", "Virtual Card", "Wire"]
ChangeStatus = Literal["Pending review", "Applied", "Rejected"]

SUPPLIER_SORT = {"name": (Supplier.name, TEXT), "number": (Supplier.supplier_number, TEXT),
                 "method": (Supplier.payment_method, TEXT), "state": (Supplier.state, TEXT)}
PAYMENT_SORT = {"supplier": (Supplier.name, TEXT), "amount": (Payment.amount, MONEY),
                "pay_date": (Payment.pay_date, TEXT), "status": (Payment.status, TEXT),
                "reference": (Payment.reference, TEXT)}
FILE_SORT = {"uploaded": (PaymentFile.uploaded_at, TEXT), "total": (PaymentFile.total, MONEY),
             "name": (PaymentFile.file_name, TEXT)}


def masked(account: str | None) -> str | None:
    return None if not account else "••••" + account[-4:]


def supplier_row(s: Supplier) -> dict:
    return {"supplier_id": s.supplier_id, "supplier_number": s.supplier_number, "erp_vendor": s.erp_vendor,
            "name": s.name, "tin": s.tin, "address": s.address, "city": s.city, "state": s.state, "zip": s.zip,
            "phone": s.phone, "email": s.email, "payment_method": s.payment_method, "bank_name": s.bank_name,
            "routing_number": s.routing_number, "account_masked": masked(s.account_number),
            "account_verified": s.account_verified, "hold": s.hold, "hold_reason": s.hold_reason,
            "hold_at": s.hold_at, "status": s.status}


def change_row(c: BankChange, s: Supplier | None = None) -> dict:
    return {"change_id": c.change_id, "supplier_id": c.supplier_id, "supplier_name": s.name if s else "",
            "submitted_at": c.submitted_at, "submitted_by": c.submitted_by, "channel": c.channel,
            "bank_name": c.bank_name, "routing_number": c.routing_number, "account_number": c.account_number,
            "contact_phone": c.contact_phone, "callback_phone": c.callback_phone, "callback_at": c.callback_at,
            "callback_by": c.callback_by, "callback_result": c.callback_result, "status": c.status, "review_note": c.review_note}


def payment_row(p: Payment, s: Supplier | None = None) -> dict:
    return {"payment_id": p.payment_id, "file_id": p.file_id, "supplier_id": p.supplier_id,
            "supplier_name": s.name if s else "", "supplier_on_hold": bool(s and s.hold), "reference": p.reference,
            "amount": p.amount, "method": p.method, "pay_date": p.pay_date, "status": p.status}


def file_row(f: PaymentFile) -> dict:
    return {"file_id": f.file_id, "file_name": f.file_name, "uploaded_at": f.uploaded_at,
            "uploaded_by": f.uploaded_by, "payments": f.payments, "total": f.total}


def _get(session, model, key: int, what: str, field: str):
    row = session.get(model, key)
    if row is None:
        raise NotFound(f"There is no {what} with id {key}.", field)
    return row


def _clean(value: str | None, field: str, limit: int = 200, required: bool = False) -> str | None:
    text = " ".join((value or "").split())
    if required and not text:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} is required.", field)
    if len(text) > limit:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} is at most {limit} characters.", field)
    return text or None


def routing_text(value: str | None) -> str:
    """An ABA routing number: nine digits whose weighted sum (3, 7, 1, ...) is a multiple of ten."""
    digits = re.sub(r"\s", "", value or "")
    if not re.fullmatch(r"\d{9}", digits):
        raise ToolError("A routing number has nine digits.", "routing_number")
    if sum(int(d) * w for d, w in zip(digits, (3, 7, 1) * 3)) % 10:
        raise ToolError(f"{digits} is not a valid ABA routing number (its check digit is wrong).", "routing_number")
    return digits


def account_text(value: str | None) -> str:
    digits = re.sub(r"[\s-]", "", value or "")
    if not re.fullmatch(r"\d{4,17}", digits):
        raise ToolError("An account number has 4 to 17 digits.", "account_number")
    return digits


# -- suppliers -------------------------------------------------------------------------------------

@service(READ)
def list_suppliers(ctx: ServiceContext, query: str | None = None, payment_method: Method | None = None,
                   on_hold: bool | None = None, page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List suppliers (vendors Corpay pays) with their payment method and hold.

    Args:
        query: Words to find in the name, supplier number, ERP vendor id or the TIN's last four digits.
        payment_method: Only suppliers paid this way.
        on_hold: True for only suppliers whose payments are on hold, false for only those not on hold.
        page: Page number, starting at 1.
        per_page: Suppliers per page, 1 to 100.
        sort: Sort by name, number, method or state; a leading "-" sorts descending.
    """
    stmt = select(Supplier)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Supplier.name.ilike(like), Supplier.supplier_number.ilike(like),
                              Supplier.erp_vendor.ilike(like), Supplier.tin.ilike(f"%{word}")))
    if payment_method:
        stmt = stmt.where(Supplier.payment_method == payment_method)
    if on_hold is not None:
        stmt = stmt.where(Supplier.hold.is_not(None) if on_hold else Supplier.hold.is_(None))
    stmt = stmt.order_by(*sort_order(sort, SUPPLIER_SORT, (Supplier.name, Supplier.supplier_id)))
    return paged(ctx.session, stmt, page, per_page, supplier_row)


@service(READ)
def get_supplier(ctx: ServiceContext, supplier_id: int) -> dict:
    """Get a supplier: remit-to, contact on file, payment method and bank details, its bank-detail
    change requests and its payments not yet paid.

    Args:
        supplier_id: The supplier's id, as the supplier list shows it.
    """
    s = _get(ctx.session, Supplier, supplier_id, "supplier", "supplier_id")
    changes = ctx.session.scalars(select(BankChange).where(BankChange.supplier_id == supplier_id)
                                  .order_by(BankChange.submitted_at.desc(), BankChange.change_id)).all()
    open_payments = ctx.session.scalars(select(Payment).where(Payment.supplier_id == supplier_id,
                                                              Payment.status.in_(("Pending Approval", "Approved")))
                                        .order_by(Payment.pay_date, Payment.payment_id)).all()
    return {**supplier_row(s), "bank_changes": [change_row(c, s) for c in changes],
            "open_payments": [payment_row(p, s) for p in open_payments]}


@service(WRITE)
def hold_supplier(ctx: ServiceContext, supplier_id: int, reason: str) -> dict:
    """Put a supplier's payments on hold, with the reason: none of its payments go out until the
    hold is released.

    Args:
        supplier_id: The supplier to hold.
        reason: Why, for whoever reviews the hold.
    """
    s = _get(ctx.session, Supplier, supplier_id, "supplier", "supplier_id")
    text = _clean(reason, "reason", limit=500, required=True)
    s.hold, s.hold_reason, s.hold_at = "On hold", text, ctx.clock.iso()
    ctx.session.flush()
    return supplier_row(s)


@service(WRITE)
def release_supplier_hold(ctx: ServiceContext, supplier_id: int) -> dict:
    """Release a supplier's payment hold.

    Args:
        supplier_id: The supplier whose hold to release.
    """
    s = _get(ctx.session, Supplier, supplier_id, "supplier", "supplier_id")
    if not s.hold:
        raise ToolError(f"{s.name} is not on hold.", "supplier_id")
    s.hold, s.hold_reason, s.hold_at = None, None, None
    ctx.session.flush()
    return supplier_row(s)


@service(GUARDED)
def update_payment_method(ctx: ServiceContext, supplier_id: int, payment_method: Method,
                          bank_name: str | None = None, routing_number: str | None = None,
                          account_number: str | None = None) -> dict:
    """Change how a supplier is paid and the bank account its ACH or wire payments go to. Needs a
    person's approval.

    Args:
        supplier_id: The supplier to change.
        payment_method: ACH, Check, Virtual Card or Wire.
        bank_name: The bank's name (ACH and wire).
        routing_number: The bank's nine-digit ABA routing number (ACH and wire).
        account_number: The account number (ACH and wire).
    """
    s = _get(ctx.session, Supplier, supplier_id, "supplier", "supplier_id")
    staged = {"action": "change payment method", "supplier": s.name, "payment_method": payment_method}
    if payment_method in ("ACH", "Wire"):
        staged |= {"bank_name": _clean(bank_name, "bank_name", 80, required=True),
                   "routing_number": routing_text(routing_number), "account": masked(account_text(account_number))}
    return staged


# -- bank-detail change requests -------------------------------------------------------------------

@service(READ)
def list_bank_changes(ctx: ServiceContext, status: ChangeStatus | None = None, supplier_id: int | None = None,
                      page: int = 1, per_page: int = 25) -> dict:
    """List requests to change a supplier's bank details, newest first.

    Args:
        status: Only requests pending review, applied or rejected.
        supplier_id: Only this supplier's requests.
        page: Page number, starting at 1.
        per_page: Requests per page, 1 to 100.
    """
    stmt = select(BankChange, Supplier).join(Supplier, Supplier.supplier_id == BankChange.supplier_id)
    if status:
        stmt = stmt.where(BankChange.status == status)
    if supplier_id is not None:
        stmt = stmt.where(BankChange.supplier_id == supplier_id)
    stmt = stmt.order_by(BankChange.submitted_at.desc(), BankChange.change_id)
    return paged(ctx.session, stmt, page, per_page, change_row)


@service(READ)
def get_bank_change(ctx: ServiceContext, change_id: int) -> dict:
    """Get a bank-detail change request beside the supplier's details on file.

    Args:
        change_id: The request's id, as the change list shows it.
    """
    c = _get(ctx.session, BankChange, change_id, "bank-detail change request", "change_id")
    s = ctx.session.get(Supplier, c.supplier_id)
    return {**change_row(c, s), "on_file": supplier_row(s)}


@service(WRITE)
def reject_bank_change(ctx: ServiceContext, change_id: int, note: str) -> dict:
    """Reject a bank-detail change request, saying why; the details on file stay as they are.

    Args:
        change_id: The request to reject.
        note: Why it was rejected.
    """
    c = _get(ctx.session, BankChange, change_id, "bank-detail change request", "change_id")
    text = _clean(note, "note", limit=500, required=True)
    if c.status != "Pending review":
        raise ToolError(f"This request is already {c.status.lower()}.", "change_id")
    c.status, c.review_note = "Rejected", text
    ctx.session.flush()
    return change_row(c, ctx.session.get(Supplier, c.supplier_id))


@service(GUARDED)
def apply_bank_change(ctx: ServiceContext, change_id: int) -> dict:
    """Apply a bank-detail change request to the supplier's payment method. Needs a person's approval.

    Args:
        change_id: The request to apply.
    """
    c = _get(ctx.session, BankChange, change_id, "bank-detail change request", "change_id")
    if c.status != "Pending review":
        raise ToolError(f"This request is already {c.status.lower()}.", "change_id")
    s = ctx.session.get(Supplier, c.supplier_id)
    return {"action": "apply bank change", "supplier": s.name, "bank_name": c.bank_name,
            "routing_number": c.routing_number, "account": masked(c.account_number)}
