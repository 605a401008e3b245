"""LCPtracker's state: projects with their wage determination, employees, weekly payroll records
imported from payroll, the certified payroll reports (CPRs) and the compliance notes on records."""
from __future__ import annotations

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Project(Base):
    """A prevailing-wage project, filed under the awarding agency's contract number."""

    __tablename__ = "projects"

    project_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    contract_number: Mapped[str] = mapped_column(String(40), unique=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    awarding_agency: Mapped[str] = mapped_column(String(200))
    location: Mapped[str] = mapped_column(String(200))
    county: Mapped[str] = mapped_column(String(60))
    state: Mapped[str] = mapped_column(String(2))
    wd_number: Mapped[str] = mapped_column(String(40))
    wd_modification: Mapped[int] = mapped_column(Integer)
    prime_contractor: Mapped[str] = mapped_column(String(200))
    start_date: Mapped[str] = mapped_column(String(10))


class WageRate(Base):
    """One line of the project's wage determination: a classification at a level (J or A1..A4)."""

    __tablename__ = "wage_rates"

    rate_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(Integer, index=True)
    classification: Mapped[str] = mapped_column(String(120))
    level: Mapped[str] = mapped_column(String(4))
    base_rate = mapped_column(Money)
    fringe_rate = mapped_column(Money)
    apprentice_ratio: Mapped[str] = mapped_column(String(8))
    pct_of_journeyworker: Mapped[int | None] = mapped_column(Integer)


class Employee(Base):
    """A worker as LCPtracker knows them: name, last four of the SSN, craft, apprenticeship."""

    __tablename__ = "employees"

    employee_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60), index=True)
    ssn_last4: Mapped[str] = mapped_column(String(4))
    classification: Mapped[str] = mapped_column(String(120))
    level: Mapped[str] = mapped_column(String(4))
    apprentice_registration: Mapped[str | None] = mapped_column(String(40))
    union_local: Mapped[str | None] = mapped_column(String(80))


class PayrollRecord(Base):
    """One employee's week on one project, as imported from payroll (a WH-347 line)."""

    __tablename__ = "payroll_records"

    record_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(Integer, index=True)
    week_ending: Mapped[str] = mapped_column(String(10), index=True)
    employee_id: Mapped[int] = mapped_column(Integer, index=True)
    classification: Mapped[str] = mapped_column(String(120))
    level: Mapped[str] = mapped_column(String(4))
    daily_hours: Mapped[str] = mapped_column(String(80))  # "Sun,Mon,...,Sat"
    st_hours = mapped_column(Money)
    ot_hours = mapped_column(Money)
    st_rate = mapped_column(Money)
    ot_rate = mapped_column(Money)
    fringe_plan = mapped_column(Money)
    fringe_cash = mapped_column(Money)
    fringe_method: Mapped[str] = mapped_column(String(8))
    gross = mapped_column(Money)
    fica = mapped_column(Money)
    withholding = mapped_column(Money)
    net = mapped_column(Money)


class Cpr(Base):
    """A weekly certified payroll report; certifying and submitting it is a person's e-signature."""

    __tablename__ = "cprs"
    __money_states__ = {"status": {"Certified", "Submitted"}}

    cpr_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(Integer, index=True)
    week_ending: Mapped[str] = mapped_column(String(10))
    payroll_number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12))
    certified_by: Mapped[str | None] = mapped_column(String(80))
    submitted_at: Mapped[str | None] = mapped_column(String(20))


class RecordNote(Base):
    """A compliance note an administrator records on a payroll record (a finding)."""

    __tablename__ = "record_notes"

    note_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    record_id: Mapped[int] = mapped_column(Integer, index=True)
    category: Mapped[str] = mapped_column(String(40))
    note: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(String(20))
