"""C_eapp_review's own checks beside the admission gate: the instances are the three jobs RedTeam
holds June's eApps on, every instance ships a full gate, the evaluator pins each eApp's review
exactly once (the capped amount to the cent, the note's content, nothing else touched), and what
remains on a commitment is read as the policy means it, not as RedTeam's Remaining to Bill shows it.
The near-misses, variants and reply corpus themselves run in tests/test_gate.py (tools, every
instance) and e2e/test_gate_browser.py (the browser).
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import c_eapp_review as C
from tasks.gate import rewrite
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "C_eapp_review"}


def test_the_instances_are_the_jobs_redteam_holds_junes_eapps_on():
    assert sorted(TASKS) == [f"cf_C_eapp_review_{j}" for j in ("2816", "3937", "6495")]
    defects = {t.parameters["job"]: t.defect_variant for t in TASKS.values()}
    assert defects == {"2816": "eapp_over_remaining_sov", "3937": "change_pending_on_a_within_eapp",
                       "6495": "over_billed_with_change_pending"}
    for t in TASKS.values():
        assert t.apps == ("redteam",) and t.policy_ref == "sub_payapp_review.md"


def test_the_decisions_the_documents_give():
    """Each job: one eApp within what remains, one over; 3937's within one has a change pending on
    its commitment (approved all the same), 6495's over one too (returned, not capped)."""
    book = load_book()
    cases = {job: C.case(book, job) for job in C.EAPP_JOBS}
    assert [e.decision for e in cases["2816"].eapps] == ["approve", "cap"]
    assert [(e.decision, bool(e.pending)) for e in cases["3937"].eapps] == [("cap", False), ("approve", True)]
    assert [(e.decision, bool(e.pending)) for e in cases["6495"].eapps] == [("return", True), ("approve", False)]
    for c in cases.values():
        for e in c.eapps:
            over = Decimal(e.amount) - Decimal(e.left)
            assert (over > 0) == (e.decision != "approve")
    co = next(x for x in book["eapps"]["change_orders"] if x["co_id"] == cases["6495"].eapps[0].pending)
    assert Decimal(co["amount"]) >= Decimal(cases["6495"].eapps[0].amount) - Decimal(cases["6495"].eapps[0].left)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_portal_form_is_one_of_its_variants(instance_id):
    assert any(a.name == "portal_form" and a.browser for a in TASKS[instance_id].variants)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_evaluator_pins_each_review_once_and_nothing_else(instance_id):
    task = TASKS[instance_id]
    c = C.case(load_book(), task.parameters["job"])
    specs = task.evaluator["expected"]
    assert all(s["count"] == 1 and s["op"] == "changed" and s["table"] == "requisitions" for s in specs)
    assert {s["where"]["_pk"] for s in specs} == {e.requisition_id for e in c.eapps}
    for e in c.eapps:
        mine = [s["assert"] for s in specs if s["where"]["_pk"] == e.requisition_id]
        if e.decision == "cap":
            assert mine[0]["amount"] == e.left and mine[0]["requested_amount"] == e.amount
            assert mine[0]["review_note"] == {"mentions": [e.left]} and "regex" in mine[1]["review_note"]
        elif e.decision == "return":
            assert mine == [{"status": "revise_and_resubmit", "amount": e.amount, "requested_amount": "",
                             "approved_date": "", "review_note": {"mentions": [e.pending]}}]
        else:
            assert mine[0]["status"] == "approved" and mine[0]["amount"] == e.amount and len(mine) == 1
    (other,) = task.evaluator["forbidden"]
    assert other["any_other_change"] is True
    assert [a["fields"] for a in other["allow"]] == [["review_note"]] * len(other["allow"])
    kinds = [o["claim"] for o in task.evaluator["required_outputs"]]
    assert kinds.count("id") == len(c.eapps) + len(c.of("return")) and kinds.count("amount") == len(c.of("cap"))


def test_redteams_remaining_to_bill_counts_the_eapp_under_review(store):
    """RedTeam shows what remains after every eApp, the one under review included: capping there
    (a negative figure) is refused, and what remains before it is that figure plus its amount."""
    task = TASKS["cf_C_eapp_review_2816"]
    e = C.case(load_book(), "2816").of("cap")[0]
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        sov = env.call(C.SOV, {"number": e.commitment})
        assert Decimal(sov["remaining"]) < 0 and Decimal(sov["remaining"]) + Decimal(e.amount) == Decimal(e.left)
        refused = env.call(C.REVIEW, {"requisition_id": e.requisition_id, "decision": "approve",
                                      "approved_amount": sov["remaining"], "note": "Capped at remaining"})
        assert refused.get("error") and not episode.diff()
    finally:
        store.drop(episode.id)


def test_approving_the_over_billed_eapp_as_is_is_taken_by_redteam_and_failed_by_the_grader(store):
    task = TASKS["cf_C_eapp_review_2816"]
    e = C.case(load_book(), "2816").of("cap")[0]
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))

        def as_billed(name, args):
            if name == C.REVIEW and args["requisition_id"] == e.requisition_id:
                args = {"requisition_id": e.requisition_id, "decision": "approve"}
            return name, args
        said = C.oracle_tools("2816", rewrite(env, as_billed))
        row = env.call("redteam.eapp.get", {"requisition_id": e.requisition_id})
        assert row["status"] == "approved" and row["amount"] == e.amount
        result = grade(episode.diff(), episode.guard_log, said, task.evaluator, episode.calls)
        assert not result.passed
        assert any(line.startswith(f"Expected eApp {e.invoice_number} approved capped at {e.left}")
                   for line in result.verdict)
    finally:
        store.drop(episode.id)
