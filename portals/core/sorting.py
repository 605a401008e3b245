"""A list sorted in SQL by a column the caller names (`amount`, `-amount` for descending).

The portal's column headers and the list tools share it, so a sorted page reads one page of
rows instead of every matching row. The order is the one a person expects from a header, and
the one `ui.listing` gives lists that sort in Python: text without regard to case, amounts as
numbers, dates as dates; rows without a value last in either direction; ties in the list's own
order.
"""
from __future__ import annotations

import sqlite3

from sqlalchemy import Float, String, case, cast, func

from .errors import ToolError

TEXT, NUMBER, MONEY, DATE = "text", "number", "money", "date"
SQL_LOWER = "cfab_lower"


def _lower(value):
    return value.lower() if isinstance(value, str) else value


def register(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Make `cfab_lower(x)` (Python's case folding for sorting, not SQLite's ASCII-only
    `lower`) callable in this connection's SQL."""
    conn.create_function(SQL_LOWER, 1, _lower, deterministic=True)
    return conn


def sort_help(columns: dict) -> str:
    return ", ".join(sorted(columns))


def sort_order(sort: str | None, columns: dict, natural: tuple | list) -> list:
    """ORDER BY terms for `sort`, then the list's own order (`natural`). `columns` maps each
    sort key to (column, kind), kind one of text, number, money, date."""
    text = (sort or "").strip()
    if not text:
        return list(natural)
    key = text.removeprefix("-")
    if key not in columns:
        raise ToolError(f"Sort by one of: {sort_help(columns)} (a leading '-' sorts descending); "
                        f"{text[:40]!r} is not one.", "sort")
    column, kind = columns[key]
    as_text = cast(column, String)
    missing = case(((column.is_(None)) | (as_text == ""), 1), else_=0)
    value = {TEXT: getattr(func, SQL_LOWER)(as_text), MONEY: cast(column, Float), NUMBER: column,
             DATE: as_text}[kind]
    return [missing, value.desc() if text.startswith("-") else value.asc(), *natural]
