"""B_aia_g702's own checks beside the admission gate: the family's figuring reproduces the domain
primer's worked example (and its retainage reduction), every instance carries the defect it
records in GCPay's data, the policy states the rules the task needs without its figures, and the
change orders to add are the registered divergences. The near-misses, variants and reply corpus
run in tests/test_gate.py (tools, every job) and the gold replay in e2e/test_people.py."""
from __future__ import annotations

import re
from decimal import Decimal as D
from pathlib import Path

import pytest

from seeds.book import load_book
from tasks.families import b_aia_g702 as B
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "B_aia_g702"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "billing_retainage.md"


def _primer(reduced=None):
    """DOMAIN.md section 3's application #4: five lines, the fifth a change order added this period."""
    sov = [{"item_no": i, "description": d, "scheduled_value": v, "change_order": None}
           for i, d, v in [(1, "General conditions", 50000), (2, "Concrete", 150000), (3, "Framing", 120000),
                           (4, "MEP rough-in", 180000)]]
    prior = {1: D(30000), 2: D(150000), 3: D(40000), 4: D(20000)}
    progress = [{"item_no": 1, "work_this_period": 10000, "stored_materials": 0, "stored_status": ""},
                {"item_no": 2, "work_this_period": 0, "stored_materials": 0, "stored_status": ""},
                {"item_no": 3, "work_this_period": 50000, "stored_materials": 10000, "stored_status": "On site"},
                {"item_no": 4, "work_this_period": 40000, "stored_materials": 15000, "stored_status": "On site"},
                {"item_no": None, "change_order": "CO-1", "work_this_period": 20000, "stored_materials": 0,
                 "stored_status": ""}]
    project = {"original_sum": 500000, "retainage_pct": "10", "reduced_retainage_pct": reduced,
               "reduce_at_pct": "50" if reduced else None}
    last = {"number": 3, "retainage_work_pct": "10", "g702": {"earned_less_retainage": 216000}}
    co = {"co_id": "CO-1", "number": 1, "title": "footings", "amount": 20000}
    return B.figure(project, sov, last, prior, progress, [co])


def test_the_figuring_reproduces_the_primers_worked_example():
    b = _primer()
    assert [r.percent for r in b.rows] == ["80.0", "100.0", "83.3", "41.7", "100.0"]
    assert (b.contract_sum, b.completed, b.retainage, b.earned) == (D(520000), D(385000), D(38500), D(346500))
    assert (b.current_due, b.balance_to_finish) == (D(130500), D(173500))
    assert b.added_cos == (("CO-1", 5, D(20000)),)
    # option (a): 5% of everything to date once work (not stored) reaches 50% of the contract sum
    assert _primer(reduced="5").retainage == D(19250)


def test_undelivered_materials_are_not_billed():
    b = _primer()
    project = {"original_sum": 1000, "retainage_pct": "10", "reduced_retainage_pct": None, "reduce_at_pct": None}
    sov = [{"item_no": 1, "description": "x", "scheduled_value": 1000, "change_order": None}]
    progress = [{"item_no": 1, "work_this_period": 100, "stored_materials": 300, "stored_status": "Not delivered"}]
    b = B.figure(project, sov, None, {}, progress, [])
    assert (b.rows[0].stored, b.withheld, b.current_due) == (D(0), ((1, D(300)),), D(90))


def test_six_jobs_each_carrying_the_defect_it_records():
    assert sorted(TASKS) == [f"cf_B_aia_g702_{j}" for j in B.JOBS] and len(TASKS) == 6
    defects = {t.defect_variant for t in TASKS.values()}
    assert {"change_order_after_last_pay_app", "stored_materials_not_delivered",
            "retainage_reduced_past_50_pct"} <= defects
    book = load_book()
    registered = {d["key"] for d in book["divergences"] if d["family"] == "B_aia_g702"}
    for task in TASKS.values():
        b = B.billing(book, task.instance_id.rsplit("_", 1)[1])
        if task.defect_variant == "change_order_after_last_pay_app":
            assert b.added_cos and {co for co, _i, _a in b.added_cos} <= registered
        elif task.defect_variant == "stored_materials_not_delivered":
            assert b.withheld and any(r.stored for r in b.rows)
        elif task.defect_variant == "retainage_reduced_past_50_pct":
            assert b.rate == b.reduced_rate < b.base_rate
        else:
            assert b.reduced_rate is not None and b.rate == b.base_rate
        assert b.current_due > 0 and all(r.completed <= r.scheduled_value for r in b.rows)


def test_the_policy_states_the_rules_but_no_figure():
    text = " ".join(POLICY.read_text().replace("**", "").split())
    for rule in ("not been delivered", "approved", "not counting stored materials", "contract sum to date",
                 "Do not submit", "draft"):
        assert rule in text, rule
    assert not re.search(r"\d\s*%|\$\s*\d", text)  # the rates and amounts are the contract's and the period's
    assert all(t.policy_ref == POLICY.name for t in TASKS.values())


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_every_g703_line_and_the_g702_are_asserted(instance_id):
    task = TASKS[instance_id]
    b = B.billing(load_book(), instance_id.rsplit("_", 1)[1])
    lines = [e for e in task.evaluator["expected"] if e["table"] == "pay_app_lines"]
    assert sorted(e["where"]["item_no"] for e in lines) == [r.item_no for r in b.rows]
    assert all(set(e["assert"]) == {"scheduled_value", "previous", "this_period", "stored", "completed_stored",
                                    "percent", "balance", "retainage"} for e in lines)
    summary = next(e for e in task.evaluator["expected"] if e["table"] == "pay_apps")["assert"]
    assert {"original_sum", "net_change_orders", "contract_sum", "completed_stored", "retainage_total",
            "earned_less_retainage", "previous_certificates", "current_due", "balance_to_finish"} <= set(summary)
    assert summary["status"] == "Draft" and task.evaluator["money_movement_guard"]
    assert any(a.name == "portal_form" and a.browser for a in task.variants)
