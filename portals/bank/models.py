"""A treasury portal's state: the company's accounts, the bank's transactions, payment templates and
payments under dual control, the positive-pay issue files and issued checks, the day's presented
check exceptions with their decisions, and the portal's users and their entitlements."""
from __future__ import annotations

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Account(Base):
    """A deposit account of the company at the bank."""

    __tablename__ = "accounts"

    account_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    number: Mapped[str] = mapped_column(String(20), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(30))  # Checking, Money Market
    entity: Mapped[str] = mapped_column(String(120))
    routing_number: Mapped[str] = mapped_column(String(9))
    currency: Mapped[str] = mapped_column(String(3))
    gl_account: Mapped[str] = mapped_column(String(40))
    positive_pay: Mapped[str] = mapped_column(String(30))  # "Payee Positive Pay" or "None"
    ach_company_id: Mapped[str | None] = mapped_column(String(10))
    opening_date: Mapped[str] = mapped_column(String(10))  # the first day of the online history
    opening_balance = mapped_column(Money)  # the ledger balance at the start of that day


class Transaction(Base):
    """One posted (or, on the clock's day, intraday) item on an account, with its BAI2 type code."""

    __tablename__ = "transactions"

    txn_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, index=True)
    posted_date: Mapped[str] = mapped_column(String(10), index=True)
    type_code: Mapped[str] = mapped_column(String(3))
    direction: Mapped[str] = mapped_column(String(6))  # credit | debit
    amount = mapped_column(Money)
    bank_reference: Mapped[str] = mapped_column(String(20))
    customer_reference: Mapped[str | None] = mapped_column(String(20))  # the check serial
    description: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(10))  # Posted | Intraday


class PaymentTemplate(Base):
    """A saved wire or ACH beneficiary: who is paid, at which bank, from which account."""

    __tablename__ = "payment_templates"

    template_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(30), unique=True)
    name: Mapped[str] = mapped_column(String(120))
    kind: Mapped[str] = mapped_column(String(4))  # Wire | ACH
    from_account_id: Mapped[int] = mapped_column(Integer)
    beneficiary: Mapped[str] = mapped_column(String(120))
    beneficiary_bank: Mapped[str] = mapped_column(String(120))
    routing_number: Mapped[str] = mapped_column(String(9))
    account_mask: Mapped[str] = mapped_column(String(20))
    sec_code: Mapped[str | None] = mapped_column(String(3))  # ACH: CCD / PPD
    status: Mapped[str] = mapped_column(String(12))  # Approved


class Payment(Base):
    """A wire or ACH payment: drafted, then approved and released by others (dual control)."""

    __tablename__ = "payments"
    __money_states__ = {"status": {"Approved", "Released"}}

    payment_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    reference: Mapped[str] = mapped_column(String(20), unique=True)
    kind: Mapped[str] = mapped_column(String(4))
    template_id: Mapped[int | None] = mapped_column(Integer)
    from_account_id: Mapped[int] = mapped_column(Integer)
    beneficiary: Mapped[str] = mapped_column(String(120))
    amount = mapped_column(Money)
    value_date: Mapped[str] = mapped_column(String(10))
    memo: Mapped[str] = mapped_column(String(140))
    status: Mapped[str] = mapped_column(String(20))  # Draft | Pending Approval | Approved | Released | Rejected
    created_by: Mapped[str] = mapped_column(String(60))
    created_at: Mapped[str] = mapped_column(String(20))
    approved_by: Mapped[str | None] = mapped_column(String(60))


class IssueFile(Base):
    """A positive-pay issue file the company uploaded from its ERP's check register."""

    __tablename__ = "issue_files"

    file_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, index=True)
    name: Mapped[str] = mapped_column(String(80))
    uploaded_at: Mapped[str] = mapped_column(String(20))
    uploaded_by: Mapped[str] = mapped_column(String(60))
    records: Mapped[int] = mapped_column(Integer)
    issued_total = mapped_column(Money)
    voided_total = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(20))  # Processed | Rejected
    digest: Mapped[str] = mapped_column(String(64))  # the file's contents, to catch a file loaded twice


class IssuedCheck(Base):
    """One issue record: a check the company told the bank it wrote (or voided)."""

    __tablename__ = "issued_checks"

    issued_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, index=True)
    file_id: Mapped[int] = mapped_column(Integer, index=True)
    serial: Mapped[str] = mapped_column(String(12), index=True)
    issue_date: Mapped[str] = mapped_column(String(10))
    amount = mapped_column(Money)
    payee: Mapped[str] = mapped_column(String(120))
    status: Mapped[str] = mapped_column(String(12))  # Outstanding | Paid | Void | Stale
    void_file_id: Mapped[int | None] = mapped_column(Integer)  # the file whose V record voided it
    paid_date: Mapped[str | None] = mapped_column(String(10))


class CheckException(Base):
    """A presented check the bank could not match to an issue record: a Pay or Return decision is
    staged on it; submitting the day's decisions is a person's step."""

    __tablename__ = "check_exceptions"
    __money_states__ = {"status": {"Submitted"}}

    exception_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, index=True)
    presented_date: Mapped[str] = mapped_column(String(10), index=True)
    serial: Mapped[str] = mapped_column(String(12))
    presented_amount = mapped_column(Money)
    presented_payee: Mapped[str] = mapped_column(String(120))
    reason: Mapped[str] = mapped_column(String(60))
    issued_id: Mapped[int | None] = mapped_column(Integer)
    default_decision: Mapped[str] = mapped_column(String(6))
    decision: Mapped[str | None] = mapped_column(String(6))  # Pay | Return, staged
    decision_reason: Mapped[str | None] = mapped_column(Text)
    decided_by: Mapped[str | None] = mapped_column(String(60))
    decided_at: Mapped[str | None] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(12))  # Open | Submitted


class User(Base):
    """A portal user of the company, with the services they are entitled to."""

    __tablename__ = "users"

    user_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    login: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(80))
    role: Mapped[str] = mapped_column(String(40))
    email: Mapped[str] = mapped_column(String(120))
    status: Mapped[str] = mapped_column(String(12))


class Entitlement(Base):
    """One service a user may use, with its limit where it has one."""

    __tablename__ = "entitlements"

    entitlement_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(Integer, index=True)
    service: Mapped[str] = mapped_column(String(60))
    permission: Mapped[str] = mapped_column(String(20))  # View | Create | Approve | Release | Decision
    daily_limit = mapped_column(Money, nullable=True)
