"""A disk cache of seeded app templates, so each process does not re-seed the whole book.

The key covers every input of seeding: the book's bytes, seed, clock, the app, the source of
the whole `portals` package and the versions of the libraries that shape the bytes. Set
`CFAB_TEMPLATE_CACHE=off` to always seed (the determinism tests do).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path

PORTALS = Path(__file__).resolve().parent.parent
CACHE_DIR = Path(os.environ.get("CFAB_CACHE_DIR", PORTALS.parent / ".cache" / "templates"))


def enabled() -> bool:
    return os.environ.get("CFAB_TEMPLATE_CACHE", "on").lower() not in ("off", "0", "no")


@lru_cache(maxsize=1)
def _source_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(PORTALS.rglob("*.py")) + sorted(PORTALS.rglob("*.toml")):
        digest.update(str(path.relative_to(PORTALS)).encode())
        digest.update(path.read_bytes())
    for package in ("sqlalchemy", "fpdf2", "pypdf"):
        try:
            digest.update(f"{package}={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            pass
    return digest.hexdigest()


def key(app: str, book_digest: str, seed: int, clock_iso: str) -> str:
    text = f"{app}|{book_digest}|{seed}|{clock_iso}|{_source_digest()}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def load(app: str, cache_key: str) -> bytes | None:
    path = CACHE_DIR / f"{app}-{cache_key}.sqlite"
    try:
        return path.read_bytes()
    except OSError:
        return None


def save(app: str, cache_key: str, data: bytes) -> None:
    """Write atomically; a cache that cannot be written is simply skipped."""
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=CACHE_DIR, suffix=".part")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, CACHE_DIR / f"{app}-{cache_key}.sqlite")
        for old in CACHE_DIR.glob(f"{app}-*.sqlite"):  # keep one template per app
            if old.name != f"{app}-{cache_key}.sqlite":
                old.unlink(missing_ok=True)
    except OSError:
        pass
