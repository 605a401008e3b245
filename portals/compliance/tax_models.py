"""Track1099's state (the compliance archetype's tax line): payers, recipients as their W-9 gives
them, 1099 forms (draft -> cart -> scheduled -> accepted), TIN-match results and W-9 requests."""
from __future__ import annotations

from sqlalchemy import Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Payer(Base):
    """A filer: the company (or entity) whose name and TIN the forms are issued under."""

    __tablename__ = "payers"

    payer_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    tin: Mapped[str] = mapped_column(String(11))
    address: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    zip: Mapped[str] = mapped_column(String(10))
    phone: Mapped[str] = mapped_column(String(20))
    contact: Mapped[str] = mapped_column(String(80))


class Recipient(Base):
    """A payee under a payer: line 1 (legal name) and line 2 (business name) of its W-9, the TIN."""

    __tablename__ = "recipients"

    recipient_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    payer_id: Mapped[int] = mapped_column(Integer, index=True)
    reference_id: Mapped[str | None] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(200), index=True)
    business_name: Mapped[str | None] = mapped_column(String(200))
    tin: Mapped[str | None] = mapped_column(String(11))
    tin_type: Mapped[str] = mapped_column(String(4))
    tax_classification: Mapped[str | None] = mapped_column(String(40))
    exempt_payee_code: Mapped[str | None] = mapped_column(String(2))
    address: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    zip: Mapped[str] = mapped_column(String(10))
    email: Mapped[str | None] = mapped_column(String(120))
    w9_status: Mapped[str] = mapped_column(String(16))  # On file | Requested | Not requested
    w9_signed: Mapped[str | None] = mapped_column(String(10))


class TaxForm(Base):
    """One information return: a 1099-NEC for a recipient and tax year, with its boxes."""

    __tablename__ = "tax_forms"
    __money_states__ = {"status": {"Scheduled", "Accepted", "Rejected"}}

    form_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    payer_id: Mapped[int] = mapped_column(Integer, index=True)
    recipient_id: Mapped[int] = mapped_column(Integer, index=True)
    tax_year: Mapped[int] = mapped_column(Integer, index=True)
    form_type: Mapped[str] = mapped_column(String(12))
    box1_nonemployee_comp = mapped_column(Money)
    box4_federal_withheld = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(12))  # Draft | In cart | Scheduled | Accepted | Rejected
    created_at: Mapped[str] = mapped_column(String(20))
    updated_at: Mapped[str] = mapped_column(String(20))
    submitted_at: Mapped[str | None] = mapped_column(String(20))
    delivered_at: Mapped[str | None] = mapped_column(String(20))


class TinMatch(Base):
    """An IRS TIN-matching result for a recipient's name and TIN as they stood when checked."""

    __tablename__ = "tin_matches"

    match_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    recipient_id: Mapped[int] = mapped_column(Integer, index=True)
    name: Mapped[str] = mapped_column(String(200))
    tin: Mapped[str] = mapped_column(String(11))
    result: Mapped[str] = mapped_column(String(40))
    checked_at: Mapped[str] = mapped_column(String(20))


class W9Request(Base):
    """A W-9 request emailed to a recipient (sending one is a person's step)."""

    __tablename__ = "w9_requests"
    __money_states__ = {"status": {"Sent"}}

    request_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    recipient_id: Mapped[int] = mapped_column(Integer, index=True)
    email: Mapped[str] = mapped_column(String(120))
    status: Mapped[str] = mapped_column(String(12))  # Sent | Completed
    sent_at: Mapped[str] = mapped_column(String(20))
    completed_at: Mapped[str | None] = mapped_column(String(20))


class IrsTinRecord(Base):
    """The IRS's record of a TIN and the name it was issued to: what TIN matching checks against.
    No page or tool lists it; a TIN match answers from it."""

    __tablename__ = "irs_tin_records"

    tin: Mapped[str] = mapped_column(String(11), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
