"""hh2's services (the integration utility's sync line): the sync status, the sync log, the sync
map and its repair, and the guarded sync run that writes into the ERP."""
from __future__ import annotations

from typing import Literal

from sqlalchemy import func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.paging import paged
from portals.core.sorting import TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, service

from .sync_models import Mapping, SyncEntry

ENTITIES = ("Job (CV)", "Cost Code", "Cost Type", "Employee", "Vendor")
LOG_ENTITIES = ENTITIES + ("Invoice (AP)",)
SYSTEMS = ("Procore", "HeavyJob")
LOG_STATUSES = ("Synced", "Error", "Queued")
Entity = Literal["Job (CV)", "Cost Code", "Cost Type", "Employee", "Vendor"]
LogEntity = Literal["Job (CV)", "Cost Code", "Cost Type", "Employee", "Vendor", "Invoice (AP)"]
System = Literal["Procore", "HeavyJob"]
LogStatus = Literal["Synced", "Error", "Queued"]
MapStatus = Literal["Mapped", "Unmapped"]

MAPPING_SORT = {"source": (Mapping.source_key, TEXT), "erp": (Mapping.erp_key, TEXT), "name": (Mapping.source_name, TEXT),
                "entity": (Mapping.entity, TEXT), "status": (Mapping.status, TEXT)}
LOG_SORT = {"at": (SyncEntry.at, TEXT), "entity": (SyncEntry.entity, TEXT), "status": (SyncEntry.status, TEXT),
            "source": (SyncEntry.source_key, TEXT)}
CLIENT = "Company A Sync Client (VISTA-APP01)"


def mapping_row(m: Mapping) -> dict:
    return {"mapping_id": m.mapping_id, "entity": m.entity, "system": m.system, "source_key": m.source_key,
            "source_name": m.source_name, "erp_key": m.erp_key, "erp_name": m.erp_name, "status": m.status,
            "updated_at": m.updated_at, "updated_by": m.updated_by}


def entry_row(e: SyncEntry) -> dict:
    return {"entry_id": e.entry_id, "at": e.at, "entity": e.entity, "system": e.system, "source_key": e.source_key,
            "direction": e.direction, "status": e.status, "message": e.message}


@service(READ)
def get_sync_status(ctx: ServiceContext) -> dict:
    """The sync client's status: its connection, the last run, and the log's counts of records
    synced, in error and queued for the next run."""
    counts = dict(ctx.session.execute(select(SyncEntry.status, func.count()).group_by(SyncEntry.status)).all())
    last = ctx.session.scalar(select(func.max(SyncEntry.at)).where(SyncEntry.status != "Queued"))
    unmapped = ctx.session.scalar(select(func.count()).select_from(Mapping).where(Mapping.status == "Unmapped"))
    return {"client": CLIENT, "connection": "Connected", "erp": "Vista", "sync_type": "Standard",
            "last_run": last, "synced": counts.get("Synced", 0), "errors": counts.get("Error", 0),
            "queued": counts.get("Queued", 0), "unmapped": unmapped}


