"""Episodes: isolated worlds of app databases, built by copying prebuilt templates.

A template is an app's database seeded once per process from the Company-A book and kept as
SQLite `serialize()` bytes. A new episode, and a reset, is a `deserialize()` of those bytes per
app: well under a millisecond, never a re-seed and never a process restart. Many episodes live
side by side in one store; each has its own connections, call log and guard log.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy import create_engine
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool, StaticPool

from .clock import Clock
from . import keys, read_cache, sorting, template_cache
from .db import EpisodeSession, canonical_json, read_rows, read_table, read_tables, restore, snapshot_bytes
from .ids import app_rng, run_seed
from .registry import AppSpec, get_app, load_apps


@dataclass
class AppTemplate:
    """One app's seeded database, frozen: the starting point of every episode."""

    spec: AppSpec
    db_bytes: bytes
    _rows: dict = field(default_factory=dict)  # table -> {pk: row}, filled on demand
    _snapshot: bytes | None = None
    reads: read_cache.ReadCache = field(default_factory=read_cache.ReadCache)  # read tools' answers

    def rows(self, table: str) -> dict:
        if table not in self._rows:
            conn = _open(self.db_bytes)
            pk = self.spec.pks[table]
            self._rows[table] = {r[pk]: r for r in read_table(conn, table, pk)}
            conn.close()
        return self._rows[table]

    def snapshot(self) -> bytes:
        if self._snapshot is None:
            conn = _open(self.db_bytes)
            self._snapshot = snapshot_bytes(self.spec.name, conn, self.spec.pks)
            conn.close()
        return self._snapshot


def _connect() -> sqlite3.Connection:
    return sorting.register(keys.register(sqlite3.connect(":memory:", check_same_thread=False)))


def _open(db_bytes: bytes) -> sqlite3.Connection:
    conn = _connect()
    conn.deserialize(db_bytes)
    return conn


def build_template(spec: AppSpec, book: dict, seed: int, clock: Clock) -> AppTemplate:
    """Seed one app from the book (a pure function of book, seed and clock) and freeze it."""
    conn = _connect()
    engine = create_engine("sqlite://", creator=lambda: conn, poolclass=StaticPool)
    spec.archetype.metadata.create_all(engine)
    with Session(engine) as session:
        session.info["seeding"] = True
        spec.archetype.seed(session, book, app_rng(seed, spec.name), clock, spec)
        session.commit()
    conn.execute("VACUUM")
    data = conn.serialize()
    engine.dispose()
    return AppTemplate(spec, data)


class _AppEngines:
    """One SQLAlchemy Engine per app, shared by every episode of the process.

    SQLAlchemy caches compiled SQL per Engine (and per dialect instance), so an engine made per
    episode compiles every statement again in every episode: a third of a tools episode's CPU.
    Sharing one engine per app keeps that cache warm, while each episode still owns its own
    in-memory database: `connect(app, conn)` wraps the episode's sqlite3 connection in a
    Connection of the shared engine (the pool hands out exactly the connection it is given,
    runs the dialect's per-connection setup on it, and closes it when the episode closes it).
    """

    def __init__(self):
        self._engines: dict[str, Engine] = {}
        self._lock = threading.Lock()
        self._handing = threading.local()  # the sqlite3 connection being wrapped, per thread

    def _creator(self) -> sqlite3.Connection:
        conn = getattr(self._handing, "conn", None)
        if conn is None:
            raise RuntimeError("an app engine opens no database of its own; episodes hand theirs in")
        self._handing.conn = None  # exactly one Connection per handed-in database
        return conn

    def engine(self, app: str) -> Engine:
        with self._lock:
            if app not in self._engines:
                self._engines[app] = create_engine("sqlite://", creator=self._creator, poolclass=NullPool)
            return self._engines[app]

    def connect(self, app: str, conn: sqlite3.Connection) -> Connection:
        engine = self.engine(app)
        self._handing.conn = conn
        try:
            return engine.connect()
        finally:
            self._handing.conn = None


