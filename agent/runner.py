"""The runner: a fresh episode per attempt, the policy, the diff, the grade, and the tally."""
from __future__ import annotations

import json
import os
import tempfile
import time
import traceback
from contextlib import ExitStack

from grader.grade import grade
from grader.metrics import summarize
from portals.core.environment import Environment
from portals.core.episode import EpisodeStore

from .browser import Portal, PortalServer, chromium


class Harness:
    """Owns the episode store and, for the browser transport, the portal server and Chromium."""

    def __init__(self, transport: str = "tools", store: EpisodeStore | None = None):
        if transport not in ("tools", "browser"):
            raise ValueError("transport must be 'tools' or 'browser'")
        self.transport = transport
        self.store = store or EpisodeStore()
        self._stack = ExitStack()
        self.flask_app = None
        self.server = None
        self.browser = None

    def __enter__(self):
        if self.transport == "browser":
            from portals.core.web import create_app

            self.flask_app = create_app(self.store)
            self.server = self._stack.enter_context(PortalServer(self.flask_app))
            self.browser = self._stack.enter_context(chromium())
        return self

    def __exit__(self, *exc):
        self._stack.close()

    def run_one(self, task, policy) -> dict:
        """One attempt at one task on a fresh episode; never raises for the policy's failures."""
        episode = self.store.create(list(task.apps))
        episode.meta["apps"] = list(task.apps)
        started = time.perf_counter()
        reply, error = "", None
        context = None
        try:
            if self.transport == "tools":
                reply = policy.run_tools(task, Environment(episode, list(task.apps))) or ""
            else:
                from portals.core.web import enter_url

                context = self.browser.new_context(viewport={"width": 1280, "height": 860})
                context.set_default_timeout(15000)
                page = context.new_page()
                page.goto(self.server.url + enter_url(self.flask_app, episode.id, "/"))
                reply = policy.run_browser(task, Portal(page, self.server.url)) or ""
        except Exception as exc:  # a policy's crash is that run's failure, not the sweep's
            error = f"{type(exc).__name__}: {exc}"
            traceback.print_exc()
        finally:
            if context is not None:
                context.close()
        seconds = time.perf_counter() - started
        result = grade(episode.diff(), list(episode.guard_log), reply, task.evaluator,
                       list(episode.calls))
        verdict = list(result.verdict)
        if error:
            verdict.insert(0, f"The policy stopped with an error: {error}")
        run = {"passed": result.passed and error is None, "score": result.score if not error else 0.0,
               "verdict": verdict, "reply": reply, "calls": list(episode.calls),
               "guarded_calls": list(episode.guard_log), "seconds": round(seconds, 3)}
        if error:
            run["error"] = error
        self.store.drop(episode.id)
        return run


def run_suite(tasks, policy, transport: str, k: int, out: str | None = None,
              progress: bool = True, store: EpisodeStore | None = None) -> dict:
    """Run every task k times; write and return the results document."""
    from tqdm import tqdm

    records = []
    with Harness(transport, store) as harness:
        bar = tqdm(total=len(tasks) * k, disable=not progress, unit="run", desc=f"{policy.name}/{transport}")
        for task in tasks:
            runs = []
            for _ in range(k):
                runs.append(harness.run_one(task, policy))
                bar.update(1)
            records.append({"instance_id": task.instance_id, "domain": task.domain,
                            "family": task.family, "difficulty": task.difficulty,
                            "instruction": task.instruction, "apps": list(task.apps),
                            "money_movement_guard": task.money_movement_guard, "runs": runs})
        bar.close()
    results = {"policy": policy.name, "transport": transport, "k": k, "n_tasks": len(tasks)}
    summary = summarize({r["instance_id"]: [run["passed"] for run in r["runs"]] for r in records}, k,
                        {r["instance_id"]: r["domain"] for r in records})
    results.update({key: summary[key] for key in ("pass1", "passk", "pass1_ci", "passk_ci", "by_domain")})
    results["tasks"] = records
    if out:
        write_json_atomic(out, results)
    return results


def write_json_atomic(path: str, data: dict) -> None:
    """Write to a temporary file beside the target, then rename: a reader never sees half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    os.replace(tmp, path)
