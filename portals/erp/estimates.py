"""Project estimates: the original estimate of a job and its revisions, by cost code and cost type.

The primary estimate is the one the budget reports read. Estimates are read here, not written.
"""
from __future__ import annotations

from typing import Literal

from sqlalchemy import select

from portals.core.errors import NotFound
from portals.core.tools import READ, service

from . import entities as E
from . import lookups as L
from .models import Job, ProjectEstimate, ProjectEstimateLine


def estimate_row(ctx, e: ProjectEstimate) -> dict:
    job = ctx.session.get(Job, e.job)
    return {"estimate_id": e.estimate_id, "project_id": e.job, "project_name": job.name if job else None,
            "description": e.description, "estimate_type": e.estimate_type, "estimate_date": e.estimate_date,
            "is_primary": e.is_primary, "total": e.total}


@service(READ)
def query_project_estimates(ctx, project_id: str | None = None,
                            estimate_type: Literal["Original", "Revision"] | None = None,
                            primary_only: bool = False, entity_id: str | None = None,
                            page: int = 1, per_page: int = 25) -> dict:
    """Search project estimates (the original estimate and its revisions).

    Args:
        project_id: Only this {job_word} ({job_format}).
        estimate_type: Original or Revision.
        primary_only: Only each {job_word}'s primary estimate (the one budgets report). Default false.
        entity_id: Only {job_word}s of this {entity_word} ({entity_format}).
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(ProjectEstimate)
    if project_id:
        query = query.where(ProjectEstimate.job == L.job(ctx, project_id).job)
    if estimate_type:
        query = query.where(ProjectEstimate.estimate_type == estimate_type)
    if primary_only:
        query = query.where(ProjectEstimate.is_primary.is_(True))
    query = E.only_entity(ctx, query, ProjectEstimate.job, entity_id)
    query = query.order_by(ProjectEstimate.job, ProjectEstimate.estimate_date, ProjectEstimate.estimate_id)
    return L.page_of(ctx, query, page, per_page, lambda e: estimate_row(ctx, e), {Job: "job"})


@service(READ)
def get_project_estimate(ctx, estimate_id: str) -> dict:
    """Get one project estimate with its lines by cost code and cost type.

    Args:
        estimate_id: The estimate id, as the estimate search returns it, e.g. EST-99999.
    """
    found = ctx.session.get(ProjectEstimate, estimate_id.strip())
    if found is None:
        raise NotFound(f"There is no project estimate {estimate_id.strip()!r}.", "estimate_id")
    out = estimate_row(ctx, found)
    lines = ctx.session.scalars(select(ProjectEstimateLine).where(ProjectEstimateLine.estimate_id == found.estimate_id)
                                .order_by(ProjectEstimateLine.line_no))
    out["lines"] = [{"line_no": ln.line_no, "task_id": ln.cost_code, "cost_type_id": ln.cost_type,
                     "amount": ln.amount} for ln in lines]
    return out
