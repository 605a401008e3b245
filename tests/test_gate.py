"""The admission gate over the whole suite on the tools transport (`cfab tasks validate`)."""
from __future__ import annotations

import dataclasses

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


def test_the_browser_parity_check_refuses_a_run_that_went_around_the_pages(harness):
    """In the browser, the oracle must work the portal's pages: a run whose diff and grade match
    the tools transport's still fails parity when a call came through the tool API."""
    from agent.policies import OraclePolicy
    from agent.validate import TaskReport, check_parity

    task = TASKS[sorted(TASKS)[0]]
    oracle, _infra, _meter = harness.run_outcome(task, OraclePolicy())
    assert oracle.calls and all(c["source"] == "api" for c in oracle.calls)
    as_pages = dataclasses.replace(oracle, calls=[{**c, "source": "ui"} for c in oracle.calls])
    good, bad = TaskReport(task.instance_id), TaskReport(task.instance_id)
    check_parity(good, {"oracle": as_pages}, task, "browser", harness)
    check_parity(bad, {"oracle": oracle}, task, "browser", harness)
    assert good.ok, good.problems
    assert bad.problems == ["parity: oracle: a call did not come from the portal's pages "
                            "(the browser run must work them)"]
