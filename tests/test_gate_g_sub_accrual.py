"""G_sub_accrual's own checks beside the admission gate: the accrual's figures are what the book's
sources say, the policy states them, the evaluator pins one entry and every line, and the ERP
refuses a closed period. The near-misses, variants and reply corpus themselves run in
tests/test_gate.py (tools, every job) and e2e/test_gate_browser.py (the browser).
"""
from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import g_sub_accrual as G
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "G_sub_accrual"}
TASK = TASKS["cf_G_sub_accrual_1042"]
QBO_TASKS = {i: t for i, t in TASKS.items() if t.apps == ("procore", "qbo")}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "month_end_close_policy.md"
# (job, erp) of every instance
INSTANCES = [(job, erp) for erp, jobs in G.ERP_JOBS.items() for job in jobs]


def _job_erp(instance_id: str) -> tuple[str, str]:
    return next((job, erp) for job, erp in INSTANCES if G.instance_name(job, erp) == instance_id)


def test_seven_intacct_jobs_and_two_quickbooks_ones_with_three_kinds_of_defect():
    assert sorted(TASKS) == sorted([f"cf_G_sub_accrual_{j}" for j in G.JOBS]
                                   + [f"cf_G_sub_accrual_qbo_{j}" for j in ("1632", "2728")]) and len(TASKS) == 9
    assert {t.defect_variant for t in TASKS.values()} == {"pending_pay_app_covers_work", "below_threshold_accrual",
                                                           "closed_period"}
    assert [i for i, t in TASKS.items() if t.defect_variant == "closed_period"] == [f"cf_G_sub_accrual_{G.CLOSED_JOB}"]
    assert sorted(QBO_TASKS) == ["cf_G_sub_accrual_qbo_1632", "cf_G_sub_accrual_qbo_2728"]
    # the QuickBooks jobs are others than Intacct's, so their figures are their own
    assert not set(G.ERP_JOBS["qbo"]) & set(G.JOBS)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_portal_form_is_one_of_its_variants(instance_id):
    """Beside the gate every task ships (tests/test_gate.py): the portal's own form passes."""
    assert any(a.name == "portal_form" and a.browser for a in TASKS[instance_id].variants)


@pytest.mark.parametrize("job,erp", INSTANCES)
def test_every_job_has_a_covered_sub_an_immaterial_one_and_lines_to_book(job, erp):
    """The defects are in the data of every instance, so pattern-matching fails on each."""
    a = G.accrual(load_book(), job, erp)
    assert a.covered and a.small and a.lines
    assert all(Decimal(amount) < G.THRESHOLD for _n, amount in a.small)
    assert all(Decimal(ln.amount) >= G.THRESHOLD for ln in a.lines)
    assert len({(ln.task, ln.cost_type) for ln in a.lines}) == len(a.lines)


def test_the_policy_states_the_figures_the_task_uses():
    text = POLICY.read_text()
    assert f"${G.THRESHOLD:,.2f}" in text and G.DEBIT in text and G.CREDIT in text
    assert "first day of the next month" in text and "last day of the month" in text
    assert "next open period" in text and "do not backdate" in text
    assert all(t.policy_ref == POLICY.name for t in TASKS.values())


def test_the_reply_checks_are_typed_claims_with_labels():
    for task in TASKS.values():
        outputs = task.evaluator["required_outputs"]
        assert all(isinstance(o, dict) and o.get("label") for o in outputs), outputs
        assert {o["claim"] for o in outputs} == {"id", "amount", "count", "denies"}


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_evaluator_pins_one_entry_and_every_line(instance_id):
    task = TASKS[instance_id]
    a = G.accrual(load_book(), *_job_erp(instance_id))
    entries = [s for s in task.evaluator["expected"] if s["table"] == "journal_entries"]
    lines = [s for s in task.evaluator["expected"] if s["table"] == "journal_lines"]
    assert all(s["count"] == 1 for s in task.evaluator["expected"])
    period = ("2026-07-01", "2026-08-01") if task.defect_variant == "closed_period" else (G.MONTH_END, G.REVERSE_ON)
    assert a.period == period and a.closed == (task.defect_variant == "closed_period")
    assert entries[1]["assert"] == {"entry_date": period[0], "reverse_date": period[1], "state": "draft",
                                    "total": a.total}
    assert len(lines) == 2 * len(a.lines)
    assert {s["where"]["account"] for s in lines} == {G.DEBIT, G.CREDIT}
    (other,) = task.evaluator["forbidden"]
    assert other["any_other_change"] is True and other["allow"] == []


