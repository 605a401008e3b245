"""Tables of a project-management platform: projects, directory, commitments, invoices, budget.

Names are product-neutral so another PM vendor can share them; the manifest's vocabulary gives
each product its own words ("Subcontractor Invoices" for requisitions in Procore).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Project(Base):
    __tablename__ = "projects"
    project_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_number: Mapped[str] = mapped_column(String(20), unique=True, index=True)
    name: Mapped[str] = mapped_column(String(200))
    customer: Mapped[str] = mapped_column(String(200), default="")
    address: Mapped[str] = mapped_column(String(200), default="")
    city: Mapped[str] = mapped_column(String(100), default="")
    state: Mapped[str] = mapped_column(String(2), default="")
    status: Mapped[str] = mapped_column(String(20))  # active | inactive
    # the lifecycle stage where the product tracks one (its manifest's [pm] stages), else ""
    stage: Mapped[str] = mapped_column(String(20), default="", index=True)
    project_type: Mapped[str] = mapped_column(String(40), default="")
    contract_amount: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    pm_name: Mapped[str] = mapped_column(String(100), default="")
    pm_email: Mapped[str] = mapped_column(String(200), default="")
    start_date: Mapped[date | None]
    est_completion: Mapped[date | None]


class Vendor(Base):
    """A company in the Directory; origin_id links it to the ERP's vendor record."""

    __tablename__ = "vendors"
    vendor_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    trade: Mapped[str] = mapped_column(String(100), default="")
    email: Mapped[str] = mapped_column(String(200), default="")
    phone: Mapped[str] = mapped_column(String(40), default="")
    address: Mapped[str] = mapped_column(String(200), default="")
    city: Mapped[str] = mapped_column(String(100), default="")
    state: Mapped[str] = mapped_column(String(2), default="")
    zip: Mapped[str] = mapped_column(String(10), default="")
    origin_id: Mapped[str] = mapped_column(String(40), default="", index=True)
    is_active: Mapped[bool] = mapped_column(default=True)


class CostCode(Base):
    __tablename__ = "cost_codes"
    code: Mapped[str] = mapped_column(String(20), primary_key=True)
    csi: Mapped[str] = mapped_column(String(20), default="")
    division: Mapped[str] = mapped_column(String(10), default="")
    description: Mapped[str] = mapped_column(String(200))


class ErpIntegration(Base):
    """An ERP the company maps its cost codes to; the connected one receives the syncs."""

    __tablename__ = "erp_integrations"
    erp_app: Mapped[str] = mapped_column(String(40), primary_key=True)
    label: Mapped[str] = mapped_column(String(100))
    connected: Mapped[bool] = mapped_column(default=False)


class ErpCostCodeMap(Base):
    """The crosswalk from a company cost code to one ERP's own code (an ERP may consolidate)."""

    __tablename__ = "erp_cost_code_map"
    map_key: Mapped[str] = mapped_column(String(64), primary_key=True)  # "<erp_app>|<pm_cost_code>"
    erp_app: Mapped[str] = mapped_column(String(40), index=True)
    pm_cost_code: Mapped[str] = mapped_column(String(20), index=True)
    erp_code: Mapped[str] = mapped_column(String(30))


class Commitment(Base):
    """A subcontract (work order contract) or purchase order contract."""

    __tablename__ = "commitments"
    commitment_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[str] = mapped_column(String(40), unique=True, index=True)
    # the company's (and its ERP's) number for it, where the product numbers it its own way
    book_number: Mapped[str] = mapped_column(String(40), default="", index=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    vendor_id: Mapped[int | None] = mapped_column(ForeignKey("vendors.vendor_id"), index=True)
    contract_type: Mapped[str] = mapped_column(String(40))  # work_order_contract | purchase_order_contract
    title: Mapped[str] = mapped_column(String(200), default="")
    status: Mapped[str] = mapped_column(String(40))
    retainage_pct: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    executed_date: Mapped[date | None]
    grand_total: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    # the PM's work in place to date at the month end (subcontracts; None for purchase orders)
    work_in_place: Mapped[Decimal | None] = mapped_column(Money, nullable=True)
    erp_status: Mapped[str] = mapped_column(String(20), default="not_synced")  # synced | not_synced
    erp_synced_at: Mapped[str | None] = mapped_column(String(30))


class CommitmentLine(Base):
    """A schedule-of-values line of a commitment."""

    __tablename__ = "commitment_lines"
    line_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    commitment_id: Mapped[int] = mapped_column(ForeignKey("commitments.commitment_id"), index=True)
    line_no: Mapped[int]
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(4))
    description: Mapped[str] = mapped_column(String(200), default="")
    amount: Mapped[Decimal] = mapped_column(Money)


