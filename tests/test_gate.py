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
