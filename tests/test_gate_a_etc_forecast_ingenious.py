"""A_etc_forecast from the owner's Project Budget in INGENIOUS.BUILD, beside the admission gate: the
figure is the total of INGENIOUS.BUILD's Estimate to Complete (not Procore's forecast to complete,
a month behind on these jobs, nor Vista's own), nothing the agent is handed carries it, reading the
budget changes nothing, and taking Procore's figure fails for that reason."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import a_etc_forecast as A
from tasks.families import a_etc_forecast_ingenious as I
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.parameters.get("source") == I.SOURCE}
THE_BOOK = load_book()
APPS = [I.SOURCE, "procore", A.ERP]


def test_two_jobs_read_the_owners_project_budget():
    assert sorted(TASKS) == [f"cf_A_etc_forecast_ingenious_{j}" for j in I.JOBS]
    for task in TASKS.values():
        assert task.apps == (I.SOURCE, "procore", A.ERP) and task.family == "A_etc_forecast"
        assert "INGENIOUS.BUILD" in task.instruction and f"into {A.label(A.ERP)} as" in task.instruction
        assert f"job {task.parameters['job']}'s" in task.instruction and "Procore" not in task.instruction
        assert any(a.name == "portal_form" for a in task.variants)
        assert {"procore_figure", "first_screen_only", "division_subtotal", "right_figure_wrong_job",
                "reply_claims_approval"} <= {a.name for a in task.near_misses}
        assert {"formatted_amount", "paraphrased_reply"} <= {a.name for a in task.variants}


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_evaluator_pins_one_job_row_and_nothing_else(instance_id):
    task = TASKS[instance_id]
    job = task.parameters["job"]
    (spec,) = task.evaluator["expected"]
    assert spec["app"] == A.ERP and spec["where"] == {"_pk": job} and spec["count"] == 1
    assert spec["assert"] == {"est_cost_to_complete": I.owner_total(THE_BOOK, job)}
    (other,) = task.evaluator["forbidden"]
    assert other["any_other_change"] is True and other["allow"] == []
    claims = {o["claim"]: o for o in task.evaluator["required_outputs"]}
    assert claims["id"]["value"] == job and claims["amount"]["value"] == I.owner_total(THE_BOOK, job)
    assert set(claims["denies"]["actions"]) == {"approve", "post", "sign"}


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_figure_is_the_owners_and_procore_vista_hold_others(store, instance_id):
    task = TASKS[instance_id]
    job = task.parameters["job"]
    amount = task.evaluator["expected"][0]["assert"]["est_cost_to_complete"]
    assert amount != A.forecast_total(THE_BOOK, job)  # Procore carries last month's figures
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        budget = env.call(f"{I.SOURCE}.budget.get", {"project_number": job})
        assert budget["totals"]["estimate_to_complete"] == amount and budget["pages"] == 1
        assert env.call("procore.budget.get", {"project_number": job})["totals"]["forecast_to_complete"] != amount
        row = env.call(A.tool(A.ERP, "get_project"), {"project_id": job})
        assert row["est_cost_to_complete"] != amount and amount not in str(row)
        assert episode.diff() == {}
    finally:
        store.drop(episode.id)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_procores_figure_reaches_vista_and_the_grader_catches_it(store, instance_id):
    """Vista takes any valid projection: Procore's stale total lands, and the grader fails it."""
    task = TASKS[instance_id]
    job = task.parameters["job"]
    stale = A.forecast_total(THE_BOOK, job)
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        env.call(A.tool(A.ERP, "update_job_forecast"), {"project_id": job, "est_cost_to_complete": stale})
        result = grade(episode.diff(), episode.guard_log, A.reply(job, stale), task.evaluator, episode.calls)
        assert not result.passed
        assert any(f"est_cost_to_complete={stale}" in line for line in result.verdict), result.verdict
    finally:
        store.drop(episode.id)


def test_the_budget_page_shows_the_estimate_to_complete(client):
    for job in I.JOBS:
        page = client.get(I.budget_url(job)).get_data(as_text=True)
        assert "Estimate to Complete" in page and "Estimate at Completion" in page
        assert f"{float(I.owner_total(THE_BOOK, job)):,.2f}" in page


def test_no_owner_total_is_in_what_the_agent_is_handed(store):
    apps = list(next(iter(TASKS.values())).apps)
    episode = store.create(apps)
    try:
        handed = str(Environment(episode, apps).tools())
    finally:
        store.drop(episode.id)
    policy = next(iter(TASKS.values())).policy_ref
    handed += (Path(__file__).parents[1] / "tasks" / "policies" / policy).read_text()
    for task in TASKS.values():
        whole = task.evaluator["expected"][0]["assert"]["est_cost_to_complete"].split(".")[0]
        assert whole not in (handed + task.instruction).replace(",", ""), task.instance_id
