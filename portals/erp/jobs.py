"""Jobs / projects: the job master, its phases or tasks, prime contract, cost detail and forecast."""
from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from sqlalchemy import func, or_, select

from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.money import parse_amount
from portals.core.tools import READ, WRITE, Amount, MaxLen, service

from . import batches as B
from . import entities as E
from . import lookups as L
from .models import BudgetLine, Commitment, ContractItem, CostCode, Job, JobCost, Vendor


@service(READ)
def list_projects(ctx, search: str | None = None, status: Literal["active", "closed"] | None = None,
                  entity_id: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List projects / jobs with contract amount and estimated cost to complete.

    Args:
        search: Part of the job number, name or customer.
        status: active or closed.
        entity_id: Only the {job_word}s of this {entity_word} ({entity_format}); left out, all.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = E.only_entity(ctx, select(Job), Job.job, entity_id)
    if search:
        query = query.where(or_(L.name_match(Job.job, search), L.name_match(Job.name, search),
                                L.name_match(Job.customer, search)))
    if status:
        query = query.where(Job.status == status)
    shape = lambda j: {**L.job_row(j), "entity_id": E.entity_of(ctx, j.job)}  # noqa: E731
    return L.page_of(ctx, query.order_by(Job.job), page, per_page, shape)


@service(READ)
def get_project(ctx, project_id: str) -> dict:
    """Get one project / job: header, cost budget and actual cost by task/phase and cost type, and its commitments.

    Args:
        project_id: The {job_word} ({job_format}).
    """
    job = L.job(ctx, project_id)
    out = L.job_row(job)
    lines = ctx.session.scalars(select(BudgetLine).where(BudgetLine.job == job.job)
                                .order_by(BudgetLine.cost_code, BudgetLine.cost_type))
    costs: dict = {}
    for code, ctype, amount in ctx.session.execute(select(JobCost.cost_code, JobCost.cost_type, JobCost.amount)
                                                   .where(JobCost.job == job.job)):
        costs[(code, ctype)] = costs.get((code, ctype), 0) + amount
    # The ERP's only projection is the job's own estimated cost to complete; the PM's line-by-line
    # forecast lives in the PM platform until someone carries it over, so it is not shown here.
    out["budget"] = [{"task_id": b.cost_code, "cost_type_id": b.cost_type, "original_budget": b.original_budget,
                      "approved_changes": b.approved_changes,
                      "actual_cost": costs.get((b.cost_code, b.cost_type), "0.00")} for b in lines]
    out["commitments"] = [L.commitment_row(c, name) for c, name in ctx.session.execute(
        select(Commitment, Vendor.name).join(Vendor, Vendor.vendor_key == Commitment.vendor_key)
        .where(Commitment.job == job.job).order_by(Commitment.number))]
    return out


@service(READ)
def list_tasks(ctx, project_id: str | None = None, search: str | None = None,
               page: int = 1, per_page: int = 25) -> dict:
    """List this product's cost codes ({cost_code_format}), or those budgeted on one {job_word}.

    Args:
        project_id: Only the codes budgeted on this {job_word} ({job_format}).
        search: Part of the code or its description.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(CostCode)
    if project_id:
        job = L.job(ctx, project_id)
        query = query.where(CostCode.code.in_(select(BudgetLine.cost_code).where(BudgetLine.job == job.job)))
    if search:
        query = query.where(or_(L.name_match(CostCode.code, search), L.name_match(CostCode.description, search)))
    # The product knows its own codes only: which company (Procore) code posts where is kept in
    # Procore's ERP cost-code map, not here.
    shape = lambda c: {"task_id": c.code, "description": c.description, "division": c.division}  # noqa: E731
    return L.page_of(ctx, query.order_by(CostCode.code), page, per_page, shape)


@service(READ)
def get_project_contract(ctx, project_id: str) -> dict:
    """Get the owner (prime) contract of a project: owner, amount and schedule-of-values lines.

    Args:
        project_id: The {job_word} ({job_format}).
    """
    job = L.job(ctx, project_id)
    items = ctx.session.scalars(select(ContractItem).where(ContractItem.job == job.job)
                                .order_by(ContractItem.line_no)).all()
    return {"project_id": job.job, "project_name": job.name, "customer": job.customer,
            "contract_number": items[0].contract_number if items else None,
            "owner": items[0].owner if items else job.customer,
            "contract_amount": job.contract_amount, "retainage_pct": job.retainage_pct,
            "lines": [{"line_no": i.line_no, "description": i.description, "task_id": i.cost_code,
                       "scheduled_value": i.scheduled_value} for i in items]}


@service(READ)
def query_cost_detail(ctx, project_id: str | None = None, task_id: str | None = None,
                      cost_type_id: str | None = None, source: Literal["AP", "PR", "EQ", "JE", "JC"] | None = None,
                      date_from: date | None = None, date_to: date | None = None,
                      entity_id: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """Query job cost detail transactions, newest first.

    Args:
        project_id: Only this {job_word} ({job_format}).
        task_id: Only this cost code, in this product's format ({cost_code_format}).
        cost_type_id: Only this cost type (L, M, S, E, O).
        source: Only this source: AP, PR (payroll), EQ (equipment), JE (journal), JC (cost adjustment).
        date_from: First date, YYYY-MM-DD.
        date_to: Last date, YYYY-MM-DD.
        entity_id: Only {job_word}s of this {entity_word} ({entity_format}); left out, all.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = E.only_entity(ctx, select(JobCost), JobCost.job, entity_id)
    for column, value in ((JobCost.job, project_id), (JobCost.cost_code, task_id),
                          (JobCost.cost_type, cost_type_id and cost_type_id.upper()), (JobCost.source, source)):
        if value:
            query = query.where(column == value.strip())
    if date_from:
        query = query.where(JobCost.date >= date_from.isoformat())
    if date_to:
        query = query.where(JobCost.date <= date_to.isoformat())
    shape = lambda t: {"txn_id": t.txn_id, "project_id": t.job, "task_id": t.cost_code,  # noqa: E731
                       "cost_type_id": t.cost_type, "date": t.date, "source": t.source, "amount": t.amount,
                       "description": t.description, "vendor_id": t.vendor_key, "ref": t.ref,
                       "batch_state": t.batch_state, **B.cost_batch(ctx, t)}
    return L.page_of(ctx, query.order_by(JobCost.date.desc(), JobCost.txn_id), page, per_page, shape)


@service(WRITE)
def create_cost_adjustment(ctx, project_id: str, task_id: str, cost_type_id: str, amount: str,
                           adjustment_date: date, description: Annotated[str, MaxLen(300)],
                           reference: Annotated[str, MaxLen(60)] = "") -> dict:
    """Enter a job cost adjustment into an open (unposted) JC batch; a negative amount moves cost out.

    Args:
        project_id: The {job_word} ({job_format}).
        task_id: The cost code in this product's format ({cost_code_format}).
        cost_type_id: Cost type: L, M, S, E or O.
        amount: Amount to add, e.g. 12345.67, or to remove, e.g. -12345.67; not zero.
        adjustment_date: The actual date of the adjustment, YYYY-MM-DD.
        description: Why the cost is adjusted.
        reference: An optional reference, e.g. a memo or invoice number.
    """
    job = L.job(ctx, project_id)
    code = L.cost_code(ctx, task_id, project=job.job)
    ctype = L.cost_type(ctx, cost_type_id)
    value = parse_amount(amount, "amount", allow_negative=True, allow_zero=False)
    if not description.strip():
        raise ToolError("Describe the adjustment.", "description")
    count = ctx.session.scalar(select(func.count()).where(JobCost.source == "JC", JobCost.job == job.job))
    txn = JobCost(txn_id=f"JCA-{stable_id(ctx.app, 'adjustment', job.job, count + 1)}", job=job.job,
                  cost_code=code.code, cost_type=ctype.code, date=adjustment_date.isoformat(), source="JC",
                  amount=value, description=description.strip(), vendor_key=None,
                  ref=reference.strip() or None, batch_state="open")
    ctx.session.add(txn)
    return {"txn_id": txn.txn_id, "project_id": job.job, "task_id": code.code, "cost_type_id": ctype.code,
            "amount": value, "date": txn.date, "batch_state": "open"}


@service(WRITE)
def update_job_forecast(ctx, project_id: str, est_cost_to_complete: Amount) -> dict:
    """Set a job's estimated cost to complete (the cost projection); it waits for sign-off as usual.

    Args:
        project_id: The {job_word} ({job_format}).
        est_cost_to_complete: The new estimated cost to complete, e.g. 12345.67.
    """
    job = L.job(ctx, project_id)
    if job.status != "active":
        raise ToolError(f"{ctx.spec.word('job')} {job.job} is closed; its projection is final.", "project_id")
    before = job.est_cost_to_complete
    job.est_cost_to_complete = est_cost_to_complete
    return {"project_id": job.job, "previous_est_cost_to_complete": before,
            "est_cost_to_complete": est_cost_to_complete}


@service(READ)
def list_commitments(ctx, project_id: str | None = None, vendor_id: str | None = None,
                     status: str | None = None, search: str | None = None,
                     entity_id: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List subcontracts and purchase orders interfaced to the ERP.

    Args:
        project_id: Only this {job_word} ({job_format}).
        vendor_id: Only this vendor ({vendor_id_format}).
        status: Only this status, e.g. Approved, Complete.
        search: Part of the number or title.
        entity_id: Only {job_word}s of this {entity_word} ({entity_format}); left out, all.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = E.only_entity(ctx, select(Commitment), Commitment.job, entity_id)
    if project_id:
        query = query.where(Commitment.job == project_id.strip())
    if vendor_id:
        query = query.where(Commitment.vendor_key == L.vendor(ctx, vendor_id).vendor_key)
    if status:
        query = query.where(Commitment.status == status.strip())
    if search:
        query = query.where(or_(L.name_match(Commitment.number, search), L.name_match(Commitment.title, search)))
    shape = lambda c: L.commitment_row(c, ctx.session.get(Vendor, c.vendor_key).name)  # noqa: E731
    return L.page_of(ctx, query.order_by(Commitment.job, Commitment.number), page, per_page, shape,
                     {Vendor: "vendor_key"})

