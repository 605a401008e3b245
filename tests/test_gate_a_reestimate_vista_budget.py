"""A_reestimate_vista_budget's own checks beside the admission gate: each instance's job carries
the defect it records in SmarteBuild's seeded re-estimate, the revisions are the phases over the
policy's threshold (the crosswalk's rolled-up phase among them on 2728, the planted line under the
threshold left alone on 6495), every field the documents determine is asserted, and the tools
oracle's reading of the apps agrees with the book. The near-misses, variants and reply corpus run
in tests/test_gate.py and the gold replay in e2e/test_people.py."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from seeds.book import load_book
from tasks.families import a_reestimate_vista_budget as A
from tasks.registry import all_tasks

APPS = ["smartbuild", "procore", "vista_erp"]
TASKS = {t.instance_id: t for t in all_tasks() if t.family == "A_reestimate_vista_budget"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "reestimate_policy.md"


def test_two_jobs_each_carrying_the_defect_it_records():
    assert sorted(TASKS) == ["cf_A_reestimate_vista_budget_2728", "cf_A_reestimate_vista_budget_6495"]
    book = load_book()
    phases = {m["code"]: m["vista_phase"] for m in book["erp_cost_code_map"]}
    for task in TASKS.values():
        job = task.parameters["job"]
        r = A.truth(book, job)
        planted = {(phases[i["cost_code"]], i["cost_type"]): i["case"] for i in book["boq"]["reestimates"]
                   if i["job"] == job and i.get("case")}
        revised = {(x.phase, x.cost_type) for x in r.revisions}
        assert revised == {k for k, case in planted.items() if case != "under_threshold"}
        cases = {case: k for k, case in planted.items()}
        assert {"increase", "decrease", task.defect_variant} == set(cases)
        by = {(x.phase, x.cost_type): x for x in r.lines}
        assert by[cases["increase"]].revision > 0 > by[cases["decrease"]].revision
        if task.defect_variant == "rolled_up_phase":  # two company codes in the phase, one not named like it
            line = by[cases["rolled_up_phase"]]
            assert line.over and len(line.codes) > 1 and any(c.replace("-", "") != line.phase[:5] for c in line.codes)
        else:  # moved visibly, but within the threshold
            line = by[cases["under_threshold"]]
            assert not line.over and abs(line.revision) > line.limit / 2
        # the noise stays well inside every threshold
        assert all(abs(x.revision) <= x.limit / 2 for k, x in by.items() if k not in planted)


def test_the_policy_states_the_rules_and_cites_the_domain():
    text = " ".join(POLICY.read_text().replace("**", "").split())
    for rule in ("by Vista phase and cost type", "ERP cost-code map", "greater of $5,000.00 and 5 %",
                 "internal", "Price effect: 0.00", "negative for a decrease", "Do not approve", "DOMAIN.md section 1",
                 "total revision"):
        assert rule in text, rule
    assert all(t.policy_ref == POLICY.name for t in TASKS.values())
    book = load_book()
    for task in TASKS.values():  # no case's figures or codes in what the agent is handed
        r = A.truth(book, task.parameters["job"])
        for x in r.revisions:
            for shown in (f"{abs(x.revision):,.2f}", f"{abs(x.revision):.2f}", x.phase):
                assert shown not in text and shown not in task.instruction


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_every_field_the_documents_determine_is_asserted(instance_id):
    task = TASKS[instance_id]
    r = A.truth(load_book(), task.parameters["job"])
    expected = task.evaluator["expected"]
    assert len(expected) == len(r.revisions) >= 2
    for spec in expected:
        assert set(spec["where"]) == {"job", "change_type", "cost_code", "cost_type", "cost_effect", "price_effect"}
        assert spec["assert"] == {"status": "Pending"} and spec["count"] == 1
    assert task.evaluator["forbidden"][0]["any_other_change"] and task.evaluator["forbidden"][0]["allow"] == []
    total = next(o for o in task.evaluator["required_outputs"] if o["claim"] == "amount")
    assert Decimal(total["value"]) == sum(Decimal(s["where"]["cost_effect"]) for s in expected)
    assert any(Decimal(s["where"]["cost_effect"]) < 0 for s in expected)  # a decrease on each job
    assert any(a.name == "portal_form" and a.browser for a in task.variants)
    names = {a.name for a in task.near_misses}
    assert {"approved", "missed_a_line", "below_threshold_too", "wrong_cost_code", "wrong_sign"} <= names
    assert ("no_crosswalk" in names) == (task.defect_variant == "rolled_up_phase")


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_oracle_reads_the_apps_as_the_book_has_them(instance_id, env):
    task = TASKS[instance_id]
    assert A.read(env, task.parameters["job"]) == A.truth(load_book(), task.parameters["job"])
