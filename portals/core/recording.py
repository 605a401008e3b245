"""Trajectories: what a person did in a task episode, in the agent's own vocabulary and as UI steps.

A trajectory holds the structured service calls (the episode's call log, so a tool-transport
replay needs no screen scraping), the UI steps the in-page recorder posted (so a browser
replay can click the same things), the reply and the grade. The format is documented in
docs/trajectories.md; `load` refuses anything it does not understand.
"""
from __future__ import annotations

import json
import os
import re
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from .template_cache import clean_stale

FORMAT, VERSION = "cfab-trajectory", 1
STEP_TYPES = ("visit", "click", "fill", "select", "check", "submit")
TARGET_KEYS = ("bid", "id", "role", "label", "name", "tag", "type", "text", "href")
MAX_STEPS = 20000  # a runaway page must not grow an episode without bound
MAX_BATCH = 500
LEFTOVER_SECONDS = 60  # a recording is written in well under a second; a temp file this old is a kill's


class TrajectoryError(ValueError):
    """A file that is not a trajectory this code can replay."""


ANNOTATOR = re.compile(r"[A-Za-z0-9_.@-]{1,64}")


def annotator_id(text) -> str | None:
    """The annotator id a person gave (None for none); refuses anything but a short plain id."""
    text = (text or "").strip() if isinstance(text, str) else text
    if not text:
        return None
    if not isinstance(text, str) or not ANNOTATOR.fullmatch(text):
        raise TrajectoryError("an annotator id is 1-64 letters, digits or . _ @ -")
    return text


def begin(episode, task, annotator: str | None = None) -> None:
    """Mark an episode as a person's attempt at a task; recording starts now."""
    episode.meta.update(task=task.instance_id, apps=list(task.apps), started=time.time(),
                        ui_steps=[], finished=None, annotator=annotator_id(annotator))


def _text(value, limit: int = 300) -> str:
    return "" if value is None else str(value)[:limit]


def _step(event: dict, started: float) -> dict | None:
    """One recorder event, checked and trimmed; None for anything malformed."""
    if not isinstance(event, dict) or event.get("type") not in STEP_TYPES:
        return None
    url = _text(event.get("url"), 2000)
    if not url.startswith("/"):
        return None
    try:
        at_ms = float(event.get("at_ms"))
    except (TypeError, ValueError):
        return None
    step = {"t": round(max(0.0, at_ms / 1000.0 - started), 3), "type": event["type"], "url": url}
    try:
        step["seq"] = int(event.get("seq", 0))
    except (TypeError, ValueError):
        step["seq"] = 0
    target = event.get("target")
    if isinstance(target, dict):
        step["target"] = {k: _text(target.get(k)) for k in TARGET_KEYS if target.get(k)}
        for k in ("nth", "of"):  # position among look-alikes, when the label repeats
            if isinstance(target.get(k), int) and 0 <= target[k] < 1000:
                step["target"][k] = target[k]
    if event["type"] in ("fill", "select"):
        step["value"] = _text(event.get("value"), 20000)
    if event["type"] == "check":
        step["checked"] = bool(event.get("checked"))
    if event["type"] == "visit":
        step["cause"] = "click" if event.get("cause") == "click" else "goto"
        step["title"] = _text(event.get("title"))
    return step


def add_events(episode, events) -> int:
    """Append the recorder's events to the episode; returns how many were kept."""
    if not isinstance(events, list):
        raise TrajectoryError("events must be a list")
    kept = [s for s in (_step(e, episode.meta["started"]) for e in events[:MAX_BATCH]) if s]
    with episode.lock:
        steps = episode.meta.setdefault("ui_steps", [])
        room = MAX_STEPS - len(steps)
        steps.extend(kept[:max(0, room)])
    return len(kept)


