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
    # the vendor master's tax fields, from the W-9 on file: the 1099 form the vendor is set up for,
    # the entity type (federal tax classification) and whether a W-9 is on file at all
    form_1099: Mapped[str | None] = mapped_column(String(8))
    entity_type: Mapped[str | None] = mapped_column(String(40))
    w9_on_file: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(12))
    # the compliance record: when the certificate of insurance on file expires, as last entered
    coi_expires: Mapped[str | None] = mapped_column(String(10))


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
    # an auto-reversing entry (an accrual) reverses itself on this GL date; None: it does not
    reverse_date: Mapped[str | None] = mapped_column(String(10), nullable=True)


class JournalLine(Base):
    __tablename__ = "journal_lines"
    line_key: Mapped[str] = mapped_column(String(30), primary_key=True)
    entry_id: Mapped[str] = mapped_column(String(20), index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    account: Mapped[str] = mapped_column(String(20))
    debit = mapped_column(Money)
    credit = mapped_column(Money)
    job: Mapped[str | None] = mapped_column(String(20))
    cost_code: Mapped[str | None] = mapped_column(String(20), nullable=True)  # job cost dimensions
    cost_type: Mapped[str | None] = mapped_column(String(2), nullable=True)
    memo: Mapped[str] = mapped_column(String(200))


class PaymentHold(Base):
    """A vendor-level payment hold: it stops money, it never moves any."""

    __tablename__ = "payment_holds"
    hold_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    vendor_key: Mapped[str] = mapped_column(String(20), index=True)
    reason: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(10))
    placed_at: Mapped[str] = mapped_column(String(20))


# -- Records some products keep beyond the shared AP / JC / GL core. Each vendor's manifest says
# -- which of them it offers (its tools and screens); a product that does not offer one has none.

class BillLine(Base):
    """A line of a bill entered with line items (Intacct bill lines, Vista AP Entry's line grid).

    A bill entered in the one-line form is its own single line and has no rows here; a bill with
    rows here totals exactly the sum of its lines, and its header carries line 1's coding.
    """

    __tablename__ = "bill_lines"
    line_key: Mapped[str] = mapped_column(String(30), primary_key=True)
    bill_id: Mapped[str] = mapped_column(String(20), index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    gl_account: Mapped[str] = mapped_column(String(20))
    job: Mapped[str] = mapped_column(String(20))
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(2))
    amount = mapped_column(Money)
    memo: Mapped[str] = mapped_column(String(200))


class Payment(Base):
    """An AP payment (a check, an ACH or a company-card payment) that paid bills. Every row is money that moved, so only
    seeding writes them; creating a payment is a guarded action."""

    __tablename__ = "payments"
    __money_states__ = {"state": {"paid", "cleared", "voided"}}
    payment_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    vendor_key: Mapped[str] = mapped_column(String(20), index=True)
    entity_id: Mapped[str] = mapped_column(String(20), index=True)
    payment_date: Mapped[str] = mapped_column(String(10), index=True)
    method: Mapped[str] = mapped_column(String(12))
    document_number: Mapped[str] = mapped_column(String(20))
    bank_account: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(12))  # bills or retainage (a retainage release)
    amount = mapped_column(Money)
    state: Mapped[str] = mapped_column(String(10))


class PaymentDetail(Base):
    """What one payment applied to one bill (net of retainage held, or the retainage released)."""

    __tablename__ = "payment_details"
    __money_states__ = {"state": {"applied"}}
    detail_key: Mapped[str] = mapped_column(String(40), primary_key=True)
    payment_id: Mapped[str] = mapped_column(String(20), index=True)
    bill_id: Mapped[str] = mapped_column(String(20), index=True)
    amount = mapped_column(Money)
    state: Mapped[str] = mapped_column(String(10))


class Retainage(Base):
    """Retainage withheld on a subcontract bill, held until released with final payment.
    Releasing it moves money: only seeding writes a released row."""

    __tablename__ = "retainage"
    __money_states__ = {"state": {"released"}}
    retainage_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    bill_id: Mapped[str] = mapped_column(String(20), index=True)
    vendor_key: Mapped[str] = mapped_column(String(20), index=True)
    job: Mapped[str] = mapped_column(String(20), index=True)
    commitment: Mapped[str] = mapped_column(String(40), index=True)
    retainage_pct: Mapped[str] = mapped_column(String(8))
    held = mapped_column(Money)
    state: Mapped[str] = mapped_column(String(10))
    released_date: Mapped[str | None] = mapped_column(String(10))
    release_payment_id: Mapped[str | None] = mapped_column(String(20))


class ChangeRequest(Base):
    """A project change request (cost and price effect by task and cost type), before it becomes
    an approved change order."""

    __tablename__ = "change_requests"
    change_request_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    job: Mapped[str] = mapped_column(String(20), index=True)
    change_type: Mapped[str] = mapped_column(String(20))
    description: Mapped[str] = mapped_column(String(300))
    request_date: Mapped[str] = mapped_column(String(10))
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(2))
    cost_effect = mapped_column(Money)
    price_effect = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(12))
    entered_at: Mapped[str] = mapped_column(String(20))


class ProjectEstimate(Base):
    """A project estimate (the original, or a revision): its lines are by task and cost type."""

    __tablename__ = "project_estimates"
    estimate_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    job: Mapped[str] = mapped_column(String(20), index=True)
    description: Mapped[str] = mapped_column(String(200))
    estimate_type: Mapped[str] = mapped_column(String(20))
    estimate_date: Mapped[str] = mapped_column(String(10))
    is_primary: Mapped[bool] = mapped_column(Boolean)
    total = mapped_column(Money)


