"""What the server refuses: body size and depth, episodes per server, the rates of tool calls
and of new episodes.

Each limit is a flag of `cfab serve` (see docs/security.md, "What the server refuses"); the
defaults below are what every `create_app` gets. A body the tool API cannot read as one JSON
object is refused before any tool runs, so a malformed request can never act like `{}`.
"""
from __future__ import annotations

import json
import math
import threading
import time
from collections import deque
from dataclasses import dataclass

from flask import current_app, request
from flask.json.provider import DefaultJSONProvider

from .errors import ToolError


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 1024 * 1024  # any request but the admin API's
    max_admin_body_bytes: int = 64 * 1024 * 1024  # a whole-episode snapshot is ~12 MB
    max_json_depth: int = 32  # nesting of arrays and objects in a JSON body
    max_episodes: int = 64  # live episodes opened over HTTP (launcher and admin API)
    busy_seconds: float = 60.0  # an episode used this recently is never freed to make room
    new_episodes_per_minute: int = 120  # launcher episodes (no credentials), server-wide
    # The two rates below are off (0) in code, where the runner, the e2e server and the tests
    # work their own episodes as fast as they can; `cfab serve` turns them on (docs/security.md).
    tool_calls_per_minute: int = 0  # per episode: tool-API calls and portal form posts
    new_episodes_per_client_per_minute: int = 0  # launcher episodes per client address

    def __post_init__(self):
        for name in ("max_body_bytes", "max_admin_body_bytes", "max_json_depth", "max_episodes",
                     "new_episodes_per_minute"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        for name in ("tool_calls_per_minute", "new_episodes_per_client_per_minute"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 (no limit) or more")


def limits_of(app=None) -> Limits:
    return (app or current_app).extensions["cfab_limits"]


class BodyRefused(ToolError):
    """A request body the server will not read: not JSON, not an object, too deep or too big."""

    def __init__(self, message: str, status: int = 400, code: str = "invalid_body"):
        super().__init__(message, None, code=code)
        self.status = status


def _no_constants(name: str):
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text[:40]} is out of range")
    return value


def too_deep(value, limit: int) -> bool:
    """Whether arrays and objects nest more than `limit` levels (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def parse_json(data: bytes | str, max_depth: int):
    """Strict JSON: valid UTF-8, no NaN or Infinity, nesting bounded; ValueError says why."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("the body is not valid UTF-8") from None
    try:
        value = json.loads(data, parse_constant=_no_constants, parse_float=_finite_float)
    except RecursionError:  # the C parser's own guard: far deeper than any limit here
        raise ValueError(f"the JSON nests more than {max_depth} levels deep") from None
    except ValueError as err:
        raise ValueError(f"the body is not valid JSON ({str(err)[:120]})") from None
    if isinstance(value, (dict, list)) and too_deep(value, max_depth):
        raise ValueError(f"the JSON nests more than {max_depth} levels deep")
    return value


def json_object_body(*, empty_ok: bool = False) -> dict:
    """The request's body as one JSON object, or a BodyRefused (a 4xx with a clear message).

    The content type must say JSON; `empty_ok` reads a missing body as {} (the admin API's
    bodiless POSTs), which the tool API never does: a tool without arguments is sent `{}`.
    """
    data = request.get_data(cache=True)  # over the size limit Werkzeug answers 413 itself
    if not data and empty_ok:
        return {}
    mimetype = request.mimetype or ""
    if mimetype != "application/json" and not mimetype.endswith("+json"):
        raise BodyRefused(f"Send the arguments as a JSON object with Content-Type: application/json "
                          f"(this request said {mimetype or 'nothing'!r}). Nothing was run.")
    try:
        value = parse_json(data, limits_of().max_json_depth)
    except ValueError as err:
        raise BodyRefused(f"The request body was refused: {err}. Nothing was run.") from None
    if not isinstance(value, dict):
        raise BodyRefused(f"The request body must be a JSON object of named arguments, not "
                          f"{type(value).__name__ if value is not None else 'null'}. Nothing was run.")
    return value


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, made safe for every `get_json()` in every blueprint: a body nested too deep
    or not really JSON is a ValueError (so `silent=True` means None and otherwise a 400), never a
    RecursionError escaping as a 500."""

    def loads(self, s, **kwargs):
        return parse_json(s, limits_of(self._app).max_json_depth)


class RateWindow:
    """At most `per_minute` events in any sliding minute, for each key (one key: server-wide).

    Keys are episodes or client addresses; a key with no event in the last minute holds no
    memory (stale keys are swept as new ones come), so many keys cannot exhaust the server."""

    def __init__(self, per_minute: int, monotonic=time.monotonic):
        self.per_minute = per_minute
        self._monotonic = monotonic
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._swept = monotonic()

    def _recent(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = deque()
        while events and events[0] <= now - 60:
            events.popleft()
        return events

    def _sweep(self, now: float) -> None:
        if now - self._swept < 60:
            return
        self._swept = now
        for key in [k for k, events in self._events.items() if not events or events[-1] <= now - 60]:
            del self._events[key]

    def allow(self, key: str = "") -> bool:
        now = self._monotonic()
        with self._lock:
            self._sweep(now)
            events = self._recent(key, now)
            if len(events) >= self.per_minute:
                return False
            events.append(now)
            return True

    def retry_after(self, key: str = "") -> int:
        """Whole seconds until `key` may have one more event."""
        now = self._monotonic()
        with self._lock:
            events = self._recent(key, now)
            if len(events) < self.per_minute:
                return 1
            return max(1, math.ceil(events[0] + 60 - now))


def check_rate(window_name: str, key: str, per_minute: int, what: str) -> None:
    """Count one event against `key` in the app's `window_name`; past `per_minute` a 429 (JSON on
    /api and /admin, a page elsewhere) with Retry-After. `per_minute` 0: no limit."""
    from werkzeug.exceptions import TooManyRequests

    if not per_minute:
        return
    window = current_app.extensions[window_name]
    if not window.allow(key):
        raise TooManyRequests(f"At most {per_minute} {what} a minute; that many were just made. Nothing "
                              f"was run. Try again in {window.retry_after(key)} s.",
                              retry_after=window.retry_after(key))


def safe_next(path) -> str:
    """A redirect target inside this site: an absolute path, never `//host` or `/\\host`."""
    text = path if isinstance(path, str) else ""
    if not text.startswith("/") or text.startswith(("//", "/\\")) or \
            any(ord(ch) < 32 or ch == "\\" for ch in text):
        return "/"
    return text
