"""Policies for the Ray backend's tests: they run inside Ray workers (shipped by value, so the
workers need not import tests/), one slow enough to be caught mid-run, one that takes its
worker's process down on given tasks."""
from __future__ import annotations

import os
import time
from pathlib import Path

from agent.policies import OraclePolicy


class SlowOracle(OraclePolicy):
    """The oracle, after a pause: a worker is almost always mid-run when it is killed."""

    name = "oracle"  # same sweep as the oracle's: its journal resumes under the oracle

    def __init__(self, pause: float = 0.25):
        self.pause = pause

    def run_tools(self, task, env) -> str:
        time.sleep(self.pause)
        return super().run_tools(task, env)


class ExitingOracle(OraclePolicy):
    """The oracle, except that its worker's process exits mid-run: on every attempt at a task
    of `always`, and on the first attempt anywhere at a task of `once` (a marker file under
    `folder` says it happened)."""

    name = "oracle"

    def __init__(self, folder: str, always=(), once=()):
        self.folder, self.always, self.once = folder, set(always), set(once)

    def run_tools(self, task, env) -> str:
        if task.instance_id in self.always:
            os._exit(3)
        marker = Path(self.folder) / f"exited-{task.instance_id}"
        if task.instance_id in self.once and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(3)
        return super().run_tools(task, env)
