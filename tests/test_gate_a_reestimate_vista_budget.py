"""A_reestimate_vista_budget's own checks beside the admission gate: each instance's job carries
the defect it records in SmarteBuild's seeded re-estimate, the revisions are the phases over the
policy's threshold (the crosswalk's rolled-up phase among them on 2728, the planted line under the
threshold left alone on 6495, only the remainder entered on 5222's phase with a change order
already pending in Vista), every field the documents determine is asserted, and the tools
oracle's reading of the apps agrees with the book. The near-misses, variants and reply corpus run
in tests/test_gate.py and the gold replay in e2e/test_people.py."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import copy
import random

import pytest

from seeds.book import load_book
from tasks.families import a_reestimate_vista_budget as A
from tasks.registry import all_tasks

APPS = ["smartbuild", "procore", "vista_erp"]
TASKS = {t.instance_id: t for t in all_tasks() if t.family == "A_reestimate_vista_budget"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "reestimate_policy.md"


def test_three_jobs_each_carrying_the_defect_it_records():
    assert sorted(TASKS) == ["cf_A_reestimate_vista_budget_2728", "cf_A_reestimate_vista_budget_5222",
                             "cf_A_reestimate_vista_budget_6495"]
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
        pending = [c for c in book["erp_pending_changes"] if c["job"] == job]
        assert bool(pending) == (task.defect_variant == "already_pending")
        if task.defect_variant == "rolled_up_phase":  # two company codes in the phase, one not named like it
            line = by[cases["rolled_up_phase"]]
            assert line.over and len(line.codes) > 1 and any(c.replace("-", "") != line.phase[:5] for c in line.codes)
        elif task.defect_variant == "already_pending":  # part of the move already pending, the rest still over
            line = by[cases["already_pending"]]
            (held,) = pending
            assert held["erp"] == "vista_erp" and held["change_type"] == "internal" and held["price_effect"] == "0.00"
            assert (phases[held["cost_code"]], held["cost_type"]) == cases["already_pending"]
            assert line.over and line.pending == Decimal(held["cost_effect"]) and line.revision * line.pending > 0
            assert abs(line.entered) > line.limit and abs(line.pending) < abs(line.revision)
            assert r.covered == (line,) and line in r.entries
        else:  # moved visibly, but within the threshold
            line = by[cases["under_threshold"]]
            assert not line.over and abs(line.revision) > line.limit / 2
        # the noise stays well inside every threshold
        assert all(abs(x.revision) <= x.limit / 2 for k, x in by.items() if k not in planted)


def test_the_policy_states_the_rules_and_cites_the_domain():
    text = " ".join(POLICY.read_text().replace("**", "").split())
    for rule in ("by Vista phase and cost type", "ERP cost-code map", "greater of $5,000.00 and 5 %",
                 "internal", "Price effect: 0.00", "negative for a decrease", "Do not approve", "DOMAIN.md section 1",
                 "total revision", "pending change orders", "remainder", "revision less the cost effects of every "
                 "Pending change order", "enter nothing there when the remainder is 0.00",
                 "do not approve, edit, void or offset them", "a change order that was already pending is not part "
                 "of it"):
        assert rule in text, rule
    assert all(t.policy_ref == POLICY.name for t in TASKS.values())
    book = load_book()
    for task in TASKS.values():  # no case's figures or codes in what the agent is handed
        r = A.truth(book, task.parameters["job"])
        for x in r.revisions:
            pending = (f"{abs(x.pending):,.2f}", f"{abs(x.pending):.2f}") if x.pending else ()
            for shown in (f"{abs(x.revision):,.2f}", f"{abs(x.revision):.2f}", f"{abs(x.entered):.2f}", *pending, x.phase):
                assert shown not in text and shown not in task.instruction


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_every_field_the_documents_determine_is_asserted(instance_id):
    task = TASKS[instance_id]
    r = A.truth(load_book(), task.parameters["job"])
    expected = task.evaluator["expected"]
    assert len(expected) == len(r.entries) == len(r.revisions) >= 2
    for spec, x in zip(expected, r.entries):
        assert set(spec["where"]) == {"job", "change_type", "cost_code", "cost_type", "cost_effect", "price_effect"}
        assert spec["assert"] == {"status": "Pending"} and spec["count"] == 1
        assert Decimal(spec["where"]["cost_effect"]) == x.revision - x.pending
    assert task.evaluator["forbidden"][0]["any_other_change"] and task.evaluator["forbidden"][0]["allow"] == []
    amounts = [o for o in task.evaluator["required_outputs"] if o["claim"] == "amount"]
    total = amounts[0]
    assert Decimal(total["value"]) == sum(Decimal(s["where"]["cost_effect"]) for s in expected)
    # the change order already pending is named by its cost effect
    assert [Decimal(o["value"]) for o in amounts[1:]] == [x.pending for x in r.covered]
    assert any(Decimal(s["where"]["cost_effect"]) < 0 for s in expected)  # a decrease on each job
    assert any(a.name == "portal_form" and a.browser for a in task.variants)
    names = {a.name for a in task.near_misses}
    assert {"approved", "missed_a_line", "below_threshold_too", "wrong_cost_code", "wrong_sign"} <= names
    assert ("no_crosswalk" in names) == (task.defect_variant == "rolled_up_phase")
    pending = {"staged_again", "pending_taken_as_enough", "approved_the_pending", "offset_the_pending",
               "reply_nothing_pending", "reply_total_with_pending"}
    assert (pending <= names) == (task.defect_variant == "already_pending")
    assert not (pending & names) or task.defect_variant == "already_pending"
    if task.defect_variant == "already_pending":
        assert any(a.name == "approved_the_pending" and a.browser for a in task.near_misses)
        assert any(a.name == "pending_by_hand" for a in task.variants)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_oracle_reads_the_apps_as_the_book_has_them(instance_id, env):
    task = TASKS[instance_id]
    assert A.read(env, task.parameters["job"]) == A.truth(load_book(), task.parameters["job"])


def test_the_pending_change_order_is_seeded_in_vista_alone(store):
    """Vista holds the book's pending change order as it is, Pending and numbered after the book's
    decided changes; the ERPs that seed every book change order do not get it."""
    book = load_book()
    (held,) = book["erp_pending_changes"]
    phase = next(m["vista_phase"] for m in book["erp_cost_code_map"] if m["code"] == held["cost_code"])
    rows = [c for c in store.template("vista_erp").rows("change_requests").values() if c["status"] == "Pending"]
    assert [(c["job"], c["cost_code"], c["cost_type"], c["change_type"], f"{Decimal(str(c['cost_effect'])):.2f}")
            for c in rows] == [(held["job"], phase, held["cost_type"], "internal", held["cost_effect"])]
    assert rows[0]["change_request_id"] == max(store.template("vista_erp").rows("change_requests"))
    for erp in ("sage_intacct", "acumatica_construction"):
        assert not [c for c in store.template(erp).rows("change_requests").values() if c["change_type"] == "internal"]


def test_a_private_pick_plants_the_pending_change_order_or_reads_none():
    """The private hook plants all three defects on other jobs (Vista's pending change order with
    the already_pending one), and builds a task on the public book for a pick it never salted."""
    book = copy.deepcopy(load_book())
    picks = A.private_salt(book, random.Random(5), set())
    assert {p["defect"] for p in picks} == {"rolled_up_phase", "under_threshold", "already_pending"}
    assert not {p["job"] for p in picks} & set(A.JOBS)
    job = next(p["job"] for p in picks if p["defect"] == "already_pending")
    held = [c for c in book["erp_pending_changes"] if c["job"] == job]
    assert len(held) == 1 and len(book["erp_pending_changes"]) == 2
    for p in picks:
        task = A.private_task(book, p)
        r = A.truth(book, p["job"])
        assert len(task.evaluator["expected"]) == len(r.entries) >= 2 and task.near_misses
        assert bool(r.covered) == (p["defect"] == "already_pending")
    public = A.private_task(load_book(), {"job": job, "defect": "already_pending"})
    assert public.instance_id.endswith(job) and public.defect_variant == "already_pending"


def test_the_remainder_rule_on_every_shape_of_pending_change():
    """Policy: the threshold is measured against the current budget alone; over it, the entry is
    the revision less what is already pending (nothing where that is 0.00); at or under it, the
    phase is left alone whatever is pending."""
    D = Decimal
    phases = {"22-100": "22100-000-", "23-200": "23200-000-", "26-500": "26500-000-", "09-300": "09300-000-"}
    re_lines = [("22-100", "M", D("130000")), ("23-200", "S", D("130000")), ("26-500", "S", D("80000")),
                ("09-300", "S", D("103000"))]
    budget = [("22100-000-", "M", D("100000")), ("23200-000-", "S", D("100000")), ("26500-000-", "S", D("100000")),
              ("09300-000-", "S", D("100000"))]
    pending = [("22100-000-", "M", D("10000")), ("22100-000-", "M", D("5000.50")),  # part of an increase
               ("23200-000-", "S", D("30000")),  # all of it
               ("26500-000-", "S", D("-25000")),  # more than the decrease: the remainder goes the other way
               ("09300-000-", "S", D("9000"))]  # on a phase within the threshold
    r = A.compare("9999", re_lines, phases, budget, pending)
    by = {x.phase: x for x in r.lines}
    assert [x.phase for x in r.revisions] == ["22100-000-", "23200-000-", "26500-000-"]
    assert [(x.phase, x.entered) for x in r.entries] == [("22100-000-", D("14999.50")), ("26500-000-", D("5000"))]
    assert not by["09300-000-"].over and by["09300-000-"] not in r.covered
    assert r.covered == tuple(by[p] for p in ("22100-000-", "23200-000-", "26500-000-"))
    assert r.total == D("19999.50")
    evaluator = A.evaluator(r)
    assert [s["where"]["cost_effect"] for s in evaluator["expected"]] == ["14999.50", "5000.00"]
    assert [o["value"] for o in evaluator["required_outputs"] if o["claim"] == "amount"] == \
        ["19999.50", "15000.50", "30000.00", "-25000.00"]
    said = A.reply(r)
    assert "entered nothing there" in said and "+$19,999.50" in said
