"""The one normalization of a key a person types (a bill number, a file name): Unicode case
folding and NFC, the same in Python and in SQL.

SQLite's own `lower()` folds ASCII only, so `ÉX-1` and `éx-1` would pass a duplicate check
written with it and then clash on a record id derived with Python's. Every comparison of such
keys uses `fold` here, or `cfab_fold(column)` in SQL (registered on every episode connection).
"""
from __future__ import annotations

import sqlite3
import unicodedata

SQL_NAME = "cfab_fold"


def fold(text: str) -> str:
    """The caseless, canonically composed form of a key: fold("ÉX-1") == fold("éx-1")."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())


def _sql_fold(value):
    return fold(value) if isinstance(value, str) else value


def register(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Make `cfab_fold(x)` callable in this connection's SQL."""
    conn.create_function(SQL_NAME, 1, _sql_fold, deterministic=True)
    return conn
