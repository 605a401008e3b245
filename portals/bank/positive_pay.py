"""Positive Pay: the issue files the company uploads from its ERP's check register, the issued checks
they hold, and the day's check exceptions: presented items the bank could not match on serial,
amount and payee. Where the bank stages decisions (CashPro), a Pay or Return decision is staged on
each exception (a write) and submitting the day's decisions before the cutoff is a person's step
(guarded); where a decision goes to the bank the moment it is made (Chase), deciding an exception
is itself the person's step. An exception left undecided at the cutoff gets the account's default
decision."""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Literal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.sorting import DATE, MONEY, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, Amount, MaxLen, Text, service

from .issue_file import file_digest, issue_lines, parse_issue_file, render_issue_file
from .models import Account, CheckException, IssuedCheck, IssueFile, Transaction
from .reporting import find_account, masked, paged
from .settings import bank_settings

FileName = Annotated[str, MaxLen(80)]
Content = Annotated[str, MaxLen(400_000)]
ISSUED_SORT = {"serial": (IssuedCheck.serial, TEXT), "issue_date": (IssuedCheck.issue_date, DATE),
               "amount": (IssuedCheck.amount, MONEY), "payee": (IssuedCheck.payee, TEXT),
               "status": (IssuedCheck.status, TEXT)}
EXCEPTION_SORT = {"serial": (CheckException.serial, TEXT), "amount": (CheckException.presented_amount, MONEY),
                  "reason": (CheckException.reason, TEXT), "payee": (CheckException.presented_payee, TEXT)}
FILE_SORT = {"uploaded_at": (IssueFile.uploaded_at, DATE), "name": (IssueFile.name, TEXT),
             "issued_total": (IssueFile.issued_total, MONEY)}


