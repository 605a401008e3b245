"""The instance list the BrowserGym task package ships (agent/browsergym/instances.json).

The package runs in a virtualenv of its own (browsergym-core pins an older Playwright than the
project's browser code needs), talks to `cfab serve` over HTTP and never imports the suite, so
the list of tasks it registers is a file, as AgentLab's benchmarks ship their task metadata.
`python -m agent.browsergym_instances` rewrites it from the suite; tests/test_browsergym_task.py
fails when the file and the suite disagree.
"""
from __future__ import annotations

import json
from pathlib import Path

FILE = Path(__file__).resolve().parent / "browsergym" / "instances.json"
SPLITS = {"dev": "valid", "test": "test"}  # the dataset's partition, in AgentLab's split names


def instances() -> list[dict]:
    """One row per public task: the BrowserGym task name, what AgentLab filters on, no answers."""
    from portals.core.registry import load_apps
    from tasks.registry import all_tasks

    from .dataset import partitions, publishable

    tasks = [t for t in all_tasks() if publishable(t)]
    split = partitions(tasks)
    apps = load_apps()
    return [{"task_name": f"cfab.{t.instance_id}", "instance_id": t.instance_id, "domain": t.domain,
             "family": t.family, "difficulty": t.difficulty, "apps": list(t.apps),
             "money_movement_guard": t.money_movement_guard, "partition": split[t.instance_id],
             "browsergym_split": SPLITS[split[t.instance_id]],
             "start_path": apps[t.apps[0]].base_path + "/"} for t in tasks]


def text() -> str:
    return json.dumps(instances(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    FILE.write_text(text())
    print(f"wrote {FILE}")
