"""The FieldTime archetype's state: the field workforce, projects (jobs) with their cost codes and
crews (a foreman each), one time entry per worker, day, project and cost code moving Submitted ->
Approved (by the foreman) -> Exported (sent to payroll in an export batch), worker sign-offs,
locked pay periods and the payroll export batches."""
from __future__ import annotations

from sqlalchemy import Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Employee(Base):
    """A worker as field time knows them: the payroll's employee number, trade and level."""

    __tablename__ = "employees"

    employee_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    first_name: Mapped[str] = mapped_column(String(60))
    last_name: Mapped[str] = mapped_column(String(60), index=True)
    trade: Mapped[str] = mapped_column(String(8))
    level: Mapped[str] = mapped_column(String(4))
    status: Mapped[str] = mapped_column(String(12))


class Project(Base):
    """A job field time is charged to, under the product's own project number."""

    __tablename__ = "projects"

    project_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    status: Mapped[str] = mapped_column(String(12))


class CostCode(Base):
    """A project's cost code (the payroll's phase) crews clock time to."""

    __tablename__ = "cost_codes"

    cost_code_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[str] = mapped_column(String(16), index=True)
    code: Mapped[str] = mapped_column(String(12))
    description: Mapped[str] = mapped_column(String(80))


class Crew(Base):
    """A project's crew and the foreman who approves its time."""

    __tablename__ = "crews"

    crew_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[str] = mapped_column(String(16), index=True)
    name: Mapped[str] = mapped_column(String(120))
    foreman_id: Mapped[str] = mapped_column(String(16))


class TimeEntry(Base):
    """One worker's hours on one day, project and cost code. Submitted by the crew, approved by
    the foreman, exported to payroll in a batch (then it no longer changes)."""

    __tablename__ = "time_entries"

    entry_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    employee_id: Mapped[str] = mapped_column(String(16), index=True)
    project_id: Mapped[str] = mapped_column(String(16), index=True)
    cost_code: Mapped[str] = mapped_column(String(12))
    work_date: Mapped[str] = mapped_column(String(10), index=True)
    week_ending: Mapped[str] = mapped_column(String(10), index=True)
    clock_in: Mapped[str] = mapped_column(String(5))
    clock_out: Mapped[str] = mapped_column(String(5))
    hours = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(12))
    approved_by: Mapped[str | None] = mapped_column(String(16))
    approved_at: Mapped[str | None] = mapped_column(String(20))
    export_id: Mapped[int | None] = mapped_column(Integer)
    signed_off: Mapped[str | None] = mapped_column(String(20))  # the worker's own attestation
    note: Mapped[str | None] = mapped_column(String(200))


class PeriodLock(Base):
    """A pay week closed to edits in the field before its time goes to payroll."""

    __tablename__ = "period_locks"

    week_ending: Mapped[str] = mapped_column(String(10), primary_key=True)
    locked_at: Mapped[str] = mapped_column(String(20))


class PayrollExport(Base):
    """A batch of approved time sent to payroll for one week."""

    __tablename__ = "payroll_exports"

    export_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    week_ending: Mapped[str] = mapped_column(String(10), index=True)
    entries: Mapped[int] = mapped_column(Integer)
    hours = mapped_column(Money)
    status: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[str] = mapped_column(String(20))
