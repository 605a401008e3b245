"""Seed entities, the standard cost type catalog, project estimates and change requests."""
from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from portals.core.money import CENT

from .bill_lines import default_account
from .models import (BudgetLine, ChangeRequest, CostType, Entity, EntityProject, GLAccount, Job,
                     ProjectEstimate, ProjectEstimateLine, StandardCostType)
from .seed_extra import offers

STATE_NAMES = {"NC": "North Carolina", "SC": "South Carolina", "VA": "Virginia", "GA": "Georgia",
               "TN": "Tennessee"}
CHANGE_KINDS = {"owner": "owner", "commitment": "subcontract"}  # the book's kind -> change type
CHANGE_STATUS = {"approved": "Approved", "pending": "Pending", "void": "Void"}


def seed(session, book, streams, clock, spec, keys) -> None:
    jobs = session.scalars(select(Job).order_by(Job.job)).all()
    _entities(session, book, spec, jobs)
    if offers(spec, "list_standard_cost_types"):
        _cost_types(session)
    if offers(spec, "query_project_estimates", "get_project_estimate"):
        _estimates(session, book, keys, jobs)
    if offers(spec, "list_change_requests", "create_change_request"):
        _change_requests(session, book, streams("change_requests"), keys,
                         spec.manifest.get("erp", {}).get("change_requests_seeded", "all"), spec.name)


def _entities(session, book, spec, jobs) -> None:
    """Entities by state where the manifest splits the company so, else the one company."""
    erp = spec.manifest.get("erp", {})
    company = book.get("meta", {}).get("company_name", "Company")
    if not erp.get("entities_by_state"):
        number = str(erp.get("company_number", "1"))
        states = sorted({j.state for j in jobs})
        session.add(Entity(entity_id=number, name=company, state=states[0] if states else "", currency="USD",
                           status="active"))
        session.add_all(EntityProject(job=j.job, entity_id=number) for j in jobs)
        return
    count = defaultdict(int)
    for j in jobs:
        count[j.state] += 1
    step = int(erp.get("entity_id_step", 100))
    closed = erp.get("books_closed_through_by_state", {})
    ids = {}
    for n, state in enumerate(sorted(count, key=lambda s: (-count[s], s)), start=1):
        ids[state] = str(n * step)
        name = f"{company.split(',')[0]} – {STATE_NAMES.get(state, state)}"
        session.add(Entity(entity_id=ids[state], name=name, state=state, currency="USD", status="active",
                           books_closed_through=closed.get(state)))
    session.add_all(EntityProject(job=j.job, entity_id=ids[j.state]) for j in jobs)


def _cost_types(session) -> None:
    for t in session.scalars(select(CostType).order_by(CostType.code)):
        account = default_account(session, t.code) or ""
        title = session.get(GLAccount, account).title if account else ""
        session.add(StandardCostType(code=t.code, name=t.name, accumulation_type=t.name, gl_account=account,
                                     description=f"{t.name} cost; posts to {account} {title}".strip(),
                                     status="active"))


def _estimates(session, book, keys, jobs) -> None:
    lines = defaultdict(list)
    for b in session.scalars(select(BudgetLine).order_by(BudgetLine.job, BudgetLine.cost_code, BudgetLine.cost_type)):
        lines[b.job].append(b)
    approved = defaultdict(list)  # a revision is dated by the job's last approved change
    for co in book.get("change_orders", []):
        if co.get("status") == "approved" and co.get("job") in keys.jobs:
            approved[keys.jobs[co["job"]]].append(co.get("created_date", ""))
    n = 0
    for job in jobs:
        budget = lines.get(job.job, [])
        if not budget:
            continue
        revised = any(b.approved_changes for b in budget)
        versions = [("Original", "Original estimate", job.start_date, [b.original_budget for b in budget])]
        if revised:
            when = max(approved.get(job.job) or [""]) or \
                (date.fromisoformat(job.start_date) + timedelta(days=120)).isoformat()
            versions.append(("Revision", "Revised estimate 1 (approved changes)", when,
                             [b.original_budget + b.approved_changes for b in budget]))
        for kind, description, when, amounts in versions:
            n += 1
            estimate_id = f"EST-{n:05d}"
            total = sum(amounts, start=Decimal("0.00"))
            session.add(ProjectEstimate(estimate_id=estimate_id, job=job.job, description=description,
                                        estimate_type=kind, estimate_date=when,
                                        is_primary=(kind == versions[-1][0]), total=total))
            kept = [(b, a) for b, a in zip(budget, amounts) if a]
            session.add_all(ProjectEstimateLine(line_key=f"{estimate_id}|{i}", estimate_id=estimate_id, line_no=i,
                                                cost_code=b.cost_code, cost_type=b.cost_type, amount=a)
                            for i, (b, a) in enumerate(kept, start=1))


def _change_requests(session, book, rng, keys, seeded: str = "all", app: str = "") -> None:
    budget = defaultdict(list)
    for b in session.scalars(select(BudgetLine).order_by(BudgetLine.line_key)):
        if b.original_budget > 0:
            budget[b.job].append(b)
    orders = sorted((co for co in book.get("change_orders", []) if co.get("kind") in CHANGE_KINDS
                     and co.get("job") in keys.jobs and (seeded == "all" or co.get("status") != "pending")),
                    key=lambda co: (co.get("created_date", ""), co["co_id"]))
    for n, co in enumerate(orders, start=1):
        job = keys.jobs[co["job"]]
        kind = CHANGE_KINDS[co["kind"]]
        choices = budget.get(job) or []
        if kind == "subcontract":
            choices = [b for b in choices if b.cost_type == "S"] or choices
        if not choices:
            continue
        line = rng.choices(choices, weights=[float(b.original_budget) for b in choices])[0]
        amount = Decimal(str(co["amount"]))
        if kind == "owner":  # the owner pays the cost plus the contractor's markup
            price, cost = amount, (amount / Decimal(str(1 + rng.uniform(0.08, 0.15)))).quantize(CENT)
        else:
            price, cost = Decimal("0.00"), amount
        when = co.get("created_date", "")
        session.add(ChangeRequest(change_request_id=f"CR-{n:05d}", job=job, change_type=kind,
                                  description=co.get("title", ""), request_date=when, cost_code=line.cost_code,
                                  cost_type=line.cost_type, cost_effect=cost, price_effect=price,
                                  status=CHANGE_STATUS.get(co.get("status"), "Pending"),
                                  entered_at=f"{when}T00:00:00Z"))
    # the change orders the book has this product already holding Pending (seeds/reestimate.py),
    # numbered after the book's change orders
    mine = [p for p in book.get("erp_pending_changes", []) if p.get("erp") == app and p["job"] in keys.jobs]
    for n, p in enumerate(mine, start=len(orders) + 1):
        when = p["request_date"]
        session.add(ChangeRequest(change_request_id=f"CR-{n:05d}", job=keys.jobs[p["job"]],
                                  change_type=p["change_type"], description=p["description"], request_date=when,
                                  cost_code=keys.codes.get(p["cost_code"], p["cost_code"]), cost_type=p["cost_type"],
                                  cost_effect=Decimal(p["cost_effect"]), price_effect=Decimal(p["price_effect"]),
                                  status="Pending", entered_at=f"{when}T00:00:00Z"))