def build(episode, task, reply: str, result) -> dict:
    """The trajectory document of a finished episode."""
    steps = sorted(episode.meta.get("ui_steps", []), key=lambda s: (s["t"], s["seq"]))
    return {
        "format": FORMAT, "version": VERSION,
        "instance_id": task.instance_id, "family": task.family, "apps": list(task.apps),
        "annotator": episode.meta.get("annotator"),
        "recorded_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "duration_s": round(time.time() - episode.meta.get("started", time.time()), 3),
        "calls": [dict(c) for c in episode.calls],
        "ui_steps": [{k: v for k, v in s.items() if k != "seq"} for s in steps],
        "reply": reply,
        "guard_log": [dict(g) for g in episode.guard_log],
        "grade": {"passed": result.passed, "score": result.score, "verdict": list(result.verdict)},
    }


def clean_leftovers(folder: str | os.PathLike) -> int:
    """Remove the temporary files (often zero bytes) a writer killed mid-write left in a
    recordings folder; `cfab serve` calls this at start and every write calls it too. A temp
    file younger than LEFTOVER_SECONDS may be another live writer's and is kept."""
    if not Path(folder).is_dir():
        return 0
    return clean_stale(Path(folder), ".tmp-*.json", older_than=LEFTOVER_SECONDS)


def write(trajectory: dict, folder: str | os.PathLike) -> Path:
    """Write atomically to <folder>/<instance_id>-<utc time>-<n>.json and return the path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = trajectory["recorded_at"].replace(":", "").replace("-", "")
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{trajectory['instance_id']}-{stamp}")
    clean_leftovers(folder)  # what a writer killed mid-write left behind
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(trajectory, fh, indent=1, sort_keys=True, default=str)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())  # the link below must never name a file the disk does not hold
    n = 0
    while True:  # several people may finish the same task in the same second
        path = folder / (f"{stem}.json" if n == 0 else f"{stem}-{n}.json")
        try:
            os.link(tmp, path)
            break
        except FileExistsError:
            n += 1
    os.unlink(tmp)
    return path


def validate(data) -> dict:
    """Check the parts a replay relies on; return the document."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TrajectoryError(f"not a {FORMAT} document")
    if data.get("version") != VERSION:
        raise TrajectoryError(f"trajectory version {data.get('version')!r} is not supported "
                              f"(this code reads version {VERSION})")
    if not isinstance(data.get("instance_id"), str):
        raise TrajectoryError("instance_id is missing")
    for key in ("calls", "ui_steps"):
        if not isinstance(data.get(key), list):
            raise TrajectoryError(f"{key} must be a list")
    for call in data["calls"]:
        if not isinstance(call, dict) or not {"app", "tool", "kind", "args"} <= set(call):
            raise TrajectoryError(f"malformed call {call!r}")
    for step in data["ui_steps"]:
        if not isinstance(step, dict) or step.get("type") not in STEP_TYPES:
            raise TrajectoryError(f"malformed UI step {step!r}")
    if not isinstance(data.get("reply", ""), str):
        raise TrajectoryError("reply must be text")
    if data.get("annotator") is not None:
        annotator_id(data["annotator"])
    for step in data["ui_steps"]:  # written by `cfab replay --observations`: optional
        seen = step.get("observation")
        if seen is not None and not (isinstance(seen, dict) and isinstance(seen.get("url"), str)
                                     and isinstance(seen.get("axtree_txt"), str)):
            raise TrajectoryError(f"malformed observation in UI step {step.get('type')!r}")
    return data


def load(path: str | os.PathLike) -> dict:
    try:
        with open(path) as fh:
            data = json.load(fh)
    except json.JSONDecodeError as err:
        raise TrajectoryError(f"{path} is not JSON: {err}") from None
    return validate(data)


def replay_calls(trajectory: dict, include_reads: bool = True) -> list[dict]:
    """The calls a tool replay makes: successful ones, writes and guarded always, reads if asked.

    Refused reads and writes changed nothing, so replaying them adds nothing but noise; a
    refused guarded call is replayed all the same, because attempting it is what was graded.
    """
    return [c for c in trajectory["calls"]
            if (c.get("ok", True) or c["kind"] == "guarded") and (include_reads or c["kind"] != "read")]
