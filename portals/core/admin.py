"""The control plane (admin token) and the agent's tool API (episode token), over HTTP."""
from __future__ import annotations

import hmac
import json

from flask import Blueprint, abort, current_app, jsonify, request

from .environment import Environment
from .episode import SnapshotMismatch, StoreFull
from .limits import check_rate, json_object_body, limits_of
from .web import agent_token, enter_url, read_token, store_of

admin_bp = Blueprint("admin", __name__)
api_bp = Blueprint("api", __name__)


def _bearer() -> str:
    header = request.headers.get("Authorization", "")
    return header[7:].strip() if header.startswith("Bearer ") else ""


@admin_bp.before_request
def _require_admin():
    expected = current_app.extensions["cfab_admin_token"]
    if not hmac.compare_digest(_bearer(), expected):
        abort(401 if not _bearer() else 403, description="The admin API needs the admin token.")


def _ordered(value, status: int = 200):
    """JSON with every object's keys in the order the service made them (jsonify sorts them):
    what an agent or the grader reads over HTTP is what it reads in process, key order too."""
    return current_app.response_class(current_app.json.dumps(value, sort_keys=False) + "\n",
                                      status=status, mimetype="application/json")


def _episode(episode_id: str):
    episode = store_of().get(episode_id)
    if episode is None:
        abort(404, description=f"No open episode {episode_id}.")
    return episode


@admin_bp.post("/episodes")
def create_episode():
    body = json_object_body(empty_ok=True)
    apps, next_path = body.get("apps"), body.get("next", "/")
    if apps is not None and (not isinstance(apps, list) or not all(isinstance(a, str) for a in apps)):
        abort(400, description="apps must be a list of app names.")
    if not isinstance(next_path, str):
        abort(400, description="next must be a path on this site, like /procore/.")
    limits = limits_of()
    try:
        episode = store_of().admit(apps, cap=limits.max_episodes, busy_seconds=limits.busy_seconds,
                                   evictable=False)
    except KeyError as err:
        abort(400, description=str(err))
    except StoreFull as err:
        abort(429, description=f"{err} Drop finished episodes (DELETE /admin/episodes/<id>) first.")
    episode.meta["evaluation"] = True  # an evaluator's episode: the launcher will not serve it
    return jsonify(episode_id=episode.id, apps=sorted(episode.apps),
                   enter_url=enter_url(current_app, episode.id, next_path),
                   agent_token=agent_token(current_app, episode.id)), 201


@admin_bp.post("/episodes/<episode_id>/seed")
def seed_episode(episode_id):
    """Re-seed every app of the episode from the book; `seed` and `clock` may be overridden."""
    from .clock import Clock
    from .contract import AppService

    episode = _episode(episode_id)
    body = json_object_body(empty_ok=True)
    store = store_of()
    seed, clock = body.get("seed", store.seed), body.get("clock")
    if isinstance(seed, str) and seed.strip().isdigit() and len(seed.strip()) <= 18:
        seed = int(seed.strip())
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 63:
        abort(400, description="seed must be a whole number from 0 to 2^63-1.")
    try:
        if clock is not None and not isinstance(clock, str):
            raise TypeError
        clock = Clock.at(clock) if clock is not None else store.clock
    except (TypeError, ValueError, OverflowError):
        abort(400, description="clock must be an ISO instant like 2026-06-30T17:00:00Z.")
    with episode.lock:
        for app in episode.apps:
            AppService(episode, app).seed(store.book, seed, clock)
        episode.calls.clear()
        episode.guard_log.clear()
    return jsonify(ok=True, seed=seed, clock=clock.iso())


@admin_bp.post("/episodes/<episode_id>/reset")
def reset_episode(episode_id):
    """No body: back to the seeded templates, logs cleared. A body {app: snapshot}: the paper's
    reset, that exact state restored (as /restore: all of the named apps, or none)."""
    episode = _episode(episode_id)
    if json_object_body(empty_ok=True):
        return restore_snapshot(episode_id)
    episode.reset()
    return jsonify(ok=True)


@admin_bp.get("/episodes/<episode_id>/snapshot")
def snapshot(episode_id):
    """{app: snapshot}; each app's snapshot is its canonical JSON, sent as it is (not re-encoded),
    so equal bytes mean equal state."""
    episode = _episode(episode_id)
    blobs = episode.snapshot()
    only = _only_apps(episode)  # ?app=NAME (repeatable): those apps' snapshots alone
    blobs = {app: blob for app, blob in blobs.items() if only is None or app in only}
    body = b",".join(json.dumps(app).encode() + b":" + blob for app, blob in sorted(blobs.items()))
    return current_app.response_class(b"{" + body + b"}", mimetype="application/json")


