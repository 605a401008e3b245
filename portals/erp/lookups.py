"""Shared pieces of the ERP services: paging, record lookups with helpful refusals, row shapes."""
from __future__ import annotations

from sqlalchemy import select

from portals.core.db import page_total, prefetch
from portals.core.errors import NotFound, ToolError

from .models import APBill, Commitment, CostCode, CostType, Job, PaymentHold, Vendor
from .settings import erp_settings

MAX_PER_PAGE = 100


def page_of(ctx, query, page: int, per_page: int, shape, links: dict | None = None) -> dict:
    """One page of a select, as {"items", "page", "per_page", "total", "pages"}. `links`
    ({Model: "attribute holding its key"}) loads the records `shape` looks up, one query each."""
    if page < 1:
        raise ToolError("Page must be 1 or more.", "page")
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise ToolError(f"Per page must be between 1 and {MAX_PER_PAGE}.", "per_page")
    rows = ctx.session.scalars(query.limit(per_page).offset((page - 1) * per_page)).all()
    total = page_total(ctx.session, query, page, per_page, len(rows))
    linked = prefetch(ctx.session, rows, links or {})
    items = [shape(r) for r in rows]
    del linked  # held until every row is shaped: the identity map keeps records weakly
    return {"items": items, "page": page, "per_page": per_page,
            "total": total, "pages": (total + per_page - 1) // per_page}


def like(text: str) -> str:
    return "%" + text.replace("\\", "").replace("%", "").replace("_", "\\_") + "%"


def name_match(column, text: str):
    return column.ilike(like(text), escape="\\")


def _example(ctx, key: str) -> str:
    """An id example from the manifest's [erp] table (values that occur nowhere in the book)."""
    return str(ctx.spec.manifest.get("erp", {}).get(key, ""))


def vendor(ctx, vendor_id: str, field: str = "vendor_id") -> Vendor:
    """The vendor by this product's own id. An id in another format is refused as such: what
    another system calls the vendor is for the clerk to look up, not for the ERP to translate."""
    cfg = erp_settings(ctx.spec)
    text = vendor_id.strip()
    if not cfg.is_vendor_id(text):
        raise ToolError(f"{ctx.spec.label} identifies vendors by ids like {cfg.vendor_id_example}; "
                        f"{text!r} is not one.", field)
    row = ctx.session.get(Vendor, text)
    if row is None:
        raise NotFound(f"There is no vendor {text!r}. Search vendors by name to find the id.", field)
    return row


def job(ctx, job_number: str, field: str = "project_id") -> Job:
    text = job_number.strip()
    row = ctx.session.get(Job, text)
    if row is None:
        word, example = ctx.spec.word("job").lower(), _example(ctx, "job_example")
        shape = f"; {ctx.spec.word('jobs').lower()} look like {example}" if example else ""
        raise NotFound(f"There is no {word} {text!r} in {ctx.spec.label}{shape}.", field)
    return row


def cost_code(ctx, code: str, field: str = "task_id", project: str | None = None) -> CostCode:
    """A task/phase of this product's cost-code dictionary; a code in any other format is refused
    with the shape this product's codes take (never with its translation)."""
    text = code.strip()
    row = ctx.session.get(CostCode, text)
    if row is not None:
        return row
    word = ctx.spec.word("cost_code")
    shape = f"{ctx.spec.word('cost_codes').lower()} look like {erp_settings(ctx.spec).cost_code_example}"
    if project:
        raise NotFound(f"{word} {text!r} is not a {word.lower()} of {ctx.spec.word('job').lower()} "
                       f"{project}; {shape}.", field)
    raise NotFound(f"There is no {word.lower()} {text!r} in {ctx.spec.label}; {shape}.", field)


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
            "phone": v.phone, "tin": v.tin, "is_1099": v.is_1099, "form_1099": v.form_1099,
            "entity_type": v.entity_type, "w9_on_file": v.w9_on_file, "status": v.status,
            "coi_expires": v.coi_expires}


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