ENGINES = _AppEngines()


def _load_malloc_trim():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim  # glibc only; musl and macOS have none
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return trim


_MALLOC_TRIM = _load_malloc_trim()
TRIM_EVERY = 32  # dropped episodes between two trims


def release_freed_memory() -> None:
    """Give the pages of freed episodes back to the operating system.

    An episode's databases are a few MB of heap each; when they are freed, glibc's allocator
    keeps the pages in its arenas for reuse instead of returning them, so a long-lived server's
    resident memory climbs to a plateau well above its working set (112 MB to 250 MB over 1,000
    episodes) although nothing leaks. `malloc_trim(0)` returns them; elsewhere it is a no-op.
    """
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


class AppInstance:
    """One app inside one episode: a private in-memory database copied from the template,
    reached through one Connection of the app's shared engine for the episode's whole life."""

    def __init__(self, template: AppTemplate):
        self.template = template
        self.spec = template.spec
        self.conn = _open(template.db_bytes)
        self.connection = ENGINES.connect(self.spec.name, self.conn)
        # {table: set of primary keys touched}, or {table: None} when any row may differ
        self.dirty: dict[str, set | None] = {}
        self._digest: tuple[bytes, str] | None = None  # (sha256 of the pages, of the snapshot)
        self._as_template = True  # the database is the template's bytes, unless rows changed since
        self._changes = self.conn.total_changes

    def reset(self) -> None:
        self.conn.deserialize(self.template.db_bytes)
        self.dirty.clear()
        self._as_template, self._changes = True, self.conn.total_changes

    def is_template(self) -> bool:
        """Whether the database is still exactly the template: opened or reset from it, with no
        row inserted, updated or deleted since (SQLite counts every such change on the
        connection, by the ORM or by raw SQL, even one rolled back), no restore and no
        transaction open."""
        return (self._as_template and self.conn.total_changes == self._changes
                and not self.conn.in_transaction)

    @contextmanager
    def session(self):
        session = EpisodeSession(self.connection, expire_on_commit=False, autoflush=True)
        try:
            yield session
            session.commit()
            for table, keys in session.info["dirty"].items():
                if self.dirty.get(table, set()) is not None:
                    self.dirty.setdefault(table, set()).update(keys)
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def snapshot(self) -> bytes:
        # untouched, the template's, read once; serialize() leaves out a transaction still open
        if not self.conn.in_transaction and self.conn.serialize() == self.template.db_bytes:
            return self.template.snapshot()
        return snapshot_bytes(self.spec.name, self.conn, self.spec.pks)

    def snapshot_digest(self) -> str:
        """sha256 of `snapshot()`, the canonical state, in a few milliseconds when the database
        is byte for byte what it was at the last digest (equal pages hold equal rows); any other
        database, even one whose rows are unchanged, is read again in full."""
        pages = hashlib.sha256(self.conn.serialize()).digest()
        if self._digest is None or self._digest[0] != pages or self.conn.in_transaction:
            self._digest = (pages, hashlib.sha256(self.snapshot()).hexdigest())
        return self._digest[1]

    def restore(self, blob: bytes) -> None:
        self._as_template = False
        restore(self.conn, blob, self.spec.pks)
        self.dirty = {table: None for table in self.spec.pks}  # a restored db may differ anywhere

    def changed_rows(self) -> tuple[dict, dict, dict]:
        """(pk map, before rows, after rows) of just the rows this episode touched."""
        pks = {t: self.spec.pks[t] for t in sorted(self.dirty)}
        before, after = {}, {}
        for table, pk in pks.items():
            template_rows = self.template.rows(table)
            keys = self.dirty[table]
            if keys is None:
                before[table] = list(template_rows.values())
                after[table] = read_tables(self.conn, {table: pk})[table]
                continue
            before[table] = [template_rows[k] for k in sorted(keys) if k in template_rows]
            after[table] = read_rows(self.conn, table, pk, keys)
        return pks, before, after

    def close(self) -> None:
        self.connection.close()  # the pool closes the episode's sqlite3 connection with it
        self.conn.close()


