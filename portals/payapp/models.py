"""GCPay's state: projects and their schedules of values, owner pay applications (G702/G703),
the PM's progress for the period, subcontractor applications for payment (AFPs) with approval
steps, lien waivers, compliance items and e-payment batches."""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import Boolean, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Project(Base):
    """A project: GCPay's own code, the ERP's job number, the owner contract and its retainage terms."""

    __tablename__ = "projects"
    project_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(20), unique=True)
    erp_job: Mapped[str] = mapped_column(String(20), index=True)
    name: Mapped[str] = mapped_column(String(200))
    owner: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80), default="")
    contract_number: Mapped[str] = mapped_column(String(40))
    contract_date: Mapped[date]
    original_sum: Mapped[Decimal] = mapped_column(Money)
    retainage_pct: Mapped[Decimal] = mapped_column(Money)
    # the owner contract's reduction clause: the rate once work reaches `reduce_at_pct` of the sum
    reduced_retainage_pct: Mapped[Decimal | None] = mapped_column(Money)
    reduce_at_pct: Mapped[Decimal | None] = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(20))


class SovLine(Base):
    """A line of the owner schedule of values (G703 columns A-C); a change order gets its own line."""

    __tablename__ = "sov_lines"
    line_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(Integer, index=True)
    item_no: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(200))
    cost_code: Mapped[str] = mapped_column(String(20))
    scheduled_value: Mapped[Decimal] = mapped_column(Money)
    co_id: Mapped[str | None] = mapped_column(String(20))


class ChangeOrder(Base):
    """An owner change order; an approved one is billable once it is a line of the SOV."""

    __tablename__ = "change_orders"
    co_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    project_id: Mapped[int] = mapped_column(Integer, index=True)
    number: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(String(200))
    amount: Mapped[Decimal] = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(20))  # Approved | Pending | Void
    created_date: Mapped[date]
    approved_date: Mapped[date | None]


class PayApp(Base):
    """An owner application for payment: the G702 summary of its G703 lines."""

    __tablename__ = "pay_apps"
    __money_states__ = {"status": {"Submitted", "Approved", "Paid"}}
    pay_app_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(Integer, index=True)
    number: Mapped[int] = mapped_column(Integer)
    period_to: Mapped[date]
    status: Mapped[str] = mapped_column(String(20))  # Draft | Submitted | Approved | Paid
    retainage_work_pct: Mapped[Decimal] = mapped_column(Money)
    retainage_stored_pct: Mapped[Decimal] = mapped_column(Money)
    original_sum: Mapped[Decimal] = mapped_column(Money)
    net_change_orders: Mapped[Decimal] = mapped_column(Money)
    contract_sum: Mapped[Decimal] = mapped_column(Money)
    completed_stored: Mapped[Decimal] = mapped_column(Money)
    retainage_work: Mapped[Decimal] = mapped_column(Money)
    retainage_stored: Mapped[Decimal] = mapped_column(Money)
    retainage_total: Mapped[Decimal] = mapped_column(Money)
    earned_less_retainage: Mapped[Decimal] = mapped_column(Money)
    previous_certificates: Mapped[Decimal] = mapped_column(Money)
    current_due: Mapped[Decimal] = mapped_column(Money)
    balance_to_finish: Mapped[Decimal] = mapped_column(Money)
    updated_at: Mapped[str] = mapped_column(String(30))


class PayAppLine(Base):
    """One G703 line of a pay application (columns A-I)."""

    __tablename__ = "pay_app_lines"
    line_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pay_app_id: Mapped[int] = mapped_column(Integer, index=True)
    item_no: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(200))
    scheduled_value: Mapped[Decimal] = mapped_column(Money)
    previous: Mapped[Decimal] = mapped_column(Money)
    this_period: Mapped[Decimal] = mapped_column(Money)
    stored: Mapped[Decimal] = mapped_column(Money)
    completed_stored: Mapped[Decimal] = mapped_column(Money)
    percent: Mapped[str] = mapped_column(String(10))
    balance: Mapped[Decimal] = mapped_column(Money)
    retainage: Mapped[Decimal] = mapped_column(Money)


class ProgressEntry(Base):
    """The project manager's progress for a period: work in place and materials stored, by line
    (or by change order, for work not yet on the SOV), with the stored materials' delivery."""

    __tablename__ = "progress"
    entry_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(Integer, index=True)
    period_to: Mapped[date]
    item_no: Mapped[int | None] = mapped_column(Integer)
    co_id: Mapped[str | None] = mapped_column(String(20))
    description: Mapped[str] = mapped_column(String(200))
    work_this_period: Mapped[Decimal] = mapped_column(Money)
    stored_materials: Mapped[Decimal] = mapped_column(Money)
    stored_status: Mapped[str] = mapped_column(String(40), default="")  # On site | Not delivered | ""
    reported_by: Mapped[str] = mapped_column(String(80))
    note: Mapped[str] = mapped_column(String(300), default="")


class Afp(Base):
    """A subcontractor's application for payment against its subcontract."""

    __tablename__ = "afps"
    __money_states__ = {"status": {"Paid"}}
    afp_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(Integer, index=True)
    number: Mapped[int] = mapped_column(Integer)
    vendor_code: Mapped[str] = mapped_column(String(20), index=True)
    vendor_name: Mapped[str] = mapped_column(String(200))
    subcontract: Mapped[str] = mapped_column(String(30))
    invoice_number: Mapped[str] = mapped_column(String(60))
    period_to: Mapped[date | None]
    amount: Mapped[Decimal] = mapped_column(Money)
    retainage: Mapped[Decimal] = mapped_column(Money)
    net_due: Mapped[Decimal] = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(30))  # In Review | Approved | Paid | Returned
    return_reason: Mapped[str] = mapped_column(String(300), default="")


class ApprovalStep(Base):
    """One role's step in an AFP's approval route."""

    __tablename__ = "approval_steps"
    __money_states__ = {"status": {"Approved"}}
    step_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    afp_id: Mapped[int] = mapped_column(Integer, index=True)
    seq: Mapped[int] = mapped_column(Integer)
    role: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(20))  # Waiting | Approved | Returned
    acted_on: Mapped[date | None]


class Waiver(Base):
    """A lien waiver requested from a sub for an AFP."""

    __tablename__ = "waivers"
    __money_states__ = {"status": {"Sent"}}
    waiver_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    afp_id: Mapped[int] = mapped_column(Integer, index=True)
    kind: Mapped[str] = mapped_column(String(40))
    through_date: Mapped[date | None]
    amount: Mapped[Decimal] = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(20))  # Not sent | Sent | Signed


class ComplianceItem(Base):
    """A compliance document a sub must keep current (a blocker when it is not)."""

    __tablename__ = "compliance"
    item_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    vendor_code: Mapped[str] = mapped_column(String(20), index=True)
    vendor_name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(40))
    expires: Mapped[date | None]
    status: Mapped[str] = mapped_column(String(20))  # Compliant | Expired | Missing
    blocks_payment: Mapped[bool] = mapped_column(Boolean, default=False)


class EpaymentBatch(Base):
    """An e-payment batch of approved AFPs, released to the bank by a treasury person."""

    __tablename__ = "epayment_batches"
    __money_states__ = {"status": {"Released"}}
    batch_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    afp_count: Mapped[int] = mapped_column(Integer)
    total: Mapped[Decimal] = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(20))  # Open | Released
    created_on: Mapped[date]
