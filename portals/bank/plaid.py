"""Plaid's services (the Bank archetype's bank-data line): the Items the company linked, their
accounts with balances and ACH numbers, transactions (a date range a page at a time, or
/transactions/sync's added-since-cursor), the API log, and the one guarded step Plaid has:
creating a transfer (it moves money; staged for a person, never done). Everything else reads."""
from __future__ import annotations

import base64
import re
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Literal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.paging import paged
from portals.core.sorting import DATE, MONEY, TEXT, sort_order
from portals.core.tools import GUARDED, READ, service

from .plaid_models import Account, ApiLog, Item, Transaction

TXN_SORT = {"date": (Transaction.date, DATE), "amount": (Transaction.amount, MONEY),
            "name": (Transaction.name, TEXT), "category": (Transaction.pfc_primary, TEXT)}
LOG_SORT = {"at": (ApiLog.at, TEXT), "endpoint": (ApiLog.endpoint, TEXT)}
SYNC_MAX = 500


def item_row(i: Item) -> dict:
    return {"item_id": i.item_id, "institution_id": i.institution_id, "institution_name": i.institution_name,
            "products": i.products.split(","), "status": i.status, "linked_at": i.linked_at,
            "last_successful_update": i.last_successful_update, "webhook": i.webhook}


def account_row(a: Account) -> dict:
    return {"account_id": a.account_id, "item_id": a.item_id, "name": a.name, "official_name": a.official_name,
            "mask": a.mask, "type": a.type, "subtype": a.subtype,
            "balances": {"current": a.current, "available": a.available, "limit": None,
                         "iso_currency_code": a.iso_currency_code}}


def txn_row(t: Transaction) -> dict:
    return {"transaction_id": t.transaction_id, "account_id": t.account_id, "amount": t.amount,
            "iso_currency_code": t.iso_currency_code, "date": t.date, "authorized_date": t.authorized_date,
            "name": t.name, "merchant_name": t.merchant_name, "pending": t.pending,
            "payment_channel": t.payment_channel, "category": t.category.split(" > "),
            "personal_finance_category": {"primary": t.pfc_primary, "detailed": t.pfc_detailed},
            "check_number": t.check_number}


def log_row(g: ApiLog) -> dict:
    return {"request_id": g.request_id, "at": g.at, "endpoint": g.endpoint, "item_id": g.item_id,
            "status_code": g.status_code, "error_code": g.error_code, "environment": g.environment}


def _item(session, item_id: str) -> Item:
    row = session.get(Item, (item_id or "").strip())
    if row is None:
        raise NotFound(f"There is no Item with id {item_id!r}.", "item_id")
    return row


def _account(session, account_id: str) -> Account:
    row = session.get(Account, (account_id or "").strip())
    if row is None:
        raise NotFound(f"There is no account with id {account_id!r}.", "account_id")
    return row


def _day(value: str | None, field: str) -> str | None:
    if value in (None, ""):
        return None
    try:
        return date.fromisoformat(str(value).strip()).isoformat()
    except ValueError:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} is a date, YYYY-MM-DD.", field) from None


def _accounts(session, item_id: str) -> list[Account]:
    return list(session.scalars(select(Account).where(Account.item_id == item_id).order_by(Account.name)))


@service(READ)
def list_items(ctx: ServiceContext) -> dict:
    """List the Items (linked institution logins) the company's Plaid integration holds, with each
    one's institution, consented products, health and last successful update."""
    items = ctx.session.scalars(select(Item).order_by(Item.institution_name, Item.item_id)).all()
    return {"items": [{**item_row(i), "accounts": len(_accounts(ctx.session, i.item_id))} for i in items],
            "total": len(items)}


@service(READ)
def get_item(ctx: ServiceContext, item_id: str) -> dict:
    """Get an Item: its institution, consented products, health and its accounts with balances.

    Args:
        item_id: The Item's id, as the Items list shows it.
    """
    i = _item(ctx.session, item_id)
    return {**item_row(i), "accounts": [account_row(a) for a in _accounts(ctx.session, i.item_id)]}


@service(READ)
def get_balances(ctx: ServiceContext, item_id: str) -> dict:
    """Get the Item's accounts with their balances (/accounts/balance/get): `current` is what has
    posted, `available` also takes off the pending transactions.

    Args:
        item_id: The Item's id, as the Items list shows it.
    """
    i = _item(ctx.session, item_id)
    return {"item": item_row(i), "accounts": [account_row(a) for a in _accounts(ctx.session, i.item_id)]}


@service(READ)
def get_auth(ctx: ServiceContext, item_id: str) -> dict:
    """Get the Item's accounts with their ACH account and routing numbers (/auth/get).

    Args:
        item_id: The Item's id, as the Items list shows it.
    """
    i = _item(ctx.session, item_id)
    accounts = _accounts(ctx.session, i.item_id)
    return {"accounts": [account_row(a) for a in accounts],
            "numbers": {"ach": [{"account_id": a.account_id, "account": a.account_number, "routing": a.routing_number,
                                 "wire_routing": a.wire_routing} for a in accounts]}}


