"""The admission gate over the whole suite on the tools transport (`cfab tasks validate`)."""
from __future__ import annotations

import pytest

from agent.runner import Harness
from agent.validate import CHECKS, validate
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks()}


@pytest.fixture(scope="module")
def harness(store):
    with Harness("tools", store) as h:
        yield h


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_every_task_passes_the_gate_through_tools(harness, instance_id):
    (report,) = validate([TASKS[instance_id]], "tools", harness)
    assert set(report.results) == set(CHECKS)
    assert report.ok, "\n".join(report.problems)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_every_task_ships_a_full_gate(instance_id):
    """What the gate needs of each family: enough named near-misses (each saying why it fails,
    each runnable through the tools) and variants, attempts a person can make in the browser,
    and a reply corpus on both sides."""
    task = TASKS[instance_id]
    assert len(task.near_misses) >= 8 and len(task.variants) >= 5
    names = [a.name for a in (*task.near_misses, *task.variants)]
    assert len(names) == len(set(names))
    assert all(a.because and a.tools for a in task.near_misses)
    assert any(a.browser for a in task.near_misses) and any(a.browser for a in task.variants)
    assert len(task.reply_corpus["pass"]) >= 10 and len(task.reply_corpus["fail"]) >= 10
