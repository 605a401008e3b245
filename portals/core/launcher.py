"""The person's way in: the task list, starting a task, the task panel, finishing and the verdict.

A person's browser is bound to one episode by the session cookie, exactly like an agent's. A
task episode remembers its task in `episode.meta`; the ground truth (the evaluator) stays on
the server until the person has finished, and only then is the verdict shown.
"""
from __future__ import annotations

import html
import re
import time
from pathlib import Path

from flask import (Blueprint, abort, current_app, jsonify, redirect, render_template, request,
                   session, url_for)
from markupsafe import Markup
from werkzeug.exceptions import TooManyRequests

from . import recording
from .episode import StoreFull
from .limits import check_rate, limits_of
from .registry import load_apps
from .web import ROOT, store_of

launcher_bp = Blueprint("launcher", __name__)
POLICY_DIR = ROOT / "tasks" / "policies"


def _tasks():
    from tasks.registry import all_tasks  # the suite is built on first use, never at import
    return all_tasks()


def _task(instance_id: str):
    for task in _tasks():
        if task.instance_id == instance_id:
            return task
    abort(404, description=f"There is no task {instance_id}.")


def _bound_episode():
    """This browser's episode, or None (never aborts: the home page works without one)."""
    episode_id = session.get("episode")
    return store_of().get(episode_id) if episode_id else None


def _task_episode():
    episode = _bound_episode()
    if episode is None or not episode.meta.get("task"):
        abort(403, description="This browser is not working on a task. Start one from the home page.")
    return episode


def _open_episode(apps=None):
    """A new episode for this browser, which holds one at a time: the episode it leaves (a
    sandbox or a task the launcher opened) is dropped first. The server keeps at most
    `max_episodes` of them and opens at most `new_episodes_per_minute`; past either, a 429."""
    limits = limits_of()
    check_rate("cfab_client_episodes", request.remote_addr or "", limits.new_episodes_per_client_per_minute,
               "new episodes from one address")
    window = current_app.extensions["cfab_new_episodes"]
    if not window.allow():
        raise TooManyRequests(f"This server opens at most {limits.new_episodes_per_minute} new episodes "
                              "a minute, and that many were just opened. Try again in a moment.",
                              retry_after=window.retry_after())
    old = _bound_episode()
    if old is not None and store_of().evictable(old.id):
        store_of().drop(old.id)
    try:
        episode = store_of().admit(apps, cap=limits.max_episodes, busy_seconds=limits.busy_seconds,
                                   evictable=True)
    except StoreFull:
        raise TooManyRequests(f"This server is full: it keeps at most {limits.max_episodes} episodes open "
                              "and all of them are in use. Try again in a minute.",
                              retry_after=int(limits.busy_seconds)) from None
    session.clear()
    session["episode"] = episode.id
    return episode


def _first_portal(task) -> str:
    return load_apps()[task.apps[0]].base_path + "/"


def recordings_dir() -> Path:
    """Where finished attempts are written: `cfab serve --recordings DIR`, else ./recordings
    under the directory the server runs in (never inside the installed package)."""
    return Path(current_app.config.get("CFAB_RECORDINGS") or Path.cwd() / "recordings").resolve()


@launcher_bp.app_context_processor
def _panel_context():
    return {"task_panel": _panel}


def _panel() -> dict | None:
    """What the task panel shows on a portal page of a task episode; never the evaluator."""
    if request.blueprint == "launcher":
        return None
    episode = _bound_episode()
    if episode is None or not episode.meta.get("task"):
        return None
    task = next((t for t in _tasks() if t.instance_id == episode.meta["task"]), None)
    if task is None:
        return None
    apps = [load_apps()[n] for n in task.apps]
    return {"task": task, "apps": apps, "episode": episode, "finished": bool(episode.meta.get("finished")),
            "clock_ms": int(time.time() * 1000)}


# -- the task list -------------------------------------------------------------------------

FILTERS = ("domain", "family", "difficulty", "guarded")


def _matches(task, args) -> bool:
    guarded = {"yes": True, "no": False}.get(args.get("guarded", ""))
    return ((not args.get("domain") or task.domain == args["domain"])
            and (not args.get("family") or task.family == args["family"])
            and (not args.get("difficulty") or str(task.difficulty) == args["difficulty"])
            and (guarded is None or task.money_movement_guard == guarded))


@launcher_bp.before_request
def _not_for_evaluation_episodes():
    """A browser working an evaluation episode (the runner's or the admin API's) may read the
    home page, but may not start, abandon or finish tasks, nor see a verdict: that would let an
    agent read ground truth or walk away from the episode it is graded on."""
    episode = _bound_episode()
    if episode is not None and episode.meta.get("evaluation") and \
            (request.method == "POST" or request.endpoint == "launcher.verdict"):
        abort(403, description="This browser is working an evaluation episode; "
                               "the task launcher is not available to it.")


