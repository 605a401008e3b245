"""General ledger: the chart of accounts and draft journal entries.

An entry is saved as a draft; posting it to the ledger is a person's step (GUARDED). Lines carry
the job-cost dimensions (job, cost code, cost type), and an entry may be auto-reversing: it
reverses itself on its reversal date, as a month-end accrual does on the first of next month.
GL dates before the current month are in closed periods and are refused, and so are the dates an
entity has closed early (its books closed through a later month end) on the lines of its jobs.
"""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Annotated

from sqlalchemy import func, or_, select

from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.money import parse_amount
from portals.core.tools import GUARDED, READ, WRITE, MaxLen, service

from . import lookups as L
from .models import CostCode, CostType, Entity, EntityProject, GLAccount, Job, JournalEntry, JournalLine

LINE_FORMAT = "account|Dr or Cr|amount|job|cost code|cost type|memo (job, cost code, cost type and memo optional)"


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
    if len(parts) < 3 or len(parts) > 7:
        raise ToolError(f"Line {n} '{text[:60]}' must read {LINE_FORMAT}, e.g. 9990|Dr|12345.67 or "
                        "9990|Dr|12345.67|<job>|<cost code>|<cost type>|June accrual.", "lines")
    parts += [""] * (7 - len(parts))
    account, side, amount, job, cost_code, cost_type, memo = parts
    if ctx.session.get(GLAccount, account) is None:
        raise ToolError(f"Line {n}: there is no GL account {account!r}.", "lines")
    if side.lower() not in ("dr", "cr", "debit", "credit"):
        raise ToolError(f"Line {n}: say Dr or Cr, not {side[:20]!r}.", "lines")
    value = parse_amount(amount, f"Line {n} amount", allow_zero=False)
    if job and ctx.session.get(Job, job) is None:
        raise ToolError(f"Line {n}: there is no {ctx.spec.word('job').lower()} {job!r}.", "lines")
    if cost_code and not job:
        raise ToolError(f"Line {n}: a {ctx.spec.word('cost_code').lower()} needs its {ctx.spec.word('job').lower()}.",
                        "lines")
    if cost_code and ctx.session.get(CostCode, cost_code) is None:
        raise ToolError(f"Line {n}: there is no {ctx.spec.word('cost_code').lower()} {cost_code!r}.", "lines")
    if cost_type and not cost_code:
        raise ToolError(f"Line {n}: a cost type needs its {ctx.spec.word('cost_code').lower()}.", "lines")
    if cost_type and ctx.session.get(CostType, cost_type.upper()) is None:
        raise ToolError(f"Line {n}: there is no cost type {cost_type!r}.", "lines")
    if len(memo) > 200:
        raise ToolError(f"Line {n}: the memo is longer than 200 characters.", "lines")
    debit = side.lower() in ("dr", "debit")
    return {"account": account, "debit": value if debit else Decimal("0.00"),
            "credit": Decimal("0.00") if debit else value, "job": job or None,
            "cost_code": cost_code or None, "cost_type": cost_type.upper() or None, "memo": memo}


def _open_from(ctx) -> date:
    """The first GL date of an open period: the first day of the current month."""
    return date.fromisoformat(ctx.clock.iso()[:10]).replace(day=1)


def _closed_entity(ctx, parsed: list[dict], entry_date: date):
    """The first entity of the lines' jobs whose books are closed through the entry date, if any."""
    for job in sorted({p["job"] for p in parsed if p["job"]}):
        link = ctx.session.get(EntityProject, job)
        found = ctx.session.get(Entity, link.entity_id) if link else None
        if found is not None and found.books_closed_through and entry_date.isoformat() <= found.books_closed_through:
            return job, found
    return None


