"""The control plane's task endpoints: what an outside harness (BrowserGym, agent/browsergym/)
needs to run a task against `cfab serve` over HTTP, with the admin token, and nothing more.

    GET  /admin/tasks                          every task this server can host: its public view
                                               (never the evaluator) and the path it starts on
    POST /admin/tasks/<instance_id>/episodes   an evaluation episode of the task's apps and the
                                               one-time link that opens its first app
    POST /admin/episodes/<id>/grade {reply}    the grade of what the episode holds now, with the
                                               reply: {passed, score, verdict, guard_log}

The episode is the lifecycle's evaluation episode (tasks/lifecycle.py): the launcher will not
serve it, so a browser bound to it cannot start, finish or read a verdict by itself. Grading
reads state and changes nothing; the harness drops the episode (DELETE /admin/episodes/<id>)
when it is done.
"""
from __future__ import annotations

from flask import abort, current_app, jsonify

from .admin import _episode, admin_bp
from .episode import StoreFull
from .hosting import hosted_apps
from .limits import json_object_body, limits_of
from .registry import load_apps
from .web import agent_token, enter_url, store_of


def _hosted_tasks() -> list:
    from tasks.registry import all_tasks  # the suite is built on first use, never at import

    hosted = set(hosted_apps(store_of()))
    return [t for t in all_tasks() if set(t.apps) <= hosted]


def _task(instance_id: str):
    for task in _hosted_tasks():
        if task.instance_id == instance_id:
            return task
    abort(404, description=f"This server hosts no task {instance_id}.")


def start_path(task) -> str:
    """Where the task starts: its first app's home page."""
    return load_apps()[task.apps[0]].base_path + "/"


@admin_bp.get("/tasks")
def list_tasks():
    return jsonify(tasks=[{**t.public(), "start_path": start_path(t)} for t in _hosted_tasks()])


@admin_bp.post("/tasks/<instance_id>/episodes")
def open_task_episode(instance_id):
    task = _task(instance_id)
    json_object_body(empty_ok=True)  # a body, if any, must be JSON; nothing in it is read
    limits = limits_of()
    try:
        episode = store_of().admit(list(task.apps), cap=limits.max_episodes,
                                   busy_seconds=limits.busy_seconds, evictable=False)
    except StoreFull as err:
        abort(429, description=f"{err} Drop finished episodes (DELETE /admin/episodes/<id>) first.")
    episode.meta.update({"evaluation": True, "apps": list(task.apps), "graded_task": task.instance_id})
    path = start_path(task)
    return jsonify(episode_id=episode.id, instance_id=task.instance_id, apps=list(task.apps),
                   instruction=task.instruction, start_path=path,
                   enter_url=enter_url(current_app, episode.id, path),
                   agent_token=agent_token(current_app, episode.id)), 201


@admin_bp.post("/episodes/<episode_id>/grade")
def grade(episode_id):
    from tasks.lifecycle import grade_episode

    episode = _episode(episode_id)
    body = json_object_body()
    reply = body.get("reply")
    if not isinstance(reply, str):
        abort(400, description='Send {"reply": "..."}: the text the agent answered with.')
    name = episode.meta.get("graded_task")
    if not name:
        abort(400, description=f"Episode {episode_id} was not opened for a task "
                               "(POST /admin/tasks/<instance_id>/episodes); there is nothing to grade it by.")
    task = _task(name)
    with episode.lock:
        outcome = grade_episode(episode, task, reply)
    g = outcome.grade
    return jsonify(instance_id=name, passed=bool(g.passed), score=float(g.score), verdict=list(g.verdict),
                   guard_log=outcome.guard_log)
