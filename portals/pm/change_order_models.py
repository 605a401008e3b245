"""Tables of a residential builder's estimate and client change orders (Ressio): each job's
estimate, locked once the job is sold, and the change orders built in the product and sent to the
client (the homeowner) to accept, each with its lines by cost code and cost type and whether it has
been applied to the budget. Only a manifest with [pm] client_change_orders = true seeds them; other
PM products leave them empty.
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from portals.core.money import Money

from .models import Base


class JobEstimate(Base):
    """A job's estimate: Locked once sold (its totals are the budget's Original column), or
    Unlocked while the estimator reprices it."""

    __tablename__ = "estimates"
    estimate_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True, unique=True)
    number: Mapped[str] = mapped_column(String(30))
    status: Mapped[str] = mapped_column(String(20))  # Locked | Unlocked
    status_date: Mapped[date | None]  # when it was locked, or unlocked again
    status_by: Mapped[str] = mapped_column(String(100), default="")
    total: Mapped[Decimal] = mapped_column(Money)


class ClientChangeOrder(Base):
    """A change order sent to the client: what the client did with it (Accepted, Declined or still
    Awaiting Client), the amount the client signed for, and where it stands on the budget
    (Not Applied, Applied or On Hold with a reason and a note)."""

    __tablename__ = "client_change_orders"
    change_order_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.project_id"), index=True)
    number: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(200))
    sent_date: Mapped[date | None]
    client_status: Mapped[str] = mapped_column(String(30))  # Awaiting Client | Accepted | Declined
    client_status_date: Mapped[date | None]
    signed_amount: Mapped[Decimal | None] = mapped_column(Money, nullable=True)  # on the accepted document
    budget_status: Mapped[str] = mapped_column(String(20), default="Not Applied")  # | Applied | On Hold
    applied_date: Mapped[date | None]
    hold_reason: Mapped[str] = mapped_column(String(40), default="")
    hold_note: Mapped[str] = mapped_column(String(500), default="")


class ClientChangeOrderLine(Base):
    """One line of a client change order: the cost it adds to one budget line."""

    __tablename__ = "client_change_order_lines"
    line_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    change_order_id: Mapped[int] = mapped_column(ForeignKey("client_change_orders.change_order_id"), index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    cost_code: Mapped[str] = mapped_column(String(20))
    cost_type: Mapped[str] = mapped_column(String(4))
    description: Mapped[str] = mapped_column(String(200), default="")
    amount: Mapped[Decimal] = mapped_column(Money)
