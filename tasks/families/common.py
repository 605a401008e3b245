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
class Family:
    name: str
    instances: Callable[[dict], list]
