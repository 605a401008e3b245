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


def _gold(**options) -> Policy:
    """Replays the recorded gold trajectories; imported on use (agent.gold subclasses Policy)."""
    from .gold import GoldPolicy
    return GoldPolicy(**options)


POLICIES["gold"] = _gold

# Model-driven policies, imported on demand (they subclass Policy, so they import this module).
MODEL_POLICIES = {"llm-tools": ("agent.llm.tools_agent", "LLMToolsPolicy"),
                  "llm-browser": ("agent.llm.browser_agent", "LLMBrowserPolicy")}
CLIENT_OPTIONS = ("model", "base_url", "api_key_env", "price_in", "price_out", "max_retries",
                  "backoff", "timeout")


def make_policy(name: str, **options) -> Policy:
    """A policy by name. Model policies take client options (model, base_url, api_key_env,
    price_in, price_out, max_retries) and loop options (max_steps, screenshots)."""
    if name in MODEL_POLICIES:
        import importlib

        from .llm.client import ChatClient

        if not options.get("model"):
            raise KeyError(f"policy {name!r} needs a model (--model)")
        client = ChatClient(**{k: v for k, v in options.items() if k in CLIENT_OPTIONS and v is not None})
        module, cls = MODEL_POLICIES[name]
        rest = {k: v for k, v in options.items() if k not in CLIENT_OPTIONS and v is not None}
        return getattr(importlib.import_module(module), cls)(client, **rest)
    if name not in POLICIES:
        raise KeyError(f"unknown policy {name!r}; choose from {', '.join([*POLICIES, *MODEL_POLICIES])}")
    return POLICIES[name](**options)


class AttemptPolicy(Policy):
    """One scripted attempt of the admission gate (tasks/gate.py): a near-miss or a variant."""

    def __init__(self, attempt):
        self.attempt = attempt
        self.name = attempt.name

    def run_tools(self, task, env) -> str:
        return self.attempt.tools(env)

    def run_browser(self, task, portal) -> str:
        return self.attempt.browser(portal)