class Episode:
    """An isolated world for one attempt at one task: app databases, call log and guard log."""

    def __init__(self, templates: dict[str, AppTemplate], clock: Clock):
        self.id = secrets.token_urlsafe(18)
        self.clock = clock
        self.apps = {name: AppInstance(t) for name, t in templates.items()}
        self.calls: list[dict] = []
        self.guard_log: list[dict] = []
        self.lock = threading.RLock()
        self.meta: dict = {}

    def app(self, name: str) -> AppInstance:
        if name not in self.apps:
            raise KeyError(name)
        return self.apps[name]

    def reset(self) -> None:
        with self.lock:
            for inst in self.apps.values():
                inst.reset()
            self.calls.clear()
            self.guard_log.clear()

    def snapshot(self) -> dict[str, bytes]:
        with self.lock:
            return {name: inst.snapshot() for name, inst in self.apps.items()}

    def snapshot_digest(self) -> dict[str, str]:
        """{app: sha256 of that app's snapshot}: equal digests mean equal state."""
        with self.lock:
            return {name: inst.snapshot_digest() for name, inst in self.apps.items()}

    def restore(self, blobs: dict[str, bytes]) -> None:
        """Restore several apps at once, all or nothing: every snapshot is first applied to a
        scratch copy, and only when all of them fit is any app of the episode replaced."""
        with self.lock:
            staged = {}
            for name, blob in blobs.items():
                inst = self.app(name)
                scratch = _open(inst.conn.serialize())
                try:
                    restore(scratch, blob, inst.spec.pks)
                    staged[name] = scratch.serialize()
                except (ValueError, KeyError, TypeError, AttributeError, IndexError, sqlite3.Error) as err:
                    raise SnapshotMismatch(name, err) from None
                finally:
                    scratch.close()
            for name, data in staged.items():
                inst = self.apps[name]
                inst._as_template = False
                inst.conn.deserialize(data)
                inst.dirty = {table: None for table in inst.spec.pks}

    def diff(self) -> dict:
        """The canonical state diff against the template, reading only touched tables."""
        from grader.diff import diff_tables  # the grader owns the diff semantics

        out = {}
        with self.lock:
            for name, inst in self.apps.items():
                if not inst.dirty:
                    continue
                pks, before, after = inst.changed_rows()
                app_diff = diff_tables(pks, before, after)
                if app_diff:
                    out[name] = app_diff
        return out

    def close(self) -> None:
        for inst in self.apps.values():
            inst.close()


class SnapshotMismatch(ValueError):
    """A snapshot that does not fit its app; nothing of the restore was written."""

    def __init__(self, app: str, err: Exception):
        super().__init__(f"Snapshot for {app} does not fit ({type(err).__name__}: {str(err)[:200]}); "
                         "nothing was restored.")
        self.app = app


class StoreFull(RuntimeError):
    """No room for another episode: the cap is reached and every open one is in use."""


