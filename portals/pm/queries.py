"""Shared pieces of the PM services: paging, lookups by natural key, and row shapes."""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from portals.core.db import page_total
from portals.core.errors import NotFound, ToolError

from .models import Commitment, Project, Requisition, Vendor

MAX_PER_PAGE = 100
STATUS_WORDS = {
    "draft": "still a draft",
    "under_review": "under review",
    "revise_and_resubmit": "returned to the subcontractor to revise and resubmit",
    "approved": "approved",
    "paid": "already paid",
}
CONTRACT_TYPES = {"subcontract": "work_order_contract", "purchase_order": "purchase_order_contract"}
TYPE_OF_CONTRACT = {v: k for k, v in CONTRACT_TYPES.items()}


def check_paging(page: int, per_page: int) -> None:
    if page < 1:
        raise ToolError("Page must be 1 or more.", "page")
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise ToolError(f"Per page must be between 1 and {MAX_PER_PAGE}.", "per_page")


def paged(session: Session, stmt: Select, page: int, per_page: int, shape) -> dict:
    """Run a select one page at a time; `shape` turns each result row into a plain dict."""
    check_paging(page, per_page)
    rows = session.execute(stmt.limit(per_page).offset((page - 1) * per_page)).all()
    total = page_total(session, stmt, page, per_page, len(rows))
    return {"items": [shape(r) for r in rows], "page": page, "per_page": per_page,
            "total": total, "pages": math.ceil(total / per_page) if total else 0}


def contains(column, text: str):
    """Case-insensitive substring match with LIKE wildcards in the text taken literally."""
    return column.icontains(text.strip(), autoescape=True)


def project_by_number(session: Session, project_number: str) -> Project:
    project = session.scalar(select(Project).where(Project.project_number == project_number.strip()))
    if project is None:
        raise NotFound(f"There is no project number {project_number!r} in this company; "
                       "list projects to see the valid numbers.", "project_number")
    return project


def commitment_by_number(session: Session, number: str) -> Commitment:
    commitment = session.scalar(select(Commitment).where(Commitment.number == number.strip()))
    if commitment is None:
        raise NotFound(f"There is no commitment numbered {number!r}; list commitments to find "
                       "the right number.", "number")
    return commitment


def requisition_by_id(session: Session, requisition_id: int) -> Requisition:
    requisition = session.get(Requisition, requisition_id)
    if requisition is None:
        raise NotFound(f"There is no subcontractor invoice with requisition id {requisition_id}.",
                       "requisition_id")
    return requisition


def vendor_brief(vendor: Vendor | None) -> dict:
    if vendor is None:
        return {"vendor_id": None, "name": "", "origin_id": ""}
    return {"vendor_id": vendor.vendor_id, "name": vendor.name, "origin_id": vendor.origin_id}


def percent_complete(c: Commitment) -> Decimal | None:
    """The PM's work in place as a share of the contract, to one decimal (for reading only)."""
    if c.work_in_place is None or not c.grand_total:
        return None
    return (c.work_in_place * 100 / c.grand_total).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def commitment_row(c: Commitment, project: Project, vendor: Vendor | None) -> dict:
    return {
        "number": c.number, "title": c.title, "project_number": project.project_number,
        "vendor": vendor_brief(vendor), "type": TYPE_OF_CONTRACT.get(c.contract_type, c.contract_type),
        "contract_type": c.contract_type, "status": c.status, "amount": c.grand_total,
        "retainage_pct": c.retainage_pct, "executed_date": c.executed_date,
        "work_in_place": c.work_in_place, "percent_complete": percent_complete(c),
        "erp_status": c.erp_status, "erp_synced_at": c.erp_synced_at,
    }


def requisition_row(r: Requisition, c: Commitment, project: Project, vendor: Vendor | None) -> dict:
    return {
        "requisition_id": r.requisition_id, "commitment": c.number,
        "commitment_title": c.title, "project_number": project.project_number,
        "vendor": vendor.name if vendor else "", "vendor_id": vendor.vendor_id if vendor else None,
        "origin_id": vendor.origin_id if vendor else "",
        "number": r.number, "invoice_number": r.invoice_number,
        "period_start": r.period_start, "period_end": r.period_end,
        "amount": r.amount, "retainage": r.retainage, "net_amount": r.amount - r.retainage,
        "status": r.status, "approved_date": r.approved_date,
        **({"requested_amount": r.requested_amount} if r.requested_amount is not None else {}),
        **({"review_note": r.review_note} if r.review_note else {}),
        "erp_sync": r.erp_sync, "erp_synced_at": r.erp_synced_at,
    }
