"""The state diff: what an agent changed, table by table, keyed by primary key.

An app snapshot is canonical JSON::

    {"app": "procore", "pk": {"requisitions": "id"}, "tables": {"requisitions": [row, ...]}}

and the diff of one app is::

    {table: {"added": [row], "removed": [row],
             "changed": [{"pk": v, "before": row, "after": row, "fields": [col, ...]}]}}

Tables with no change are left out, as are apps in an environment diff
(``{app: app_diff}``). Every list is in primary-key order, so a diff is itself
deterministic and can be stored or compared byte for byte.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

OPS = ("added", "removed", "changed")


def _pk_order(value: Any) -> tuple:
    # Primary keys are usually all ints or all strings, but sorting must never
    # crash on a mix (or on None), so rank by kind first.
    if value is None:
        return (0, 0, "")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (1, value, "")
    return (2, 0, str(value))


def _index(table: str, pk_col: str, rows: Iterable[dict]) -> dict[Any, dict]:
    index: dict[Any, dict] = {}
    for row in rows:
        if pk_col not in row:
            raise ValueError(f"table {table!r}: a row has no primary-key column {pk_col!r}")
        key = row[pk_col]
        if key in index:
            raise ValueError(f"table {table!r}: duplicate primary key {key!r}")
        index[key] = row
    return index


def _changed_fields(before: dict, after: dict) -> list[str]:
    cols = before.keys() | after.keys()
    # A column that appears or disappears counts as changed too.
    return sorted(c for c in cols if c not in before or c not in after or before[c] != after[c])


def diff_table(table: str, pk_col: str, before: list[dict], after: list[dict]) -> dict:
    """Diff one table's rows; returns ``{}`` when nothing changed."""
    if before == after:  # C-level list comparison: untouched tables cost almost nothing
        return {}
    old = _index(table, pk_col, before)
    new = _index(table, pk_col, after)
    added = [new[k] for k in sorted(new.keys() - old.keys(), key=_pk_order)]
    removed = [old[k] for k in sorted(old.keys() - new.keys(), key=_pk_order)]
    # Find the (few) changed keys first and sort only those.
    dirty = [k for k, row in new.items() if k in old and old[k] != row]
    changed = [{"pk": k, "before": old[k], "after": new[k], "fields": _changed_fields(old[k], new[k])}
               for k in sorted(dirty, key=_pk_order)]
    if not (added or removed or changed):
        return {}
    return {"added": added, "removed": removed, "changed": changed}


def diff_tables(pk: dict[str, str], before: dict[str, list[dict]],
                after: dict[str, list[dict]]) -> dict:
    """PK-keyed diff of one app's tables.

    ``pk`` maps each table to its primary-key column. A table present on one
    side only diffs as all rows added (or all removed).
    """
    result = {}
    for table in sorted(before.keys() | after.keys()):
        if table not in pk:
            raise ValueError(f"table {table!r} has no primary-key column in the snapshot's 'pk' map")
        changes = diff_table(table, pk[table], before.get(table, []), after.get(table, []))
        if changes:
            result[table] = changes
    return result


def load_snapshot(blob: bytes | str | dict) -> dict:
    """Parse a snapshot blob (bytes, str or an already-parsed dict)."""
    snap = json.loads(blob) if isinstance(blob, (bytes, bytearray, str)) else blob
    if not isinstance(snap, dict) or "tables" not in snap:
        raise ValueError("a snapshot must be a JSON object with 'app', 'pk' and 'tables'")
    return snap


def diff_snapshots(before: bytes, after: bytes) -> dict:
    """Diff two snapshot blobs of the same app."""
    old, new = load_snapshot(before), load_snapshot(after)
    if old.get("app") != new.get("app"):
        raise ValueError(f"cannot diff snapshots of different apps: {old.get('app')!r} vs {new.get('app')!r}")
    pk = {**old.get("pk", {}), **new.get("pk", {})}
    return diff_tables(pk, old["tables"], new["tables"])


def diff_environment(before: dict[str, bytes], after: dict[str, bytes]) -> dict:
    """Diff every app of an environment: ``{app: app_diff}``, unchanged apps omitted.

    An app present on one side only is diffed against an empty snapshot.
    """
    result = {}
    for app in sorted(before.keys() | after.keys()):
        empty = {"app": app, "pk": {}, "tables": {}}
        old = load_snapshot(before[app]) if app in before else empty
        new = load_snapshot(after[app]) if app in after else empty
        pk = {**old.get("pk", {}), **new.get("pk", {})}
        changes = diff_tables(pk, old["tables"], new["tables"])
        if changes:
            result[app] = changes
    return result


def iter_entries(env_diff: dict):
    """Yield ``(app, table, op, index, entry)`` for every change in an environment diff."""
    for app, tables in env_diff.items():
        for table, ops in tables.items():
            for op in OPS:
                for i, entry in enumerate(ops.get(op, [])):
                    yield app, table, op, i, entry


def is_empty(env_diff: dict) -> bool:
    """True when an environment diff records no change at all."""
    return next(iter_entries(env_diff), None) is None


def count_changes(env_diff: dict) -> int:
    """Number of rows added, removed or changed across the whole environment."""
    return sum(1 for _ in iter_entries(env_diff))
