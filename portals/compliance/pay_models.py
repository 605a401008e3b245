"""Corpay's state (the compliance archetype's payments line): suppliers with their payment method
and bank details, bank-detail change requests awaiting review, payment files uploaded from the
ERP, and the payments each file holds (Pending Approval -> Approved -> Paid)."""
from __future__ import annotations

from sqlalchemy import Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Supplier(Base):
    """A payee enrolled with Corpay: its remit-to, the contact on file and how it is paid."""

    __tablename__ = "suppliers"

    supplier_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    supplier_number: Mapped[str] = mapped_column(String(12), unique=True)  # Corpay's own, e.g. CP-104233
    erp_vendor: Mapped[str] = mapped_column(String(20))  # the ERP vendor id carried in the payment file
    name: Mapped[str] = mapped_column(String(200), index=True)
    tin: Mapped[str] = mapped_column(String(11))
    address: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    zip: Mapped[str] = mapped_column(String(10))
    phone: Mapped[str] = mapped_column(String(20))  # the number on file: the one a callback uses
    email: Mapped[str | None] = mapped_column(String(120))
    payment_method: Mapped[str] = mapped_column(String(14))  # ACH | Check | Virtual Card | Wire
    bank_name: Mapped[str | None] = mapped_column(String(80))
    routing_number: Mapped[str | None] = mapped_column(String(9))
    account_number: Mapped[str | None] = mapped_column(String(17))
    account_verified: Mapped[str | None] = mapped_column(String(10))  # when the account was last verified
    hold: Mapped[str | None] = mapped_column(String(8))  # "On hold" stops its payments going out
    hold_reason: Mapped[str | None] = mapped_column(String(500))
    hold_at: Mapped[str | None] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(10))  # Active | Inactive


class BankChange(Base):
    """A request to change a supplier's bank details, as it came in; applying one is a person's step."""

    __tablename__ = "bank_changes"

    change_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    supplier_id: Mapped[int] = mapped_column(Integer, index=True)
    submitted_at: Mapped[str] = mapped_column(String(20))
    submitted_by: Mapped[str] = mapped_column(String(120))  # the requester's email as given
    channel: Mapped[str] = mapped_column(String(20))  # Supplier portal | Email | Phone
    bank_name: Mapped[str] = mapped_column(String(80))
    routing_number: Mapped[str] = mapped_column(String(9))
    account_number: Mapped[str] = mapped_column(String(17))
    contact_phone: Mapped[str | None] = mapped_column(String(20))  # the number the request gives
    # the callback that verified it, if one was made: the number called and what it confirmed
    callback_phone: Mapped[str | None] = mapped_column(String(20))
    callback_at: Mapped[str | None] = mapped_column(String(20))
    callback_by: Mapped[str | None] = mapped_column(String(80))
    callback_result: Mapped[str | None] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(14))  # Pending review | Applied | Rejected
    review_note: Mapped[str | None] = mapped_column(String(500))


class PaymentFile(Base):
    """A payment file the ERP exported and someone uploaded: one Corpay debit funds all of it."""

    __tablename__ = "payment_files"

    file_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_name: Mapped[str] = mapped_column(String(120))
    uploaded_at: Mapped[str] = mapped_column(String(20))
    uploaded_by: Mapped[str] = mapped_column(String(80))
    payments: Mapped[int] = mapped_column(Integer)
    total = mapped_column(Money)


class Payment(Base):
    """One payment to a supplier from a payment file, by the supplier's payment method."""

    __tablename__ = "payments"
    __money_states__ = {"status": {"Approved", "Paid"}}

    payment_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(Integer, index=True)
    supplier_id: Mapped[int] = mapped_column(Integer, index=True)
    reference: Mapped[str] = mapped_column(String(40))  # the invoice number(s) the remittance names
    amount = mapped_column(Money)
    method: Mapped[str] = mapped_column(String(14))
    pay_date: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(18))  # Pending Approval | Approved | Paid | Void
