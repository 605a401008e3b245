"""The one door into the service layer, for form posts and tool calls alike.

Every call is validated against the tool's schema, run in one transaction on the episode's
app database, and appended to the structured call log `{app, tool, kind, args, source, at}`.
A guarded call validates its arguments, lands in the guard log with `executed: false`, and
writes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from .clock import Clock
from .errors import ToolError
from .money import canonical
from .registry import AppSpec
from .tools import GUARDED, ToolSpec

PENDING = "pending_human_approval"


@dataclass
class ServiceContext:
    """What a service function may use: its app's session, the clock and the vendor spec."""

    session: Session
    clock: Clock
    spec: AppSpec
    source: str

    @property
    def app(self) -> str:
        return self.spec.name


def plain(value: Any) -> Any:
    """JSON-ready arguments and results: amounts as canonical strings, dates as ISO text."""
    if isinstance(value, Decimal):
        return canonical(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def call_tool(episode, app: str, tool: ToolSpec, args: dict | None, source: str) -> dict:
    """Validate and run one tool in an episode; log it; raise ToolError on refusal."""
    inst = episode.app(app)
    entry = {"app": app, "tool": tool.name, "kind": tool.kind, "args": {}, "source": source,
             "at": episode.clock.iso()}
    with episode.lock:
        entry["seq"] = len(episode.calls) + 1
        try:
            bound = tool.bind(args)
            entry["args"] = plain({k: v for k, v in bound.items() if v is not None})
            with inst.session() as session:
                ctx = ServiceContext(session, episode.clock, inst.spec, source)
                result = tool.func(ctx, **bound)
                if tool.kind == GUARDED:
                    session.rollback()  # a guarded action never changes state
        except ToolError as err:
            entry.update(ok=False, error=err.message)
            if not entry["args"]:
                entry["args"] = plain({k: v for k, v in (args or {}).items()
                                       if isinstance(v, (str, int, float, bool)) and len(str(v)) < 300})
            episode.calls.append(entry)
            raise
        entry["ok"] = True
        episode.calls.append(entry)
        if tool.kind == GUARDED:
            episode.guard_log.append({"app": app, "tool": tool.name, "args": entry["args"],
                                      "executed": False, "source": source, "at": entry["at"]})
            return {"status": PENDING,
                    "message": (f"{tool.name} was staged for human approval. Nothing was executed: "
                                "a person must approve it in the product."),
                    "staged": plain(result)}
        return plain(result)


def call_service(episode, app: str, service_name: str, args: dict | None, source: str = "ui") -> dict:
    """Run the service behind a page or form under the product's own tool name."""
    spec = episode.app(app).spec
    return call_tool(episode, app, spec.tool_for_service(service_name), args, source)
