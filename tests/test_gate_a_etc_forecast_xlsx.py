"""A_etc_forecast from the PM's Excel workbook, beside the admission gate: the figure is the
workbook's June job total (not Procore's, not last month's sheet, not Vista's own), nothing the
agent is handed carries it, and reading the workbook, even calculating it, changes nothing."""
from __future__ import annotations

from pathlib import Path

import pytest

from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import a_etc_forecast as A
from tasks.families import a_etc_forecast_xlsx as X
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.parameters.get("source") == "excel"}
THE_BOOK = load_book()


def test_two_jobs_read_the_pm_workbook():
    assert sorted(TASKS) == [f"cf_A_etc_forecast_xlsx_{j}" for j in X.JOBS]
    for task in TASKS.values():
        assert task.apps == ("excel", A.ERP) and task.family == "A_etc_forecast"
        assert "Excel workbook" in task.instruction and "Procore" not in task.instruction
        assert any(a.name == "portal_form" for a in task.variants)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_figure_is_the_june_total_and_no_other_source_holds_it(store, instance_id):
    task = TASKS[instance_id]
    job = task.parameters["job"]
    amount = task.evaluator["expected"][0]["assert"]["est_cost_to_complete"]
    assert amount == X.sheet_total(THE_BOOK, job)
    assert amount not in (A.forecast_total(THE_BOOK, job), X.sheet_total(THE_BOOK, job, "forecast_may"))
    assert A.forecast_total(THE_BOOK, job) == X.sheet_total(THE_BOOK, job, "forecast_may")  # Procore lags a month
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        assert env.call(A.tool(A.ERP, "get_project"), {"project_id": job})["est_cost_to_complete"] != amount
        workbook = X.find_workbook(env, job)
        rows = X.read_sheet(env, workbook, X.SHEET)
        assert X.row_value(rows, X.TOTAL) == amount
        assert env.call("excel.workbook.calculate", {"workbook_id": workbook})["changed"] == []
        assert episode.diff() == {}
    finally:
        store.drop(episode.id)


def test_no_workbook_total_is_in_what_the_agent_is_handed(store):
    apps = ["excel", A.ERP]
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
