"""HeavyBid's state (the integration utility's estimating line): estimates, their biditems (the
owner's pay items with the unit prices bid), the activities under each biditem, the resources each
activity spends, and the exports to accounting made from an estimate."""
from __future__ import annotations

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Estimate(Base):
    """A bid: its code (HeavyBid's key, not a job number), owner, bid date, markups and status."""

    __tablename__ = "estimates"
    # A submitted bid binds the company: only a person submits one (the guard stages it).
    __money_states__ = {"status": {"Submitted"}}

    estimate_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(12), unique=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    owner: Mapped[str] = mapped_column(String(200))
    city: Mapped[str] = mapped_column(String(80))
    state: Mapped[str] = mapped_column(String(2))
    bid_date: Mapped[str] = mapped_column(String(10))
    estimator: Mapped[str] = mapped_column(String(80))
    master: Mapped[str] = mapped_column(String(12))  # the master estimate its codebook came from
    status: Mapped[str] = mapped_column(String(12))  # Pending | Submitted | Won | Lost
    profit_pct: Mapped[str] = mapped_column(String(8))
    bond_pct: Mapped[str] = mapped_column(String(8))
    notes: Mapped[str] = mapped_column(Text, default="")
    direct_cost = mapped_column(Money)
    bid_total = mapped_column(Money)


class Biditem(Base):
    """An owner's pay item: client code, quantity and unit, and the unit price bid."""

    __tablename__ = "biditems"

    biditem_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    estimate_id: Mapped[int] = mapped_column(Integer, index=True)
    client_code: Mapped[str] = mapped_column(String(12))
    description: Mapped[str] = mapped_column(String(200))
    unit: Mapped[str] = mapped_column(String(6))
    quantity: Mapped[str] = mapped_column(String(14))
    alternate: Mapped[str | None] = mapped_column(String(4))  # the alternate's number; None for base bid
    direct_cost = mapped_column(Money)
    unit_price = mapped_column(Money)
    bid_total = mapped_column(Money)


class Activity(Base):
    """Work under a biditem, by HeavyBid activity code (a cost code only once exported)."""

    __tablename__ = "activities"

    activity_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    estimate_id: Mapped[int] = mapped_column(Integer, index=True)
    biditem_id: Mapped[int] = mapped_column(Integer, index=True)
    code: Mapped[str] = mapped_column(String(12))
    description: Mapped[str] = mapped_column(String(200))
    total = mapped_column(Money)


class Resource(Base):
    """What an activity spends: a labor, equipment, material or subcontract resource."""

    __tablename__ = "resources"

    resource_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    estimate_id: Mapped[int] = mapped_column(Integer, index=True)
    activity_id: Mapped[int] = mapped_column(Integer, index=True)
    code: Mapped[str] = mapped_column(String(12))
    type: Mapped[str] = mapped_column(String(12))  # Labor | Equipment | Material | Subcontract
    description: Mapped[str] = mapped_column(String(200))
    unit: Mapped[str] = mapped_column(String(6))
    quantity: Mapped[str] = mapped_column(String(14))
    unit_cost = mapped_column(Money)
    total = mapped_column(Money)


class Export(Base):
    """An export to accounting: the cost budget by activity and resource type, and the revenue
    items, as the estimate stood when exported."""

    __tablename__ = "exports"

    export_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    estimate_id: Mapped[int] = mapped_column(Integer, index=True)
    file_name: Mapped[str] = mapped_column(String(120))
    exported_at: Mapped[str] = mapped_column(String(20))
    include_alternates: Mapped[str] = mapped_column(String(20))  # the alternates exported, e.g. "1" or ""
    cost_total = mapped_column(Money)
    revenue_total = mapped_column(Money)


class ExportLine(Base):
    """One row of an export: a cost line (activity x resource type) or a revenue line (biditem)."""

    __tablename__ = "export_lines"

    line_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    export_id: Mapped[int] = mapped_column(Integer, index=True)
    sheet: Mapped[str] = mapped_column(String(8))  # Cost | Revenue
    line_no: Mapped[int] = mapped_column(Integer)
    biditem: Mapped[str] = mapped_column(String(12))
    activity: Mapped[str | None] = mapped_column(String(12))
    resource_type: Mapped[str | None] = mapped_column(String(12))
    resource: Mapped[str | None] = mapped_column(String(12))
    description: Mapped[str] = mapped_column(String(200))
    unit: Mapped[str | None] = mapped_column(String(6))
    quantity: Mapped[str | None] = mapped_column(String(14))
    unit_price = mapped_column(Money, nullable=True)
    amount = mapped_column(Money)
