"""The admission gate's building blocks: scripted attempts that are wrong-but-plausible
(near-misses, which must fail for the reason they name) or right-but-different (variants,
which must pass).

Most attempts are the oracle run through an environment that rewrites, drops or adds one
tool call, so a near-miss differs from correct work by exactly the mistake it stands for.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Attempt:
    """One scripted attempt at a task, through the tools, the browser, or both."""

    name: str
    note: str  # what it does, in business words
    tools: Callable | None = None  # (env) -> reply
    browser: Callable | None = None  # (portal) -> reply
    because: str = ""  # near-misses: a regex one verdict line must match (why it fails)

    def runs_on(self, transport: str) -> bool:
        return (self.tools if transport == "tools" else self.browser) is not None


class _Rewriting:
    """An environment whose calls pass through `fn(name, args) -> (name, args) | None` first."""

    def __init__(self, env, fn: Callable):
        self._env, self._fn = env, fn

    def call(self, name: str, args: dict | None = None) -> dict:
        changed = self._fn(name, dict(args or {}))
        if changed is None:
            return {"skipped": True}
        return self._env.call(*changed)

    def __getattr__(self, attr):
        return getattr(self._env, attr)


def rewrite(env, fn: Callable) -> _Rewriting:
    """`env` with each call first passed to `fn`; `fn` returns the call to make, or None to skip it."""
    return _Rewriting(env, fn)


def change_arg(tool: str, **changes) -> Callable:
    """A rewrite that changes some arguments of every call to `tool` (a value may be a function
    of the old value)."""
    def fn(name: str, args: dict):
        if name == tool:
            for key, value in changes.items():
                args[key] = value(args.get(key)) if callable(value) else value
        return name, args
    return fn


def drop_call(tool: str) -> Callable:
    """A rewrite that skips every call to `tool`."""
    return lambda name, args: None if name == tool else (name, args)


def with_reply(fn: Callable, reply: str | Callable) -> Callable:
    """An attempt that does `fn`'s work but replies `reply` (a string, or a function of fn's reply)."""
    def attempt(target):
        said = fn(target)
        return reply(said) if callable(reply) else reply
    return attempt


def then(fn: Callable, *extra: Callable) -> Callable:
    """An attempt that does `fn`'s work, then each extra step on the same env/portal; fn's reply."""
    def attempt(target):
        said = fn(target)
        for step in extra:
            step(target)
        return said
    return attempt
