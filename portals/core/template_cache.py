"""A disk cache of seeded app templates, so each process does not re-seed the whole book.

The key covers every input of seeding: the book's bytes, seed, clock, the app, the source of
the whole `portals` package and of `seeds/`, and the versions of the libraries that shape the
bytes. Set
`CFAB_TEMPLATE_CACHE=off` to always seed (the determinism tests do).

A cache file ends in a checksum of its bytes. A file that is truncated or altered (a kill in
the middle of a write, a full disk) fails the check, is deleted and rebuilt, so it can never
become every episode's "database disk image is malformed". Writes are fsynced before the
rename, and temporary files a killed writer left behind are removed.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import time
from functools import lru_cache
from importlib import metadata
from pathlib import Path

PORTALS = Path(__file__).resolve().parent.parent
SEEDS = PORTALS.parent / "seeds"
CACHE_DIR = Path(os.environ.get("CFAB_CACHE_DIR", PORTALS.parent / ".cache" / "templates"))
MAGIC = b"CFABSHA2"  # then the sha256 of everything before it
TRAILER = len(MAGIC) + 32
STALE_SECONDS = 600  # a temporary file this old belongs to no writer still running


def enabled() -> bool:
    return os.environ.get("CFAB_TEMPLATE_CACHE", "on").lower() not in ("off", "0", "no")


@lru_cache(maxsize=1)
def _source_digest() -> str:
    digest = hashlib.sha256()
    # seeds/ too: a portal may seed from a module there at seeding time (seeds/treasury.py), so its
    # source is an input of the template as the book's bytes are
    for path in sorted(PORTALS.rglob("*.py")) + sorted(PORTALS.rglob("*.toml")) + sorted(SEEDS.glob("*.py")):
        digest.update(str(path.relative_to(PORTALS.parent)).encode())
        digest.update(path.read_bytes())
    for package in ("sqlalchemy", "fpdf2", "pypdf", "bai2"):
        try:
            digest.update(f"{package}={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            pass
    return digest.hexdigest()


def key(app: str, book_digest: str, seed: int, clock_iso: str) -> str:
    text = f"{app}|{book_digest}|{seed}|{clock_iso}|{_source_digest()}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _path(app: str, cache_key: str) -> Path:
    return CACHE_DIR / f"{app}-{cache_key}.sqlite"


def load(app: str, cache_key: str) -> bytes | None:
    """The cached template's bytes if the file is whole; a damaged file is deleted (None)."""
    path = _path(app, cache_key)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    data, trailer = raw[:-TRAILER], raw[-TRAILER:]
    if len(raw) > TRAILER and trailer[:len(MAGIC)] == MAGIC and \
            hashlib.sha256(data).digest() == trailer[len(MAGIC):]:
        return data
    path.unlink(missing_ok=True)  # rebuilt by the caller and saved again
    return None


def save(app: str, cache_key: str, data: bytes) -> None:
    """Write atomically and durably; a cache that cannot be written is simply skipped."""
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        clean_stale(CACHE_DIR)
        fd, tmp = tempfile.mkstemp(dir=CACHE_DIR, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data + MAGIC + hashlib.sha256(data).digest())
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, _path(app, cache_key))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        for old in CACHE_DIR.glob(f"{app}-*.sqlite"):  # keep one template per app
            if old.name != f"{app}-{cache_key}.sqlite":
                old.unlink(missing_ok=True)
    except OSError:
        pass


def clean_stale(folder: Path, pattern: str = "*.part", older_than: float = STALE_SECONDS) -> int:
    """Remove temporary files a killed writer left (old enough that no live writer owns them)."""
    removed, cutoff = 0, time.time() - older_than
    for path in Path(folder).glob(pattern):
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
                removed += 1
        except OSError:
            pass
    return removed
