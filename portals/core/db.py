"""Storage helpers: canonical snapshots, exact restores, change tracking and the data-layer guard.

Every app keeps its state in its own SQLite database. Snapshots are read with raw sqlite3 (the
ORM is ~2x slower for bulk reads) and encoded canonically: tables by name, rows by primary key,
money already stored as canonical text, JSON with sorted keys and no spaces.
"""
from __future__ import annotations

import json
import sqlite3

from sqlalchemy import MetaData, Select, event, func, inspect, select
from sqlalchemy.orm import Session
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.sql.visitors import iterate

from .errors import MoneyMovementRefused


def canonical_json(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def primary_keys(metadata: MetaData) -> dict[str, str]:
    """Each table's single primary-key column (the app contract asks for one per table)."""
    out = {}
    for table in metadata.sorted_tables:
        cols = list(table.primary_key.columns)
        if len(cols) != 1:
            raise ValueError(f"table {table.name} must have exactly one primary-key column")
        out[table.name] = cols[0].name
    return dict(sorted(out.items()))


def read_table(conn: sqlite3.Connection, table: str, pk: str) -> list[dict]:
    cur = conn.execute(f'SELECT * FROM "{table}" ORDER BY "{pk}"')
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def read_tables(conn: sqlite3.Connection, pks: dict[str, str], only=None) -> dict[str, list[dict]]:
    return {t: read_table(conn, t, pk) for t, pk in pks.items() if only is None or t in only}


def snapshot_bytes(app: str, conn: sqlite3.Connection, pks: dict[str, str]) -> bytes:
    return canonical_json({"app": app, "pk": pks, "tables": read_tables(conn, pks)})


def restore(conn: sqlite3.Connection, blob: bytes, pks: dict[str, str]) -> None:
    """Replace every row of every table with the snapshot's rows, in one transaction."""
    data = json.loads(blob)
    if set(data.get("tables", {})) != set(pks):
        raise ValueError("snapshot tables do not match this app's tables")
    with conn:
        for table in pks:
            conn.execute(f'DELETE FROM "{table}"')
            rows = data["tables"][table]
            if not rows:
                continue
            cols = list(rows[0])
            marks = ",".join("?" for _ in cols)
            names = ",".join(f'"{c}"' for c in cols)
            conn.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})',
                             [tuple(r[c] for c in cols) for r in rows])


class EpisodeSession(Session):
    """A session over an episode's app database. Its flushes record in `info['dirty']` the rows
    they touch ({table: {pk, ...}}), so diffs read only those rows: grading costs what the agent
    changed, not the book's size. And, second line of defence, a flush refuses any row that
    would record money as moved: a model lists such states as
    `__money_states__ = {"status": {"posted", "paid"}}`; guarded tools never write, so outside
    seeding no code path may produce such a row, and if one tries the transaction rolls back.
    The listeners belong to the class, registered once, not to each session."""

    def __init__(self, bind, **kwargs):
        super().__init__(bind, **kwargs)
        self.info["dirty"] = {}


@event.listens_for(EpisodeSession, "after_flush")
def _record_dirty(sess, _ctx):
    for obj in list(sess.new) + list(sess.dirty) + list(sess.deleted):
        state = inspect(obj)
        key = state.identity or state.mapper.primary_key_from_instance(obj)
        sess.info["dirty"].setdefault(obj.__table__.name, set()).add(key[0])


@event.listens_for(EpisodeSession, "before_flush")
def _refuse_money_moved(sess, _ctx, _instances):
    if sess.info.get("seeding"):
        return
    for obj in list(sess.new) + list(sess.dirty):
        states = getattr(type(obj), "__money_states__", None)
        if not states:
            continue
        for attr, forbidden in states.items():
            value = getattr(obj, attr, None)
            if value not in forbidden:
                continue
            history = getattr(type(obj), attr).impl.get_history(
                obj._sa_instance_state, obj._sa_instance_state.dict)
            if obj in sess.new or history.added:
                raise MoneyMovementRefused(
                    f"{obj.__table__.name}.{attr}={value!r} records money as moved; "
                    "only a person may do that, after the guard stages it")


def read_rows(conn: sqlite3.Connection, table: str, pk: str, keys) -> list[dict]:
    """The current rows of `table` whose primary key is in `keys`, in key order."""
    keys = sorted(keys)
    rows: list[dict] = []
    for start in range(0, len(keys), 500):  # stay under SQLite's bound-parameter limit
        chunk = keys[start:start + 500]
        marks = ",".join("?" for _ in chunk)
        cur = conn.execute(f'SELECT * FROM "{table}" WHERE "{pk}" IN ({marks}) ORDER BY "{pk}"', chunk)
        names = [d[0] for d in cur.description]
        rows.extend(dict(zip(names, row)) for row in cur.fetchall())
    return sorted(rows, key=lambda r: r[pk])


def count_rows(session: Session, stmt: Select) -> int:
    """How many rows `stmt` returns, for paging.

    A plain filtered select (no GROUP BY, DISTINCT, HAVING, LIMIT, OFFSET or SQL function among
    its columns) is counted as
    `SELECT count(*) FROM <its FROM and joins> WHERE <its filters>`, which SQLite answers
    without materializing a subquery; anything else is counted over a subquery of itself.
    """
    plain = isinstance(stmt, Select) and not (
        stmt._group_by_clauses or stmt._distinct or stmt._having_criteria
        or stmt._limit_clause is not None or stmt._offset_clause is not None
        or any(isinstance(node, FunctionElement)  # an aggregate column makes one row of many
               for column in stmt.selected_columns for node in iterate(column)))
    if plain:  # joins and filters fix the row count; plain selected columns do not
        counted = stmt.with_only_columns(func.count(), maintain_column_froms=True).order_by(None)
    else:
        counted = select(func.count()).select_from(stmt.order_by(None).subquery())
    return session.scalar(counted) or 0


def page_total(session: Session, stmt: Select, page: int, per_page: int, on_page: int) -> int:
    """How many rows `stmt` returns in all, given how many its page `page` held: a page that is
    not full (or an empty first page) is the last one, so the total follows without a count;
    only a full page, or an empty page past the first, asks SQLite to count."""
    if 0 < on_page < per_page or (on_page == 0 and page == 1):
        return (page - 1) * per_page + on_page
    return count_rows(session, stmt)


def prefetch(session: Session, rows, links: dict) -> list:
    """Load in one query per model the rows that `rows` point at, so the shaping code's
    `session.get(Model, key)` finds them in the identity map instead of querying once per row.

    `links` maps a model to the attribute of each row holding that model's primary key,
    e.g. {Vendor: "vendor_key"}. The session's identity map holds objects weakly: keep the
    returned list until the rows are shaped.
    """
    loaded: list = []
    for model, attr in links.items():
        keys = {getattr(row, attr) for row in rows} - {None}
        pk = inspect(model).primary_key[0]
        ordered = sorted(keys)
        for start in range(0, len(ordered), 500):  # stay under SQLite's bound-parameter limit
            loaded.extend(session.scalars(select(model).where(pk.in_(ordered[start:start + 500]))).all())
    return loaded
