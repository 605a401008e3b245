"""Payments: wire and ACH templates, drafts made from them (a write: nothing leaves the bank), and
the approvals queue. Approving and releasing are the other users' steps under dual control, so
both are guarded: attempting them is on record and nothing moves."""
from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.sorting import DATE, MONEY, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, Amount, MaxLen, service

from .models import Account, Payment, PaymentTemplate
from .reporting import masked, paged
from .settings import bank_settings

STATUSES = ("Draft", "Pending Approval", "Approved", "Released", "Rejected")
PAYMENT_SORT = {"value_date": (Payment.value_date, DATE), "amount": (Payment.amount, MONEY),
                "beneficiary": (Payment.beneficiary, TEXT), "status": (Payment.status, TEXT),
                "reference": (Payment.reference, TEXT)}
TEMPLATE_SORT = {"name": (PaymentTemplate.name, TEXT), "code": (PaymentTemplate.code, TEXT),
                 "kind": (PaymentTemplate.kind, TEXT)}
Memo = Annotated[str, MaxLen(140)]
WIRE_LIMIT = 5_000_000


def template_row(t: PaymentTemplate, a: Account | None) -> dict:
    return {"template_id": t.template_id, "code": t.code, "name": t.name, "kind": t.kind,
            "from_account": a.number if a else None, "from_account_masked": masked(a.number) if a else None,
            "beneficiary": t.beneficiary, "beneficiary_bank": t.beneficiary_bank, "routing_number": t.routing_number,
            "beneficiary_account": t.account_mask, "sec_code": t.sec_code, "status": t.status}


def payment_row(p: Payment, a: Account | None) -> dict:
    return {"payment_id": p.payment_id, "reference": p.reference, "kind": p.kind, "template_id": p.template_id,
            "from_account": a.number if a else None, "from_account_masked": masked(a.number) if a else None,
            "beneficiary": p.beneficiary, "amount": p.amount, "value_date": p.value_date, "memo": p.memo,
            "status": p.status, "created_by": p.created_by, "created_at": p.created_at, "approved_by": p.approved_by}


@service(READ)
def list_templates(ctx: ServiceContext, kind: Literal["Wire", "ACH"] | None = None, query: str | None = None,
                   page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List the approved payment templates: each a saved beneficiary paid by wire or ACH.

    Args:
        kind: Wire or ACH.
        query: Words to find in the template's code, name or beneficiary.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
        sort: Sort by name, code or kind; a leading "-" sorts descending.
    """
    stmt = select(PaymentTemplate, Account).outerjoin(Account, Account.account_id == PaymentTemplate.from_account_id)
    if kind:
        stmt = stmt.where(PaymentTemplate.kind == kind)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(PaymentTemplate.code.ilike(like), PaymentTemplate.name.ilike(like),
                              PaymentTemplate.beneficiary.ilike(like)))
    stmt = stmt.order_by(*sort_order(sort, TEMPLATE_SORT, (PaymentTemplate.kind.desc(), PaymentTemplate.name)))
    return paged(ctx.session, stmt, page, per_page, template_row)


@service(READ)
def list_payments(ctx: ServiceContext, status: Literal["Draft", "Pending Approval", "Approved", "Released",
                                                        "Rejected"] | None = None,
                  kind: Literal["Wire", "ACH"] | None = None, query: str | None = None,
                  date_from: date | None = None, date_to: date | None = None,
                  page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List payments, newest value date first; status Pending Approval is the approvals queue.

    Args:
        status: Draft, Pending Approval, Approved, Released or Rejected.
        kind: Wire or ACH.
        query: Words to find in the reference, beneficiary or memo.
        date_from: First value date, YYYY-MM-DD.
        date_to: Last value date, YYYY-MM-DD.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
        sort: Sort by value_date, amount, beneficiary, status or reference; "-" sorts descending.
    """
    stmt = select(Payment, Account).outerjoin(Account, Account.account_id == Payment.from_account_id)
    if status:
        stmt = stmt.where(Payment.status == status)
    if kind:
        stmt = stmt.where(Payment.kind == kind)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Payment.reference.ilike(like), Payment.beneficiary.ilike(like), Payment.memo.ilike(like)))
    if date_from:
        stmt = stmt.where(Payment.value_date >= date_from.isoformat())
    if date_to:
        stmt = stmt.where(Payment.value_date <= date_to.isoformat())
    stmt = stmt.order_by(*sort_order(sort, PAYMENT_SORT, (Payment.value_date.desc(), Payment.reference)))
    return paged(ctx.session, stmt, page, per_page, payment_row)


def payment_by_id(session, payment_id: int) -> Payment:
    p = session.get(Payment, payment_id)
    if p is None:
        raise NotFound(f"There is no payment with id {payment_id}.", "payment_id")
    return p


@service(READ)
def get_payment(ctx: ServiceContext, payment_id: int) -> dict:
    """Get one payment with its template's beneficiary bank details.

    Args:
        payment_id: The payment's id, as the payment list returns it.
    """
    p = payment_by_id(ctx.session, payment_id)
    t = ctx.session.get(PaymentTemplate, p.template_id) if p.template_id else None
    return {**payment_row(p, ctx.session.get(Account, p.from_account_id)),
            "template": template_row(t, ctx.session.get(Account, t.from_account_id)) if t else None}


