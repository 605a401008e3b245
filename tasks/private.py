"""The private split, CFAgentBench-Pro: salted instances of the same families, never published.

A secret salt (a file the maintainer keeps; `cfab dataset salt FILE` makes one) seeds one RNG per
family, sha256("cfagentbench-pro:<salt>:<family>"). Each family that opts in (its
`Family.private`, tasks/families/common.py) picks its private instances from the Company-A book
with that RNG and seeds their salted values into the private world: a deep copy of the public
book that only the private server builds its episodes from. The ground truth of a private
instance is the family's own evaluator computed on that world, so it is a function of the salt:
without the salt file nothing private can be built, and with it the build is deterministic.

The families run in FAMILIES order, each skipping the entities an earlier one claimed, so one
family's seeded values never change another's instance. A family without `private` contributes
no private instance (listed by `missing_families`).
"""
from __future__ import annotations

import copy
import hashlib
import random
from functools import lru_cache
from pathlib import Path

MIN_SALT_BYTES = 16
PREFIX = "pro-"  # private instance ids: cf_<family>_pro-<key>


class SaltError(ValueError):
    """No salt, or one too short to keep the private split secret."""


def read_salt(path: str | Path | None) -> bytes:
    """The salt a file holds (surrounding whitespace ignored); refuses a missing or short one."""
    if not path:
        raise SaltError("the private split needs its salt file (--salt-file FILE); without it nothing "
                        "private can be built")
    try:
        salt = Path(path).read_bytes().strip()
    except OSError as err:
        raise SaltError(f"cannot read the salt file {path}: {err.strerror or err}") from None
    if len(salt) < MIN_SALT_BYTES:
        raise SaltError(f"the salt in {path} is {len(salt)} bytes; a salt is at least {MIN_SALT_BYTES} "
                        "(make one with `cfab dataset salt FILE`)")
    return salt


def family_rng(salt: bytes, family: str) -> random.Random:
    digest = hashlib.sha256(b"cfagentbench-pro:" + salt + b":" + family.encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def salt_id(salt: bytes) -> str:
    """A short public name for a salt (which private world a record or result belongs to);
    a hash of a hash, so it reveals nothing of the salt."""
    inner = hashlib.sha256(b"cfagentbench-pro:id:" + salt).digest()
    return hashlib.sha256(inner).hexdigest()[:12]


class World:
    """The private book and the private instances built on it."""

    def __init__(self, book: dict, tasks: tuple, salt_id: str, missing: tuple, params: dict):
        self.book, self.tasks, self.salt_id, self.missing_families = book, tasks, salt_id, missing
        self.params = params  # instance id -> (family, the parameters its hook picked)

    def get(self, instance_id: str):
        for task in self.tasks:
            if task.instance_id == instance_id:
                return task
        raise LookupError(f"no private instance {instance_id!r}")


@lru_cache(maxsize=4)
def build_world(salt: bytes, public_book_seed: int | None = None) -> World:
    """The private world of `salt` (cached per salt: the build is a pure function of it)."""
    from grader.evaluator import validate_evaluator
    from grader.grade import noop_would_pass
    from seeds.book import load_book

    from .families import FAMILIES

    book = copy.deepcopy(load_book())
    book["meta"] = {**book["meta"], "private_split": salt_id(salt)}
    claimed: set = set()
    plans, missing = [], []
    for family in FAMILIES:
        hook = getattr(family, "private", None)
        if hook is None:
            missing.append(family.name)
            continue
        plans.append((family, hook, hook.salt(book, family_rng(salt, family.name), claimed)))
    tasks, picked = [], {}
    for family, hook, params in plans:
        for p in params:
            task = hook.task(book, p)
            picked[task.instance_id] = (family, p)
            if not task.instance_id.startswith(f"cf_{family.name}_{PREFIX}"):
                raise ValueError(f"{task.instance_id}: a private instance id is cf_{family.name}_{PREFIX}<key>")
            validate_evaluator(task.evaluator)
            if noop_would_pass(task.evaluator):
                raise ValueError(f"{task.instance_id}: a do-nothing agent would pass this evaluator")
            tasks.append(task)
    ids = [t.instance_id for t in tasks]
    if len(set(ids)) != len(ids):
        raise ValueError("two private instances share an id")
    return World(book, tuple(sorted(tasks, key=lambda t: t.instance_id)), salt_id(salt), tuple(missing), picked)


def world_from_file(path: str | Path | None) -> World:
    return build_world(read_salt(path))


MONEY = r"-?\d+\.\d{2}"


@lru_cache(maxsize=1)
def public_figures() -> frozenset:
    """Every money figure of the public book ("14350.00"): a salted figure drawn again when it
    is one of these, so that no private answer is a number the public repository holds."""
    import re

    from seeds.book import dumps, load_book

    return frozenset(re.findall(r"(?<![\d.])\d+\.\d{2}(?![\d])", dumps(load_book())))


def public_collisions(world) -> list[str]:
    """The private instances whose money answers occur among the public book's figures."""
    return [f"{t.instance_id}: {v}" for t in world.tasks for v in sorted(money_answers(t.evaluator))
            if v in public_figures()]


def money_answers(evaluator: dict) -> set[str]:
    """The money figures an evaluator compares against: its expected assertions' values and its
    reply claims' amounts (canonical strings like "3706560.00"), zero and rates left out."""
    import re

    out = set()

    def add(value):
        if isinstance(value, str) and re.fullmatch(MONEY, value) and value.lstrip("-") != "0.00":
            out.add(value)

    for spec in evaluator.get("expected", []):
        for key, value in (spec.get("assert") or {}).items():
            if not key.endswith("_pct"):  # a rate ("10.00" %) is a term of a contract, not a money figure
                add(value)
    for claim in evaluator.get("required_outputs", []):
        if isinstance(claim, dict) and claim.get("claim") == "amount":
            add(claim.get("value"))
    return out
