"""Progress billing to owners (Vista JB Progress Billing): one bill per contract and period, with
the schedule of values billed to date. Read here; bills are prepared and sent by a person.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Literal

from sqlalchemy import select

from portals.core.errors import NotFound
from portals.core.money import CENT
from portals.core.tools import READ, service

from . import lookups as L
from .batches import month
from .models import BudgetLine, ContractItem, Job, JobCost, ProgressBill


def progress_bill_row(ctx, b: ProgressBill) -> dict:
    job = ctx.session.get(Job, b.job)
    to_date = b.previous_billed + b.this_period
    return {"project_id": b.job, "project_name": job.name if job else None, "customer": job.customer if job else None,
            "bill_number": b.bill_number, "application": b.application, "bill_month": b.bill_month,
            "from_date": b.from_date, "to_date": b.to_date, "invoice_date": b.invoice_date, "due_date": b.due_date,
            "contract_amount": job.contract_amount if job else None, "previous_billed": b.previous_billed,
            "this_period": b.this_period, "billed_to_date": to_date, "retainage": b.retainage,
            "amount_due": b.amount_due, "status": b.status}


@service(READ)
def list_progress_bills(ctx, project_id: str | None = None, bill_month: str | None = None,
                        status: Literal["draft", "interfaced"] | None = None,
                        page: int = 1, per_page: int = 25) -> dict:
    """List progress bills to owners, newest first: each contract's bill for a period, with the
    amount billed this period, billed to date, retainage and amount due.

    Args:
        project_id: Only this {job_word}'s contract ({job_format}).
        bill_month: Only bills of this month, like 06/26 or 2026-06.
        status: draft (not yet interfaced to AR) or interfaced.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(ProgressBill)
    if project_id:
        query = query.where(ProgressBill.job == L.job(ctx, project_id).job)
    if bill_month:
        query = query.where(ProgressBill.bill_month == month(bill_month, "bill_month"))
    if status:
        query = query.where(ProgressBill.status == status)
    query = query.order_by(ProgressBill.bill_month.desc(), ProgressBill.job, ProgressBill.application)
    return L.page_of(ctx, query, page, per_page, lambda b: progress_bill_row(ctx, b), {Job: "job"})


def _spread(total: Decimal, weights: list[Decimal]) -> list[Decimal]:
    """`total` split in proportion to `weights`, to the cent, the last share taking the rounding."""
    whole = sum(weights, start=Decimal(0))
    if not weights or whole == 0:
        return [Decimal("0.00")] * len(weights)
    shares = [(total * w / whole).quantize(CENT) for w in weights[:-1]]
    return shares + [total - sum(shares, start=Decimal("0.00"))]


@service(READ)
def get_progress_bill(ctx, project_id: str, application: int) -> dict:
    """Get one progress bill with its contract items: scheduled value, billed previously, this
    period, to date, percent complete and retainage.

    Args:
        project_id: The {job_word} whose contract is billed ({job_format}).
        application: The bill's application number on that contract, from 1.
    """
    job = L.job(ctx, project_id)
    found = ctx.session.get(ProgressBill, f"{job.job}|{application}")
    if found is None:
        raise NotFound(f"{ctx.spec.word('job')} {job.job} has no progress bill with application {application}.",
                       "application")
    out = progress_bill_row(ctx, found)
    items = ctx.session.scalars(select(ContractItem).where(ContractItem.job == job.job)
                                .order_by(ContractItem.line_no)).all()
    values = [i.scheduled_value for i in items]
    # Each item is billed as far along as its cost code's cost is against its budget, so items
    # progress unevenly; the item amounts always add up to the bill's own figures.
    contract = sum(values, start=Decimal(0)) or Decimal(1)
    # half by the item's own cost progress, half by the contract's overall progress
    before = [(p + found.previous_billed / contract) / 2 for p in _progress(ctx, job.job, items, found.from_date)]
    now = [(p + (found.previous_billed + found.this_period) / contract) / 2
           for p in _progress(ctx, job.job, items, found.to_date, True)]
    previous = _spread(found.previous_billed, _weights(values, before))
    target = _spread(found.previous_billed + found.this_period, _weights(values, now))
    current = _spread(found.this_period, _weights(values, [max(t - p, Decimal(0)) for t, p in zip(target, previous)],
                                                  raw=True))
    retained = _spread(found.retainage, current)
    out["items"] = [{"item": i.line_no, "description": i.description, "task_id": i.cost_code,
                     "scheduled_value": i.scheduled_value, "previous": p, "this_period": c, "to_date": p + c,
                     "percent_complete": ((p + c) * 100 / i.scheduled_value).quantize(Decimal("0.1"))
                     if i.scheduled_value else Decimal("0.0"), "retainage": r}
                    for i, p, c, r in zip(items, previous, current, retained)]
    return out


def _progress(ctx, job: str, items, day: str, through: bool = False) -> list[Decimal]:
    """Each item's share of its cost code's budget spent before `day` (through it, if asked)."""
    budget, spent = {}, {}
    for code, amount in ctx.session.execute(select(BudgetLine.cost_code, BudgetLine.original_budget)
                                            .where(BudgetLine.job == job)):
        budget[code] = budget.get(code, Decimal(0)) + amount
    when = JobCost.date <= day if through else JobCost.date < day
    for code, amount in ctx.session.execute(select(JobCost.cost_code, JobCost.amount).where(JobCost.job == job, when)):
        spent[code] = spent.get(code, Decimal(0)) + amount
    return [min(Decimal(1), spent.get(i.cost_code, Decimal(0)) / budget[i.cost_code])
            if budget.get(i.cost_code) else Decimal(0) for i in items]


def _weights(values: list[Decimal], shares: list[Decimal], raw: bool = False) -> list[Decimal]:
    """Scheduled values weighted by progress (or `shares` as they are); all scheduled values when
    nothing has progressed, so an amount always has somewhere to go."""
    weights = shares if raw else [v * s for v, s in zip(values, shares)]
    return weights if any(w > 0 for w in weights) else values
