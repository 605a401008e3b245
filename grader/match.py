"""Matching evaluator specs against a state diff.

A spec names an app, a table and an op; its ``where`` picks the rows it is
about (for ``changed`` entries, the *after* row, with ``_pk`` matching the
entry's primary key) and its ``assert`` checks their values. Rows picked by an
expected spec's ``where`` are *claimed*: they are the task's business even when
an ``assert`` fails, so a wrong amount is reported as a near miss rather than
as an unrequested change. For a changed row only the columns the spec talks
about are claimed; any other column that changed is still "another change".
"""
from __future__ import annotations

from typing import Any

from .diff import iter_entries
from .values import value_matches

ALL = None  # claim marker: the whole entry (added/removed rows)


def subject(op: str, entry: dict) -> dict:
    """The row a spec's where/assert look at: the row itself, or the after row."""
    return entry["after"] if op == "changed" else entry


def filters_match(op: str, entry: dict, filters: dict) -> bool:
    """Do all ``filters`` (col: value or matcher) hold for a diff entry?

    A column missing from the row never matches, so a misspelt column name
    fails loudly instead of comparing against an empty value.
    """
    row = subject(op, entry)
    for col, expected in filters.items():
        if col == "_pk":
            if op != "changed" or not value_matches(entry["pk"], expected):
                return False
        elif col not in row or not value_matches(row[col], expected):
            return False
    return True


def count_matching(op: str, entry: dict, filters: dict) -> int:
    """How many of ``filters`` hold; used to find the nearest candidate row."""
    return sum(filters_match(op, entry, {col: want}) for col, want in filters.items())


def entries(env_diff: dict, app: str, table: str, op: str) -> list[dict]:
    """The diff entries of one app/table/op (empty when untouched)."""
    return env_diff.get(app, {}).get(table, {}).get(op, [])


def selected(env_diff: dict, spec: dict) -> list[tuple[int, dict]]:
    """``(index, entry)`` pairs picked by the spec's ``where``."""
    where = spec.get("where", {})
    return [(i, e) for i, e in enumerate(entries(env_diff, spec["app"], spec["table"], spec["op"]))
            if filters_match(spec["op"], e, where)]


def fully_matching(env_diff: dict, spec: dict) -> list[tuple[int, dict]]:
    """Entries satisfying both ``where`` and ``assert`` (and ``fields`` if given)."""
    out = []
    for i, e in selected(env_diff, spec):
        if not filters_match(spec["op"], e, spec.get("assert", {})):
            continue
        if "fields" in spec and not set(spec["fields"]) & set(e["fields"]):
            continue
        out.append((i, e))
    return out


def expected_hit(env_diff: dict, spec: dict) -> tuple[bool, list[tuple[int, dict]]]:
    """Is an expected spec met? Returns (hit, matching entries)."""
    found = fully_matching(env_diff, spec)
    hit = len(found) == spec["count"] if "count" in spec else len(found) >= 1
    return hit, found


def nearest(env_diff: dict, spec: dict) -> dict | None:
    """The candidate entry closest to satisfying an expected spec.

    Ranked by matching where-columns, then matching assert-columns; ties go to
    the first in primary-key order so the verdict is deterministic.
    """
    where, asserts = spec.get("where", {}), spec.get("assert", {})
    best, best_score = None, None
    for e in entries(env_diff, spec["app"], spec["table"], spec["op"]):
        score = (count_matching(spec["op"], e, where), count_matching(spec["op"], e, asserts))
        if best_score is None or score > best_score:
            best, best_score = e, score
    return best


def claim(claims: dict, env_diff: dict, spec: dict) -> None:
    """Record the entries (and, for changed rows, the columns) a spec accounts for."""
    cols = {c for c in list(spec.get("where", {})) + list(spec.get("assert", {})) if c != "_pk"}
    for i, _ in selected(env_diff, spec):
        key = (spec["app"], spec["table"], spec["op"], i)
        if spec["op"] != "changed":
            claims[key] = ALL
        elif claims.get(key, set()) is not ALL:
            claims[key] = claims.get(key, set()) | cols


def _allowed_fields(rule: dict, app: str, table: str, op: str, entry: dict) -> set | None:
    """Columns an allow-rule permits on this entry: ALL, a set, or empty if it doesn't apply."""
    if rule["app"] != app or rule.get("table", table) != table or rule.get("op", op) != op:
        return set()
    where = rule.get("where", {})
    if op != "changed" and "_pk" in where:
        return set()
    if not filters_match(op, entry, where):
        return set()
    return set(rule["fields"]) if "fields" in rule else ALL


def unclaimed_changes(env_diff: dict, claims: dict, allow: list[dict]) -> list[dict]:
    """Diff entries neither claimed by an expected spec nor allowed.

    Each result is ``{"app", "table", "op", "entry", "fields"}`` where
    ``fields`` lists the unaccounted columns of a changed row (``[]`` otherwise).
    """
    out = []
    for app, table, op, i, entry in iter_entries(env_diff):
        claimed = claims.get((app, table, op, i), set())
        if claimed is ALL:
            continue
        if op == "changed":
            rest = set(entry["fields"]) - claimed
            for rule in allow:
                permitted = _allowed_fields(rule, app, table, op, entry)
                rest = set() if permitted is ALL else rest - permitted
            if rest:
                out.append({"app": app, "table": table, "op": op, "entry": entry,
                            "fields": sorted(rest)})
        elif not any(_allowed_fields(r, app, table, op, entry) is ALL for r in allow):
            out.append({"app": app, "table": table, "op": op, "entry": entry, "fields": []})
    return out


def call_matches(call: dict, spec: dict) -> bool:
    """An L2 call-log entry matches when app and tool equal and each listed arg matches."""
    if call.get("app") != spec["app"] or call.get("tool") != spec["tool"]:
        return False
    args = call.get("args") or {}
    return all(name in args and value_matches(args[name], want)
               for name, want in spec.get("args", {}).items())


def spec_summary(spec: dict) -> dict[str, Any]:
    """A json-serialisable identity for a spec in grade details."""
    return {k: spec[k] for k in ("app", "table", "op", "where", "assert", "count", "label", "fields")
            if k in spec}
