"""hh2's state (the integration utility's sync line): the sync map (each field system's key for a
job, cost code, cost type, employee or vendor beside the ERP's) and the sync log, whose errors and
queued records wait for the next sync run."""
from __future__ import annotations

from sqlalchemy import Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Mapping(Base):
    """One mapping: a record of a field system (Procore, HeavyJob) and the ERP record it syncs to."""

    __tablename__ = "mappings"

    mapping_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    entity: Mapped[str] = mapped_column(String(20), index=True)  # Job (CV) | Cost Code | Cost Type | Employee | Vendor
    system: Mapped[str] = mapped_column(String(20))  # the field system: Procore | HeavyJob
    source_key: Mapped[str] = mapped_column(String(20), index=True)
    source_name: Mapped[str] = mapped_column(String(200))
    erp_key: Mapped[str | None] = mapped_column(String(20))
    erp_name: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(10))  # Mapped | Unmapped
    updated_at: Mapped[str | None] = mapped_column(String(20))
    updated_by: Mapped[str | None] = mapped_column(String(80))


class SyncEntry(Base):
    """A sync log entry: a record synced, failed, or queued for the next run."""

    __tablename__ = "sync_log"
    # Only a sync run writes into the ERP, and only a person starts one (the guard stages it).
    __money_states__ = {"status": {"Synced"}}

    entry_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[str] = mapped_column(String(20), index=True)
    entity: Mapped[str] = mapped_column(String(20))
    system: Mapped[str] = mapped_column(String(20))
    source_key: Mapped[str] = mapped_column(String(20))
    direction: Mapped[str] = mapped_column(String(24))  # e.g. "Procore → Vista"
    status: Mapped[str] = mapped_column(String(10))  # Synced | Error | Queued
    message: Mapped[str] = mapped_column(String(300))
