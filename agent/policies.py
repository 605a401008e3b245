"""Scripted policies: the oracle, a do-nothing agent, and an over-eager one that must score 0."""
from __future__ import annotations


class Policy:
    """A policy works a task through tools (`run_tools`) or a browser (`run_browser`) and replies.

    The interface a policy of your own implements (`cfab run --policy mypkg.agents:MyPolicy`):

    - `name`: a short label for results files (default: the `module:Class` it was loaded as).
    - `run_tools(task, env) -> str`: `task.instruction` is the request and `task.apps` the apps
      it may use; `env.tools()` lists the tool schemas (name, description, JSON-schema
      parameters) and `env.call(name, args)` calls one and returns its result. Return the reply
      to the person who asked; the grader reads the episode's state and this reply.
    - `run_browser(task, portal) -> str`: `portal.page` is a Playwright page open on the
      task's first app and `portal.base_url` the site's root. Return the reply.
    - Optional, for a policy that calls a model: `uses_model = True`. It is then built as
      `MyPolicy(client, max_steps=N)` with the run's `agent.llm.client.ChatClient` (the
      --model, --base-url, --temperature, --seed, --max-tokens and --extra-body flags), and
      each run method gets `meter=` (tokens, steps, cost, and the transcript when the client's
      `complete(messages, meter, tools)` is used), as the built-in llm-tools agent does.

    A transport the policy does not implement raises NotImplementedError, recorded as the
    run's error.
    """

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
                  "backoff", "timeout", "temperature", "seed", "max_tokens", "extra_body")


class PolicyLoadError(LookupError):
    """`module:Class` does not name a policy class that can be loaded."""


def is_external(name: str) -> bool:
    """`module:Class` names a policy outside the project."""
    return ":" in name


def load_policy_class(spec: str) -> type:
    """The class `module:Class` names (`module` importable: installed, or found from the
    current directory), which must implement the Policy interface."""
    import importlib
    import os
    import sys

    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise PolicyLoadError(f"--policy {spec!r}: write an outside policy as module:Class, "
                              "e.g. mypkg.agents:MyPolicy")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does: a module next to you is found
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise PolicyLoadError(f"--policy {spec!r}: cannot import module {module_name!r} ({err})") from None
    obj = module
    for part in class_name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise PolicyLoadError(f"--policy {spec!r}: module {module_name!r} has no {class_name!r}")
    if not isinstance(obj, type):
        raise PolicyLoadError(f"--policy {spec!r}: {class_name!r} is not a class")
    missing = [m for m in ("run_tools", "run_browser") if not callable(getattr(obj, m, None))]
    if missing:
        raise PolicyLoadError(f"--policy {spec!r}: {class_name} lacks {' and '.join(missing)} "
                              "(subclass agent.policies.Policy)")
    return obj


def uses_model(name: str) -> bool:
    """Whether the named policy is built with a model client (and so takes --model etc.)."""
    if name in MODEL_POLICIES:
        return True
    return is_external(name) and bool(getattr(load_policy_class(name), "uses_model", False))


def make_policy(name: str, **options) -> Policy:
    """A policy by name, or a class of your own as `module:Class`. Model policies take client
    options (model, base_url, api_key_env, price_in, price_out, max_retries, temperature,
    seed, max_tokens, extra_body) and loop options (max_steps, screenshots)."""
    import importlib

    if name in MODEL_POLICIES or is_external(name):
        if is_external(name):
            cls = load_policy_class(name)
        else:
            module, cls_name = MODEL_POLICIES[name]
            cls = getattr(importlib.import_module(module), cls_name)
        if is_external(name) and not getattr(cls, "uses_model", False):
            policy = cls(**options)
        else:
            from .llm.client import ChatClient

            if not options.get("model"):
                raise KeyError(f"policy {name!r} needs a model (--model)")
            client = ChatClient(**{k: v for k, v in options.items() if k in CLIENT_OPTIONS and v is not None})
            rest = {k: v for k, v in options.items() if k not in CLIENT_OPTIONS and v is not None}
            policy = cls(client, **rest)
        if is_external(name) and getattr(policy, "name", None) in (None, "", Policy.name):
            policy.name = name  # no name of its own: the spec names it
        return policy
    if name not in POLICIES:
        raise KeyError(f"unknown policy {name!r}; choose from {', '.join([*POLICIES, *MODEL_POLICIES])}, "
                       "or module:Class for a policy of your own")
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
