"""Levelset's state (the compliance archetype's lien line): the company's jobs with their
stakeholders and furnishing dates, the lien deadlines the state's rules give each, preliminary
notices received from sub-tier parties, lien waivers exchanged, and document orders (notices and
liens Levelset mails or records for the company)."""
from __future__ import annotations

from sqlalchemy import Boolean, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Job(Base):
    """A job the company protects its lien rights on, under Levelset's own job id."""

    __tablename__ = "jobs"

    job_id: Mapped[int] = mapped_column(Integer, primary_key=True)  # Levelset's own
    customer_job_number: Mapped[str] = mapped_column(String(20))  # the company's job number, as entered
    name: Mapped[str] = mapped_column(String(200), index=True)
    address: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    project_type: Mapped[str] = mapped_column(String(10))  # Private | Public
    role: Mapped[str] = mapped_column(String(30))  # the company's role: Prime Contractor
    owner: Mapped[str] = mapped_column(String(200))
    contract_amount = mapped_column(Money)
    first_furnished: Mapped[str] = mapped_column(String(10))
    last_furnished: Mapped[str] = mapped_column(String(10))
    last_furnished_estimated: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(10))  # Active | Closed


class Deadline(Base):
    """A deadline the state's rules give the job: the document and the day it is due."""

    __tablename__ = "deadlines"

    deadline_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(Integer, index=True)
    document: Mapped[str] = mapped_column(String(60))
    due_date: Mapped[str] = mapped_column(String(10))
    statute: Mapped[str] = mapped_column(String(160))
    estimated: Mapped[bool] = mapped_column(Boolean)  # counted from an estimated last furnishing


class Notice(Base):
    """A preliminary notice served on the company by a party below one of its subs."""

    __tablename__ = "notices"

    notice_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(Integer, index=True)
    claimant: Mapped[str] = mapped_column(String(200), index=True)
    claimant_role: Mapped[str] = mapped_column(String(40))  # Material Supplier | Sub-subcontractor
    hired_by: Mapped[str] = mapped_column(String(200))  # as the claimant wrote it
    hired_by_address: Mapped[str] = mapped_column(String(200))
    received: Mapped[str] = mapped_column(String(10))
    estimated_amount = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(12))  # Open | Resolved


class Waiver(Base):
    """A lien waiver: received from a sub or supplier, or a request for one (Draft until sent)."""

    __tablename__ = "waivers"
    __money_states__ = {"status": {"Requested", "Signed"}}

    waiver_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(Integer, index=True)
    notice_id: Mapped[int | None] = mapped_column(Integer, index=True)
    party: Mapped[str] = mapped_column(String(200))  # who gives the waiver
    waiver_type: Mapped[str] = mapped_column(String(24))  # Conditional/Unconditional Progress/Final
    through_date: Mapped[str] = mapped_column(String(10))
    amount = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(10))  # Draft | Requested | Received | Signed
    created_at: Mapped[str] = mapped_column(String(20))
    note: Mapped[str | None] = mapped_column(String(500))


class Order(Base):
    """A document Levelset prepares and sends or records for the company; monthly notices go out
    on their deadline day unless cancelled before 10 a.m. Central."""

    __tablename__ = "orders"
    __money_states__ = {"status": {"Ordered", "Sent", "Filed"}}

    order_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(Integer, index=True)
    document: Mapped[str] = mapped_column(String(60))
    recipient: Mapped[str] = mapped_column(String(200))
    send_date: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(12))  # Scheduled | Cancelled | Sent
