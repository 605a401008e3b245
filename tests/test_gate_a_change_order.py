"""A_change_order's own checks beside the admission gate: the paper's example is instance 3100,
every instance carries the defect it records in the seeded documents, the policy states the rules
without any case's figures, and every field the documents determine is asserted. The near-misses,
variants and reply corpus run in tests/test_gate.py and the gold replay in e2e/test_people.py."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from seeds.book import load_book
from tasks.families import a_change_order as A
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "A_change_order"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "change_management.md"


def _entry(task) -> dict:
    (spec,) = task.evaluator["expected"]
    return {**spec["where"], **spec["assert"]}


def test_the_papers_example_is_an_internal_transfer_left_pending():
    entry = _entry(TASKS["cf_A_change_order_3100"])
    assert (entry["cost_effect"], entry["price_effect"], entry["change_type"], entry["status"]) == \
        ("101700.00", "0.00", "internal", "Pending")


def test_four_jobs_each_carrying_the_defect_it_records():
    assert sorted(TASKS) == [f"cf_A_change_order_{j}" for j in A.JOBS] and len(TASKS) == 4
    book = load_book()
    cos = {c["co_id"]: c for c in book["change_orders"]}
    registered = {d["key"] for d in book["divergences"] if d["family"] == "A_change_order"}
    for task in TASKS.values():
        c = A.truth(book, task.parameters["job"])
        assert cos[c.co_id]["kind"] == "owner" and cos[c.co_id]["status"] == "pending"  # Procore's prime CO
        defect = task.defect_variant
        assert (defect == "internal_transfer_without_owner_signature") == (not c.signed)
        assert (defect == "pending_proceeding_in_procore") == (c.procore_status == "Pending - Proceeding")
        assert (defect == "signed_amount_differs_from_procore") == (c.total != c.procore_amount)
        assert (c.co_id in registered) == (c.total != c.procore_amount)
        if defect == "owner_signed_material_change":
            others = [o for o in cos.values() if o["job"] == c.job and o["status"] == "pending" and o["co_id"] != c.co_id]
            assert c.cost_type == "M" and others
        assert 0 < c.cost <= c.total


def test_the_policy_states_the_rules_but_no_figure():
    text = " ".join(POLICY.read_text().replace("**", "").split())
    for rule in ("owner has signed", "internal cost transfer", "signed document governs", "Pending - Proceeding",
                 "cost of work", "ERP cost-code map", "Do not approve"):
        assert rule in text, rule
    assert not re.search(r"\$\s*\d|\d{3}", text)  # the amounts and codes are the documents'
    assert all(t.policy_ref == POLICY.name for t in TASKS.values())


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_every_field_the_documents_determine_is_asserted(instance_id):
    task = TASKS[instance_id]
    assert set(_entry(task)) == {"job", "change_type", "cost_code", "cost_type", "cost_effect", "price_effect", "status"}
    assert task.evaluator["expected"][0]["count"] == 1
    assert task.evaluator["forbidden"][0]["any_other_change"]
    claims = {o["claim"] for o in task.evaluator["required_outputs"]}
    assert {"id", "regex", "amount", "denies"} <= claims
    assert any(a.name == "portal_form" and a.browser for a in task.variants)
    assert any(a.name == "approved" for a in task.near_misses)
