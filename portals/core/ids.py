"""Deterministic ids and random streams, derived from natural keys and the run seed."""
from __future__ import annotations

import hashlib
import os
import random

DEFAULT_SEED = 7


def run_seed() -> int:
    """The benchmark seed (`CFAB_SEED`), never an unseeded generator."""
    return int(os.environ.get("CFAB_SEED", DEFAULT_SEED))


def stable_id(*parts: object, digits: int = 9) -> int:
    """A positive integer id hashed from a natural key, e.g. stable_id("outlook", "draft", 3)."""
    text = "\x1f".join(str(p) for p in parts)
    number = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    low = 10 ** (digits - 1)
    return low + number % (9 * low)


def app_rng(seed: int, app: str, company: str = "companyA") -> random.Random:
    """The per-app random stream: sha256(seed:app:company), as the paper prescribes."""
    digest = hashlib.sha256(f"{seed}:{app}:{company}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
