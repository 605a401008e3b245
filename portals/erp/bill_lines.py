"""Bill line items: a bill split across GL accounts, jobs, cost codes and cost types.

A bill entered in the one-line form (job, cost code, cost type, amount on the bill itself) is
its own single line and writes no line rows, so entering such a bill changes `ap_bills` alone.
A bill entered with lines writes one row per line; its total is the sum of its lines and its
header carries line 1's coding (the job the bill is filed under).
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import select

from portals.core.errors import ToolError
from portals.core.money import parse_amount

from . import lookups as L
from .models import APBill, BillLine, CostType, GLAccount

LINE_FORMAT = "GL account (blank: the cost type's)|job|cost code|cost type|amount|memo (optional)"
MAX_LINES = 50


def default_account(session, cost_type: str) -> str | None:
    """The job-cost expense account a cost type posts to when a line names none: the expense
    account whose title carries the cost type's name (Labor -> Direct Labor, Material -> Materials)."""
    ctype = session.get(CostType, cost_type)
    if ctype is None:
        return None
    stem = ctype.name.lower()[:5]
    accounts = session.scalars(select(GLAccount).where(GLAccount.type == "expense").order_by(GLAccount.account))
    return next((a.account for a in accounts if stem in a.title.lower()), None)


@dataclass
class Split:
    """Parsed lines: each a dict of the BillLine columns (line_no .. memo), and their total."""

    lines: list[dict]
    total: Decimal

    @property
    def header(self) -> tuple[str, str, str, Decimal]:
        """(job, cost code, cost type, total): what the bill itself is filed under."""
        first = self.lines[0]
        return first["job"], first["cost_code"], first["cost_type"], self.total


def _line(ctx, n: int, text: str) -> dict:
    parts = [p.strip() for p in str(text).split("|")]
    if not 5 <= len(parts) <= 6:
        raise ToolError(f"Line {n} '{str(text)[:60]}' must read {LINE_FORMAT}.", "lines")
    account, job_number, code_text, ctype_text, amount_text, *rest = parts
    memo = rest[0] if rest else ""
    for value, word in ((job_number, "job"), (code_text, "cost_code"), (ctype_text, "cost_type")):
        if not value:
            raise ToolError(f"Line {n} has no {ctx.spec.word(word).lower()}; each line reads {LINE_FORMAT}.",
                            "lines")
    try:
        job = L.job(ctx, job_number, "lines")
        code = L.cost_code(ctx, code_text, "lines")
        ctype = L.cost_type(ctx, ctype_text, "lines")
    except ToolError as err:
        raise ToolError(f"Line {n}: {err.message}", "lines") from None
    if job.status != "active":
        raise ToolError(f"Line {n}: {ctx.spec.word('job').lower()} {job.job} is {job.status}; "
                        "it takes no new costs.", "lines")
    account = account or default_account(ctx.session, ctype.code) or ""
    if ctx.session.get(GLAccount, account) is None:
        raise ToolError(f"Line {n}: there is no GL account {account!r}.", "lines")
    amount = parse_amount(amount_text, f"Line {n} amount", allow_negative=True, allow_zero=False)
    if len(memo) > 200:
        raise ToolError(f"Line {n}: the memo is longer than 200 characters.", "lines")
    return {"line_no": n, "gl_account": account, "job": job.job, "cost_code": code.code,
            "cost_type": ctype.code, "amount": amount, "memo": memo}


def parse(ctx, lines: list[str], project_id, task_id, amount) -> Split:
    """Check every line; with lines the coding lives on the lines, and an amount given with
    them is the invoice total they must add up to."""
    if len(lines) > MAX_LINES:
        raise ToolError(f"A bill takes at most {MAX_LINES} lines.", "lines")
    if project_id or task_id:
        field = "project_id" if project_id else "task_id"
        raise ToolError(f"Code a bill either on the bill ({ctx.spec.word('job').lower()} and "
                        f"{ctx.spec.word('cost_code').lower()}) or in its lines, not both: leave "
                        f"{field} out when you give lines.", field)
    parsed = [_line(ctx, n, text) for n, text in enumerate(lines, start=1)]
    total = sum((p["amount"] for p in parsed), start=Decimal("0.00"))
    if total <= 0:
        raise ToolError(f"The lines add up to {total}; a bill's total must be greater than zero.", "lines")
    if amount is not None and amount != total:
        raise ToolError(f"The lines add up to {total}, not the amount {amount}; a bill's total is the "
                        "sum of its lines.", "amount")
    return Split(parsed, total)


def add_lines(ctx, bill: APBill, split: Split | None) -> None:
    """Write a multi-line bill's lines (a one-line bill has none)."""
    if split is None:
        return
    for p in split.lines:
        ctx.session.add(BillLine(line_key=f"{bill.bill_id}-{p['line_no']}", bill_id=bill.bill_id, **p))


def line_row(ln) -> dict:
    return {"line_no": ln["line_no"], "gl_account": ln["gl_account"], "project_id": ln["job"],
            "task_id": ln["cost_code"], "cost_type_id": ln["cost_type"], "amount": ln["amount"],
            "memo": ln["memo"]}


def lines_of(ctx, bill: APBill) -> list[dict]:
    """The bill's lines: its own rows, or the bill itself as its one line."""
    rows = ctx.session.scalars(select(BillLine).where(BillLine.bill_id == bill.bill_id).order_by(BillLine.line_no))
    found = [line_row({c: getattr(r, c) for c in ("line_no", "gl_account", "job", "cost_code", "cost_type",
                                                  "amount", "memo")}) for r in rows]
    if found:
        return found
    return [line_row({"line_no": 1, "gl_account": default_account(ctx.session, bill.cost_type) or "",
                      "job": bill.job, "cost_code": bill.cost_code, "cost_type": bill.cost_type,
                      "amount": bill.amount, "memo": bill.description})]
