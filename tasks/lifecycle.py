"""One episode lifecycle for everyone who grades: create, mark for evaluation, run, diff,
grade, drop.

The runner, the gym envs, the launcher's Finish, `cfab bench`, `cfab tasks validate` and the
tests all go through here, so an evaluation episode is marked the same way everywhere (the
launcher refuses to serve a browser bound to one, so an agent cannot escape to a fresh
episode) and what is graded is exactly what the agent left behind.

The store and the episode are handles: an in-process `EpisodeStore` and its `Episode`, or an
`agent.remote.RemoteStore` and its `RemoteEpisode` (episodes held by `cfab serve` processes,
the http transport). A store offers `create(apps)` and `drop(id)`; an episode `id`, `meta`,
`diff()`, `guard_log` and `calls`, the remote one aggregating its servers' exactly as one
in-process episode holds them. Nothing here knows which it has.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

from grader.grade import Grade, grade


@dataclass
class Outcome:
    """What one graded episode produced."""

    reply: str
    diff: dict
    guard_log: list
    calls: list
    grade: Grade
    seconds: float = 0.0
    error: str | None = None  # the policy crashed: the run fails
    extra: dict = field(default_factory=dict)


def open_episode(store, task, *, evaluation: bool = True):
    """A fresh episode of the task's apps; an evaluation episode unless a person's own. A store
    that opens episodes per task (the private split's, agent/private_client.py) is asked for one."""
    opener = getattr(store, "open_task", None)
    episode = opener(task) if opener is not None else store.create(list(task.apps))
    episode.meta["apps"] = list(task.apps)
    if evaluation:
        episode.meta["evaluation"] = True  # the launcher will not serve this browser
    return episode


def grade_episode(episode, task, reply: str, *, error: str | None = None,
                  seconds: float = 0.0) -> Outcome:
    """Diff the episode against its templates and grade it; a crashed policy scores 0. An episode
    graded by its server (the private split) is submitted instead, and its outcome holds only the
    pass and score the server answered: no diff, logs or verdict reach this side."""
    if getattr(episode, "graded_remotely", False):
        told = episode.submit(reply or "", error)
        note = ["Graded by the private split's server: it reports pass and score only."]
        if error:
            note.insert(0, f"The policy stopped with an error: {error}")
        return Outcome(reply or "", {}, [], [], Grade(told["passed"], float(told["score"]), note, {}),
                       seconds, error)
    diff = episode.diff()
    guard_log, calls = list(episode.guard_log), list(episode.calls)
    result = grade(diff, guard_log, reply or "", task.evaluator, calls)
    if error:
        result = Grade(False, 0.0, [f"The policy stopped with an error: {error}", *result.verdict],
                       result.details)
    return Outcome(reply or "", diff, guard_log, calls, result, seconds, error)


def run_episode(store, task, act: Callable, *, reraise: tuple = (), keep: bool = False) -> Outcome:
    """Open an evaluation episode, let `act(episode) -> reply` work it, grade it and drop it.

    `act` raising is the policy's failure (the run scores 0 with the error in the verdict and
    the traceback in `outcome.extra`); exceptions of the `reraise` types (a provider outage)
    propagate, since they say nothing about the agent. With `keep`, the episode stays in the
    store (its id is in `outcome.extra["episode_id"]`).
    """
    episode = open_episode(store, task)
    started = time.perf_counter()
    reply, error, trace = "", None, None
    try:
        try:
            reply = act(episode) or ""
        except reraise:
            raise
        except Exception as exc:  # a policy's crash is that run's failure, not the sweep's
            error, trace = f"{type(exc).__name__}: {exc}", traceback.format_exc()
        outcome = grade_episode(episode, task, reply, error=error,
                                seconds=time.perf_counter() - started)
        outcome.extra["episode_id"] = episode.id
        if trace:
            outcome.extra["traceback"] = trace
        return outcome
    finally:
        if not keep:
            store.drop(episode.id)