class Requisition(Base):
    """A subcontractor invoice against a commitment for one billing period."""

    __tablename__ = "requisitions"
    __money_states__ = {"status": {"paid"}}
    requisition_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    commitment_id: Mapped[int] = mapped_column(ForeignKey("commitments.commitment_id"), index=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    vendor_id: Mapped[int | None] = mapped_column(ForeignKey("vendors.vendor_id"))
    number: Mapped[int] = mapped_column(Integer, default=1)
    invoice_number: Mapped[str] = mapped_column(String(60), default="", index=True)
    period_start: Mapped[date | None]
    period_end: Mapped[date | None]
    amount: Mapped[Decimal] = mapped_column(Money)
    retainage: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    status: Mapped[str] = mapped_column(String(30))
    approved_date: Mapped[date | None]
    # where a reviewer approved less than was billed: what the subcontractor asked for, and why
    requested_amount: Mapped[Decimal | None] = mapped_column(Money, nullable=True)
    review_note: Mapped[str] = mapped_column(String(500), default="")
    erp_sync: Mapped[str] = mapped_column(String(20), default="not_synced")  # synced | not_synced
    erp_synced_at: Mapped[str | None] = mapped_column(String(30))


class PrimeContract(Base):
    __tablename__ = "prime_contracts"
    prime_contract_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    number: Mapped[str] = mapped_column(String(40))
    owner: Mapped[str] = mapped_column(String(200), default="")
    original_amount: Mapped[Decimal] = mapped_column(Money)


class PrimeContractLine(Base):
    __tablename__ = "prime_contract_lines"
    line_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    prime_contract_id: Mapped[int] = mapped_column(ForeignKey("prime_contracts.prime_contract_id"),
                                                   index=True)
    line_no: Mapped[int]
    cost_code: Mapped[str] = mapped_column(String(20), default="")
    description: Mapped[str] = mapped_column(String(200), default="")
    scheduled_value: Mapped[Decimal] = mapped_column(Money)


class BudgetLine(Base):
    __tablename__ = "budget_lines"
    budget_line_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(4))
    original_budget: Mapped[Decimal] = mapped_column(Money)
    approved_changes: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    forecast_to_complete: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))


class ChangeEvent(Base):
    """The upstream record of a scope change, before it becomes a change order."""

    __tablename__ = "change_events"
    change_event_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    number: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(20))  # Open | Closed
    change_reason: Mapped[str] = mapped_column(String(60), default="")
    estimated_amount: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    created_date: Mapped[date | None]


class ChangeOrder(Base):
    __tablename__ = "change_orders"
    change_order_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    change_event_id: Mapped[int | None] = mapped_column(ForeignKey("change_events.change_event_id"))
    number: Mapped[str] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(30))  # owner | commitment | budget_transfer
    status: Mapped[str] = mapped_column(String(40))
    amount: Mapped[Decimal] = mapped_column(Money)
    created_date: Mapped[date | None]
    # the commitment a commitment change order changes, where the product records it
    commitment_id: Mapped[int | None] = mapped_column(ForeignKey("commitments.commitment_id"), nullable=True)


class DirectCost(Base):
    """A cost charged to the project without a commitment (an invoice, expense or payroll)."""

    __tablename__ = "direct_costs"
    direct_cost_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    vendor_id: Mapped[int | None] = mapped_column(ForeignKey("vendors.vendor_id"))
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(4))
    cost_date: Mapped[date | None]
    invoice_number: Mapped[str] = mapped_column(String(60), default="")
    description: Mapped[str] = mapped_column(String(200), default="")
    amount: Mapped[Decimal] = mapped_column(Money)
    source_ref: Mapped[str] = mapped_column(String(40), default="")
    status: Mapped[str] = mapped_column(String(30), default="Approved")  # Pending Approval | Approved


