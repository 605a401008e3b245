"""A_etc_forecast's own checks beside the admission gate: the portal form is a variant, the
evaluator pins one job row, the replies are typed claims, and what the agent is handed holds no
forecast. The near-misses, variants and reply corpus themselves run in tests/test_gate.py (tools,
every job) and e2e/test_gate_browser.py (the browser).
"""
from __future__ import annotations

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from tasks.families import a_etc_forecast_gate as G
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "A_etc_forecast"}
TASK = TASKS["cf_A_etc_forecast_1042"]


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_portal_form_is_one_of_its_variants(instance_id):
    """Beside the gate every task ships (tests/test_gate.py): the portal's own form passes."""
    assert any(a.name == "portal_form" for a in TASKS[instance_id].variants)


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