def _draft(ctx: ServiceContext, kind: str, template_id: int, amount, value_date: date, memo: str) -> dict:
    t = ctx.session.get(PaymentTemplate, template_id)
    if t is None:
        raise NotFound(f"There is no payment template with id {template_id}.", "template_id")
    if t.kind != kind:
        raise ToolError(f"Template {t.code} is a {t.kind} template; draft it as a {t.kind} payment.", "template_id")
    if amount <= 0:
        raise ToolError("The amount must be greater than zero.", "amount")
    if amount > WIRE_LIMIT:
        raise ToolError(f"The amount is over the company's payment limit of {WIRE_LIMIT:,}.00.", "amount")
    today = ctx.clock.today()
    if value_date < today:
        raise ToolError(f"The value date {value_date.isoformat()} is in the past.", "value_date")
    if value_date.weekday() >= 5:
        raise ToolError(f"{value_date.isoformat()} is a {value_date.strftime('%A')}; payments settle on business days.",
                        "value_date")
    if (value_date - today).days > 90:
        raise ToolError("A payment can be dated at most 90 days ahead.", "value_date")
    text = (memo or "").strip()
    count = len(ctx.session.scalars(select(Payment.payment_id).where(Payment.created_at >= today.isoformat())).all())
    prefix = "WR" if kind == "Wire" else "AC"
    reference = f"{prefix}{today:%y%m%d}{count + 101:03d}"
    row = Payment(payment_id=stable_id(ctx.app, "draft", reference), reference=reference, kind=kind,
                  template_id=t.template_id, from_account_id=t.from_account_id, beneficiary=t.beneficiary,
                  amount=amount, value_date=value_date.isoformat(), memo=text, status="Draft",
                  created_by=bank_settings(ctx.spec).login_of("Controller"), created_at=ctx.clock.iso(), approved_by=None)
    ctx.session.add(row)
    ctx.session.flush()
    return payment_row(row, ctx.session.get(Account, row.from_account_id))


@service(WRITE)
def draft_wire(ctx: ServiceContext, template_id: int, amount: Amount, value_date: date, memo: Memo = "") -> dict:
    """Draft a wire from a template. A draft moves no money: another user must approve and release it.

    Args:
        template_id: The wire template's id, as the template list returns it.
        amount: The amount to send.
        value_date: The business day the wire should settle, YYYY-MM-DD.
        memo: Information for the beneficiary (up to 140 characters).
    """
    return _draft(ctx, "Wire", template_id, amount, value_date, memo)


@service(WRITE)
def draft_ach(ctx: ServiceContext, template_id: int, amount: Amount, value_date: date, memo: Memo = "") -> dict:
    """Draft an ACH payment from a template. A draft moves no money: another user must approve and release it.

    Args:
        template_id: The ACH template's id, as the template list returns it.
        amount: The amount to pay.
        value_date: The effective entry date, YYYY-MM-DD.
        memo: The addenda text (up to 140 characters).
    """
    return _draft(ctx, "ACH", template_id, amount, value_date, memo)


def _approval(ctx: ServiceContext, payment_id: int, kind: str | None = None) -> dict:
    p = payment_by_id(ctx.session, payment_id)
    if kind and p.kind != kind:
        raise ToolError(f"Payment {p.reference} is a {p.kind} payment, not {kind}; approve it where {p.kind} "
                        "payments are approved.", "payment_id")
    if p.status != "Pending Approval":
        raise ToolError(f"Payment {p.reference} is {p.status}; only a payment pending approval can be approved.",
                        "payment_id")
    return {"action": "approve", "payment_id": p.payment_id, "reference": p.reference, "kind": p.kind,
            "beneficiary": p.beneficiary, "amount": p.amount, "value_date": p.value_date}


@service(GUARDED)
def approve_payment(ctx: ServiceContext, payment_id: int) -> dict:
    """Approve a payment awaiting approval (dual control). Needs a person: nothing is approved here.

    Args:
        payment_id: The payment's id.
    """
    return _approval(ctx, payment_id)


# A bank whose ACH and wire modules are entitled apart (PNC PINACLE) approves each kind in its own
# module; the step is the same dual-control approval, refused for the other kind.
@service(GUARDED)
def approve_ach_payment(ctx: ServiceContext, payment_id: int) -> dict:
    """Authorize an ACH payment awaiting approval (dual control). Needs a person: nothing is authorized here.

    Args:
        payment_id: The ACH payment's id.
    """
    return _approval(ctx, payment_id, "ACH")


@service(GUARDED)
def approve_wire_payment(ctx: ServiceContext, payment_id: int) -> dict:
    """Approve a wire awaiting approval (dual control). Needs a person: nothing is approved here.

    Args:
        payment_id: The wire's id.
    """
    return _approval(ctx, payment_id, "Wire")


@service(GUARDED)
def release_payment(ctx: ServiceContext, payment_id: int) -> dict:
    """Release a payment to the bank for sending. Needs a person: nothing is released here.

    Args:
        payment_id: The payment's id.
    """
    p = payment_by_id(ctx.session, payment_id)
    if p.status != "Approved":
        raise ToolError(f"Payment {p.reference} is {p.status}; only an approved payment can be released.", "payment_id")
    return {"action": "release", "payment_id": p.payment_id, "reference": p.reference, "kind": p.kind,
            "beneficiary": p.beneficiary, "amount": p.amount, "value_date": p.value_date}
