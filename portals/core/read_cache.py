"""Answers of read tools on an app database still byte for byte its template, kept per template.

A read tool's answer is a function of the app's rows, its arguments, the clock and who asked
(the product's spec and the call's source): nothing else reaches a service function. While an
episode's app database is exactly its template (no row written since it was opened or reset,
no restore, no transaction open), that answer is the same in every episode of the store, so it
is computed once and handed out again to later episodes. What is kept is the JSON-ready answer
as `marshal` bytes, so every call gets a fresh copy that its caller may change freely.

Nothing else about the call changes: it is validated, logged in the call log with the same
entry, and a refusal (ToolError) is never kept. An app database that has been written to in any
way (SQLite's own count of changed rows, which covers ORM flushes and raw statements alike) is
read live, as before. Bounded: each template keeps at most `MAX_BYTES` of answers, the least
recently used dropped first. `CFAB_READ_CACHE=off` turns it off (`cfab bench` measures both).
"""
from __future__ import annotations

import marshal
import os
import threading
from collections import OrderedDict
from datetime import date
from decimal import Decimal

MAX_BYTES = 2 * 1024 * 1024  # per template (one app of one store); every task's oracle reads fit in 1.5 MB in all
MAX_ANSWER = 512 * 1024  # a larger answer is read live each time
_KEYABLE = frozenset({str, int, float, bool, type(None), Decimal, date})

ENABLED = os.environ.get("CFAB_READ_CACHE", "on").lower() not in ("off", "0", "no")


def set_enabled(on: bool) -> bool:
    """Turn the cache on or off for this process; returns what it was."""
    global ENABLED
    was, ENABLED = ENABLED, bool(on)
    return was


def key(tool: str, bound: dict, source: str, clock_iso: str) -> tuple | None:
    """The cache key of one call, or None when an argument is of a kind not keyed exactly."""
    parts = []
    for name, value in bound.items():
        kind = type(value)
        if kind not in _KEYABLE:  # lists (cell grids) and anything else: read live
            return None
        parts.append((name, kind.__name__, repr(value)))  # Decimal("1.0") and "1.00" stay apart
    return tool, source, clock_iso, tuple(parts)


class ReadCache:
    """One template's kept answers: key -> marshal bytes, least recently used dropped first."""

    def __init__(self, max_bytes: int = MAX_BYTES):
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple, bytes] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, k: tuple):
        with self._lock:
            blob = self._entries.get(k)
            if blob is None:
                self.misses += 1
                return None
            self._entries.move_to_end(k)
            self.hits += 1
        return marshal.loads(blob)

    def put(self, k: tuple, answer) -> None:
        try:
            blob = marshal.dumps(answer)
        except ValueError:  # a value marshal cannot carry: not kept
            return
        if len(blob) > MAX_ANSWER:
            return
        with self._lock:
            old = self._entries.pop(k, None)
            if old is not None:
                self._bytes -= len(old)
            self._entries[k] = blob
            self._bytes += len(blob)
            while self._bytes > self.max_bytes and self._entries:
                _, dropped = self._entries.popitem(last=False)
                self._bytes -= len(dropped)

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size_bytes(self) -> int:
        return self._bytes
