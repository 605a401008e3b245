"""A_etc_forecast's admission gate: near-misses fail for their reason, variants pass, replies are
read for what they state.

The attempts run on one representative job (1042, the paper's example) through the tools; the
reply corpus runs for every job. Browser attempts: e2e/test_gate_a_etc_forecast.py.
"""
from __future__ import annotations

import re

import pytest

from agent.policies import AttemptPolicy
from agent.runner import Harness
from grader.grade import grade
from portals.core.environment import Environment
from tasks.families import a_etc_forecast_gate as G
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "A_etc_forecast"}
TASK = TASKS["cf_A_etc_forecast_1042"]


@pytest.fixture(scope="module")
def harness(store):
    with Harness("tools", store) as h:
        yield h


def _names(attempts):
    return [a.name for a in attempts]


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_every_job_ships_the_gate(instance_id):
    task = TASKS[instance_id]
    assert len(task.near_misses) >= 8 and len(task.variants) >= 5
    assert len(set(_names(task.near_misses))) == len(task.near_misses)
    assert all(a.because and a.tools for a in task.near_misses)
    assert any(a.browser for a in task.near_misses)
    assert any(a.browser for a in task.variants) and any(a.name == "portal_form" for a in task.variants)
    assert len(task.reply_corpus["pass"]) >= 10 and len(task.reply_corpus["fail"]) >= 10


NEAR_MISSES = [a for a in TASK.near_misses if a.tools]
VARIANTS = [a for a in TASK.variants if a.tools]


@pytest.mark.parametrize("attempt", NEAR_MISSES, ids=_names(NEAR_MISSES))
def test_a_near_miss_fails_and_the_verdict_says_why(harness, attempt):
    run = harness.run_one(TASK, AttemptPolicy(attempt))
    assert "error" not in run, run.get("error")
    assert not run["passed"], f"{attempt.name} passed: {attempt.note}"
    assert any(re.search(attempt.because, line, re.I) for line in run["verdict"]), run["verdict"]


@pytest.mark.parametrize("attempt", VARIANTS, ids=_names(VARIANTS))
def test_a_variant_passes_with_full_score(harness, attempt):
    run = harness.run_one(TASK, AttemptPolicy(attempt))
    assert run["passed"] and run["score"] == 1.0, (attempt.name, run.get("error"), run["verdict"])
    assert run["guarded_calls"] == []


def _reply_grade(task, reply):
    outputs = {"required_outputs": task.evaluator["required_outputs"], "expected": [], "forbidden": []}
    return grade({}, [], reply, outputs, None)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_reply_corpus(instance_id):
    task = TASKS[instance_id]
    rejected = [r for r in task.reply_corpus["pass"] if not _reply_grade(task, r).passed]
    accepted = [r for r in task.reply_corpus["fail"] if _reply_grade(task, r).passed]
    assert not rejected, f"correct replies rejected: {rejected}"
    assert not accepted, f"wrong replies accepted: {accepted}"


def test_the_reply_checks_are_typed_claims_with_labels():
    for task in TASKS.values():
        outputs = task.evaluator["required_outputs"]
        assert all(isinstance(o, dict) and o.get("label") for o in outputs), outputs
        kinds = {o["claim"] for o in outputs}
        assert kinds == {"id", "amount", "denies"}


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_evaluator_pins_one_job_row_and_nothing_else(instance_id):
    task = TASKS[instance_id]
    job = instance_id.rsplit("_", 1)[1]
    (spec,) = task.evaluator["expected"]
    assert spec["where"] == {"_pk": job} and spec["count"] == 1
    assert set(spec["assert"]) == {"est_cost_to_complete"}
    (other,) = task.evaluator["forbidden"]
    assert other["any_other_change"] is True and other["allow"] == []


def test_a_wrong_job_reaches_the_erp_and_the_grader_catches_it(store):
    """The trap is not the tool's to refuse: Vista takes a projection on any open job, so a
    second job's write lands in the state and the grader must fail the run for it."""
    from seeds.book import load_book

    other = G.look_alike(load_book(), "1042")
    episode = store.create(list(TASK.apps))
    try:
        env = Environment(episode, list(TASK.apps))
        reply = TASK.oracle_tools(env)
        saved = env.call("vista_erp.jc.cost_projections.update",
                         {"project_id": other, "est_cost_to_complete": "12345.67"})
        assert saved["est_cost_to_complete"] == "12345.67"
        changed = {c["pk"] for c in episode.diff()["vista_erp"]["jobs"]["changed"]}
        assert changed == {"1042", other}
        result = grade(episode.diff(), episode.guard_log, reply, TASK.evaluator, episode.calls)
        assert not result.passed and result.details["gate"] == "forbidden"
        assert any(line.startswith(f"Unrequested change: vista_erp jobs {other} ") for line in result.verdict)
    finally:
        store.drop(episode.id)


def test_vista_does_not_show_the_pm_forecast(store):
    """The ERP holds its own stale projection, not the PM's lines: the answer is Procore's alone."""
    amount = TASK.evaluator["expected"][0]["assert"]["est_cost_to_complete"]
    episode = store.create(list(TASK.apps))
    try:
        env = Environment(episode, list(TASK.apps))
        job = env.call("vista_erp.jc.job.get", {"project_id": "1042"})
        assert all("forecast_to_complete" not in line for line in job["budget"])
        assert job["est_cost_to_complete"] != amount and amount not in str(job)
        budget = env.call("procore.budget.get", {"project_number": "1042"})
        assert budget["totals"]["forecast_to_complete"] == amount
    finally:
        store.drop(episode.id)


def test_no_forecast_total_is_in_what_the_agent_is_handed(store):
    """The tools' schemas and descriptions, the instruction and the policy carry no job's answer
    (nor its grouped form), so copying an example cannot pass."""
    from pathlib import Path

    episode = store.create(list(TASK.apps))
    try:
        handed = str(Environment(episode, list(TASK.apps)).tools())
    finally:
        store.drop(episode.id)
    handed += (Path(__file__).parents[1] / "tasks" / "policies" / TASK.policy_ref).read_text()
    for task in TASKS.values():
        amount = task.evaluator["expected"][0]["assert"]["est_cost_to_complete"]
        whole = amount.split(".")[0]
        text = handed + task.instruction
        assert whole not in text.replace(",", ""), f"{task.instance_id}: {amount} is handed to the agent"
