"""The Payroll archetype's state: employees with their craft, class and union; crafts and pay
classes; unions and the fringes they collect; jobs with their prevailing-wage rates; weekly pay
runs with their timecards (job, phase, cost class, pay class) and the checks the pre-check
register calculates; tax deposits and direct-deposit files (money movement, guarded)."""
from __future__ import annotations

from sqlalchemy import Boolean, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Craft(Base):
    """A craft as payroll pays it (its own short code), with its workers' comp class."""

    __tablename__ = "crafts"

    craft_code: Mapped[str] = mapped_column(String(8), primary_key=True)
    description: Mapped[str] = mapped_column(String(80))
    wc_code: Mapped[str] = mapped_column(String(8))
    wc_rate = mapped_column(Money)  # premium per $100 of wages


class PayClass(Base):
    """A pay class: a craft at a level (journeyman or an apprentice period)."""

    __tablename__ = "pay_classes"

    class_code: Mapped[str] = mapped_column(String(12), primary_key=True)
    craft_code: Mapped[str] = mapped_column(String(8), index=True)
    level: Mapped[str] = mapped_column(String(4))
    description: Mapped[str] = mapped_column(String(80))


class Union(Base):
    """A union local and the share of its fringe each benefit fund receives."""

    __tablename__ = "unions"

    union_code: Mapped[str] = mapped_column(String(12), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    craft_code: Mapped[str] = mapped_column(String(8))
    health_pct: Mapped[int] = mapped_column(Integer)
    pension_pct: Mapped[int] = mapped_column(Integer)
    training_pct: Mapped[int] = mapped_column(Integer)


class Employee(Base):
    __tablename__ = "employees"

    employee_no: Mapped[str] = mapped_column(String(24), primary_key=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60), index=True)
    ssn_last4: Mapped[str] = mapped_column(String(4))
    craft_code: Mapped[str] = mapped_column(String(8))
    level: Mapped[str] = mapped_column(String(4))
    class_code: Mapped[str] = mapped_column(String(12))
    union_code: Mapped[str | None] = mapped_column(String(12))
    pay_group: Mapped[str] = mapped_column(String(12))
    status: Mapped[str] = mapped_column(String(12))
    hire_date: Mapped[str] = mapped_column(String(10))
    apprentice_program: Mapped[str | None] = mapped_column(String(40))
    fringe_in_cash: Mapped[bool] = mapped_column(Boolean)
    direct_deposit: Mapped[bool] = mapped_column(Boolean)
    dd_account_last4: Mapped[str | None] = mapped_column(String(4))


class Job(Base):
    """A job as payroll knows it, with its certified (prevailing-wage) setup."""

    __tablename__ = "jobs"

    job_no: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    state: Mapped[str] = mapped_column(String(2))
    certified: Mapped[bool] = mapped_column(Boolean)
    awarding_agency: Mapped[str | None] = mapped_column(String(200))
    contract_number: Mapped[str | None] = mapped_column(String(40))
    wd_number: Mapped[str | None] = mapped_column(String(40))
    start_date: Mapped[str] = mapped_column(String(10))


class JobRate(Base):
    """A job's prevailing-wage rate for a pay class, under the wage determination's classification."""

    __tablename__ = "job_rates"

    rate_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_no: Mapped[str] = mapped_column(String(16), index=True)
    class_code: Mapped[str] = mapped_column(String(12))
    classification: Mapped[str] = mapped_column(String(120))
    base_rate = mapped_column(Money)
    fringe_rate = mapped_column(Money)


class PayRun(Base):
    """A weekly payroll: Open (timecards entered) -> Proofed (job hours proofed) -> Calculated
    (pre-check register run) -> Finalized (a person's step: checks and direct deposit issued)."""

    __tablename__ = "pay_runs"
    __money_states__ = {"status": {"Finalized"}}

    pay_run_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pay_group: Mapped[str] = mapped_column(String(12))
    period_end: Mapped[str] = mapped_column(String(10), index=True)
    check_date: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(12))
    proofed_at: Mapped[str | None] = mapped_column(String(20))
    calculated_at: Mapped[str | None] = mapped_column(String(20))
    finalized_at: Mapped[str | None] = mapped_column(String(20))


class Timecard(Base):
    """One employee's week on one job, phase (cost code) and pay class."""

    __tablename__ = "timecards"

    timecard_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pay_run_id: Mapped[int] = mapped_column(Integer, index=True)
    employee_no: Mapped[str] = mapped_column(String(24), index=True)
    job_no: Mapped[str] = mapped_column(String(16), index=True)
    cost_code: Mapped[str] = mapped_column(String(12))
    cost_class: Mapped[str] = mapped_column(String(4))
    class_code: Mapped[str] = mapped_column(String(12))
    certified_class: Mapped[str] = mapped_column(String(120))  # the classification the certified report prints
    daily_hours: Mapped[str] = mapped_column(String(80))  # "Sun,Mon,...,Sat"
    reg_hours = mapped_column(Money)
    ot_hours = mapped_column(Money)
    reg_rate = mapped_column(Money)
    ot_rate = mapped_column(Money)
    fringe_plan_rate = mapped_column(Money)
    fringe_cash_rate = mapped_column(Money)
    earnings = mapped_column(Money)
    source: Mapped[str] = mapped_column(String(12))


class Check(Base):
    """A pay check or direct-deposit advice as the pre-check register calculates it."""

    __tablename__ = "checks"

    check_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pay_run_id: Mapped[int] = mapped_column(Integer, index=True)
    employee_no: Mapped[str] = mapped_column(String(24), index=True)
    check_number: Mapped[str | None] = mapped_column(String(12))
    pay_method: Mapped[str] = mapped_column(String(16))
    hours = mapped_column(Money)
    gross = mapped_column(Money)
    fica = mapped_column(Money)
    federal_wh = mapped_column(Money)
    net = mapped_column(Money)


class TaxDeposit(Base):
    """The federal (941) deposit a finalized payroll owes: withholding and both halves of FICA."""

    __tablename__ = "tax_deposits"
    __money_states__ = {"status": {"Deposited"}}

    deposit_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pay_run_id: Mapped[int] = mapped_column(Integer, index=True)
    form: Mapped[str] = mapped_column(String(8))
    liability = mapped_column(Money)
    due_date: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(12))
    deposited_on: Mapped[str | None] = mapped_column(String(10))


class DirectDepositFile(Base):
    """The bank (ACH) file of a payroll's direct deposits."""

    __tablename__ = "dd_files"
    __money_states__ = {"status": {"Transmitted"}}

    file_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pay_run_id: Mapped[int] = mapped_column(Integer, index=True)
    entries: Mapped[int] = mapped_column(Integer)
    total = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(12))
    created_on: Mapped[str] = mapped_column(String(10))
