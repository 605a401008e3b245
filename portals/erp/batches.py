"""Posting batches (Vista HQ Batch Control): entries go in by month (Mth) and BatchId, are
validated, then posted. Posting a batch is guarded: it is staged for a person, never run.

Which batch an entry is in follows from the entry itself, so entering an invoice or an
adjustment writes that one row and no batch row: a posted entry is in the posted batch of its
source and month, an unposted one in its source's open batch.
"""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Literal

from sqlalchemy import select

from portals.core.errors import NotFound, ToolError
from portals.core.tools import GUARDED, READ, service

from . import lookups as L
from .models import APBill, Batch, Job, JobCost, SLChangeOrder, Vendor

# source -> (batch table, the job-cost source its entries carry, or None)
SOURCES = {"AP Entry": ("APHB", "AP"), "JC CostAdj": ("JCCB", "JC"), "PR Entry": ("PRTB", "PR"),
           "EM Usage": ("EMBF", "EQ"), "GL Jrnl": ("GLDB", "JE"), "SL Change": ("SLCB", None)}
OPEN_SOURCES = ("AP Entry", "JC CostAdj", "SL Change")  # where an agent's entries wait to be posted
BY_COST_SOURCE = {cost: source for source, (_t, cost) in SOURCES.items() if cost}


def offered(ctx) -> bool:
    """Whether this product keeps batches (its manifest offers the batch list)."""
    return "list_batches" in ctx.spec.tool_map.values()


def month(text: str, field: str = "mth") -> str:
    """A batch month as YYYY-MM, from "2026-06", "06/26" or "6/2026"."""
    raw = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}", raw):
        out = raw
    elif m := re.fullmatch(r"(\d{1,2})/(\d{2}|\d{4})", raw):
        year = m.group(2) if len(m.group(2)) == 4 else f"20{m.group(2)}"
        out = f"{year}-{int(m.group(1)):02d}"
    else:
        raise ToolError(f"Mth must be a month like 06/26 or 2026-06, not {raw[:20]!r}.", field)
    if not 1 <= int(out[5:]) <= 12:
        raise ToolError(f"Mth {raw!r} has no month {out[5:]}.", field)
    return out


def _index(ctx) -> dict:
    """{(source, mth, status): batch} and {source: open batch}, read once per session."""
    cache = ctx.session.info.get("erp_batches")
    if cache is None:
        rows = ctx.session.scalars(select(Batch)).all()
        cache = {"posted": {(b.source, b.mth): b for b in rows if b.status == "posted"},
                 "open": {b.source: b for b in sorted(rows, key=lambda b: b.mth) if b.status == "open"}}
        ctx.session.info["erp_batches"] = cache
    return cache


def _fields(batch: Batch | None) -> dict:
    return {"mth": batch.mth, "batch_id": batch.batch_id} if batch else {"mth": None, "batch_id": None}


def bill_batch(ctx, bill: APBill) -> dict:
    """Mth and BatchId of an AP entry ({} for a product without batches)."""
    if not offered(ctx):
        return {}
    index = _index(ctx)
    if bill.state == "posted":
        return _fields(index["posted"].get(("AP Entry", bill.bill_date[:7])))
    return _fields(index["open"].get("AP Entry"))


def cost_batch(ctx, txn: JobCost) -> dict:
    """Mth and BatchId of a job-cost transaction: the batch of the module it came from."""
    if not offered(ctx):
        return {}
    index, source = _index(ctx), BY_COST_SOURCE.get(txn.source, "JC CostAdj")
    if txn.batch_state == "posted":
        return _fields(index["posted"].get((source, txn.date[:7])))
    return _fields(index["open"].get(source))


def _members(ctx, b: Batch):
    """The select of a batch's entries, and how to shape one."""
    open_ = b.status == "open"
    if b.source == "AP Entry":
        query = select(APBill).where(APBill.state == ("draft" if open_ else "posted"))
        if not open_:
            query = query.where(APBill.bill_date.like(f"{b.mth}-%"))
        return query.order_by(APBill.bill_date, APBill.bill_id), lambda r: {
            "ref": r.bill_number, "record": r.bill_id, "date": r.bill_date, "vendor_id": r.vendor_key,
            "project_id": r.job, "task_id": r.cost_code, "cost_type_id": r.cost_type, "description": r.description,
            "amount": r.amount}
    if b.source == "SL Change":
        query = select(SLChangeOrder).where(SLChangeOrder.status == ("open" if open_ else "posted"))
        if not open_:
            query = query.where(SLChangeOrder.act_date.like(f"{b.mth}-%"))
        return query.order_by(SLChangeOrder.act_date, SLChangeOrder.co_key), lambda r: {
            "ref": f"{r.subcontract} CO {r.change_order}", "record": r.co_key, "date": r.act_date,
            "vendor_id": None, "project_id": None, "task_id": None, "cost_type_id": None,
            "description": r.description, "amount": r.amount}
    query = select(JobCost).where(JobCost.source == SOURCES[b.source][1],
                                  JobCost.batch_state == ("open" if open_ else "posted"))
    if not open_:
        query = query.where(JobCost.date.like(f"{b.mth}-%"))
    return query.order_by(JobCost.date, JobCost.txn_id), lambda r: {
        "ref": r.ref, "record": r.txn_id, "date": r.date, "vendor_id": r.vendor_key, "project_id": r.job,
        "task_id": r.cost_code, "cost_type_id": r.cost_type, "description": r.description, "amount": r.amount}