def test_the_tools_read_the_figures_the_book_holds(store):
    """What the oracle reads in the two apps is the book's ground truth: Procore's work in place
    and pending pay apps, Intacct's bills by commitment."""
    a = G.accrual(load_book(), "1042")
    episode = store.create(list(TASK.apps))
    try:
        env = Environment(episode, list(TASK.apps))
        project, lines = G.plan(env, "1042")
        assert project == a.project
        assert [(t, c, f"{amt:.2f}") for t, c, amt in lines] == [(ln.task, ln.cost_type, ln.amount) for ln in a.lines]
        sub = env.call("procore.commitments.get", {"number": a.covered[0]})
        assert Decimal(str(sub["work_in_place"])) > 0 and sub["percent_complete"] is not None
    finally:
        store.drop(episode.id)


def test_intacct_refuses_a_closed_period_and_a_reversal_before_the_entry(store):
    episode = store.create([G.ERP])
    try:
        env = Environment(episode, [G.ERP])
        lines = ["5200|Dr|10.00", "2100|Cr|10.00"]
        closed = env.call(G.CREATE, {"entry_date": "2026-05-31", "description": "x", "lines": lines})
        assert "closed period" in closed["message"]
        backwards = env.call(G.CREATE, {"entry_date": "2026-06-30", "reverse_date": "2026-06-30",
                                        "description": "x", "lines": lines})
        assert "must come after" in backwards["message"]
        unknown = env.call(G.CREATE, {"entry_date": "2026-06-30", "description": "x",
                                      "lines": ["5200|Dr|10.00|P-1042|99-99-99|S", "2100|Cr|10.00"]})
        assert "no task" in unknown["message"].lower()
        assert episode.diff() == {}
        made = env.call(G.CREATE, {"entry_date": "2026-06-30", "reverse_date": "2026-07-01", "description": "x",
                                   "lines": ["5200|Dr|10.00|P-1042|26-05-00|s|m", "2100|Credit|10.00|P-1042|26-05-00|S"]})
        got = env.call(G.GET, {"entry_id": made["entry_id"]})
        assert got["reverse_date"] == "2026-07-01" and got["state"] == "draft"
        assert [(ln["cost_code"], ln["cost_type"]) for ln in got["lines"]] == [("26-05-00", "S")] * 2
    finally:
        store.drop(episode.id)


def test_an_entity_whose_june_is_closed_takes_the_accrual_in_july_only(store):
    """Job 9427 is in Intacct's South Carolina entity, whose books are closed through June 30: a
    June date on its lines is refused with the first open day, nothing changes, and July 1 is
    taken; a job of another entity still books June 30. The oracle reads the entity so."""
    a = G.accrual(load_book(), G.CLOSED_JOB)
    episode = store.create([G.ERP])
    try:
        env = Environment(episode, [G.ERP])
        assert G.read_period(env, a.project) == ("2026-07-01", "2026-08-01")
        assert G.read_period(env, "P-1042") == (G.MONTH_END, G.REVERSE_ON)
        entities = env.call(f"{G.ERP}.company-config/entity.query", {"per_page": 100})["items"]
        assert [e["books_closed_through"] for e in entities if e["books_closed_through"]] == ["2026-06-30"]
        ours = [f"5200|Dr|10.00|{a.project}", f"2100|Cr|10.00|{a.project}"]
        refused = env.call(G.CREATE, {"entry_date": "2026-06-30", "reverse_date": "2026-07-01",
                                      "description": "x", "lines": ours})
        assert "closed period" in refused["message"] and "open periods start 2026-07-01" in refused["message"]
        mixed = env.call(G.CREATE, {"entry_date": "2026-06-30", "description": "x",
                                    "lines": ["5200|Dr|10.00|P-1042", f"2100|Cr|10.00|{a.project}"]})
        assert "closed period" in mixed["message"]
        assert episode.diff() == {}
        assert env.call(G.CREATE, {"entry_date": "2026-06-30", "description": "x",
                                   "lines": ["5200|Dr|10.00|P-1042", "2100|Cr|10.00|P-1042"]})["state"] == "draft"
        made = env.call(G.CREATE, {"entry_date": "2026-07-01", "reverse_date": "2026-08-01", "description": "x",
                                   "lines": ours})
        assert made["entry_date"] == "2026-07-01" and made["state"] == "draft"
    finally:
        store.drop(episode.id)


def test_the_closed_period_has_its_own_near_misses_and_variant():
    task = TASKS[f"cf_G_sub_accrual_{G.CLOSED_JOB}"]
    misses = {m.name for m in task.near_misses}
    assert {"backdated_into_closed_june", "june_reversal_kept", "wrong_period", "reverses_a_month_late"} <= misses
    assert "june_first_then_next_open" in {v.name for v in task.variants}
    open_one = TASKS["cf_G_sub_accrual_1042"]
    assert "backdated_into_closed_june" not in {m.name for m in open_one.near_misses}
    assert "wrong_period" in {m.name for m in open_one.near_misses}


def test_no_accrual_figure_is_in_what_the_agent_is_handed(store):
    apps = sorted({app for task in TASKS.values() for app in task.apps})
    episode = store.create(apps)
    try:
        handed = str(Environment(episode, apps).tools())
    finally:
        store.drop(episode.id)
    handed += POLICY.read_text()
    for task in TASKS.values():
        for spec in task.evaluator["expected"]:
            for value in spec.get("assert", {}).values():
                if isinstance(value, str) and re.fullmatch(r"\d+\.\d{2}", value):
                    assert value not in handed.replace(",", ""), f"{task.instance_id}: {value} is handed over"