class EpisodeStore:
    """Templates built once per process, and the live episodes of one server or runner."""

    def __init__(self, book: dict | None = None, seed: int | None = None, clock: Clock | None = None,
                 idle_ttl: float | None = None, monotonic=time.monotonic, cache_templates: bool = True):
        """`idle_ttl` (seconds): a long-lived server drops episodes nobody has used for that long
        (people abandon tabs). `monotonic` is injectable so tests need no sleeps. Neither touches
        an episode's state, which stays a pure function of book, seed and clock.
        `cache_templates=False` keeps this store's templates out of the on-disk template cache
        (the private split's world stays in the server's memory)."""
        if book is None:
            from seeds.book import load_book
            book = load_book()
        self.book = book
        self.seed = run_seed() if seed is None else seed
        self.clock = clock or Clock.from_env()
        self.templates: dict[str, AppTemplate] = {}
        self.episodes: dict[str, Episode] = {}
        self._lock = threading.Lock()
        self._book_digest: str | None = None
        self.idle_ttl = idle_ttl
        self._monotonic = monotonic
        self._last_used: dict[str, float] = {}
        self._admitted: dict[str, bool] = {}  # opened over HTTP -> may be freed to make room
        self._admit_lock = threading.Lock()
        self._dropped = 0  # episodes dropped so far; every TRIM_EVERY-th drop trims the heap
        self.cache_templates = cache_templates

    def template(self, app: str) -> AppTemplate:
        with self._lock:
            if app not in self.templates:
                self.templates[app] = self._cached_or_built(app)
            return self.templates[app]

    def _cached_or_built(self, app: str) -> AppTemplate:
        spec = get_app(app)
        if not (template_cache.enabled() and self.cache_templates):
            return build_template(spec, self.book, self.seed, self.clock)
        if self._book_digest is None:
            self._book_digest = hashlib.sha256(canonical_json(self.book)).hexdigest()
        cache_key = template_cache.key(app, self._book_digest, self.seed, self.clock.iso())
        data = template_cache.load(app, cache_key)
        if data is not None:
            return AppTemplate(spec, data)
        template = build_template(spec, self.book, self.seed, self.clock)
        template_cache.save(app, cache_key, template.db_bytes)
        return template

    def create(self, apps: list[str] | None = None) -> Episode:
        names = sorted(apps or load_apps())
        episode = Episode({n: self.template(n) for n in names}, self.clock)
        self.drop_idle()
        with self._lock:
            self.episodes[episode.id] = episode
            self._last_used[episode.id] = self._monotonic()
        return episode

    def admit(self, apps: list[str] | None = None, *, cap: int, busy_seconds: float,
              evictable: bool) -> Episode:
        """An episode opened over HTTP, at most `cap` of them at once. At the cap, the least
        recently used evictable episode idle for `busy_seconds` or more is dropped to make
        room; with none such, StoreFull. Episodes made in process (`create`) are not counted."""
        with self._admit_lock:
            self.drop_idle()
            while True:
                with self._lock:
                    open_ = [e for e in self._admitted if e in self.episodes]
                    if len(open_) < cap:
                        break
                    cutoff = self._monotonic() - busy_seconds
                    idle = sorted((self._last_used.get(e, 0.0), e) for e in open_
                                  if self._admitted[e] and self._last_used.get(e, 0.0) <= cutoff)
                if not idle:
                    raise StoreFull(f"{len(open_)} episodes are open, the most this server keeps, "
                                    "and all of them are in use.")
                self.drop(idle[0][1])
            episode = self.create(apps)
            with self._lock:
                self._admitted[episode.id] = evictable
            return episode

    def evictable(self, episode_id: str) -> bool:
        """Whether this episode was opened by a browser (the launcher), not an evaluator."""
        with self._lock:
            return bool(self._admitted.get(episode_id))

    def get(self, episode_id: str) -> Episode | None:
        """The open episode with this id; looking it up counts as using it."""
        with self._lock:
            episode = self.episodes.get(episode_id)
            if episode is not None:
                self._last_used[episode_id] = self._monotonic()
            return episode

    def drop_idle(self) -> list[str]:
        """Drop the episodes unused for longer than `idle_ttl`; returns their ids."""
        if not self.idle_ttl:
            return []
        cutoff = self._monotonic() - self.idle_ttl
        with self._lock:
            stale = [e for e, used in self._last_used.items() if used < cutoff]
        for episode_id in stale:
            self.drop(episode_id)
        return stale

    def drop(self, episode_id: str) -> None:
        with self._lock:
            self._last_used.pop(episode_id, None)
            self._admitted.pop(episode_id, None)
            episode = self.episodes.pop(episode_id, None)
            if episode is not None:
                self._dropped += 1
            trim = episode is not None and self._dropped % TRIM_EVERY == 0
        if episode is not None:
            with episode.lock:
                episode.close()
        if trim:
            del episode
            release_freed_memory()
