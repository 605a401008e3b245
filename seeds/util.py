"""Small deterministic helpers: seeded RNGs, stable ids, money and date formatting."""
from __future__ import annotations

import hashlib
import random
from datetime import date, datetime, timedelta
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

CLOCK = "2026-06-30T17:00:00Z"
TODAY = date(2026, 6, 30)
CENT = Decimal("0.01")
DOLLAR = Decimal("1")


def section_rng(seed: int, section: str) -> random.Random:
    """An RNG for one section of the book, derived from sha256 of f"{seed}:book:companyA"."""
    base = hashlib.sha256(f"{seed}:book:companyA".encode()).hexdigest()
    digest = hashlib.sha256(f"{base}:{section}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def stable_int(key: str, digits: int) -> int:
    """A stable integer with exactly `digits` digits, hashed from a natural key."""
    low = 10 ** (digits - 1)
    return low + int(hashlib.sha256(key.encode()).hexdigest(), 16) % (9 * low)


def unique_int(key: str, digits: int, used: set[int]) -> int:
    """stable_int, salted until it does not collide with an id already handed out."""
    salt = 0
    while True:
        value = stable_int(key if salt == 0 else f"{key}#{salt}", digits)
        if value not in used:
            used.add(value)
            return value
        salt += 1


def short_hash(key: str, n: int = 8) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:n]


def money(value) -> str:
    """Canonical money string with exactly two decimals."""
    out = Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)
    return str(out + 0)  # "+ 0" normalises a negative zero


def dec(value) -> Decimal:
    return Decimal(str(value))


def pct_of(amount: Decimal, pct: str) -> Decimal:
    return (amount * Decimal(pct) / 100).quantize(CENT, rounding=ROUND_HALF_UP)


def split_total(rng: random.Random, total: Decimal, n: int, unit: Decimal = DOLLAR,
                spread: float = 0.6) -> list[Decimal]:
    """Split `total` into n positive parts rounded to `unit` that sum exactly to total."""
    if n <= 1:
        return [total]
    weights = [1 - spread / 2 + rng.random() * spread for _ in range(n)]
    scale = sum(weights)
    parts = [(total * Decimal(w / scale)).quantize(unit, rounding=ROUND_DOWN) for w in weights]
    parts[parts.index(max(parts))] += total - sum(parts)
    return parts


def round_to(value: float, step: int) -> Decimal:
    return Decimal(int(round(value / step)) * step)


def iso(d: date) -> str:
    return d.isoformat()


def iso_dt(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(s: str) -> date:
    return date.fromisoformat(s)


def add_days(d: date, n: int) -> date:
    return d + timedelta(days=n)


def add_months(d: date, n: int, day: int | None = None) -> date:
    y, m = divmod(d.month - 1 + n, 12)
    year, month = d.year + y, m + 1
    target = day if day is not None else d.day
    return date(year, month, min(target, 28 if month == 2 else 30 if month in (4, 6, 9, 11) else 31))


def month_end(d: date) -> date:
    return add_months(date(d.year, d.month, 1), 1) - timedelta(days=1)


def business_dt(rng: random.Random, d: date) -> datetime:
    """A working-hours timestamp (UTC) on day d; never after the clock."""
    dt = datetime(d.year, d.month, d.day, rng.randint(12, 22), rng.randint(0, 59), rng.randint(0, 59))
    limit = datetime(2026, 6, 30, 16, 59, 0)
    return min(dt, limit - timedelta(minutes=rng.randint(1, 600)))
