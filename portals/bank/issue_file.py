"""The positive-pay issue file: one line per check the company wrote (I) or voided (V), as the ERP's
check register exports it and the bank's upload reads it.

    Account Number,Check Number,Issue Date,Amount,Payee,Action
    123456789012,40001,2026-06-26,1234.56,"Carolina Steel Erectors, Inc.",I
"""
from __future__ import annotations

import csv
import hashlib
import io
from datetime import date
from decimal import Decimal, InvalidOperation

from portals.core.errors import ToolError

HEADER = ["Account Number", "Check Number", "Issue Date", "Amount", "Payee", "Action"]
MAX_LINES = 5000


def render_issue_file(account_number: str, rows) -> str:
    """rows: (action, serial, issue_date, amount, payee)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for action, serial, issue_date, amount, payee in rows:
        writer.writerow([account_number, serial, issue_date, f"{Decimal(amount):.2f}", payee, action])
    return out.getvalue()


def issue_lines(rows) -> list[tuple]:
    """A file's lines in the order the ERP writes them: the checks issued by serial, then the voids."""
    return sorted(rows, key=lambda r: (r[0] != "I", int(r[1])))


def file_digest(text: str) -> str:
    """The file's records, whatever its line endings or a trailing blank line."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def parse_issue_file(text: str) -> list[dict]:
    """The file's records, or a ToolError naming the first bad line (nothing is loaded then)."""
    if not text or not text.strip():
        raise ToolError("The issue file is empty.", "content")
    reader = csv.reader(io.StringIO(text.strip().replace("\r\n", "\n")))
    rows = list(reader)
    if len(rows) > MAX_LINES + 1:
        raise ToolError(f"An issue file holds at most {MAX_LINES} checks.", "content")
    if [c.strip() for c in rows[0]] != HEADER:
        raise ToolError(f"The first line must be the header: {','.join(HEADER)}.", "content")
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(HEADER):
            raise ToolError(f"Line {n} has {len(row)} fields; each line needs {len(HEADER)}.", "content")
        account, serial, issued, amount, payee, action = (c.strip() for c in row)
        if not serial.isdigit() or len(serial) > 10:
            raise ToolError(f"Line {n}: the check number must be up to 10 digits, not {serial[:20]!r}.", "content")
        try:
            issued = date.fromisoformat(issued).isoformat()
        except ValueError:
            raise ToolError(f"Line {n}: the issue date must look like 2026-06-26, not {issued[:20]!r}.", "content") from None
        try:
            value = Decimal(amount.replace(",", ""))
        except InvalidOperation:
            raise ToolError(f"Line {n}: {amount[:20]!r} is not an amount.", "content") from None
        if value <= 0 or value != value.quantize(Decimal("0.01")) or value >= Decimal("100000000"):
            raise ToolError(f"Line {n}: the amount must be above zero with at most two decimals.", "content")
        if action not in ("I", "V"):
            raise ToolError(f"Line {n}: the action must be I (issue) or V (void), not {action[:5]!r}.", "content")
        if not payee and action == "I":
            raise ToolError(f"Line {n}: an issued check needs its payee.", "content")
        out.append({"account_number": account, "serial": str(int(serial)), "issue_date": issued,
                    "amount": value.quantize(Decimal("0.01")), "payee": payee[:120], "action": action, "line": n})
    if not out:
        raise ToolError("The issue file holds no checks.", "content")
    return out
