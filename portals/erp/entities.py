"""Entities: the companies or locations a product keys its records by (Intacct's multi-entity
company, where a person works at the top level or inside one entity; the one company number
other products carry on every row). A job belongs to one entity, and lists can keep to it."""
from __future__ import annotations

from sqlalchemy import func, or_, select

from portals.core.errors import NotFound
from portals.core.tools import READ, service

from . import lookups as L
from .models import Entity, EntityProject


def entity(ctx, entity_id: str, field: str = "entity_id") -> Entity:
    """The entity by its id, or a refusal that says which ids exist."""
    row = ctx.session.get(Entity, entity_id.strip())
    if row is None:
        known = ", ".join(ctx.session.scalars(select(Entity.entity_id).order_by(Entity.entity_id).limit(12)))
        word = ctx.spec.word("entity").lower()
        raise NotFound(f"There is no {word} {entity_id.strip()!r} in {ctx.spec.label}"
                       f"{'; its ' + word + ' ids are: ' + known if known else ''}.", field)
    return row


def jobs_in(ctx, entity_id: str):
    """A subquery of the job numbers of one entity, for `column.in_(...)` filters."""
    return select(EntityProject.job).where(EntityProject.entity_id == entity(ctx, entity_id).entity_id)


def only_entity(ctx, query, job_column, entity_id: str | None):
    """`query` kept to the jobs of `entity_id`; unchanged at the top level (no entity)."""
    if not entity_id:
        return query
    return query.where(job_column.in_(jobs_in(ctx, entity_id)))


def entity_of(ctx, job: str) -> str | None:
    row = ctx.session.get(EntityProject, job)
    return row.entity_id if row else None


def entity_row(ctx, e: Entity) -> dict:
    count = ctx.session.scalar(select(func.count()).select_from(EntityProject)
                               .where(EntityProject.entity_id == e.entity_id))
    return {"entity_id": e.entity_id, "name": e.name, "state": e.state, "currency": e.currency,
            "status": e.status, "books_closed_through": e.books_closed_through, "project_count": count}


@service(READ)
def list_entities(ctx, search: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List the company's entities ({entity_format}) with how many {job_word}s each holds.

    Working at the top level shows every entity's records; lists that take an entity_id keep
    to one entity's {job_word}s.

    Args:
        search: Part of the entity id or name.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(Entity)
    if search:
        query = query.where(or_(L.name_match(Entity.entity_id, search), L.name_match(Entity.name, search)))
    return L.page_of(ctx, query.order_by(Entity.entity_id), page, per_page, lambda e: entity_row(ctx, e))