@service(READ)
def get_transactions(ctx: ServiceContext, start_date: str | None = None, end_date: str | None = None,
                     account_id: str | None = None, pending: bool | None = None, query: str | None = None,
                     page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List transactions, newest first (/transactions/get). Plaid's sign: a positive amount is
    money out of the account, a negative one money in.

    Args:
        start_date: The first date, YYYY-MM-DD.
        end_date: The last date, YYYY-MM-DD.
        account_id: Only this account's, by its Plaid account id.
        pending: True for only pending transactions, false for only posted ones.
        query: Words to find in the name, the merchant name or the check number.
        page: Page number, starting at 1.
        per_page: Transactions per page, 1 to 100.
        sort: Sort by date, amount, name or category; a leading "-" sorts descending.
    """
    start, end = _day(start_date, "start_date"), _day(end_date, "end_date")
    if start and end and start > end:
        raise ToolError("The start date is after the end date.", "start_date")
    stmt = select(Transaction)
    if account_id:
        stmt = stmt.where(Transaction.account_id == _account(ctx.session, account_id).account_id)
    if start:
        stmt = stmt.where(Transaction.date >= start)
    if end:
        stmt = stmt.where(Transaction.date <= end)
    if pending is not None:
        stmt = stmt.where(Transaction.pending == bool(pending))
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Transaction.name.ilike(like), Transaction.merchant_name.ilike(like),
                              Transaction.check_number.ilike(like)))
    stmt = stmt.order_by(*sort_order(sort, TXN_SORT, (Transaction.date.desc(), Transaction.seq.desc())))
    return paged(ctx.session, stmt, page, per_page, txn_row)


@service(READ)
def get_transaction(ctx: ServiceContext, transaction_id: str) -> dict:
    """Get one transaction with its account.

    Args:
        transaction_id: The transaction's id, as the transaction list shows it.
    """
    t = ctx.session.get(Transaction, (transaction_id or "").strip())
    if t is None:
        raise NotFound(f"There is no transaction with id {transaction_id!r}.", "transaction_id")
    return {**txn_row(t), "account": account_row(_account(ctx.session, t.account_id))}


def _cursor(text: str | None) -> int:
    if not text:
        return 0
    try:
        raw = base64.urlsafe_b64decode(text.encode() + b"=" * (-len(text) % 4)).decode()
        m = re.fullmatch(r"seq:(\d+)", raw)
    except (ValueError, UnicodeDecodeError):
        m = None
    if not m:
        raise ToolError("The cursor is not one a previous sync returned.", "cursor")
    return int(m.group(1))


@service(READ)
def sync_transactions(ctx: ServiceContext, item_id: str, cursor: str | None = None, count: int = 100) -> dict:
    """Get the Item's transactions added since a cursor (/transactions/sync), oldest first: call
    again with `next_cursor` while `has_more` is true. No cursor starts from the beginning of the
    history Plaid holds (90 days). Plaid's sign: a positive amount is money out.

    Args:
        item_id: The Item's id, as the Items list shows it.
        cursor: The `next_cursor` of the previous call; empty for the first.
        count: Transactions per call, 1 to 500.
    """
    i = _item(ctx.session, item_id)
    if not 1 <= int(count) <= SYNC_MAX:
        raise ToolError(f"Count must be between 1 and {SYNC_MAX}.", "count")
    after = _cursor(cursor)
    ids = [a.account_id for a in _accounts(ctx.session, i.item_id)]
    rows = ctx.session.scalars(select(Transaction).where(Transaction.account_id.in_(ids), Transaction.seq > after)
                               .order_by(Transaction.seq).limit(int(count) + 1)).all()
    page, more = rows[:int(count)], len(rows) > int(count)
    last = page[-1].seq if page else after
    return {"added": [txn_row(t) for t in page], "modified": [], "removed": [],
            "next_cursor": base64.urlsafe_b64encode(f"seq:{last}".encode()).decode().rstrip("="),
            "has_more": more, "accounts": [account_row(a) for a in _accounts(ctx.session, i.item_id)]}


@service(READ)
def list_api_logs(ctx: ServiceContext, endpoint: str | None = None, item_id: str | None = None, page: int = 1,
                  per_page: int = 25, sort: str | None = None) -> dict:
    """List the API requests the company's integration made (the Dashboard's Logs), newest first.

    Args:
        endpoint: Only requests to this endpoint, e.g. /transactions/sync.
        item_id: Only requests about this Item.
        page: Page number, starting at 1.
        per_page: Requests per page, 1 to 100.
        sort: Sort by at or endpoint; a leading "-" sorts descending.
    """
    stmt = select(ApiLog)
    if endpoint:
        stmt = stmt.where(ApiLog.endpoint == endpoint.strip())
    if item_id:
        stmt = stmt.where(ApiLog.item_id == item_id.strip())
    stmt = stmt.order_by(*sort_order(sort, LOG_SORT, (ApiLog.at.desc(), ApiLog.request_id)))
    return paged(ctx.session, stmt, page, per_page, log_row)


@service(GUARDED)
def create_transfer(ctx: ServiceContext, account_id: str, type: Literal["debit", "credit"], amount: str,
                    description: str) -> dict:
    """Create a Plaid Transfer: an ACH debit pulling money from the account, or a credit pushing
    money to it. Moves money; needs a person's approval.

    Args:
        account_id: The account, by its Plaid account id.
        type: debit (pull from the account) or credit (push to it).
        amount: The amount in dollars, e.g. 125.00.
        description: The statement description, up to 15 characters.
    """
    a = _account(ctx.session, account_id)
    try:
        value = Decimal(str(amount).replace(",", "").strip())
    except (InvalidOperation, ValueError):
        raise ToolError("The amount is a number of dollars, e.g. 125.00.", "amount") from None
    if not value.is_finite() or value <= 0 or value != value.quantize(Decimal("0.01")):
        raise ToolError("The amount is more than zero, to the cent.", "amount")
    if type not in ("debit", "credit"):
        raise ToolError("The type is debit or credit.", "type")
    text = " ".join((description or "").split())
    if not 1 <= len(text) <= 15:
        raise ToolError("The description is 1 to 15 characters.", "description")
    return {"action": "create transfer", "account": f"{a.name} ••••{a.mask}", "type": type,
            "amount": f"{value:.2f}", "description": text}