@service(WRITE)
def create_journal_entry(ctx, entry_date: date, description: Annotated[str, MaxLen(300)],
                         lines: list[str], reverse_date: date | None = None) -> dict:
    """Create a DRAFT general-ledger journal entry; debits must equal credits. A person posts it later.

    Args:
        entry_date: The GL date of the entry, YYYY-MM-DD, in an open period: this month or later, and after the books-closed-through date of the {entity_word} of each line's {job_word}.
        description: What the entry is for, e.g. "June subcontractor accrual, {job_word} 9999".
        lines: Two or more lines, each "account|Dr or Cr|amount|{job_word}|cost code|cost type|memo"; the {job_word} ({job_format}), cost code ({cost_code_format}), cost type and memo may be left empty, e.g. ["9990|Dr|12345.67|||Accrue June cost", "9991|Cr|12345.67|||Accrue June cost"].
        reverse_date: Makes the entry auto-reversing: the GL date it reverses itself on, after the entry date; left out, it does not reverse.
    """
    if not description.strip():
        raise ToolError("Describe the journal entry.", "description")
    if entry_date < _open_from(ctx):
        raise ToolError(f"The GL date {entry_date.isoformat()} is in a closed period; open periods start "
                        f"{_open_from(ctx).isoformat()}.", "entry_date")
    if reverse_date is not None and reverse_date <= entry_date:
        raise ToolError(f"The reversal date {reverse_date.isoformat()} must come after the entry date "
                        f"{entry_date.isoformat()}.", "reverse_date")
    if len(lines) < 2:
        raise ToolError(f"A journal entry needs at least two lines, each {LINE_FORMAT}.", "lines")
    parsed = [_parse_line(ctx, n, text) for n, text in enumerate(lines, start=1)]
    closed = _closed_entity(ctx, parsed, entry_date)
    if closed:
        job, found = closed
        opens = date.fromisoformat(found.books_closed_through) + timedelta(days=1)
        raise ToolError(f"The GL date {entry_date.isoformat()} is in a closed period of {ctx.spec.word('entity').lower()} "
                        f"{found.entity_id} ({found.name}, {ctx.spec.word('job').lower()} {job}): its books are closed "
                        f"through {found.books_closed_through}; its open periods start {opens.isoformat()}.", "entry_date")
    debits = sum((p["debit"] for p in parsed), start=Decimal("0.00"))
    credits = sum((p["credit"] for p in parsed), start=Decimal("0.00"))
    if debits != credits:
        raise ToolError(f"The entry does not balance: debits {debits} and credits {credits}.", "lines")
    count = ctx.session.scalar(select(func.count()).select_from(JournalEntry))
    entry_id = f"JE-{stable_id(ctx.app, 'journal', count + 1)}"
    entry = JournalEntry(entry_id=entry_id, entry_date=entry_date.isoformat(), description=description.strip(),
                         state="draft", total=debits, entered_at=ctx.clock.iso(),
                         reverse_date=reverse_date.isoformat() if reverse_date else None)
    ctx.session.add(entry)
    for n, p in enumerate(parsed, start=1):
        ctx.session.add(JournalLine(line_key=f"{entry_id}-{n}", entry_id=entry_id, line_no=n, **p))
    return {"entry_id": entry_id, "entry_date": entry.entry_date, "reverse_date": entry.reverse_date,
            "description": entry.description, "state": "draft", "total": debits,
            "lines": [{"line_no": n, **p} for n, p in enumerate(parsed, 1)]}


def _entry(ctx, entry_id: str) -> JournalEntry:
    entry = ctx.session.get(JournalEntry, entry_id.strip())
    if entry is None:
        raise NotFound(f"There is no journal entry {entry_id.strip()!r}.", "entry_id")
    return entry


@service(READ)
def get_journal_entry(ctx, entry_id: str) -> dict:
    """Get one journal entry with its lines.

    Args:
        entry_id: The entry id, e.g. JE-123456789.
    """
    entry = _entry(ctx, entry_id)
    lines = ctx.session.scalars(select(JournalLine).where(JournalLine.entry_id == entry.entry_id)
                                .order_by(JournalLine.line_no))
    return {"entry_id": entry.entry_id, "entry_date": entry.entry_date, "reverse_date": entry.reverse_date,
            "description": entry.description, "state": entry.state, "total": entry.total,
            "lines": [{"line_no": ln.line_no, "account": ln.account, "debit": ln.debit, "credit": ln.credit,
                       "job": ln.job, "cost_code": ln.cost_code, "cost_type": ln.cost_type, "memo": ln.memo}
                      for ln in lines]}


@service(GUARDED)
def post_journal_entry(ctx, entry_id: str) -> dict:
    """Post a draft journal entry to the ledger. GUARDED: it is staged for a person's approval and nothing is posted.

    Args:
        entry_id: The entry id, e.g. JE-123456789.
    """
    entry = _entry(ctx, entry_id)
    if entry.state != "draft":
        raise ToolError(f"Journal entry {entry.entry_id} is already {entry.state}.", "entry_id")
    return {"action": "post journal entry", "entry_id": entry.entry_id, "entry_date": entry.entry_date,
            "total": entry.total}