def cutoff(ctx: ServiceContext, day: str) -> dict:
    cfg = bank_settings(ctx.spec)
    at = cfg.cutoff_utc(day)
    now = ctx.clock.now()
    minutes = int((at - now).total_seconds() // 60)
    return {"cutoff": at.strftime("%Y-%m-%dT%H:%M:%SZ"), "cutoff_local": f"{day} {cfg.cutoff_text()}",
            "open": minutes > 0 and day == ctx.clock.today().isoformat(), "minutes_left": max(minutes, 0),
            "default_decision": cfg.default_decision}


def file_row(f: IssueFile, a: Account | None) -> dict:
    return {"file_id": f.file_id, "name": f.name, "account_number": a.number if a else None,
            "account_masked": masked(a.number) if a else None, "uploaded_at": f.uploaded_at,
            "uploaded_by": f.uploaded_by, "records": f.records, "issued_total": f.issued_total,
            "voided_total": f.voided_total, "status": f.status}


def issued_row(c: IssuedCheck, a: Account | None = None) -> dict:
    return {"issued_id": c.issued_id, "account_number": a.number if a else None, "serial": c.serial,
            "issue_date": c.issue_date, "amount": c.amount, "payee": c.payee, "status": c.status,
            "paid_date": c.paid_date, "file_id": c.file_id}


def exception_row(e: CheckException, a: Account | None, issued: IssuedCheck | None) -> dict:
    return {"exception_id": e.exception_id, "account_number": a.number if a else None,
            "account_masked": masked(a.number) if a else None, "presented_date": e.presented_date,
            "serial": e.serial, "presented_amount": e.presented_amount, "presented_payee": e.presented_payee,
            "reason": e.reason, "issued": issued_row(issued) if issued else None,
            "default_decision": e.default_decision, "decision": e.decision, "decision_reason": e.decision_reason,
            "decided_by": e.decided_by, "decided_at": e.decided_at, "status": e.status}


@service(READ)
def list_issue_files(ctx: ServiceContext, account: str | None = None, page: int = 1, per_page: int = 25,
                     sort: str | None = None) -> dict:
    """List the positive-pay issue files uploaded, newest first.

    Args:
        account: Only this account's files (its number, last four digits or name).
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
        sort: Sort by uploaded_at, name or issued_total; a leading "-" sorts descending.
    """
    stmt = select(IssueFile, Account).outerjoin(Account, Account.account_id == IssueFile.account_id)
    if account:
        stmt = stmt.where(IssueFile.account_id == find_account(ctx.session, account).account_id)
    stmt = stmt.order_by(*sort_order(sort, FILE_SORT, (IssueFile.uploaded_at.desc(), IssueFile.file_id)))
    return paged(ctx.session, stmt, page, per_page, file_row)


def _file_text(session, f: IssueFile) -> str:
    a = session.get(Account, f.account_id)
    # A file loaded twice holds the same lines both times; its void lines voided the check once.
    twins = session.scalars(select(IssueFile.file_id).where(IssueFile.digest == f.digest)).all()
    issued = session.scalars(select(IssuedCheck).where(or_(IssuedCheck.file_id == f.file_id,
                                                           IssuedCheck.void_file_id.in_(twins)))).all()
    rows = [("I", c.serial, c.issue_date, c.amount, c.payee) for c in issued if c.file_id == f.file_id]
    rows += [("V", c.serial, c.issue_date, c.amount, c.payee) for c in issued if c.void_file_id in twins]
    return render_issue_file(a.number, issue_lines(rows))


@service(READ)
def download_issue_file(ctx: ServiceContext, file_id: int) -> dict:
    """An uploaded issue file as the bank holds it (CSV: account, check number, issue date, amount,
    payee, action I to issue or V to void).

    Args:
        file_id: The issue file's id, as the file list returns it.
    """
    f = ctx.session.get(IssueFile, file_id)
    if f is None:
        raise NotFound(f"There is no issue file with id {file_id}.", "file_id")
    text = _file_text(ctx.session, f)
    return {**file_row(f, ctx.session.get(Account, f.account_id)), "content": text}


@service(WRITE)
def upload_issue_file(ctx: ServiceContext, file_name: FileName, content: Content) -> dict:
    """Upload a positive-pay issue file exported from the ERP's check register. Every line is checked
    first; a bad line, a check already on an issue record or a file already loaded loads nothing.

    Args:
        file_name: The file's name, e.g. ISSUE_YYYYMMDD.csv.
        content: The file's text: the header line Account Number,Check Number,Issue Date,Amount,Payee,Action,
            then one line per check (action I issues it, V voids an issued check).
    """
    name = file_name.strip()
    if not name:
        raise ToolError("The file needs a name.", "file_name")
    records = parse_issue_file(content)
    digest = file_digest(content)
    twin = ctx.session.scalar(select(IssueFile).where(IssueFile.digest == digest, IssueFile.status == "Processed"))
    if twin is not None:
        raise ToolError(f"This file was already loaded on {twin.uploaded_at[:10]} as {twin.name}; nothing was loaded.",
                        "content")
    accounts = {a.number: a for a in ctx.session.scalars(select(Account)).all()}
    numbers = {r["account_number"] for r in records}
    if len(numbers) != 1:
        raise ToolError("An issue file is for one account; this one names several.", "content")
    account = accounts.get(numbers.pop())
    if account is None or account.positive_pay == "None":
        raise ToolError("The file's account number is not an account with Positive Pay.", "content")
    seen = set()
    for r in records:
        key = (r["serial"], r["action"])
        if key in seen:
            raise ToolError(f"Line {r['line']}: check {r['serial']} appears twice in the file.", "content")
        seen.add(key)
        existing = ctx.session.scalar(select(IssuedCheck).where(IssuedCheck.account_id == account.account_id,
                                                                IssuedCheck.serial == r["serial"]))
        if r["action"] == "I" and existing is not None:
            raise ToolError(f"Line {r['line']}: check {r['serial']} is already on an issue record "
                            f"({existing.issue_date}, {existing.amount}); nothing was loaded.", "content")
        if r["action"] == "V":
            if existing is None and (r["serial"], "I") not in seen:
                raise ToolError(f"Line {r['line']}: check {r['serial']} was never issued, so it cannot be voided.",
                                "content")
            if existing is not None and existing.status in ("Paid", "Void"):
                raise ToolError(f"Line {r['line']}: check {r['serial']} is already {existing.status.lower()}.", "content")
    count = len(ctx.session.scalars(select(IssueFile.file_id)).all())
    f = IssueFile(file_id=stable_id(ctx.app, "upload", digest, count), account_id=account.account_id, name=name,
                  uploaded_at=ctx.clock.iso(), uploaded_by=bank_settings(ctx.spec).uploaded_by, records=len(records),
                  issued_total=sum((r["amount"] for r in records if r["action"] == "I"), start=Decimal("0.00")),
                  voided_total=sum((r["amount"] for r in records if r["action"] == "V"), start=Decimal("0.00")),
                  status="Processed", digest=digest)
    ctx.session.add(f)
    for r in records:
        if r["action"] == "I":
            ctx.session.add(IssuedCheck(issued_id=stable_id(ctx.app, "issued", r["serial"]), account_id=account.account_id,
                                        file_id=f.file_id, serial=r["serial"], issue_date=r["issue_date"],
                                        amount=r["amount"], payee=r["payee"], status="Outstanding", void_file_id=None,
                                        paid_date=None))
    ctx.session.flush()
    for r in records:
        if r["action"] == "V":
            row = ctx.session.scalar(select(IssuedCheck).where(IssuedCheck.account_id == account.account_id,
                                                               IssuedCheck.serial == r["serial"]))
            row.status, row.void_file_id = "Void", f.file_id
    ctx.session.flush()
    return file_row(f, account)


@service(READ)
def search_issued_checks(ctx: ServiceContext, account: str | None = None, serial: str | None = None,
                         status: Literal["Outstanding", "Paid", "Void", "Stale"] | None = None,
                         payee: str | None = None, date_from: date | None = None, date_to: date | None = None,
                         amount: Amount | None = None, page: int = 1, per_page: int = 25,
                         sort: str | None = None) -> dict:
    """Search the issue records: the checks the company told the bank it wrote, with their status.

    Args:
        account: Only this account (its number, last four digits or name).
        serial: The check number, exactly.
        status: Outstanding, Paid, Void or Stale.
        payee: Words to find in the payee.
        date_from: First issue date, YYYY-MM-DD.
        date_to: Last issue date, YYYY-MM-DD.
        amount: The check's amount, exactly.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
        sort: Sort by serial, issue_date, amount, payee or status; a leading "-" sorts descending.
    """
    stmt = select(IssuedCheck, Account).outerjoin(Account, Account.account_id == IssuedCheck.account_id)
    if account:
        stmt = stmt.where(IssuedCheck.account_id == find_account(ctx.session, account).account_id)
    if serial:
        stmt = stmt.where(IssuedCheck.serial == serial.strip().lstrip("0"))
    if status:
        stmt = stmt.where(IssuedCheck.status == status)
    for word in (payee or "").split():
        stmt = stmt.where(IssuedCheck.payee.ilike(f"%{word}%"))
    if date_from:
        stmt = stmt.where(IssuedCheck.issue_date >= date_from.isoformat())
    if date_to:
        stmt = stmt.where(IssuedCheck.issue_date <= date_to.isoformat())
    if amount is not None:
        stmt = stmt.where(IssuedCheck.amount == amount)
    stmt = stmt.order_by(*sort_order(sort, ISSUED_SORT, (IssuedCheck.issue_date.desc(), IssuedCheck.serial.desc())))
    return paged(ctx.session, stmt, page, per_page, issued_row)


def _exception_rows(session, stmt):
    return stmt.outerjoin(Account, Account.account_id == CheckException.account_id) \
        .outerjoin(IssuedCheck, IssuedCheck.issued_id == CheckException.issued_id)


@service(READ)
def list_exceptions(ctx: ServiceContext, presented_date: date | None = None,
                    status: Literal["Open", "Submitted"] | None = None,
                    decision: Literal["Pay", "Return", "Undecided"] | None = None, account: str | None = None,
                    page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List the check exceptions presented on a day (today when left out): each with the serial,
    amount and payee the bank read off the item, the reason it did not match, the issue record it
    was compared with, and the decision staged on it. Decisions are due by the cutoff.

    Args:
        presented_date: The day the checks were presented, YYYY-MM-DD; today when left out.
        status: Open (decisions not yet submitted) or Submitted.
        decision: Pay, Return or Undecided (no decision staged yet).
        account: Only this account (its number, last four digits or name).
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
        sort: Sort by serial, amount, reason or payee; a leading "-" sorts descending.
    """
    day = (presented_date or ctx.clock.today()).isoformat()
    stmt = _exception_rows(ctx.session, select(CheckException, Account, IssuedCheck)).where(
        CheckException.presented_date == day)
    if status:
        stmt = stmt.where(CheckException.status == status)
    if decision == "Undecided":
        stmt = stmt.where(CheckException.decision.is_(None))
    elif decision:
        stmt = stmt.where(CheckException.decision == decision)
    if account:
        stmt = stmt.where(CheckException.account_id == find_account(ctx.session, account).account_id)
    stmt = stmt.order_by(*sort_order(sort, EXCEPTION_SORT, (CheckException.serial,)))
    return {**paged(ctx.session, stmt, page, per_page, exception_row), **cutoff(ctx, day), "presented_date": day}


def exception_by_id(session, exception_id: int) -> CheckException:
    e = session.get(CheckException, exception_id)
    if e is None:
        raise NotFound(f"There is no check exception with id {exception_id}.", "exception_id")
    return e


@service(READ)
def get_exception(ctx: ServiceContext, exception_id: int) -> dict:
    """Get one check exception: the presented item, the issue record with that serial (if any), and
    any earlier payment of a check with the same serial.

    Args:
        exception_id: The exception's id, as the exception list returns it.
    """
    e = exception_by_id(ctx.session, exception_id)
    a = ctx.session.get(Account, e.account_id)
    issued = ctx.session.get(IssuedCheck, e.issued_id) if e.issued_id else None
    paid = ctx.session.scalars(select(Transaction).where(Transaction.account_id == e.account_id,
                                                         Transaction.type_code == "475",
                                                         Transaction.customer_reference == e.serial)
                               .order_by(Transaction.posted_date)).all()
    return {**exception_row(e, a, issued), **cutoff(ctx, e.presented_date),
            "earlier_payments": [{"transaction_id": t.txn_id, "posted_date": t.posted_date, "amount": t.amount}
                                 for t in paid]}


@service(WRITE)
def stage_decision(ctx: ServiceContext, exception_id: int, decision: Literal["Pay", "Return"],
                   reason: Text = "") -> dict:
    """Stage a Pay or Return decision on a check exception, with the reason. Staging sends nothing to
    the bank: the day's decisions take effect only when a person submits them before the cutoff.

    Args:
        exception_id: The exception's id.
        decision: Pay (honour the check) or Return (refuse it).
        reason: Why, in words (what matched or what did not).
    """
    e = exception_by_id(ctx.session, exception_id)
    if e.status != "Open":
        raise ToolError(f"The decisions for check {e.serial} were already submitted.", "exception_id")
    window = cutoff(ctx, e.presented_date)
    if not window["open"]:
        raise ToolError(f"The decision window for {e.presented_date} closed at {window['cutoff_local']}.",
                        "exception_id")
    e.decision, e.decision_reason = decision, reason.strip() or None
    e.decided_by, e.decided_at = bank_settings(ctx.spec).login_of("Controller"), ctx.clock.iso()
    ctx.session.flush()
    return exception_row(e, ctx.session.get(Account, e.account_id),
                         ctx.session.get(IssuedCheck, e.issued_id) if e.issued_id else None)


@service(GUARDED)
def submit_decisions(ctx: ServiceContext, presented_date: date | None = None, account: str | None = None) -> dict:
    """Submit the day's staged Pay / Return decisions to the bank. Needs a person: nothing is submitted here.

    Args:
        presented_date: The day's exceptions, YYYY-MM-DD; today when left out.
        account: Only this account's exceptions (number, last four digits or name).
    """
    day = (presented_date or ctx.clock.today()).isoformat()
    stmt = select(CheckException).where(CheckException.presented_date == day, CheckException.status == "Open")
    if account:
        stmt = stmt.where(CheckException.account_id == find_account(ctx.session, account).account_id)
    rows = ctx.session.scalars(stmt.order_by(CheckException.serial)).all()
    if not rows:
        raise ToolError(f"There are no open check exceptions for {day}.", "presented_date")
    window = cutoff(ctx, day)
    if not window["open"]:
        raise ToolError(f"The decision window for {day} closed at {window['cutoff_local']}.", "presented_date")
    staged = [r for r in rows if r.decision]
    if not staged:
        raise ToolError("No decision is staged yet; stage Pay or Return on the exceptions first.", "presented_date")
    return {"action": "submit decisions", "presented_date": day,
            "decisions": [{"serial": r.serial, "decision": r.decision} for r in staged],
            "undecided": [r.serial for r in rows if not r.decision], "default_decision": window["default_decision"]}


@service(GUARDED)
def decide_exception(ctx: ServiceContext, exception_id: int, decision: Literal["Pay", "Return"],
                     reason: Text = "") -> dict:
    """Decide Pay or Return on one check exception. The decision goes to the bank as soon as it is
    made, so it needs a person: nothing is decided here.

    Args:
        exception_id: The exception's id, as the exception list returns it.
        decision: Pay (honour the check) or Return (refuse it).
        reason: Why, in words (what matched or what did not).
    """
    e = exception_by_id(ctx.session, exception_id)
    if e.status != "Open" or e.decision:
        raise ToolError(f"Check {e.serial} was already decided.", "exception_id")
    window = cutoff(ctx, e.presented_date)
    if not window["open"]:
        raise ToolError(f"The decision window for {e.presented_date} closed at {window['cutoff_local']}.",
                        "exception_id")
    return {"action": "decide", "exception_id": e.exception_id, "serial": e.serial,
            "presented_date": e.presented_date, "decision": decision, "reason": reason.strip() or None}
