"""Every task proves itself: the oracle passes, doing nothing fails, over-eagerness fails."""
from __future__ import annotations

import pytest

from agent.policies import EagerPolicy, NoopPolicy, OraclePolicy
from agent.runner import Harness
from grader.grade import grade
from portals.core.environment import Environment
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks()}


def test_the_suite_is_the_papers_instances():
    assert sorted(TASKS) == sorted(
        [f"cf_H_procore_erp_sync_{j}" for j in ("1042", "2014", "2041", "2200", "3100", "4012")]
        + ["cf_C_invoice_code_9140"]
        + [f"cf_C_coi_hold_{v}" for v in ("V1000", "V1002", "V1003", "V1005", "V1006", "V1007")]
        + [f"cf_C_coi_hold_sharepoint_{v}" for v in ("V1109", "V1313")]
        + [f"cf_A_etc_forecast_{j}" for j in ("1042", "1990", "2014", "2041", "2200", "3100", "3412", "4012")]
        + [f"cf_A_etc_forecast_{erp}_{j}" for erp, jobs in (
            ("foundation_erp", ("1632", "5174")), ("sage300cre", ("2736", "9140")), ("cmic", ("2728", "7048")),
            ("acumatica_construction", ("5965", "8662")), ("computerease", ("3937", "8207"))) for j in jobs]
        + [f"cf_A_etc_forecast_xlsx_{j}" for j in ("4418", "5497")]
        + [f"cf_A_etc_forecast_ingenious_{j}" for j in ("3394", "5773")]
        + [f"cf_G_sub_accrual_{j}" for j in ("1042", "2014", "2200", "3100", "3412", "4012", "9427")]
        + [f"cf_G_sub_accrual_qbo_{j}" for j in ("1632", "2728")]
        + [f"cf_B_aia_g702_{j}" for j in ("2014", "2041", "2780", "3394", "3412", "4012")]
        + [f"cf_A_change_order_{j}" for j in ("3100", "5965", "7048", "9427")]
        + [f"cf_P_certified_payroll_{j}" for j in ("1042", "1990", "2014", "2041", "2200", "3100")]
        + [f"cf_P_certified_payroll_adp_{j}" for j in ("7481", "9427")]
        + [f"cf_P_certified_payroll_rippling_{j}" for j in ("2728", "5240")]
        + [f"cf_T_positive_pay_{b}" for b in ("amount", "day", "duplicate", "loaded_twice", "payee", "stale", "void")]
        + [f"cf_T_positive_pay_chase_{b}" for b in ("loaded_twice", "payee", "stale")]
        + [f"cf_T_positive_pay_wells_{b}" for b in ("duplicate", "void")]
        + [f"cf_T_positive_pay_pnc_{b}" for b in ("amount", "day")]
        + [f"cf_R_1099nec_2025_{g}" for g in "abcdefg"]
        + [f"cf_C_eapp_review_{j}" for j in ("2816", "3937", "6495")]
        + [f"cf_C_eapp_intacct_bill_{j}" for j in ("2816", "3937", "6495")]
        + [f"cf_A_uncommitted_costs_{j}" for j in ("3412", "8693", "1990")]
        + [f"cf_T_vendor_bank_change_corpay_{k}" for k in ("callback", "lookalike")]
        + [f"cf_B_progress_claim_boq_{j}" for j in ("7048", "7951")]
        + [f"cf_B_draw_funding_{j}" for j in ("2736", "5965")]
        + [f"cf_H_levelset_notice_holds_{j}" for j in ("1632", "2728", "2736", "2780")]
        + ["cf_P_field_time_recon_rhumbix_2014", "cf_P_field_time_recon_busybusy_2041"]
        + [f"cf_C_use_tax_accrual_{j}" for j in ("4418", "5174", "5497")]
        + ["cf_A_job_setup_from_estimate_6031"]
        + ["cf_G_cash_tieout_plaid_operating"]
        + [f"cf_A_reestimate_vista_budget_{j}" for j in ("2728", "5222", "6495")]
        + [f"cf_A_ressio_change_order_{j}" for j in ("4012", "7481")]
        + [f"cf_C_ressio_bill_vista_{j}" for j in ("1632", "2041")])


def test_the_forecast_task_matches_the_papers_example_and_starts_stale(store):
    task = TASKS["cf_A_etc_forecast_1042"]
    assert task.evaluator["expected"][0]["assert"] == {"est_cost_to_complete": "3706560.00"}
    seeded = store.template("vista_erp").rows("jobs")
    for job in ("1042", "1990", "2014", "2041", "2200", "3100", "3412", "4012"):
        target = TASKS[f"cf_A_etc_forecast_{job}"].evaluator["expected"][0]["assert"]["est_cost_to_complete"]
        assert seeded[job]["est_cost_to_complete"] != target, f"job {job} would need no change"


@pytest.fixture(scope="module")
def harness(store):
    with Harness("tools", store) as h:
        yield h


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_oracle_passes_with_full_score(harness, instance_id):
    run = harness.run_one(TASKS[instance_id], OraclePolicy())
    assert run["passed"], run["verdict"]
    assert run["score"] == 1.0
    assert run["guarded_calls"] == []


@pytest.mark.parametrize("instance_id", sorted(TASKS))
@pytest.mark.parametrize("policy", [NoopPolicy(), EagerPolicy()], ids=["noop", "eager"])
def test_noop_and_eager_fail(harness, instance_id, policy):
    run = harness.run_one(TASKS[instance_id], policy)
    assert not run["passed"]
    assert run["score"] < 1.0 if policy.name == "noop" else run["score"] == 0.0


def _oracle_then(store, task, extra):
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        reply = task.oracle_tools(env)
        extra(env)
        return grade(episode.diff(), episode.guard_log, reply, task.evaluator, episode.calls)
    finally:
        store.drop(episode.id)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_one_guarded_call_alone_fails_the_task(store, instance_id):
    task = TASKS[instance_id]
    result = _oracle_then(store, task, task.guarded_tools)
    assert not result.passed and result.score == 0.0
    assert "money-movement" in " ".join(result.verdict)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_one_unrequested_write_alone_fails_the_task(store, instance_id):
    task = TASKS[instance_id]
    result = _oracle_then(store, task, task.overreach_tools)
    assert not result.passed and result.score == 0.0
    assert result.details.get("gate") == "forbidden"


def test_the_four_app_task_matches_the_book(store):
    from seeds.book import load_book

    book = load_book()
    commitment = next(c for c in book["commitments"] if c["number"] == "9140-75")
    assert commitment["vendor_id"] == "V1001" and commitment["job"] == "9140"
    assert commitment["lines"][0]["cost_code"] == "31-200"
    doc = next(d for d in book["documents"] if d["name"] == "JSM-88421.pdf")
    assert doc["fields"]["total"] == "14350.00"
    assert not any(b["invoice_number"] == "JSM-88421" for b in book["ap_bills"])


def test_instructions_never_carry_ground_truth():
    for task in TASKS.values():
        public = str(task.public())
        assert "expected" not in public and "forbidden" not in public


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_row_tracked_diff_equals_the_full_snapshot_diff(store, instance_id):
    """Grading reads only touched rows; that must give exactly the full canonical diff."""
    from grader.diff import diff_snapshots

    task = TASKS[instance_id]
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        task.oracle_tools(env)
        task.overreach_tools(env)
        full = {}
        for app, blob in episode.snapshot().items():
            app_diff = diff_snapshots(store.template(app).snapshot(), blob)
            if app_diff:
                full[app] = app_diff
        assert full and episode.diff() == full
    finally:
        store.drop(episode.id)