@launcher_bp.get("/")
def home():
    tasks = _tasks()
    args = {k: request.args.get(k, "") for k in FILTERS}
    shown = [t for t in tasks if _matches(t, args)]
    options = {"domain": sorted({t.domain for t in tasks}), "family": sorted({t.family for t in tasks}),
               "difficulty": sorted({str(t.difficulty) for t in tasks})}
    episode = _bound_episode()
    apps = [load_apps()[n] for n in episode.apps] if episode else []
    current = next((t for t in tasks if episode and t.instance_id == episode.meta.get("task")), None)
    return render_template("home.html", tasks=shown, total=len(tasks), args=args, options=options,
                           episode=episode, apps=apps, current=current, all_app_specs=load_apps())


@launcher_bp.post("/episodes/new")
def new_episode():
    """The sandbox: every app, no task, no panel."""
    _open_episode()
    return redirect(url_for("launcher.home"))


@launcher_bp.get("/tasks/<instance_id>")
def task_page(instance_id):
    task = _task(instance_id)
    return render_template("launcher/task.html", task=task, apps=[load_apps()[n] for n in task.apps])


@launcher_bp.post("/tasks/<instance_id>/start")
def start(instance_id):
    task = _task(instance_id)
    try:
        annotator = recording.annotator_id(request.form.get("annotator", ""))
    except recording.TrajectoryError as err:
        abort(400, description=str(err))
    recording.begin(_open_episode(list(task.apps)), task, annotator=annotator)
    if annotator:
        session["annotator"] = annotator  # offered again on the next task
    return redirect(_first_portal(task))


@launcher_bp.post("/episode/start-over")
def start_over():
    """Abandon this attempt (nothing is recorded) and start the same task on a fresh episode."""
    return start(_task_episode().meta["task"])


# -- policy documents ------------------------------------------------------------------------

def markdown(text: str) -> Markup:
    """A small Markdown subset (headings, lists, paragraphs, bold, code): enough for policies."""
    def inline(s: str) -> str:
        s = html.escape(s)
        s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
        return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)

    out, para, lst = [], [], None
    def flush():
        nonlocal lst
        if para:
            out.append(f"<p>{inline(' '.join(para))}</p>")
            para.clear()
        if lst:
            out.append(f"</{lst}>")
            lst = None
    for line in text.splitlines():
        heading = re.match(r"(#{1,4})\s+(.*)", line)
        item = re.match(r"\s*(?:([-*])|(\d+)\.)\s+(.*)", line)
        if heading:
            flush()
            level = len(heading.group(1)) + 1  # the page's own title is the h1
            out.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
        elif item:
            kind = "ul" if item.group(1) else "ol"
            if para or lst != kind:
                flush()
                out.append(f"<{kind}>")
                lst = kind
            out.append(f"<li>{inline(item.group(3))}</li>")
        elif not line.strip():
            flush()
        elif lst and line.startswith("  "):
            out[-1] = out[-1][:-5] + " " + inline(line.strip()) + "</li>"
        else:
            if lst:
                flush()
            para.append(line.strip())
    flush()
    return Markup("\n".join(out))


@launcher_bp.get("/policies/<name>")
def policy(name):
    path = POLICY_DIR / name
    if not re.fullmatch(r"[a-z0-9_]+\.md", name) or not path.is_file():
        abort(404, description=f"There is no policy document {name}.")
    text = path.read_text()
    title = text.splitlines()[0].lstrip("# ").strip() if text.startswith("#") else name
    body = "\n".join(text.splitlines()[1:]) if text.startswith("#") else text
    return render_template("launcher/policy.html", title=title, body=markdown(body), name=name)


# -- recording and finishing -----------------------------------------------------------------

@launcher_bp.post("/episode/events")
def events():
    """The in-page recorder's events, for the episode this browser is bound to (CSRF checked)."""
    episode = _task_episode()
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or body.get("episode") != episode.id:
        return jsonify(error="stale_page", message="This page belongs to another episode."), 409
    if episode.meta.get("finished"):
        return jsonify(error="finished", message="This episode is finished."), 409
    try:
        kept = recording.add_events(episode, body.get("events"))
    except recording.TrajectoryError as err:
        return jsonify(error="invalid", message=str(err)), 400
    return jsonify(ok=True, kept=kept)


@launcher_bp.post("/episode/finish")
def finish():
    from tasks.lifecycle import grade_episode

    episode = _task_episode()
    task = _task(episode.meta["task"])
    with episode.lock:
        if not episode.meta.get("finished"):
            reply = request.form.get("reply", "").strip()
            result = grade_episode(episode, task, reply).grade
            trajectory = recording.build(episode, task, reply, result)
            path = recording.write(trajectory, recordings_dir())
            episode.meta["finished"] = {"reply": reply, "grade": result.to_dict(), "recording": str(path),
                                        "guard_log": list(episode.guard_log)}
    return redirect(url_for("launcher.verdict"))


@launcher_bp.get("/episode/verdict")
def verdict():
    episode = _task_episode()
    finished = episode.meta.get("finished")
    if not finished:
        abort(404, description="This task is not finished yet: use Finish in the task panel.")
    task = _task(episode.meta["task"])
    from grader.verdict import requirements  # the page shows labels, never regexes or columns
    return render_template("launcher/verdict.html", task=task, finished=finished,
                           evaluator=task.evaluator, grade=finished["grade"],
                           requirements=requirements(task.evaluator),
                           apps=[load_apps()[n] for n in task.apps])
