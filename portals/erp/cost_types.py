"""The standard cost type catalog and the dimensions a transaction is coded by.

Every project cost carries dimensions: the job, its cost code (task), the cost type, the vendor
and the entity. The catalog says, for each standard cost type, what it accumulates and which
job-cost GL account it posts to.
"""
from __future__ import annotations

from typing import Literal

from sqlalchemy import func, or_, select

from portals.core.tools import READ, service

from . import lookups as L
from .models import CostCode, Entity, GLAccount, Job, StandardCostType, Vendor


def cost_type_row(ctx, t: StandardCostType) -> dict:
    account = ctx.session.get(GLAccount, t.gl_account)
    return {"cost_type_id": t.code, "name": t.name, "accumulation_type": t.accumulation_type,
            "gl_account": t.gl_account, "gl_account_title": account.title if account else None,
            "description": t.description, "status": t.status}


@service(READ)
def list_standard_cost_types(ctx, search: str | None = None, status: Literal["active", "inactive"] | None = None,
                             page: int = 1, per_page: int = 25) -> dict:
    """List the standard cost type catalog: each cost type's accumulation type and default GL account.

    Args:
        search: Part of the cost type id, name or accumulation type.
        status: active or inactive.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(StandardCostType)
    if search:
        query = query.where(or_(L.name_match(StandardCostType.code, search), L.name_match(StandardCostType.name, search),
                                L.name_match(StandardCostType.accumulation_type, search)))
    if status:
        query = query.where(StandardCostType.status == status)
    return L.page_of(ctx, query.order_by(StandardCostType.code), page, per_page, lambda t: cost_type_row(ctx, t),
                     {GLAccount: "gl_account"})


# dimension -> (the model counted, the vocabulary word for its name)
DIMENSIONS = (("project", Job, "job"), ("task", CostCode, "cost_code"), ("cost_type", StandardCostType, "cost_type"),
              ("vendor", Vendor, "vendor"), ("entity", Entity, "entity"), ("gl_account", GLAccount, "gl_account"))


@service(READ)
def list_dimensions(ctx) -> dict:
    """List the dimensions project costs are coded by ({job_word}, cost code, cost type, vendor,
    {entity_word}, GL account) and how many values each has.
    """
    items = [{"dimension": key, "name": ctx.spec.word(word),
              "values": ctx.session.scalar(select(func.count()).select_from(model))}
             for key, model, word in DIMENSIONS]
    return {"items": items, "page": 1, "per_page": len(items), "total": len(items), "pages": 1}