class ManpowerEntry(Base):
    """A daily log manpower line: which company had how many workers on site that day."""

    __tablename__ = "daily_log_manpower"
    entry_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    vendor_id: Mapped[int | None] = mapped_column(ForeignKey("vendors.vendor_id"))
    log_date: Mapped[date]
    workers: Mapped[int]
    hours: Mapped[int]
    cost_code: Mapped[str] = mapped_column(String(20), default="")
    notes: Mapped[str] = mapped_column(String(200), default="")


class CustomerInvoice(Base):
    """An application for payment to the customer against the prime (customer) contract's SOV.

    Sending it to the customer is a guarded action: no code path may mark one Sent or Paid
    outside seeding (those rows are the history the book implies)."""

    __tablename__ = "customer_invoices"
    __money_states__ = {"status": {"Sent", "Paid"}}
    invoice_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    number: Mapped[str] = mapped_column(String(40), unique=True, index=True)
    application_no: Mapped[int]
    period_end: Mapped[date]
    invoice_date: Mapped[date | None]
    status: Mapped[str] = mapped_column(String(20))  # Draft | Sent | Paid
    retainage_pct: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    completed_to_date: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    previous_billed: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    this_period: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    retainage: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    amount_due: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))


class CustomerInvoiceLine(Base):
    __tablename__ = "customer_invoice_lines"
    line_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    invoice_id: Mapped[int] = mapped_column(ForeignKey("customer_invoices.invoice_id"), index=True)
    line_no: Mapped[int]
    cost_code: Mapped[str] = mapped_column(String(20), default="")
    description: Mapped[str] = mapped_column(String(200), default="")
    scheduled_value: Mapped[Decimal] = mapped_column(Money)
    previous: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    this_period: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))


class BidPackage(Base):
    """A bid package: the scope of one trade sent to vendors as a request for quote (RFQ)."""

    __tablename__ = "bid_packages"
    package_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    number: Mapped[str] = mapped_column(String(40), unique=True, index=True)
    title: Mapped[str] = mapped_column(String(200))
    cost_code: Mapped[str] = mapped_column(String(20), default="")
    trade: Mapped[str] = mapped_column(String(100), default="")
    status: Mapped[str] = mapped_column(String(20))  # Draft | RFQ Sent | Awarded
    due_date: Mapped[date | None]
    estimate: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    invited: Mapped[int] = mapped_column(Integer, default=0)
    awarded_vendor_id: Mapped[int | None] = mapped_column(ForeignKey("vendors.vendor_id"))
    commitment_id: Mapped[int | None] = mapped_column(ForeignKey("commitments.commitment_id"))


class BoqItem(Base):
    """A bill-of-quantities item some residential estimating products bill the client contract
    from: a unit, the contract quantity and rate behind one SOV line (quantity x rate = its
    value), and the quantity measured in place to date. A variation item is measured work on a
    client change order, billed through the SOV line it extends once the change is authorized."""

    __tablename__ = "boq_items"
    item_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    item_code: Mapped[str] = mapped_column(String(20))
    line_no: Mapped[int]  # the SOV (billing schedule) line it bills through
    description: Mapped[str] = mapped_column(String(200), default="")
    unit: Mapped[str] = mapped_column(String(10))
    quantity: Mapped[Decimal] = mapped_column(Money)
    rate: Mapped[Decimal] = mapped_column(Money)
    measured_qty: Mapped[Decimal] = mapped_column(Money, default=Decimal("0"))
    measured_on: Mapped[date | None]
    change_order: Mapped[str] = mapped_column(String(40), default="")  # a variation's change order number


class ReestimateLine(Base):
    """An estimator's current cost re-estimate for one line of a job: a company cost code and cost
    type re-priced to build, as some residential estimating products keep beside the BOQ (the
    BOQ prices the client contract; the re-estimate is the builder's own cost)."""

    __tablename__ = "reestimate_lines"
    line_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(4))
    description: Mapped[str] = mapped_column(String(200), default="")
    reestimate: Mapped[Decimal] = mapped_column(Money)
    estimated_on: Mapped[date | None]
