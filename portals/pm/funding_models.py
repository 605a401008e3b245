"""Tables of an owner's project funding (INGENIOUS.BUILD): funding sources, how each vendor invoice
reached approval and its Funding tab, and application packages (the draws sent to a lender or
client). Only a manifest with [pm] funding = true seeds them; other PM products leave them empty.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from portals.core.money import Money

from .models import Base


class FundingSource(Base):
    """A project's funder: a loan, the owner's equity or a grant, with what it has funded so far."""

    __tablename__ = "funding_sources"
    source_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    code: Mapped[str] = mapped_column(String(20))
    name: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(20))  # loan | equity | grant
    funder: Mapped[str] = mapped_column(String(200), default="")
    amount: Mapped[Decimal] = mapped_column(Money)
    funded_to_date: Mapped[Decimal] = mapped_column(Money)  # by packages already submitted
    eligible_cost_codes: Mapped[str] = mapped_column(String(400), default="")  # comma list; "" = any code


class InvoiceApproval(Base):
    """How a vendor invoice reached its status: through the internal approvals workflow (entered
    new) or entered as already approved or paid, which skips it; and a reviewer's flag."""

    __tablename__ = "vendor_invoice_approvals"
    direct_cost_id: Mapped[int] = mapped_column(ForeignKey("direct_costs.direct_cost_id"), primary_key=True)
    entered_as: Mapped[str] = mapped_column(String(20), default="new")  # new | approved | paid
    approved_by: Mapped[str] = mapped_column(String(100), default="")
    approved_date: Mapped[date | None]
    flagged: Mapped[bool] = mapped_column(default=False)
    flag_note: Mapped[str] = mapped_column(String(500), default="")


class ApplicationPackage(Base):
    """An invoicing and application package: the month's vendor invoices drawn from the funders."""

    __tablename__ = "application_packages"
    package_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    number: Mapped[str] = mapped_column(String(30), unique=True)
    title: Mapped[str] = mapped_column(String(200), default="")
    period_end: Mapped[date]
    status: Mapped[str] = mapped_column(String(20), default="Draft")  # Draft | Submitted
    recipient: Mapped[str] = mapped_column(String(200), default="")


class PackageInvoice(Base):
    """A vendor invoice on a package's line."""

    __tablename__ = "application_package_invoices"
    item_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    package_id: Mapped[int] = mapped_column(ForeignKey("application_packages.package_id"), index=True)
    direct_cost_id: Mapped[int] = mapped_column(ForeignKey("direct_costs.direct_cost_id"), index=True)
    line_no: Mapped[int]


class FundingAllocation(Base):
    """A share of a vendor invoice charged to one funding source (the invoice's Funding tab)."""

    __tablename__ = "funding_allocations"
    allocation_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    direct_cost_id: Mapped[int] = mapped_column(ForeignKey("direct_costs.direct_cost_id"), index=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("funding_sources.source_id"), index=True)
    amount: Mapped[Decimal] = mapped_column(Money)