class ProjectEstimateLine(Base):
    __tablename__ = "project_estimate_lines"
    line_key: Mapped[str] = mapped_column(String(60), primary_key=True)
    estimate_id: Mapped[str] = mapped_column(String(20), index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(2))
    amount = mapped_column(Money)


class Entity(Base):
    """An entity of a multi-entity company (Intacct), or the one company a product keys rows by."""

    __tablename__ = "entities"
    entity_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    state: Mapped[str] = mapped_column(String(2))
    currency: Mapped[str] = mapped_column(String(3))
    status: Mapped[str] = mapped_column(String(10))
    # the last day of the entity's last closed period (its books are closed through it), when the
    # entity closed a month early; otherwise the company's rule (months before this one are closed)
    books_closed_through: Mapped[str | None] = mapped_column(String(10), nullable=True)


class EntityProject(Base):
    """Which entity a job or project belongs to."""

    __tablename__ = "entity_projects"
    job: Mapped[str] = mapped_column(String(20), primary_key=True)
    entity_id: Mapped[str] = mapped_column(String(20), index=True)


class StandardCostType(Base):
    """The standard cost type catalog: each cost type's accumulation type and default GL account."""

    __tablename__ = "standard_cost_types"
    code: Mapped[str] = mapped_column(String(2), primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    accumulation_type: Mapped[str] = mapped_column(String(20))
    gl_account: Mapped[str] = mapped_column(String(20))
    description: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(10))


class Batch(Base):
    """A posting batch (Vista HQ Batch Control): entries go in by month (Mth) and BatchId,
    are validated, then posted. Posting is guarded, so no row may become posted outside seeding."""

    __tablename__ = "batches"
    __money_states__ = {"status": {"posted"}}
    batch_key: Mapped[str] = mapped_column(String(20), primary_key=True)
    co: Mapped[int] = mapped_column(Integer)
    mth: Mapped[str] = mapped_column(String(7), index=True)
    batch_id: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(20))
    table_name: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(10))
    created_by: Mapped[str] = mapped_column(String(40))
    date_created: Mapped[str] = mapped_column(String(10))
    date_posted: Mapped[str | None] = mapped_column(String(10))


class ProgressBill(Base):
    """A progress bill to the owner for one job and period (Vista JB Progress Billing)."""

    __tablename__ = "progress_bills"
    bill_key: Mapped[str] = mapped_column(String(40), primary_key=True)
    job: Mapped[str] = mapped_column(String(20), index=True)
    bill_number: Mapped[int] = mapped_column(Integer)
    application: Mapped[int] = mapped_column(Integer)
    bill_month: Mapped[str] = mapped_column(String(7), index=True)
    from_date: Mapped[str] = mapped_column(String(10))
    to_date: Mapped[str] = mapped_column(String(10))
    invoice_date: Mapped[str] = mapped_column(String(10))
    due_date: Mapped[str] = mapped_column(String(10))
    previous_billed = mapped_column(Money)
    this_period = mapped_column(Money)
    retainage = mapped_column(Money)
    amount_due = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(12))


class PMFirm(Base):
    """A firm in the PM firm master (Vista PMFM, key VendorGroup + FirmNumber), separate from
    the AP vendor: a firm may name its AP vendor, or not."""

    __tablename__ = "pm_firms"
    firm_key: Mapped[str] = mapped_column(String(20), primary_key=True)
    vendor_group: Mapped[int] = mapped_column(Integer)
    firm_number: Mapped[int] = mapped_column(Integer, index=True)
    firm_name: Mapped[str] = mapped_column(String(200))
    sort_name: Mapped[str] = mapped_column(String(20))
    firm_type: Mapped[str] = mapped_column(String(12))
    vendor_key: Mapped[str | None] = mapped_column(String(20))
    contact: Mapped[str] = mapped_column(String(120))
    phone: Mapped[str] = mapped_column(String(30))
    email: Mapped[str] = mapped_column(String(200))
    address: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    zip: Mapped[str] = mapped_column(String(10))


class CommitmentItem(Base):
    """A line (item) of a subcontract or purchase order (Vista SLIT / POIT)."""

    __tablename__ = "commitment_items"
    item_key: Mapped[str] = mapped_column(String(50), primary_key=True)
    number: Mapped[str] = mapped_column(String(40), index=True)
    item: Mapped[int] = mapped_column(Integer)
    job: Mapped[str] = mapped_column(String(20))
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(2))
    description: Mapped[str] = mapped_column(String(200))
    um: Mapped[str] = mapped_column(String(4))
    orig_cost = mapped_column(Money)


class SLChangeOrder(Base):
    """A subcontract change order (Vista SL Change Orders). One entered here waits in an open SL
    batch until a person posts it; only posted ones change the subcontract's current cost."""

    __tablename__ = "sl_change_orders"
    co_key: Mapped[str] = mapped_column(String(50), primary_key=True)
    subcontract: Mapped[str] = mapped_column(String(40), index=True)
    item: Mapped[int] = mapped_column(Integer)
    change_order: Mapped[int] = mapped_column(Integer)
    act_date: Mapped[str] = mapped_column(String(10))
    description: Mapped[str] = mapped_column(String(300))
    amount = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(10))
    entered_at: Mapped[str] = mapped_column(String(20))
