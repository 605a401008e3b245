"""`llm-tools`: a model works the task through the native tools, each one a named function."""
from __future__ import annotations

import hashlib
import json
import re

from grader.judge import json_objects

from ..policies import Policy
from . import prompt
from .loop import Driver, parse_arguments, run_loop

NAME_OK = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
RESERVED = {"act", "finish"}
RESULT_LIMIT = 2200


def sanitize_names(real_names: list[str]) -> dict[str, str]:
    """API-safe function name -> real tool name, one-to-one, in a stable order.

    Providers accept only ^[a-zA-Z0-9_-]{1,64}$; "procore.erp.sync_invoice" becomes
    "procore_erp_sync_invoice". Names that collide (with each other or with act/finish) get a
    numeric suffix; long names keep a hash of the original so they stay distinct.
    """
    out: dict[str, str] = {}
    for real in sorted(real_names):
        base = re.sub(r"[^a-zA-Z0-9_-]", "_", real) or "tool"
        if len(base) > 64:
            base = base[:55] + "_" + hashlib.sha256(real.encode()).hexdigest()[:8]
        name, n = base, 1
        while name in out or name in RESERVED:
            n += 1
            suffix = f"_{n}"
            name = base[:64 - len(suffix)] + suffix
        out[name] = real
    return out


def function_spec(name: str, description: str, parameters: dict) -> dict:
    return {"type": "function",
            "function": {"name": name, "description": description[:1000], "parameters": parameters}}


def result_text(result) -> str:
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"), default=str)


def truncate_result(result) -> str:
    """Compact JSON, cut to ~2.2k characters with a hint on how to ask for less."""
    text = result_text(result)
    if len(text) <= RESULT_LIMIT:
        return text
    facts = []
    if isinstance(result, dict):
        if isinstance(result.get("items"), list):
            facts.append(f"{len(result['items'])} items on this page")
        for key in ("total", "page", "pages"):
            if key in result:
                facts.append(f"{key}={result[key]}")
    about = f" ({', '.join(facts)})" if facts else ""
    return (text[:RESULT_LIMIT] + f"… [cut at {RESULT_LIMIT} of {len(text)} characters{about}. "
            "Narrow the call with a filter argument, or page with page/per_page.]")


FINISH_ARG = "reply"
FINISH_ALIASES = ("summary",)


def finish_spec() -> dict:
    """`finish(reply)`, the same for both agents; `summary` is accepted as another name for it."""
    return function_spec("finish", "End the task with your reply to the person who asked.",
                         {"type": "object", "properties": {FINISH_ARG: {"type": "string"}},
                          "required": [FINISH_ARG]})


def finish_reply(args: dict) -> str:
    """The reply a finish call carries, under `reply` or an alias (`summary`)."""
    for key in (FINISH_ARG, *FINISH_ALIASES):
        if args.get(key) not in (None, ""):
            return str(args[key])
    return ""


class ToolsDriver(Driver):
    def __init__(self, env):
        self.env = env
        schemas = {s["name"]: s for s in env.tools()}
        self.names = sanitize_names(list(schemas))
        self.tools = [function_spec(safe, schemas[real].get("description", ""),
                                    schemas[real].get("parameters") or {"type": "object", "properties": {}})
                      for safe, real in self.names.items()]
        self.tools.append(function_spec(
            "act", "Call any tool by its name (either form listed) with an object of arguments.",
            {"type": "object", "properties": {"tool": {"type": "string"}, "args": {"type": "object"}},
             "required": ["tool"]}))
        self.tools.append(finish_spec())
        self.final = ""

    def resolve(self, name: str) -> str | None:
        if name in self.names:
            return self.names[name]
        return name if name in self.names.values() else None

    def execute(self, name: str, args: dict) -> tuple[str, bool]:
        if name == "finish":
            self.final = finish_reply(args)
            return "finished", True
        if name == "act":
            inner, problem = parse_arguments(args.get("args") or {})
            if problem:
                return f"error: act args: {problem}", False
            name, args = str(args.get("tool", "")), inner
        real = self.resolve(name)
        if real is None:
            return (f"error: there is no tool named {name!r}. Tools: "
                    f"{', '.join(self.names)}, act, finish"), False
        result = self.env.call(real, args)
        text = truncate_result(result)
        if len(text) > RESULT_LIMIT:  # the model sees the cut; the transcript keeps it whole
            self.untruncated = result_text(result)
        return text, False

    def parse_text(self, text: str) -> list[tuple[str, dict]]:
        """Actions written as JSON in a text answer: {"tool", "args"} / {"name", "arguments"} / {"finish"}."""
        for candidate in json_objects(text):
            if "finish" in candidate:
                return [("finish", {"reply": str(candidate["finish"])})]
            name = candidate.get("tool") or candidate.get("name")
            args = candidate.get("args", candidate.get("arguments", {}))
            if isinstance(name, str):
                args, problem = parse_arguments(args)
                return [(name, args)] if not problem else []
        return []

    def reply(self) -> str:
        return self.final


class LLMToolsPolicy(Policy):
    """A chat model in a ReAct loop over the task's native tools."""

    name = "llm-tools"
    uses_model = True

    def __init__(self, client, max_steps: int = 24, **_ignored):
        self.client = client
        self.model = client.model
        self.max_steps = max_steps

    def run_tools(self, task, env, meter=None) -> str:
        meter = meter if meter is not None else self.client.meter()
        driver = ToolsDriver(env)
        messages = [{"role": "system", "content": prompt.TOOLS_SYSTEM},
                    {"role": "user", "content": prompt.tools_task(task.instruction, list(task.apps))}]
        return run_loop(self.client, driver, messages, meter, self.max_steps)

    def run_browser(self, task, portal, meter=None) -> str:
        raise NotImplementedError("llm-tools drives tools; use --policy llm-browser for the portals")