@service(READ)
def list_sync_log(ctx: ServiceContext, status: LogStatus | None = None, entity: LogEntity | None = None,
                  query: str | None = None, page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List the sync log: each record synced, failed (with the error) or queued for the next run.

    Args:
        status: Only Synced, Error or Queued entries.
        entity: Only entries for this kind of record.
        query: Words to find in the record's key or the message.
        page: Page number, starting at 1.
        per_page: Entries per page, 1 to 100.
        sort: Sort by at, entity, status or source; a leading "-" sorts descending.
    """
    stmt = select(SyncEntry)
    if status:
        stmt = stmt.where(SyncEntry.status == status)
    if entity:
        stmt = stmt.where(SyncEntry.entity == entity)
    for word in (query or "").split():
        stmt = stmt.where(or_(SyncEntry.source_key.ilike(f"%{word}%"), SyncEntry.message.ilike(f"%{word}%")))
    stmt = stmt.order_by(*sort_order(sort, LOG_SORT, (SyncEntry.at.desc(), SyncEntry.entry_id)))
    return paged(ctx.session, stmt, page, per_page, entry_row)


@service(READ)
def list_mappings(ctx: ServiceContext, entity: Entity | None = None, system: System | None = None,
                  status: MapStatus | None = None, query: str | None = None, page: int = 1, per_page: int = 25,
                  sort: str | None = None) -> dict:
    """List the sync map: each field-system record (a Procore project, cost code, employee or
    vendor; a HeavyJob cost code or cost type) beside the ERP record it syncs to.

    Args:
        entity: Only Job (CV), Cost Code, Cost Type, Employee or Vendor mappings.
        system: Only mappings of Procore or of HeavyJob records.
        status: Only Mapped or only Unmapped records.
        query: Words to find in either side's key or name.
        page: Page number, starting at 1.
        per_page: Mappings per page, 1 to 100.
        sort: Sort by source, erp, name, entity or status; a leading "-" sorts descending.
    """
    stmt = select(Mapping)
    if entity:
        stmt = stmt.where(Mapping.entity == entity)
    if system:
        stmt = stmt.where(Mapping.system == system)
    if status:
        stmt = stmt.where(Mapping.status == status)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Mapping.source_key.ilike(like), Mapping.source_name.ilike(like),
                              Mapping.erp_key.ilike(like), Mapping.erp_name.ilike(like)))
    stmt = stmt.order_by(*sort_order(sort, MAPPING_SORT, (Mapping.entity, Mapping.system, Mapping.source_key)))
    return paged(ctx.session, stmt, page, per_page, mapping_row)


def _mapping(ctx: ServiceContext, mapping_id: int) -> Mapping:
    m = ctx.session.get(Mapping, mapping_id)
    if m is None:
        raise NotFound(f"There is no mapping with id {mapping_id}.", "mapping_id")
    return m


@service(READ)
def get_mapping(ctx: ServiceContext, mapping_id: int) -> dict:
    """Get one mapping with the sync log entries of its record.

    Args:
        mapping_id: The mapping's id, as the sync map shows it.
    """
    m = _mapping(ctx, mapping_id)
    log = ctx.session.scalars(select(SyncEntry).where(SyncEntry.entity == m.entity, SyncEntry.system == m.system,
                                                      SyncEntry.source_key == m.source_key)
                              .order_by(SyncEntry.at.desc(), SyncEntry.entry_id)).all()
    return {**mapping_row(m), "log": [entry_row(e) for e in log]}


@service(WRITE)
def update_mapping(ctx: ServiceContext, mapping_id: int, erp_key: str, erp_name: str | None = None) -> dict:
    """Point a mapping at a different ERP record (or map an unmapped one). The change takes effect
    at the next sync run; nothing is written into the ERP now.

    Args:
        mapping_id: The mapping to change.
        erp_key: The ERP record's key: a job number, phase, cost type, employee number or vendor number.
        erp_name: The ERP record's name, as a reminder beside the key.
    """
    m = _mapping(ctx, mapping_id)
    key = " ".join((erp_key or "").split())
    if not key:
        raise ToolError("The ERP key is required.", "erp_key")
    if len(key) > 20:
        raise ToolError("An ERP key is at most 20 characters.", "erp_key")
    name = " ".join((erp_name or "").split()) or None
    if name and len(name) > 200:
        raise ToolError("An ERP name is at most 200 characters.", "erp_name")
    m.erp_key, m.erp_name, m.status = key, name or m.erp_name, "Mapped"
    m.updated_at, m.updated_by = ctx.clock.iso(), "Controller"
    ctx.session.flush()
    return mapping_row(m)


@service(GUARDED)
def run_sync(ctx: ServiceContext, entity: LogEntity | None = None) -> dict:
    """Run a sync now: push the queued and failed records into the ERP. Writes into the ERP, so it
    needs a person's approval.

    Args:
        entity: Only this kind of record; left out, everything waiting.
    """
    stmt = select(func.count()).select_from(SyncEntry).where(SyncEntry.status.in_(("Queued", "Error")))
    if entity:
        stmt = stmt.where(SyncEntry.entity == entity)
    waiting = ctx.session.scalar(stmt)
    if not waiting:
        raise ToolError("Nothing is waiting to sync.", "entity")
    return {"action": "run sync", "entity": entity or "All", "records": waiting}