def _totals(ctx, b: Batch) -> tuple[int, Decimal]:
    query, _shape = _members(ctx, b)
    rows = ctx.session.scalars(query).all()
    return len(rows), sum((r.amount for r in rows), start=Decimal("0.00"))


def batch_row(ctx, b: Batch) -> dict:
    count, total = _totals(ctx, b)
    return {"mth": b.mth, "batch_id": b.batch_id, "co": b.co, "source": b.source, "table": b.table_name,
            "status": b.status, "created_by": b.created_by, "date_created": b.date_created,
            "date_posted": b.date_posted, "entries": count, "total": total}


@service(READ)
def list_batches(ctx, mth: str | None = None, source: str | None = None,
                 status: Literal["open", "posted"] | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List posting batches (batch control), newest month first, with their entry count and total.

    Args:
        mth: Only this batch month, like 06/26 or 2026-06.
        source: Only this source, e.g. AP Entry, JC CostAdj, SL Change, PR Entry, EM Usage, GL Jrnl.
        status: open (entries waiting to be posted) or posted.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(Batch)
    if mth:
        query = query.where(Batch.mth == month(mth))
    if source:
        if source.strip() not in SOURCES:
            raise ToolError(f"Source must be one of: {', '.join(SOURCES)}.", "source")
        query = query.where(Batch.source == source.strip())
    if status:
        query = query.where(Batch.status == status)
    query = query.order_by(Batch.mth.desc(), Batch.batch_id.desc())
    return L.page_of(ctx, query, page, per_page, lambda b: batch_row(ctx, b))


def find(ctx, mth: str, batch_id: int) -> Batch:
    found = ctx.session.get(Batch, f"{month(mth)}|{batch_id}")
    if found is None:
        raise NotFound(f"There is no batch {batch_id} in Mth {mth.strip()}.", "batch_id")
    return found


@service(READ)
def get_batch(ctx, mth: str, batch_id: int, page: int = 1, per_page: int = 25) -> dict:
    """Get one batch with its entries (a page of them).

    Args:
        mth: The batch month, like 06/26 or 2026-06.
        batch_id: The BatchId within that month, e.g. 999.
        page: Page of entries, from 1.
        per_page: Entries per page, 1 to 100.
    """
    found = find(ctx, mth, batch_id)
    query, shape = _members(ctx, found)
    out = batch_row(ctx, found)
    entries = L.page_of(ctx, query, page, per_page, shape)
    for n, entry in enumerate(entries["items"], start=(entries["page"] - 1) * entries["per_page"] + 1):
        entry["seq"] = n
    return {**out, "items": entries["items"], "page": entries["page"], "per_page": entries["per_page"],
            "pages": entries["pages"]}


def _problem(ctx, b: Batch) -> str | None:
    """What stops a batch from validating, in the words of its first bad entry."""
    query, shape = _members(ctx, b)
    for row in ctx.session.scalars(query):
        entry = shape(row)
        job = ctx.session.get(Job, entry["project_id"]) if entry["project_id"] else None
        if job is not None and job.status != "active":
            return f"entry {entry['ref']} is coded to {ctx.spec.word('job').lower()} {job.job}, which is {job.status}"
        vendor = ctx.session.get(Vendor, entry["vendor_id"]) if entry["vendor_id"] else None
        if vendor is not None and vendor.status != "active":
            return f"entry {entry['ref']} is for vendor {vendor.vendor_key}, which is {vendor.status}"
    return None


@service(GUARDED)
def post_batch(ctx, mth: str, batch_id: int) -> dict:
    """Validate and post a batch, so its entries reach the ledgers. GUARDED: the posting is staged for
    a person's approval and nothing is posted.

    Args:
        mth: The batch month, like 06/26 or 2026-06.
        batch_id: The BatchId within that month, e.g. 999.
    """
    found = find(ctx, mth, batch_id)
    if found.status == "posted":
        raise ToolError(f"Batch {found.batch_id} of Mth {found.mth} was posted on {found.date_posted}; "
                        "a posted batch cannot be posted again.", "batch_id")
    count, total = _totals(ctx, found)
    if count == 0:
        raise ToolError(f"Batch {found.batch_id} of Mth {found.mth} has no entries; there is nothing to post.",
                        "batch_id")
    problem = _problem(ctx, found)
    if problem:
        raise ToolError(f"Batch {found.batch_id} of Mth {found.mth} does not validate: {problem}.", "batch_id")
    return {"action": "post batch", "mth": found.mth, "batch_id": found.batch_id, "source": found.source,
            "entries": count, "total": total}
