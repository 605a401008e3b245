"""ERP tables shared by every ERP vendor: jobs, vendors, cost codes, commitments, AP, job cost, GL.

Keys are the ones the product shows: a vendor row is keyed by that product's vendor key
(Intacct "V9999", Vista vendor number "99999"), a cost code by that product's task or phase.
"""
from __future__ import annotations

from sqlalchemy import Boolean, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Job(Base):
    """A job (Vista JC Job Master) or project (Intacct), with its contract and cost forecast."""

    __tablename__ = "jobs"
    job: Mapped[str] = mapped_column(String(20), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    customer: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    status: Mapped[str] = mapped_column(String(12))
    job_type: Mapped[str] = mapped_column(String(40))
    pm_name: Mapped[str] = mapped_column(String(120))
    start_date: Mapped[str] = mapped_column(String(10))
    est_completion: Mapped[str] = mapped_column(String(10))
    retainage_pct: Mapped[str] = mapped_column(String(8))
    contract_amount = mapped_column(Money)
    original_budget = mapped_column(Money)
    approved_changes = mapped_column(Money)
    est_cost_to_complete = mapped_column(Money)


class BudgetLine(Base):
    """One job × cost code × cost type line of the cost budget (the job's phases or tasks)."""

    __tablename__ = "budget_lines"
    line_key: Mapped[str] = mapped_column(String(60), primary_key=True)
    job: Mapped[str] = mapped_column(String(20), index=True)
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(2))
    original_budget = mapped_column(Money)
    approved_changes = mapped_column(Money)
    forecast_to_complete = mapped_column(Money)


class ContractItem(Base):
    """A line of the owner (prime) contract's schedule of values."""

    __tablename__ = "contract_items"
    item_key: Mapped[str] = mapped_column(String(40), primary_key=True)
    job: Mapped[str] = mapped_column(String(20), index=True)
    contract_number: Mapped[str] = mapped_column(String(40))
    owner: Mapped[str] = mapped_column(String(200))
    line_no: Mapped[int] = mapped_column(Integer)
    description: Mapped[str] = mapped_column(String(200))
    cost_code: Mapped[str] = mapped_column(String(20))
    scheduled_value = mapped_column(Money)


class Vendor(Base):
    """The AP vendor master, keyed and spelled the way this product keeps it."""

    __tablename__ = "vendors"
    vendor_key: Mapped[str] = mapped_column(String(20), primary_key=True)
    canonical_id: Mapped[str] = mapped_column(String(20), index=True)
    name: Mapped[str] = mapped_column(String(200))
    dba: Mapped[str | None] = mapped_column(String(200))
    trade: Mapped[str] = mapped_column(String(60))
    tin: Mapped[str] = mapped_column(String(12))
    address: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    zip: Mapped[str] = mapped_column(String(10))
    email: Mapped[str] = mapped_column(String(200))
    phone: Mapped[str] = mapped_column(String(30))
    is_1099: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(12))


class CostCode(Base):
    """This product's cost-code dictionary (Vista phases, Intacct tasks)."""

    __tablename__ = "cost_codes"
    code: Mapped[str] = mapped_column(String(20), primary_key=True)
    description: Mapped[str] = mapped_column(String(200))
    division: Mapped[str] = mapped_column(String(4))
    company_codes: Mapped[str] = mapped_column(String(200))  # company codes that post here


class CostType(Base):
    __tablename__ = "cost_types"
    code: Mapped[str] = mapped_column(String(2), primary_key=True)
    name: Mapped[str] = mapped_column(String(60))


class GLAccount(Base):
    __tablename__ = "gl_accounts"
    account: Mapped[str] = mapped_column(String(20), primary_key=True)
    title: Mapped[str] = mapped_column(String(120))
    type: Mapped[str] = mapped_column(String(30))
    normal_balance: Mapped[str] = mapped_column(String(10))


class Commitment(Base):
    """A subcontract or purchase order interfaced to the ERP."""

    __tablename__ = "commitments"
    number: Mapped[str] = mapped_column(String(40), primary_key=True)
    job: Mapped[str] = mapped_column(String(20), index=True)
    vendor_key: Mapped[str] = mapped_column(String(20), index=True)
    type: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(24))
    retainage_pct: Mapped[str] = mapped_column(String(8))
    executed_date: Mapped[str | None] = mapped_column(String(10))
    amount = mapped_column(Money)


class APBill(Base):
    """An AP bill / invoice. History is "posted"; what an agent enters stays a "draft".

    Approving or posting for payment is a guarded action, so outside seeding no row may
    become posted or paid.
    """

    __tablename__ = "ap_bills"
    __money_states__ = {"state": {"posted", "approved"}, "status": {"paid"}}
    bill_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    vendor_key: Mapped[str] = mapped_column(String(20), index=True)
    bill_number: Mapped[str] = mapped_column(String(60), index=True)
    bill_date: Mapped[str] = mapped_column(String(10))
    due_date: Mapped[str] = mapped_column(String(10))
    job: Mapped[str] = mapped_column(String(20), index=True)
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(2))
    commitment: Mapped[str | None] = mapped_column(String(40))
    amount = mapped_column(Money)
    description: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(12))
    state: Mapped[str] = mapped_column(String(12))
    entered_at: Mapped[str] = mapped_column(String(20))


class JobCost(Base):
    """A job-cost transaction (Vista JC cost detail). Adjustments an agent enters sit "open"."""

    __tablename__ = "job_cost"
    txn_id: Mapped[str] = mapped_column(String(24), primary_key=True)
    job: Mapped[str] = mapped_column(String(20), index=True)
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(2))
    date: Mapped[str] = mapped_column(String(10), index=True)
    source: Mapped[str] = mapped_column(String(4))
    amount = mapped_column(Money)
    description: Mapped[str] = mapped_column(String(300))
    vendor_key: Mapped[str | None] = mapped_column(String(20))
    ref: Mapped[str | None] = mapped_column(String(60))
    batch_state: Mapped[str] = mapped_column(String(10))


class JournalEntry(Base):
    """A GL journal entry header; entries an agent makes stay "draft" until a person posts them."""

    __tablename__ = "journal_entries"
    __money_states__ = {"state": {"posted"}}
    entry_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    entry_date: Mapped[str] = mapped_column(String(10))
    description: Mapped[str] = mapped_column(String(300))
    state: Mapped[str] = mapped_column(String(10))
    total = mapped_column(Money)
    entered_at: Mapped[str] = mapped_column(String(20))


class JournalLine(Base):
    __tablename__ = "journal_lines"
    line_key: Mapped[str] = mapped_column(String(30), primary_key=True)
    entry_id: Mapped[str] = mapped_column(String(20), index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    account: Mapped[str] = mapped_column(String(20))
    debit = mapped_column(Money)
    credit = mapped_column(Money)
    job: Mapped[str | None] = mapped_column(String(20))
    memo: Mapped[str] = mapped_column(String(200))


class PaymentHold(Base):
    """A vendor-level payment hold: it stops money, it never moves any."""

    __tablename__ = "payment_holds"
    hold_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    vendor_key: Mapped[str] = mapped_column(String(20), index=True)
    reason: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(10))
    placed_at: Mapped[str] = mapped_column(String(20))