@admin_bp.get("/episodes/<episode_id>/snapshot/digest")
def snapshot_digest(episode_id):
    """{app: sha256 hex of that app's snapshot bytes}: a cheap "did anything change" for a
    client that would otherwise fetch and compare whole snapshots (?app=NAME as /snapshot)."""
    episode = _episode(episode_id)
    only = _only_apps(episode)
    digests = episode.snapshot_digest()
    return jsonify({app: d for app, d in digests.items() if only is None or app in only})


@admin_bp.post("/episodes/<episode_id>/restore")
def restore_snapshot(episode_id):
    """Replace the state of the named apps with their snapshots: all of them, or none."""
    episode = _episode(episode_id)
    body = json_object_body()
    if not set(body) <= set(episode.apps):
        abort(400, description="Send {app: snapshot} for apps of this episode.")
    try:
        episode.restore({app: json.dumps(snap).encode() for app, snap in body.items()})
    except SnapshotMismatch as err:
        abort(400, description=str(err))
    return jsonify(ok=True)


@admin_bp.get("/episodes/<episode_id>/diff")
def diff(episode_id):
    return _ordered(_episode(episode_id).diff())


@admin_bp.get("/episodes/<episode_id>/guard_log")
def guard_log(episode_id):
    return _ordered(_episode(episode_id).guard_log)


@admin_bp.get("/episodes/<episode_id>/calls")
def calls(episode_id):
    return _ordered(_episode(episode_id).calls)


def _only_apps(episode) -> set[str] | None:
    """The apps `?app=NAME` (repeatable) scopes a contract read to; None: all of them."""
    named = request.args.getlist("app")
    if not named:
        return None
    outside = sorted(set(named) - set(episode.apps))
    if outside:
        abort(400, description=f"{', '.join(outside)} is not part of this episode; "
                               f"it has {', '.join(sorted(episode.apps))}.")
    return set(named)


@admin_bp.get("/episodes/<episode_id>/state_diff")
def state_diff(episode_id):
    """The paper's state_diff: the canonical diff against the seeded state, by app."""
    episode = _episode(episode_id)
    only = _only_apps(episode)
    return _ordered({app: d for app, d in episode.diff().items() if only is None or app in only})


@admin_bp.get("/episodes/<episode_id>/guarded_calls")
def guarded_calls(episode_id):
    """The paper's guarded_calls: the money-movement guard log (executed always false)."""
    episode = _episode(episode_id)
    only = _only_apps(episode)
    with episode.lock:
        entries = list(episode.guard_log)
    return _ordered([e for e in entries if only is None or e["app"] in only])


@admin_bp.get("/health")
def admin_health():
    """The public health, plus what a client records as provenance: the run and book seeds."""
    store = store_of()
    return jsonify({**_health(), "seed": store.seed, "book_seed": (store.book.get("meta") or {}).get("seed")})


def _health() -> dict:
    from .hosting import hosted_apps
    from .registry import load_apps

    store, specs = store_of(), load_apps()
    apps = hosted_apps(store)
    out = {"ok": True, "clock": store.clock.iso(),
           "apps": {app: [f"{app}.{name}" for name in specs[app].tools] for app in apps}}
    if len(apps) == 1:
        out["app"] = apps[0]  # a single-app server, as the paper's shim
    return out


@api_bp.get("/health")
def health():
    """The paper's `GET /`: which apps this server hosts, its clock and their tool names."""
    return jsonify(_health())


@admin_bp.delete("/episodes/<episode_id>")
def drop(episode_id):
    _episode(episode_id)
    store_of().drop(episode_id)
    return jsonify(ok=True)


def _agent_episode():
    data = read_token(current_app, _bearer()) if _bearer() else None
    if not data or data.get("api") != 1:
        abort(401, description="Send the episode's agent token as a Bearer token.")
    episode = store_of().get(data["e"])
    if episode is None:
        abort(404, description="That episode is closed.")
    return episode


def _agent_env(episode=None) -> Environment:
    episode = episode or _agent_episode()
    return Environment(episode, episode.meta.get("apps") or list(episode.apps))


@api_bp.get("/tools")
def list_tools():
    return _ordered(_agent_env().tools())


@api_bp.get("/openapi.json")
def openapi():
    """The tool API of this token's episode as an OpenAPI 3 document (from the tools' schemas)."""
    from .openapi import document

    return jsonify(document(_agent_env().tools()))


@api_bp.post("/tools/<path:name>")
def call(name):
    episode = _agent_episode()
    check_rate("cfab_episode_calls", episode.id, limits_of().tool_calls_per_minute,
               "tool calls per episode")  # counted before the body is read: a refused body costs too
    env = _agent_env(episode)
    body = json_object_body()  # anything but one JSON object is refused before a tool runs
    result = env.call(name, body)
    status = 200
    if isinstance(result, dict) and "error" in result:
        status = {"unknown_tool": 404, "not_found": 404, "read_only": 409}.get(result["error"], 400)
    return _ordered(result, status)
