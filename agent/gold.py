"""Gold trajectories: recordings that replay to a pass on both transports, kept as data in the repo.

`promote` is the only way in: it replays a recording on the tool path and in Chromium and
refuses it unless both pass, so a gold file is always a proof, never a hand-edited claim.
`GoldPolicy` replays the gold set, which keeps the recordings honest as the apps evolve.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from portals.core import recording

from .policies import Policy
from .replay import replay_browser, replay_tools

GOLD_DIR = Path(__file__).resolve().parents[1] / "tasks" / "gold"
TRANSPORTS = ("tools", "browser")


def gold_dir(folder: str | os.PathLike | None = None) -> Path:
    return Path(folder or os.environ.get("CFAB_GOLD_DIR") or GOLD_DIR)


def gold_path(instance_id: str, folder=None) -> Path:
    return gold_dir(folder) / f"{instance_id}.json"


def load_gold(instance_id: str, folder=None) -> dict:
    path = gold_path(instance_id, folder)
    if not path.is_file():
        raise FileNotFoundError(f"no gold trajectory for {instance_id} (expected {path})")
    return recording.load(path)


def promote(path: str | os.PathLike, folder=None, store=None, browser=None, server=None) -> dict:
    """Replay a recording on both transports; if both pass, make it the task's gold.

    Returns {"promoted": bool, "runs": {transport: run}, "path": gold path or None}.
    """
    from .replay import replay

    trajectory = recording.load(path)
    runs = {t: replay(trajectory, t, store, browser, server) for t in TRANSPORTS}
    ok = all(run["passed"] for run in runs.values())
    out = {"instance_id": trajectory["instance_id"], "promoted": ok, "runs": runs, "path": None}
    if ok:
        target = gold_path(trajectory["instance_id"], folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        gold = {**trajectory, "gold": {"source": Path(path).name,
                                       "replayed": {t: runs[t]["score"] for t in TRANSPORTS}}}
        tmp = target.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(gold, indent=1, sort_keys=True, default=str) + "\n")
        os.replace(tmp, target)
        out["path"] = str(target)
    return out


class GoldPolicy(Policy):
    """Replays each task's gold trajectory and answers with its recorded reply."""

    name = "gold"

    def __init__(self, gold_dir: str | None = None, **_unused):
        # run-wide options meant for model policies (model, max_steps, ...) do not apply here
        self.folder = gold_dir

    def run_tools(self, task, env) -> str:
        return replay_tools(load_gold(task.instance_id, self.folder), env)

    def run_browser(self, task, portal) -> str:
        return replay_browser(load_gold(task.instance_id, self.folder), portal)
