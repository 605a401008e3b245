"""Small pieces the families share: paging through list tools, reading the tool results."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


class OracleError(RuntimeError):
    """The oracle met something it did not expect: the environment or the task is broken."""


def call(env, name: str, args: dict | None = None) -> dict:
    """Call a tool and fail loudly on a refusal: an oracle never expects one."""
    result = env.call(name, args or {})
    if isinstance(result, dict) and "error" in result:
        raise OracleError(f"{name}({args}) was refused: {result.get('message')}")
    return result


def all_items(env, name: str, args: dict) -> list[dict]:
    """Every row of a paged list tool."""
    items, page = [], 1
    while True:
        result = call(env, name, {**args, "page": page, "per_page": 100})
        items.extend(result["items"])
        if page >= result.get("pages", 1):
            return items
        page += 1


@dataclass(frozen=True)
class Private:
    """How a family joins the private split, CFAgentBench-Pro (tasks/private.py builds it).

    `salt(book, rng, claimed) -> [params]` picks the family's private instances from the book
    with the salted `rng` and may edit `book` (the private world's own deep copy) to seed their
    salted values; it edits only what it adds to `claimed` (a set of (book section, entity) keys such as
    ("budget_lines", "1246") or ("documents", "V1133")), and skips what another family claimed
    first, so no family undoes another's seeded values.
    `task(book, params) -> Task` builds one instance on the finished private book, its
    instance id `cf_<family>_pro-<key>`. Both are pure functions of their arguments."""

    salt: Callable
    task: Callable


@dataclass(frozen=True)
class Family:
    name: str
    instances: Callable[[dict], list]
    private: Private | None = None  # None: the family has no private instances
