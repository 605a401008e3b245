"""Setting up a new job: the job master record, its original estimate by cost code and cost type,
and its contract (revenue) items. Writes for the ERP archetype, shared by every vendor; a vendor's
manifest offers them under its own tool names. A budget line can only use a cost code the
product's dictionary already has: a new job never adds codes."""
from __future__ import annotations

import re
from datetime import date
from decimal import Decimal
from typing import Annotated

from sqlalchemy import func, select

from portals.core.errors import ToolError
from portals.core.money import parse_amount
from portals.core.tools import WRITE, MaxLen, service

from . import lookups as L
from .models import BudgetLine, ContractItem, Job

JOB_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-]{0,19}")


def _text(value: str, field: str, what: str) -> str:
    text = " ".join((value or "").split())
    if not text:
        raise ToolError(f"{what} is required.", field)
    return text


@service(WRITE)
def create_project(ctx, project_id: Annotated[str, MaxLen(20)], name: Annotated[str, MaxLen(200)],
                   customer: Annotated[str, MaxLen(200)], city: Annotated[str, MaxLen(80)], state: str,
                   start_date: date, est_completion: date, retainage_pct: str = "0",
                   project_manager: Annotated[str, MaxLen(120)] = "") -> dict:
    """Add a new {job_word} to the job master, active, with no budget or contract yet.

    Args:
        project_id: The new {job_word}'s number ({job_format}); it must not exist yet.
        name: The {job_word}'s name.
        customer: The owner (customer) the contract is with.
        city: The {job_word}'s city.
        state: The two-letter state, e.g. NC.
        start_date: The start date, YYYY-MM-DD.
        est_completion: The estimated completion date, YYYY-MM-DD.
        retainage_pct: The owner's retainage percent, from 0 to 100; left out, none.
        project_manager: The project manager's name.
    """
    key = project_id.strip()
    if not JOB_KEY.fullmatch(key):
        raise ToolError(f"{key!r} is not a {ctx.spec.word('job').lower()} number.", "project_id")
    if ctx.session.get(Job, key) is not None:
        raise ToolError(f"{ctx.spec.word('job')} {key} already exists.", "project_id")
    st = state.strip().upper()
    if not re.fullmatch(r"[A-Z]{2}", st):
        raise ToolError("The state is a two-letter code such as NC.", "state")
    if est_completion < start_date:
        raise ToolError("The estimated completion is before the start date.", "est_completion")
    pct = parse_amount(retainage_pct, "retainage_pct", allow_zero=True)
    if Decimal(pct) > 100:
        raise ToolError("Retainage is a percent from 0 to 100.", "retainage_pct")
    job = Job(job=key, name=_text(name, "name", "The name"), customer=_text(customer, "customer", "The customer"),
              city=_text(city, "city", "The city"), state=st, status="active", job_type="",
              pm_name=" ".join(project_manager.split()), start_date=start_date.isoformat(),
              est_completion=est_completion.isoformat(), retainage_pct=f"{Decimal(pct):.2f}",
              contract_amount=Decimal("0"), original_budget=Decimal("0"), approved_changes=Decimal("0"),
              est_cost_to_complete=Decimal("0"))
    ctx.session.add(job)
    ctx.session.flush()
    return L.job_row(job)


@service(WRITE)
def add_budget_line(ctx, project_id: str, task_id: str, cost_type_id: str, original_budget: str) -> dict:
    """Add a line to a {job_word}'s original estimate: one cost code and cost type with its amount.
    The job's original budget is the sum of its lines.

    Args:
        project_id: The {job_word} ({job_format}).
        task_id: A cost code of this product's dictionary ({cost_code_format}).
        cost_type_id: Cost type: L, M, S, E or O.
        original_budget: The original estimate for the line, e.g. 12345.67.
    """
    job = L.job(ctx, project_id)
    code = L.cost_code(ctx, task_id)
    ctype = L.cost_type(ctx, cost_type_id)
    amount = parse_amount(original_budget, "original_budget")
    key = f"{job.job}|{code.code}|{ctype.code}"
    if ctx.session.get(BudgetLine, key) is not None:
        raise ToolError(f"{ctx.spec.word('job')} {job.job} already has a {code.code} {ctype.code} line.", "task_id")
    ctx.session.add(BudgetLine(line_key=key, job=job.job, cost_code=code.code, cost_type=ctype.code,
                               original_budget=amount, approved_changes=Decimal("0"), forecast_to_complete=amount))
    ctx.session.flush()
    job.original_budget = ctx.session.scalar(select(func.sum(BudgetLine.original_budget))
                                             .where(BudgetLine.job == job.job)) or Decimal("0")
    ctx.session.flush()
    return {"project_id": job.job, "task_id": code.code, "cost_type_id": ctype.code, "original_budget": amount,
            "job_original_budget": job.original_budget}


@service(WRITE)
def add_contract_item(ctx, project_id: str, description: Annotated[str, MaxLen(200)], amount: str,
                      item: Annotated[str, MaxLen(40)] = "", task_id: str = "") -> dict:
    """Add a contract (revenue) item to a {job_word}'s owner contract; the contract amount is the
    sum of its items.

    Args:
        project_id: The {job_word} ({job_format}).
        description: The item's description, as the owner's bid form words it.
        amount: The item's contract amount, e.g. 12345.67.
        item: The owner's item number (the contract's line), e.g. 100; blank numbers it next.
        task_id: Optionally, the cost code the item bills against ({cost_code_format}).
    """
    job = L.job(ctx, project_id)
    value = parse_amount(amount, "amount")
    code = L.cost_code(ctx, task_id).code if task_id.strip() else ""
    items = ctx.session.scalars(select(ContractItem).where(ContractItem.job == job.job)).all()
    line_no = max((i.line_no for i in items), default=0) + 1
    label = item.strip() or str(line_no)
    key = f"{job.job}|{label}"
    if any(i.item_key == key for i in items):
        raise ToolError(f"{ctx.spec.word('job')} {job.job} already has contract item {label}.", "item")
    contract = items[0].contract_number if items else job.job  # a new job's contract carries its number
    ctx.session.add(ContractItem(item_key=key, job=job.job, contract_number=contract, owner=job.customer,
                                 line_no=line_no, description=_text(description, "description", "The description"),
                                 cost_code=code, scheduled_value=value))
    ctx.session.flush()
    job.contract_amount = sum((Decimal(i.scheduled_value) for i in items), Decimal("0")) + Decimal(value)
    ctx.session.flush()
    return {"project_id": job.job, "item": label, "line_no": line_no, "description": description.strip(),
            "amount": value, "task_id": code, "contract_amount": job.contract_amount}
