"""A_etc_forecast's own checks beside the admission gate: the portal form is a variant, the
evaluator pins one job row by the product's own key, the replies are typed claims, every ERP with a
projection write has instances, and what the agent is handed holds no forecast. The near-misses,
variants and reply corpus themselves run in tests/test_gate.py (tools, every job) and
e2e/test_gate_browser.py (the browser).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from portals.core.registry import load_apps
from seeds.book import load_book
from tasks.families import a_etc_forecast as A
from tasks.families import a_etc_forecast_gate as G
from tasks.registry import all_tasks

# the Procore-sourced instances; the PM's Excel workbook and the owner's INGENIOUS.BUILD budget have
# their own (test_gate_a_etc_forecast_xlsx.py, test_gate_a_etc_forecast_ingenious.py)
TASKS = {t.instance_id: t for t in all_tasks()
         if t.family == "A_etc_forecast" and t.parameters.get("source") not in ("excel", "ingenious_build")}
TASK = TASKS["cf_A_etc_forecast_1042"]
THE_BOOK = load_book()


def _erp(task) -> str:
    return task.parameters.get("erp", A.ERP)


# the first instance on each ERP, for the checks that open an episode
FIRST = {}
for _id, _task in sorted(TASKS.items()):
    FIRST.setdefault(_erp(_task), _id)


def _key(task) -> str:
    return A.erp_job(THE_BOOK, task.parameters["job"], _erp(task))


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
        # the reply names the job the person named: the company's job number, not the product's key
        assert next(o["value"] for o in outputs if o["claim"] == "id") == task.parameters["job"]


def test_every_erp_with_a_projection_write_has_instances_on_jobs_of_its_own():
    """The family runs on each served ERP whose manifest maps a tool to update_job_forecast (and on
    no other), and no two ERPs share a job, so their figures differ."""
    writable = {name for name, spec in load_apps().items()
                if spec.kind == "erp" and "update_job_forecast" in spec.service_tool_names}
    assert {_erp(t) for t in TASKS.values()} == writable
    assert {"foundation_erp", "sage300cre", "cmic", "acumatica_construction", "computerease"} <= writable
    assert "qbo" not in writable  # QuickBooks projects carry no cost-to-complete field
    jobs = [(t.parameters["job"], _erp(t)) for t in TASKS.values()]
    assert len({job for job, _erp_ in jobs}) == len(jobs)
    figures = [t.evaluator["expected"][0]["assert"]["est_cost_to_complete"] for t in TASKS.values()]
    assert len(set(figures)) == len(figures)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_evaluator_pins_one_job_row_by_the_products_key_and_nothing_else(instance_id):
    task = TASKS[instance_id]
    erp, job = _erp(task), task.parameters["job"]
    assert task.apps == ("procore", erp)
    assert instance_id == (f"cf_A_etc_forecast_{job}" if erp == A.ERP else f"cf_A_etc_forecast_{erp}_{job}")
    (spec,) = task.evaluator["expected"]
    assert spec["app"] == erp and spec["where"] == {"_pk": _key(task)} and spec["count"] == 1
    assert set(spec["assert"]) == {"est_cost_to_complete"}
    (other,) = task.evaluator["forbidden"]
    assert other["any_other_change"] is True and other["allow"] == []


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_instruction_names_the_companys_job_and_the_product_not_its_key(instance_id):
    task = TASKS[instance_id]
    erp, job, key = _erp(task), task.parameters["job"], _key(task)
    assert f"job {job} " in task.instruction and f"into {A.label(erp)} as" in task.instruction
    if erp == A.ERP:
        assert key == job
    else:
        assert key != job and job in key and key not in task.instruction


@pytest.mark.parametrize("instance_id", sorted(FIRST.values()))
def test_a_wrong_job_reaches_the_erp_and_the_grader_catches_it(store, instance_id):
    """The trap is not the tool's to refuse: the ERP takes a projection on any open job, so a
    second job's write lands in the state and the grader must fail the run for it."""
    task = TASKS[instance_id]
    erp, job = _erp(task), task.parameters["job"]
    other = A.erp_job(THE_BOOK, G.look_alike(THE_BOOK, job), erp)
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        reply = task.oracle_tools(env)
        saved = env.call(A.tool(erp, "update_job_forecast"), {"project_id": other, "est_cost_to_complete": "12345.67"})
        assert saved["est_cost_to_complete"] == "12345.67"
        changed = {c["pk"] for c in episode.diff()[erp]["jobs"]["changed"]}
        assert changed == {_key(task), other}
        result = grade(episode.diff(), episode.guard_log, reply, task.evaluator, episode.calls)
        assert not result.passed and result.details["gate"] == "forbidden"
        assert any(line.startswith(f"Unrequested change: {erp} jobs {other} ") for line in result.verdict)
    finally:
        store.drop(episode.id)


@pytest.mark.parametrize("instance_id", sorted(FIRST.values()))
def test_the_erp_does_not_show_the_pm_forecast_nor_take_the_companys_number(store, instance_id):
    """The ERP holds its own stale projection, not the PM's lines: the answer is Procore's alone. A
    product that keys jobs its own way does not know the job by the company's bare number."""
    task = TASKS[instance_id]
    erp, job, key = _erp(task), task.parameters["job"], _key(task)
    amount = task.evaluator["expected"][0]["assert"]["est_cost_to_complete"]
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        row = env.call(A.tool(erp, "get_project"), {"project_id": key})
        assert all("forecast_to_complete" not in line for line in row["budget"])
        assert row["est_cost_to_complete"] != amount and amount not in str(row)
        budget = env.call("procore.budget.get", {"project_number": job})
        assert budget["totals"]["forecast_to_complete"] == amount
        if key != job:
            refused = env.call(A.tool(erp, "update_job_forecast"), {"project_id": job, "est_cost_to_complete": amount})
            assert refused.get("error") == "not_found", refused
            assert not episode.diff().get(erp, {}).get("jobs")
    finally:
        store.drop(episode.id)


def test_no_forecast_total_is_in_what_the_agent_is_handed(store):
    """The tools' schemas and descriptions, the instruction and the policy carry no job's answer
    (nor its grouped form), so copying an example cannot pass."""
    apps = sorted({app for task in TASKS.values() for app in task.apps})
    episode = store.create(apps)
    try:
        handed = str(Environment(episode, apps).tools())
    finally:
        store.drop(episode.id)
    handed += (Path(__file__).parents[1] / "tasks" / "policies" / TASK.policy_ref).read_text()
    for task in TASKS.values():
        amount = task.evaluator["expected"][0]["assert"]["est_cost_to_complete"]
        whole = amount.split(".")[0]
        text = handed + task.instruction
        assert whole not in text.replace(",", ""), f"{task.instance_id}: {amount} is handed to the agent"
