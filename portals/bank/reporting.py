"""Information Reporting: the company's accounts and balances, previous-day and intraday
transactions, and BAI2 files of a day's report (written with the `bai2` package, so their
account, group and file control totals are the package's own sums)."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Literal

from bai2 import writers as W
from bai2.constants import AsOfDateModifier, FundsType, GroupStatus, TypeCodes
from bai2.models import (Account as BaiAccount, AccountIdentifier, AccountTrailer, Bai2File, Bai2FileHeader,
                         Bai2FileTrailer, Group, GroupHeader, GroupTrailer, Summary, TransactionDetail)
from sqlalchemy import func, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.sorting import DATE, MONEY, TEXT, sort_order
from portals.core.tools import READ, Amount, service
from portals.core.paging import MAX_PER_PAGE, check_paging, paged  # noqa: F401 (re-exported)

from .models import Account, Transaction
from .settings import bank_settings

TYPE_NAMES = {code: t.description for code, t in TypeCodes.items()}
TYPE_CODES = {c: TYPE_NAMES[c] for c in ("165", "195", "206", "354", "455", "469", "475", "495", "506", "661", "673")}
TXN_SORT = {"date": (Transaction.posted_date, DATE), "amount": (Transaction.amount, MONEY),
            "type": (Transaction.type_code, TEXT), "description": (Transaction.description, TEXT),
            "reference": (Transaction.customer_reference, TEXT)}




def masked(number: str) -> str:
    return f"****{number[-4:]}"


def find_account(session, account: str | None) -> Account:
    """An account by its number, its last four digits or its name."""
    text = (account or "").strip()
    if not text:
        raise ToolError("Name the account: its number, its last four digits or its name.", "account")
    rows = session.scalars(select(Account).order_by(Account.number)).all()
    found = [a for a in rows if text in (a.number, a.number[-4:], masked(a.number), str(a.account_id))
             or a.name.lower() == text.lower()]
    if not found:
        raise NotFound(f"There is no account {text[:40]!r}.", "account")
    if len(found) > 1:
        raise ToolError(f"{text!r} matches more than one account; give the full account number.", "account")
    return found[0]


def ledger_before(session, account: Account, day: str) -> Decimal:
    """The ledger balance at the start of `day`: the opening balance plus everything posted before."""
    # summed as Decimal: SQLite's float sum would round the cents
    rows = session.execute(select(Transaction.amount, Transaction.direction).where(
        Transaction.account_id == account.account_id, Transaction.posted_date < day)).all()
    total = account.opening_balance
    for amount, direction in rows:
        total += amount if direction == "credit" else -amount
    return total


def day_items(session, account: Account, day: str) -> list[Transaction]:
    return session.scalars(select(Transaction).where(Transaction.account_id == account.account_id,
                                                     Transaction.posted_date == day)
                           .order_by(Transaction.direction, Transaction.type_code, Transaction.txn_id)).all()


def day_summary(session, account: Account, day: str) -> dict:
    opening = ledger_before(session, account, day)
    items = day_items(session, account, day)
    credits = [t.amount for t in items if t.direction == "credit"]
    debits = [t.amount for t in items if t.direction == "debit"]
    closing = opening + sum(credits, Decimal(0)) - sum(debits, Decimal(0))
    return {"date": day, "opening_ledger": opening, "closing_ledger": closing,
            "total_credits": sum(credits, Decimal("0.00")), "credit_count": len(credits),
            "total_debits": sum(debits, Decimal("0.00")), "debit_count": len(debits)}


def account_row(a: Account) -> dict:
    return {"account_id": a.account_id, "account_number": a.number, "account_masked": masked(a.number),
            "name": a.name, "type": a.kind, "entity": a.entity, "routing_number": a.routing_number,
            "currency": a.currency, "positive_pay": a.positive_pay, "ach_company_id": a.ach_company_id}


def txn_row(t: Transaction, a: Account) -> dict:
    return {"transaction_id": t.txn_id, "account_number": a.number, "account_name": a.name,
            "posted_date": t.posted_date, "type_code": t.type_code, "type": TYPE_NAMES.get(t.type_code, t.type_code),
            "direction": t.direction, "amount": t.amount, "bank_reference": t.bank_reference,
            "customer_reference": t.customer_reference, "description": t.description, "status": t.status}


@service(READ)
def list_accounts(ctx: ServiceContext) -> dict:
    """List the company's accounts at the bank with today's ledger and available balances.

    Account numbers here are the bank's; the ERP knows each account by its GL cash account.
    """
    today = ctx.clock.today().isoformat()
    out = []
    for a in ctx.session.scalars(select(Account).order_by(Account.name)).all():
        s = day_summary(ctx.session, a, today)
        out.append({**account_row(a), "gl_account": a.gl_account, "previous_day_closing_ledger": s["opening_ledger"],
                    "current_ledger": s["closing_ledger"], "current_available": s["closing_ledger"]})
    return {"as_of": ctx.clock.iso(), "items": out, "total": len(out)}


@service(READ)
def get_balances(ctx: ServiceContext, account: str | None = None, as_of_date: date | None = None) -> dict:
    """Balances of one account or of every account: for a past day, its opening and closing ledger and
    the day's total credits and debits; for today, the intraday position so far.

    Args:
        account: The account's number, last four digits or name; every account when left out.
        as_of_date: The business day, YYYY-MM-DD; today when left out.
    """
    today = ctx.clock.today()
    day = as_of_date or today
    if day > today:
        raise ToolError(f"{day.isoformat()} is in the future; balances are known up to today.", "as_of_date")
    rows = [find_account(ctx.session, account)] if account else \
        ctx.session.scalars(select(Account).order_by(Account.name)).all()
    first = min(a.opening_date for a in rows)
    if day.isoformat() < first:
        raise ToolError(f"Balances are kept online from {first}.", "as_of_date")
    items = []
    for a in rows:
        s = day_summary(ctx.session, a, day.isoformat())
        items.append({**account_row(a), **s, "closing_available": s["closing_ledger"],
                      "report": "intraday" if day == today else "previous_day"})
    return {"as_of_date": day.isoformat(), "items": items}


@service(READ)
def search_transactions(ctx: ServiceContext, account: str | None = None, date_from: date | None = None,
                        date_to: date | None = None, report: Literal["previous_day", "intraday"] | None = None,
                        direction: Literal["credit", "debit"] | None = None, type_code: str | None = None,
                        query: str | None = None, reference: str | None = None, amount_min: Amount | None = None,
                        amount_max: Amount | None = None, page: int = 1, per_page: int = 25,
                        sort: str | None = None) -> dict:
    """Search the accounts' transactions (a year online), newest first.

    Args:
        account: Only this account (its number, last four digits or name).
        date_from: First posting date, YYYY-MM-DD.
        date_to: Last posting date, YYYY-MM-DD.
        report: previous_day (the last business day's items) or intraday (today's items so far).
        direction: credit or debit.
        type_code: The BAI2 type code, e.g. 475 for a paid check.
        query: Words to find in the bank's description.
        reference: The customer reference (a check's serial number), exactly.
        amount_min: Smallest amount, e.g. 1000.00.
        amount_max: Largest amount.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
        sort: Sort by date, amount, type, description or reference; a leading "-" sorts descending.
    """
    stmt = select(Transaction, Account).join(Account, Account.account_id == Transaction.account_id)
    if account:
        stmt = stmt.where(Transaction.account_id == find_account(ctx.session, account).account_id)
    today = ctx.clock.today()
    if report == "intraday":
        stmt = stmt.where(Transaction.posted_date == today.isoformat())
    elif report == "previous_day":
        prev = ctx.session.scalar(select(func.max(Transaction.posted_date)).where(Transaction.posted_date < today.isoformat()))
        stmt = stmt.where(Transaction.posted_date == (prev or ""))
    if date_from and date_to and date_from > date_to:
        raise ToolError("The first date is after the last date.", "date_from")
    if date_from:
        stmt = stmt.where(Transaction.posted_date >= date_from.isoformat())
    if date_to:
        stmt = stmt.where(Transaction.posted_date <= date_to.isoformat())
    if direction:
        stmt = stmt.where(Transaction.direction == direction)
    if type_code:
        code = type_code.strip()
        if code not in TYPE_NAMES:
            raise ToolError(f"{code[:10]!r} is not a BAI2 type code.", "type_code")
        stmt = stmt.where(Transaction.type_code == code)
    for word in (query or "").split():
        stmt = stmt.where(Transaction.description.ilike(f"%{word}%"))
    if reference:
        stmt = stmt.where(Transaction.customer_reference == reference.strip())
    low, high = amount_min, amount_max
    if low is not None or high is not None:  # money is text in storage: compare as numbers in Python
        ids = [t.txn_id for t, _a in ctx.session.execute(stmt).all()
               if (low is None or t.amount >= low) and (high is None or t.amount <= high)]
        stmt = stmt.where(Transaction.txn_id.in_(ids or [-1]))
    stmt = stmt.order_by(*sort_order(sort, TXN_SORT, (Transaction.posted_date.desc(), Transaction.txn_id)))
    return paged(ctx.session, stmt, page, per_page, txn_row)


@service(READ)
def get_transaction(ctx: ServiceContext, transaction_id: int) -> dict:
    """Get one transaction with its bank and customer references and the bank's full description.

    Args:
        transaction_id: The transaction's id, as the search returns it.
    """
    t = ctx.session.get(Transaction, transaction_id)
    if t is None:
        raise NotFound(f"There is no transaction with id {transaction_id}.", "transaction_id")
    return txn_row(t, ctx.session.get(Account, t.account_id))


def _wide(cls, **classes):
    """The package's writer with variable-length records (no physical record length), passed down to
    every record: no field or text is split over a continuation record."""
    def __init__(self, obj, **_kw):
        cls.__init__(self, obj, line_length=4096)
    return type(f"Wide{cls.__name__}", (cls,), {"__init__": __init__, **classes})


_AccountWriter = _wide(W.AccountWriter, header_writer_class=_wide(W.AccountIdentifierWriter),
                       child_writer_class=_wide(W.TransactionDetailWriter))
_FileWriter = _wide(W.Bai2FileWriter, child_writer_class=_wide(W.GroupWriter, child_writer_class=_AccountWriter))


def _cents(amount: Decimal) -> int:
    return int((amount * 100).to_integral_value())


def build_bai2(ctx: ServiceContext, report: str, day: date, accounts: list[Account]) -> str:
    cfg = bank_settings(ctx.spec)
    now = ctx.clock.now()
    local = cfg.local(now)
    codes = TypeCodes
    group_accounts = []
    for a in accounts:
        s = day_summary(ctx.session, a, day.isoformat())
        if report == "intraday":
            summaries = [Summary(type_code=codes["040"], amount=_cents(s["opening_ledger"])),
                         Summary(type_code=codes["030"], amount=_cents(s["closing_ledger"]))]
        else:
            summaries = [Summary(type_code=codes["010"], amount=_cents(s["opening_ledger"])),
                         Summary(type_code=codes["015"], amount=_cents(s["closing_ledger"])),
                         Summary(type_code=codes["040"], amount=_cents(s["opening_ledger"])),
                         Summary(type_code=codes["045"], amount=_cents(s["closing_ledger"]))]
        summaries += [Summary(type_code=codes["100"], amount=_cents(s["total_credits"]), item_count=s["credit_count"],
                              funds_type=FundsType.immediate_availability),
                      Summary(type_code=codes["400"], amount=_cents(s["total_debits"]), item_count=s["debit_count"],
                              funds_type=FundsType.immediate_availability)]
        details = [TransactionDetail(type_code=codes[t.type_code], amount=_cents(t.amount),
                                     funds_type=FundsType.immediate_availability, bank_reference=t.bank_reference,
                                     customer_reference=t.customer_reference or None, text=t.description)
                   for t in day_items(ctx.session, a, day.isoformat())]
        group_accounts.append(BaiAccount(header=AccountIdentifier(customer_account_number=a.number, currency="USD",
                                                                  summary_items=summaries),
                                         trailer=AccountTrailer(), children=details))
    modifier = AsOfDateModifier.interim_same_day if report == "intraday" else AsOfDateModifier.final_previous_day
    as_of_time = time(local.hour, local.minute) if report == "intraday" else time.max
    group = Group(header=GroupHeader(ultimate_receiver_id="COMPANYA", originator_id=cfg.routing_number,
                                     group_status=GroupStatus.update, as_of_date=day, as_of_time=as_of_time,
                                     currency="USD", as_of_date_modifier=modifier),
                  trailer=GroupTrailer(), children=group_accounts)
    file_id = str(stable_id(ctx.app, "bai2", report, day.isoformat(), *[a.number for a in accounts]))[:8]
    bai = Bai2File(header=Bai2FileHeader(sender_id=cfg.sender_id, receiver_id="COMPANYA", creation_date=local.date(),
                                         creation_time=time(local.hour, local.minute), file_id=file_id,
                                         physical_record_length=None, block_size=None, version_number=2),
                   trailer=Bai2FileTrailer(), children=[group])
    return "\n".join(_FileWriter(bai).write()) + "\n"


@service(READ)
def download_bai2(ctx: ServiceContext, report: Literal["previous_day", "intraday"] = "previous_day",
                  as_of_date: date | None = None, account: str | None = None) -> dict:
    """A day's Information Reporting as a BAI2 file: per account its balances (opening and closing
    ledger, or intraday current ledger), total credits and debits, and every item with its type code.

    Args:
        report: previous_day (a past business day, final) or intraday (today so far).
        as_of_date: For previous_day, the business day, YYYY-MM-DD; the last business day when left out.
        account: Only this account (number, last four digits or name); every account when left out.
    """
    today = ctx.clock.today()
    if report == "intraday":
        if as_of_date and as_of_date != today:
            raise ToolError("The intraday report is today's; ask for previous_day for another day.", "as_of_date")
        day = today
    else:
        day = as_of_date or date.fromisoformat(ctx.session.scalar(
            select(func.max(Transaction.posted_date)).where(Transaction.posted_date < today.isoformat())) or today.isoformat())
        if day >= today:
            raise ToolError("A previous-day report is for a day before today; today's items are in the intraday report.",
                            "as_of_date")
        if day.weekday() >= 5:
            raise ToolError(f"{day.isoformat()} is a {day.strftime('%A')}; the bank reports business days.", "as_of_date")
    accounts = [find_account(ctx.session, account)] if account else \
        ctx.session.scalars(select(Account).order_by(Account.number)).all()
    first = min(a.opening_date for a in accounts)
    if day.isoformat() < first:
        raise ToolError(f"Reports are kept online from {first}.", "as_of_date")
    text = build_bai2(ctx, report, day, accounts)
    kind = "INTRADAY" if report == "intraday" else "PREVDAY"
    return {"name": f"BAI2_{kind}_{day.strftime('%Y%m%d')}.bai", "report": report, "as_of_date": day.isoformat(),
            "accounts": [a.number for a in accounts], "size": len(text), "content": text}


def previous_business_day(today: date) -> date:
    day = today - timedelta(days=1)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


def now_local(ctx: ServiceContext) -> datetime:
    return bank_settings(ctx.spec).local(ctx.clock.now())


