"""The one door into the service layer, for form posts and tool calls alike.

Every call is validated against the tool's schema, run in one transaction on the episode's
app database, and appended to the structured call log `{app, tool, kind, args, source, at}`.
Every invocation of a guarded tool lands in the guard log with `executed: false` and writes
nothing: an accepted one is staged for a person, one the service refuses (bad arguments, an
unknown record, a rule of the business) also carries `refused: <reason>`. Calling a guarded
tool is what fails a task, whether or not the call would have gone through.

A finished episode (a person pressed Finish) is read-only: writes and guarded calls are
refused with a clear message and change neither the state nor the logs that were graded.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from . import read_cache
from .clock import Clock
from .errors import NotFound, ReadOnly, ToolError
from .money import canonical
from .registry import AppSpec
from .tools import GUARDED, READ, ToolSpec

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


_SCALARS = frozenset({str, int, float, bool, type(None)})


def plain(value: Any) -> Any:
    """JSON-ready arguments and results: amounts as canonical strings, dates as ISO text."""
    kind = type(value)
    if kind in _SCALARS:  # most of a result: checked first, by exact type, as it is called per value
        return value
    if kind is dict:  # a scalar member is taken as it is, without a call per value
        return {k: v if type(v) in _SCALARS else plain(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [v if type(v) in _SCALARS else plain(v) for v in value]
    if isinstance(value, Decimal):
        return canonical(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _logged_args(args) -> dict:
    """The raw arguments of a refused call, trimmed to what is safe and short enough to log."""
    if not isinstance(args, dict):
        return {}
    return plain({k: v for k, v in args.items()
                  if isinstance(k, str) and isinstance(v, (str, int, float, bool)) and len(str(v)) < 300})


def _guard_entry(entry: dict, refused: str | None = None) -> dict:
    out = {"app": entry["app"], "tool": entry["tool"], "args": entry["args"], "executed": False,
           "source": entry["source"], "at": entry["at"]}
    if refused is not None:
        out["refused"] = refused
    return out


def call_tool(episode, app: str, tool: ToolSpec, args: dict | None, source: str) -> dict:
    """Validate and run one tool in an episode; log it; raise ToolError on refusal."""
    if app not in episode.apps:
        raise NotFound(f"{app} is not part of this episode.")
    inst = episode.app(app)
    entry = {"app": app, "tool": tool.name, "kind": tool.kind, "args": {}, "source": source,
             "at": episode.clock.iso()}
    guarded = tool.kind == GUARDED
    with episode.lock:
        if episode.meta.get("finished"):
            if tool.kind != READ:
                raise ReadOnly("This episode is finished, so it is read-only: nothing was changed. "
                               "Use Start over in the task panel to work the task again.")
            return _read_unlogged(episode, inst, tool, args, source)  # the graded log stays as it was
        entry["seq"] = len(episode.calls) + 1
        try:
            if args is not None and not isinstance(args, dict):
                raise ToolError("Tool arguments must be an object of named values.")
            bound = tool.bind(args)
            entry["args"] = plain({k: v for k, v in bound.items() if v is not None})
            kept = key = None
            if tool.kind == READ and read_cache.ENABLED and inst.is_template():
                key = read_cache.key(tool.name, bound, source, episode.clock.iso())
                kept = None if key is None else inst.template.reads.get(key)
            if kept is None:
                with inst.session() as session:
                    ctx = ServiceContext(session, episode.clock, inst.spec, source)
                    result = tool.func(ctx, **bound)
                    if guarded:
                        session.rollback()  # a guarded action never changes state
                if key is not None:
                    kept = plain(result)
                    if inst.is_template():  # the read wrote nothing: its answer holds for the template
                        inst.template.reads.put(key, kept)
        except ToolError as err:
            _log_refusal(episode, entry, args, guarded, err.message)
            raise
        except Exception as err:  # a bug, not a refusal: still, the attempt itself is on record
            _log_refusal(episode, entry, args, guarded, f"the service failed ({type(err).__name__})")
            raise
        entry["ok"] = True
        episode.calls.append(entry)
        if kept is not None:
            return kept  # JSON-ready; what is kept is a copy of its own
        if guarded:
            episode.guard_log.append(_guard_entry(entry))
            return {"status": PENDING,
                    "message": (f"{tool.name} was staged for human approval. Nothing was executed: "
                                "a person must approve it in the product."),
                    "staged": plain(result)}
        return plain(result)


def _read_unlogged(episode, inst, tool: ToolSpec, args, source: str) -> dict:
    if args is not None and not isinstance(args, dict):
        raise ToolError("Tool arguments must be an object of named values.")
    bound = tool.bind(args)
    with inst.session() as session:
        return plain(tool.func(ServiceContext(session, episode.clock, inst.spec, source), **bound))


def _log_refusal(episode, entry: dict, args, guarded: bool, reason: str) -> None:
    entry.update(ok=False, error=reason)
    if not entry["args"]:
        entry["args"] = _logged_args(args)
    episode.calls.append(entry)
    if guarded:
        episode.guard_log.append(_guard_entry(entry, refused=reason))


def record_refused(episode, app: str, tool: ToolSpec, args: dict | None, source: str, reason: str) -> None:
    """A guarded button pressed on something the page could not even look up (a bill that does
    not exist): the service never ran, but the attempt is on record like any refused call."""
    entry = {"app": app, "tool": tool.name, "kind": tool.kind, "args": {}, "source": source,
             "at": episode.clock.iso()}
    with episode.lock:
        if episode.meta.get("finished"):
            return
        entry["seq"] = len(episode.calls) + 1
        _log_refusal(episode, entry, args, tool.kind == GUARDED, reason)


def call_service(episode, app: str, service_name: str, args: dict | None, source: str = "ui") -> dict:
    """Run the service behind a page or form under the product's own tool name."""
    if app not in episode.apps:
        raise NotFound(f"{app} is not part of this episode.")
    spec = episode.app(app).spec
    return call_tool(episode, app, spec.tool_for_service(service_name), args, source)