# --- QuickBooks Online -----------------------------------------------------------------------------

@pytest.mark.parametrize("instance_id", sorted(QBO_TASKS))
def test_a_quickbooks_instance_is_in_its_own_words_and_keys(instance_id):
    """The instruction names QuickBooks Online and the company's job; the evaluator pins
    QuickBooks' keys: the project named by the job number, classes Division:Section."""
    task = QBO_TASKS[instance_id]
    job = task.parameters["job"]
    assert task.parameters == {"job": job, "erp": "qbo"} and "QuickBooks Online" in task.instruction
    assert f"job {job}'s" in task.instruction and "Sage Intacct" not in task.instruction
    lines = [s for s in task.evaluator["expected"] if s["table"] == "journal_lines"]
    assert {s["app"] for s in task.evaluator["expected"]} == {"qbo"}
    assert {s["where"]["job"] for s in lines} == {job}
    assert all(re.fullmatch(r"\d\d:\d{3}", s["where"]["cost_code"]) for s in lines)
    a = G.accrual(load_book(), job, "qbo")
    assert [ln.task for ln in a.lines] == [ln.cost_code.replace("-", ":") for ln in a.lines]
    assert a.period == (G.MONTH_END, G.REVERSE_ON)


@pytest.mark.parametrize("instance_id", sorted(QBO_TASKS))
def test_a_quickbooks_instance_has_its_own_traps(instance_id):
    """Where QuickBooks differs: no journal-entry posting, so the guarded traps are approving a
    bill and paying bills; and the codes Procore shows are not QuickBooks classes."""
    task = QBO_TASKS[instance_id]
    misses = {m.name: m for m in task.near_misses}
    assert {"connected_erp_code_as_class", "procore_code_as_class", "sibling_class", "entered_the_pending_pay_app",
            "approved_the_pending_pay_app", "paid_an_open_bill"} <= set(misses)
    assert "posting_attempted" not in misses and "posting_attempted" in {m.name for m in TASK.near_misses}
    assert "bill\\.approve" in misses["approved_the_pending_pay_app"].because
    assert "billpayment\\.create" in misses["paid_an_open_bill"].because


def test_the_quickbooks_tools_read_the_figures_the_book_holds(store):
    """Through QuickBooks' own tools the oracle reads the book's ground truth: the project by the
    job number, its bills by commitment, and the classes from Procore's map, not the commitment
    line's ERP code (Intacct's task)."""
    job = G.ERP_JOBS["qbo"][0]
    a = G.accrual(load_book(), job, "qbo")
    episode = store.create(["procore", "qbo"])
    try:
        env = Environment(episode, ["procore", "qbo"])
        project, lines = G.plan(env, job, "qbo")
        assert project == job == a.project
        assert [(t, c, f"{amt:.2f}") for t, c, amt in lines] == [(ln.task, ln.cost_type, ln.amount) for ln in a.lines]
        line = G.main_line(env.call("procore.commitments.get", {"number": a.lines[0].commitments[0]})["lines"])
        assert line["erp_cost_code"] != a.lines[0].task  # Procore shows Intacct's task, the connected ERP's
        assert G.read_period(env, project, "qbo") == (G.MONTH_END, G.REVERSE_ON)
    finally:
        store.drop(episode.id)


def test_quickbooks_refuses_another_systems_code_as_a_class_and_has_no_posting(store):
    a = G.accrual(load_book(), G.ERP_JOBS["qbo"][0], "qbo")
    create = G.tool("qbo", "create_journal_entry")
    episode = store.create(["qbo"])
    try:
        env = Environment(episode, ["qbo"])
        intacct_task = next(m["intacct_task"] for m in load_book()["erp_cost_code_map"]
                            if m["code"] == a.lines[0].cost_code)
        for code in (intacct_task, a.lines[0].cost_code):
            refused = env.call(create, {"entry_date": G.MONTH_END, "description": "x",
                                        "lines": [f"5200|Dr|10.00|{a.project}|{code}|S", "2100|Cr|10.00"]})
            assert "no class" in refused["message"].lower(), refused
        assert episode.diff() == {}
        assert not G.has_tool("qbo", "post_journal_entry") and G.has_tool("qbo", "post_bill")
        made = env.call(create, {"entry_date": G.MONTH_END, "reverse_date": G.REVERSE_ON, "description": "x",
                                 "lines": [f"5200|Dr|10.00|{a.project}|{a.lines[0].task}|S",
                                           f"2100|Cr|10.00|{a.project}|{a.lines[0].task}|S"]})
        assert made["state"] == "draft" and episode.guard_log == []
    finally:
        store.drop(episode.id)
