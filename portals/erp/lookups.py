"""Shared pieces of the ERP services: paging, record lookups with helpful refusals, row shapes."""
from __future__ import annotations

from sqlalchemy import func, or_, select

from portals.core.errors import NotFound, ToolError

from .models import APBill, Commitment, CostCode, CostType, Job, PaymentHold, Vendor
from .settings import erp_settings

MAX_PER_PAGE = 100


def page_of(ctx, query, page: int, per_page: int, shape) -> dict:
    """One page of a select, as {"items", "page", "per_page", "total", "pages"}."""
    if page < 1:
        raise ToolError("Page must be 1 or more.", "page")
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise ToolError(f"Per page must be between 1 and {MAX_PER_PAGE}.", "per_page")
    total = ctx.session.scalar(select(func.count()).select_from(query.order_by(None).subquery()))
    rows = ctx.session.scalars(query.limit(per_page).offset((page - 1) * per_page)).all()
    return {"items": [shape(r) for r in rows], "page": page, "per_page": per_page,
            "total": total, "pages": (total + per_page - 1) // per_page}


def like(text: str) -> str:
    return "%" + text.replace("\\", "").replace("%", "").replace("_", "\\_") + "%"


def name_match(column, text: str):
    return column.ilike(like(text), escape="\\")


def vendor(ctx, vendor_id: str, field: str = "vendor_id") -> Vendor:
    """The vendor by this product's own id; another system's id gets a pointer to the right one."""
    cfg = erp_settings(ctx.spec)
    text = vendor_id.strip()
    if not cfg.is_vendor_id(text):
        other = ctx.session.scalar(select(Vendor).where(Vendor.canonical_id == text))
        hint = f" {text} is {other.name}, which is vendor {other.vendor_key} here." if other else ""
        raise ToolError(f"{ctx.spec.label} identifies vendors by ids like {cfg.vendor_id_example}; "
                        f"{text!r} is not one.{hint}", field)
    row = ctx.session.get(Vendor, text)
    if row is None:
        raise NotFound(f"There is no vendor {text} in {ctx.spec.label}. Search vendors by name to find the id.",
                       field)
    return row


def job(ctx, job_number: str, field: str = "project_id") -> Job:
    row = ctx.session.get(Job, job_number.strip())
    if row is None:
        word = ctx.spec.word("job").lower()
        raise NotFound(f"There is no {word} {job_number.strip()!r} in {ctx.spec.label}.", field)
    return row


def cost_code(ctx, code: str, field: str = "task_id") -> CostCode:
    """A task/phase of this product; a code in another system's format is pointed to its match."""
    text = code.strip()
    row = ctx.session.get(CostCode, text)
    if row is not None:
        return row
    word = ctx.spec.word("cost_code").lower()
    cfg = erp_settings(ctx.spec)
    match = ctx.session.scalar(select(CostCode).where(
        or_(CostCode.company_codes == text, CostCode.company_codes.like(f"{text}, %"),
            CostCode.company_codes.like(f"%, {text}"), CostCode.company_codes.like(f"%, {text}, %"))))
    hint = f" Company code {text} is {word} {match.code} ({match.description}) here." if match else ""
    raise NotFound(f"There is no {word} {text!r} in {ctx.spec.label}; {word}s look like "
                   f"{cfg.cost_code_example}.{hint}", field)


def cost_type(ctx, code: str, field: str = "cost_type_id") -> CostType:
    row = ctx.session.get(CostType, code.strip().upper())
    if row is None:
        known = ", ".join(f"{t.code} ({t.name})" for t in ctx.session.scalars(select(CostType).order_by(CostType.code)))
        raise NotFound(f"There is no cost type {code!r}. Use one of: {known}.", field)
    return row


def active_hold(ctx, vendor_key: str) -> PaymentHold | None:
    return ctx.session.scalar(select(PaymentHold).where(PaymentHold.vendor_key == vendor_key,
                                                        PaymentHold.status == "active"))


def bill_row(b: APBill, vendor_name: str | None = None) -> dict:
    return {"bill_id": b.bill_id, "vendor_id": b.vendor_key, "vendor_name": vendor_name,
            "bill_number": b.bill_number, "bill_date": b.bill_date, "due_date": b.due_date,
            "project_id": b.job, "task_id": b.cost_code, "cost_type_id": b.cost_type,
            "commitment": b.commitment, "amount": b.amount, "description": b.description,
            "status": b.status, "state": b.state}


def vendor_row(v: Vendor) -> dict:
    return {"vendor_id": v.vendor_key, "name": v.name, "dba": v.dba, "trade": v.trade,
            "address": v.address, "city": v.city, "state": v.state, "zip": v.zip, "email": v.email,
            "phone": v.phone, "is_1099": v.is_1099, "status": v.status}


def job_row(j: Job) -> dict:
    return {"project_id": j.job, "name": j.name, "customer": j.customer, "city": j.city,
            "state": j.state, "status": j.status, "project_manager": j.pm_name,
            "contract_amount": j.contract_amount, "original_budget": j.original_budget,
            "approved_changes": j.approved_changes, "est_cost_to_complete": j.est_cost_to_complete,
            "retainage_pct": j.retainage_pct, "start_date": j.start_date, "est_completion": j.est_completion}


def commitment_row(c: Commitment, vendor_name: str | None = None) -> dict:
    return {"number": c.number, "project_id": c.job, "vendor_id": c.vendor_key, "vendor_name": vendor_name,
            "type": c.type, "title": c.title, "status": c.status, "retainage_pct": c.retainage_pct,
            "executed_date": c.executed_date, "amount": c.amount}
