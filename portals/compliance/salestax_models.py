"""Avalara AvaTax's state (the compliance archetype's sales-tax line): the company and its nexus,
the tax jurisdictions of each place, tax codes, transactions (sales and purchase invoices, from
Uncommitted to Committed or Voided) with their lines and tax by jurisdiction, and the monthly
returns the committed transactions feed."""
from __future__ import annotations

from sqlalchemy import Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Company(Base):
    __tablename__ = "companies"

    company_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    company_code: Mapped[str] = mapped_column(String(25), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    tax_id: Mapped[str] = mapped_column(String(11))
    line1: Mapped[str] = mapped_column(String(100))  # the default origin: the office
    city: Mapped[str] = mapped_column(String(50))
    region: Mapped[str] = mapped_column(String(2))
    postal_code: Mapped[str] = mapped_column(String(10))


class Nexus(Base):
    """A state where the company must collect or pay sales and use tax."""

    __tablename__ = "nexus"

    nexus_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    region: Mapped[str] = mapped_column(String(2))
    name: Mapped[str] = mapped_column(String(60))
    nexus_type: Mapped[str] = mapped_column(String(30))  # SalesAndUseTax
    effective_date: Mapped[str] = mapped_column(String(10))


class Jurisdiction(Base):
    """One jurisdiction's rate at a place (city and state): what address resolution yields."""

    __tablename__ = "jurisdictions"

    jurisdiction_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    city: Mapped[str] = mapped_column(String(50), index=True)
    region: Mapped[str] = mapped_column(String(2))
    jur_type: Mapped[str] = mapped_column(String(10))  # State | County | City | Special
    jur_name: Mapped[str] = mapped_column(String(60))
    jur_code: Mapped[str] = mapped_column(String(10))
    rate: Mapped[str] = mapped_column(String(10))  # a fraction, e.g. "0.047500"
    sort_order: Mapped[int] = mapped_column(Integer)


class TaxCode(Base):
    __tablename__ = "tax_codes"

    tax_code: Mapped[str] = mapped_column(String(25), primary_key=True)
    description: Mapped[str] = mapped_column(String(120))
    taxable: Mapped[int] = mapped_column(Integer)  # 1 taxable, 0 not


class Transaction(Base):
    """A sales or purchase invoice. Uncommitted until a person commits it into the liability the
    returns report; a PurchaseInvoice's use tax is the tax less what the vendor charged."""

    __tablename__ = "transactions"
    __money_states__ = {"status": {"Committed"}}

    transaction_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(50), index=True)  # the document code: the invoice number
    doc_type: Mapped[str] = mapped_column(String(20))  # SalesInvoice | PurchaseInvoice
    doc_date: Mapped[str] = mapped_column(String(10))
    customer_vendor_code: Mapped[str] = mapped_column(String(50))  # the vendor's ERP number, or the customer's
    description: Mapped[str | None] = mapped_column(String(200))
    ship_to_line1: Mapped[str] = mapped_column(String(100))
    ship_to_city: Mapped[str] = mapped_column(String(50))
    ship_to_region: Mapped[str] = mapped_column(String(2))
    ship_to_postal_code: Mapped[str | None] = mapped_column(String(10))
    total_amount = mapped_column(Money)
    total_taxable = mapped_column(Money)
    total_tax = mapped_column(Money)  # the tax the jurisdictions are due on the taxable amount
    vendor_charged_tax = mapped_column(Money)
    use_tax = mapped_column(Money)  # accrued: tax less what the vendor charged (never below zero)
    status: Mapped[str] = mapped_column(String(12))  # Uncommitted | Committed | Voided
    created_at: Mapped[str] = mapped_column(String(20))
    modified_at: Mapped[str] = mapped_column(String(20))


class TransactionLine(Base):
    __tablename__ = "transaction_lines"

    line_key: Mapped[str] = mapped_column(String(30), primary_key=True)
    transaction_id: Mapped[int] = mapped_column(Integer, index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(200))
    tax_code: Mapped[str] = mapped_column(String(25))
    amount = mapped_column(Money)
    taxable = mapped_column(Money)
    tax = mapped_column(Money)


class TransactionTax(Base):
    """A line's tax in one jurisdiction (AvaTax's transaction line details)."""

    __tablename__ = "transaction_taxes"

    detail_key: Mapped[str] = mapped_column(String(40), primary_key=True)
    transaction_id: Mapped[int] = mapped_column(Integer, index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    jur_type: Mapped[str] = mapped_column(String(10))
    jur_name: Mapped[str] = mapped_column(String(60))
    rate: Mapped[str] = mapped_column(String(10))  # a fraction, e.g. "0.047500"
    taxable = mapped_column(Money)
    tax = mapped_column(Money)


class TaxReturn(Base):
    """A state's monthly sales and use tax return; its figures are the period's committed
    transactions. Approving one for filing is a person's step."""

    __tablename__ = "returns"
    __money_states__ = {"status": {"Approved", "Filed"}}

    return_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    region: Mapped[str] = mapped_column(String(2))
    form: Mapped[str] = mapped_column(String(40))
    period: Mapped[str] = mapped_column(String(7))  # YYYY-MM
    due_date: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(12))  # Open | Approved | Filed
    filed_at: Mapped[str | None] = mapped_column(String(20))
