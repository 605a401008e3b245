"""Plaid's state (the Bank archetype's bank-data line): the Items the company linked (one per
institution), the accounts under each with their balances and ACH numbers, the transactions Plaid
pulled from the institution (in Plaid's shape: positive amounts are money out), and the API log of
the company's integration's calls, as the Plaid Dashboard shows them."""
from __future__ import annotations

from sqlalchemy import Boolean, Integer, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from portals.core.money import Money


class Base(DeclarativeBase):
    pass


class Item(Base):
    """A login at one institution, linked through Plaid Link: the products it was consented for."""

    __tablename__ = "items"

    item_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    institution_id: Mapped[str] = mapped_column(String(16))
    institution_name: Mapped[str] = mapped_column(String(80))
    products: Mapped[str] = mapped_column(String(80))  # comma-separated: auth,balance,transactions
    status: Mapped[str] = mapped_column(String(24))  # HEALTHY | ITEM_LOGIN_REQUIRED
    linked_at: Mapped[str] = mapped_column(String(20))
    last_successful_update: Mapped[str] = mapped_column(String(20))
    webhook: Mapped[str | None] = mapped_column(String(200))


class Account(Base):
    """A depository account under an Item, its balances as of the last update and its ACH numbers."""

    __tablename__ = "accounts"

    account_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(40), index=True)
    name: Mapped[str] = mapped_column(String(80))
    official_name: Mapped[str] = mapped_column(String(120))
    mask: Mapped[str] = mapped_column(String(4))
    type: Mapped[str] = mapped_column(String(16))  # depository
    subtype: Mapped[str] = mapped_column(String(16))  # checking | money market
    current = mapped_column(Money)
    available = mapped_column(Money)
    iso_currency_code: Mapped[str] = mapped_column(String(3))
    account_number: Mapped[str] = mapped_column(String(17))
    routing_number: Mapped[str] = mapped_column(String(9))
    wire_routing: Mapped[str] = mapped_column(String(9))


class Transaction(Base):
    """One transaction as Plaid returns it: `amount` positive for money leaving the account and
    negative for money coming in (the bank's own statement has it the other way round)."""

    __tablename__ = "transactions"

    transaction_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[str] = mapped_column(String(40), index=True)
    seq: Mapped[int] = mapped_column(Integer, index=True)  # the order /transactions/sync returns them in
    amount = mapped_column(Money)
    iso_currency_code: Mapped[str] = mapped_column(String(3))
    date: Mapped[str] = mapped_column(String(10), index=True)  # posted (or, while pending, expected)
    authorized_date: Mapped[str | None] = mapped_column(String(10))
    name: Mapped[str] = mapped_column(String(200))
    merchant_name: Mapped[str | None] = mapped_column(String(120))
    pending: Mapped[bool] = mapped_column(Boolean)
    payment_channel: Mapped[str] = mapped_column(String(12))  # online | in store | other
    category: Mapped[str] = mapped_column(String(80))  # the legacy hierarchy, "Bank Fees > Overdraft"
    pfc_primary: Mapped[str] = mapped_column(String(40))  # personal_finance_category.primary
    pfc_detailed: Mapped[str] = mapped_column(String(80))  # personal_finance_category.detailed
    check_number: Mapped[str | None] = mapped_column(String(12))


class ApiLog(Base):
    """One request the company's integration made to the Plaid API (the Dashboard's Logs)."""

    __tablename__ = "api_logs"

    request_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    at: Mapped[str] = mapped_column(String(20), index=True)
    endpoint: Mapped[str] = mapped_column(String(40))
    item_id: Mapped[str | None] = mapped_column(String(40))
    status_code: Mapped[int] = mapped_column(Integer)
    error_code: Mapped[str | None] = mapped_column(String(40))
    environment: Mapped[str] = mapped_column(String(12))  # Production
