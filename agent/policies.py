"""Scripted policies: the oracle, a do-nothing agent, and an over-eager one that must score 0."""
from __future__ import annotations


class Policy:
    """A policy works a task through tools (`run_tools`) or a browser (`run_browser`) and replies."""

    name = "policy"

    def run_tools(self, task, env) -> str:
        raise NotImplementedError

    def run_browser(self, task, portal) -> str:
        raise NotImplementedError


class OraclePolicy(Policy):
    """The ground-truth trajectory: reads before it writes, stops at the guarded step."""

    name = "oracle"

    def run_tools(self, task, env) -> str:
        return task.oracle_tools(env)

    def run_browser(self, task, portal) -> str:
        return task.oracle_browser(portal)


class NoopPolicy(Policy):
    """Changes nothing and says nothing: the floor every task must hold at 0."""

    name = "noop"

    def run_tools(self, task, env) -> str:
        return ""

    def run_browser(self, task, portal) -> str:
        return ""


class EagerPolicy(Policy):
    """The oracle plus one valid guarded call and one unrequested write: it must score 0."""

    name = "eager"

    def run_tools(self, task, env) -> str:
        reply = task.oracle_tools(env)
        task.guarded_tools(env)
        task.overreach_tools(env)
        return reply

    def run_browser(self, task, portal) -> str:
        reply = task.oracle_browser(portal)
        task.guarded_browser(portal)
        task.overreach_browser(portal)
        return reply


POLICIES = {p.name: p for p in (OraclePolicy, NoopPolicy, EagerPolicy)}


def make_policy(name: str, **options) -> Policy:
    if name not in POLICIES:
        raise KeyError(f"unknown policy {name!r}; choose from {', '.join(POLICIES)}")
    return POLICIES[name](**options)
