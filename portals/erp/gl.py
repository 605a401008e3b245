"""General ledger: the chart of accounts and draft journal entries."""
from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated

from sqlalchemy import func, or_, select

from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.money import parse_amount
from portals.core.tools import READ, WRITE, MaxLen, service

from . import lookups as L
from .models import GLAccount, Job, JournalEntry, JournalLine

LINE_FORMAT = "account|Dr or Cr|amount|job (optional)|memo (optional)"


@service(READ)
def list_gl_accounts(ctx, search: str | None = None, page: int = 1, per_page: int = 100) -> dict:
    """List the chart of accounts.

    Args:
        search: Part of the account number or title.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = select(GLAccount)
    if search:
        query = query.where(or_(L.name_match(GLAccount.account, search), L.name_match(GLAccount.title, search)))
    shape = lambda a: {"account": a.account, "title": a.title, "type": a.type,  # noqa: E731
                       "normal_balance": a.normal_balance}
    return L.page_of(ctx, query.order_by(GLAccount.account), page, per_page, shape)


def _parse_line(ctx, n: int, text: str) -> dict:
    parts = [p.strip() for p in text.split("|")]
    if len(parts) < 3 or len(parts) > 5:
        raise ToolError(f"Line {n} '{text[:60]}' must read {LINE_FORMAT}, e.g. 9990|Dr|12345.67|9999|June accrual.",
                        "lines")
    parts += [""] * (5 - len(parts))
    account, side, amount, job, memo = parts
    if ctx.session.get(GLAccount, account) is None:
        raise ToolError(f"Line {n}: there is no GL account {account!r}.", "lines")
    if side.lower() not in ("dr", "cr", "debit", "credit"):
        raise ToolError(f"Line {n}: say Dr or Cr, not {side[:20]!r}.", "lines")
    value = parse_amount(amount, f"Line {n} amount", allow_zero=False)
    if job and ctx.session.get(Job, job) is None:
        raise ToolError(f"Line {n}: there is no {ctx.spec.word('job').lower()} {job!r}.", "lines")
    if len(memo) > 200:
        raise ToolError(f"Line {n}: the memo is longer than 200 characters.", "lines")
    debit = side.lower() in ("dr", "debit")
    return {"account": account, "debit": value if debit else Decimal("0.00"),
            "credit": Decimal("0.00") if debit else value, "job": job or None, "memo": memo}


@service(WRITE)
def create_journal_entry(ctx, entry_date: date, description: Annotated[str, MaxLen(300)],
                         lines: list[str]) -> dict:
    """Create a DRAFT general-ledger journal entry; debits must equal credits. A person posts it later.

    Args:
        entry_date: The GL date of the entry, YYYY-MM-DD.
        description: What the entry is for, e.g. "June subcontractor accrual, job 9999".
        lines: Two or more lines, each "account|Dr or Cr|amount|job (optional)|memo (optional)", e.g. ["9990|Dr|12345.67|9999|Accrue June sub cost", "9991|Cr|12345.67|9999|Accrue June sub cost"].
    """
    if not description.strip():
        raise ToolError("Describe the journal entry.", "description")
    if len(lines) < 2:
        raise ToolError(f"A journal entry needs at least two lines, each {LINE_FORMAT}.", "lines")
    parsed = [_parse_line(ctx, n, text) for n, text in enumerate(lines, start=1)]
    debits = sum((p["debit"] for p in parsed), start=Decimal("0.00"))
    credits = sum((p["credit"] for p in parsed), start=Decimal("0.00"))
    if debits != credits:
        raise ToolError(f"The entry does not balance: debits {debits} and credits {credits}.", "lines")
    count = ctx.session.scalar(select(func.count()).select_from(JournalEntry))
    entry_id = f"JE-{stable_id(ctx.app, 'journal', count + 1)}"
    entry = JournalEntry(entry_id=entry_id, entry_date=entry_date.isoformat(), description=description.strip(),
                         state="draft", total=debits, entered_at=ctx.clock.iso())
    ctx.session.add(entry)
    for n, p in enumerate(parsed, start=1):
        ctx.session.add(JournalLine(line_key=f"{entry_id}-{n}", entry_id=entry_id, line_no=n, **p))
    return {"entry_id": entry_id, "entry_date": entry.entry_date, "description": entry.description,
            "state": "draft", "total": debits, "lines": [{"line_no": n, **p} for n, p in enumerate(parsed, 1)]}


@service(READ)
def get_journal_entry(ctx, entry_id: str) -> dict:
    """Get one journal entry with its lines.

    Args:
        entry_id: The entry id, e.g. JE-123456789.
    """
    entry = ctx.session.get(JournalEntry, entry_id.strip())
    if entry is None:
        raise ToolError(f"There is no journal entry {entry_id.strip()!r}.", "entry_id", code="not_found")
    lines = ctx.session.scalars(select(JournalLine).where(JournalLine.entry_id == entry.entry_id)
                                .order_by(JournalLine.line_no))
    return {"entry_id": entry.entry_id, "entry_date": entry.entry_date, "description": entry.description,
            "state": entry.state, "total": entry.total,
            "lines": [{"line_no": ln.line_no, "account": ln.account, "debit": ln.debit, "credit": ln.credit,
                       "job": ln.job, "memo": ln.memo} for ln in lines]}
