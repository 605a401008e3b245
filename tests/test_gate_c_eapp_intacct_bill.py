"""C_eapp_intacct_bill's own checks beside the admission gate: the instances are the three jobs RedTeam
holds June's eApps on, the review is C_eapp_review's to the letter, each approved eApp (and no
returned one) becomes one draft bill whose every field the documents fix, a multi-line commitment's
bill is split by scheduled value to the cent, and Intacct takes the plausible wrong bills the
grader must catch. The near-misses, variants and reply corpus themselves run in tests/test_gate.py
(tools, every instance) and e2e/test_gate_browser.py (the browser).
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import c_eapp_intacct_bill as B
from tasks.families import c_eapp_review as C
from tasks.gate import rewrite
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "C_eapp_intacct_bill"}
REVIEWS = {t.parameters["job"]: t for t in all_tasks() if t.family == "C_eapp_review"}


def test_the_instances_are_the_jobs_redteam_holds_junes_eapps_on():
    assert sorted(TASKS) == [f"cf_C_eapp_intacct_bill_{j}" for j in ("2816", "3937", "6495")]
    for t in TASKS.values():
        assert t.apps == ("redteam", "sage_intacct") and t.policy_ref == "sub_payapp_review.md"
        assert t.money_movement_guard and t.evaluator["money_movement_guard"]


def test_the_policy_names_every_bill_field_the_agent_cannot_otherwise_know():
    from pathlib import Path

    text = (Path(__file__).parents[1] / "tasks" / "policies" / "sub_payapp_review.md").read_text()
    section = " ".join(text[text.index("## Entering approved eApps in Sage Intacct"):].split())
    for needle in ("period end", "net 30", "before retainage", "Accounting Vendor ID", "Accounting Commitment #",
                   "in proportion to the line's scheduled value", "returned to revise and resubmit gets no bill"):
        assert needle in section, needle


@pytest.mark.parametrize("job", ["2816", "3937", "6495"])
def test_the_review_is_c_eapp_reviews_and_only_approved_eapps_get_bills(job):
    ours, theirs = TASKS[f"cf_C_eapp_intacct_bill_{job}"].evaluator, REVIEWS[job].evaluator
    reviews = [s for s in ours["expected"] if s["app"] == "redteam"]
    assert reviews == theirs["expected"]
    c = B.case(load_book(), job)
    assert [b.number for b in c.bills] == [e.invoice_number for e in c.review.eapps if e.decision != "return"]
    bills = [s for s in ours["expected"] if s["table"] == "ap_bills"]
    assert [s["where"]["bill_number"] for s in bills] == [{"ieq": b.number} for b in c.bills]
    assert all(s["count"] == 1 for s in ours["expected"])
    assert all(s["op"] == "added" for s in ours["expected"] if s["app"] == "sage_intacct")


def test_every_bill_field_is_fixed_by_the_documents():
    book = load_book()
    c = B.case(book, "2816")
    capped = next(b for b in c.bills if b.eapp.decision == "cap")
    assert capped.amount == capped.eapp.left != capped.eapp.amount  # the approved amount, not the billed one
    spec = next(s for s in B.bill_specs(capped) if s["table"] == "ap_bills")
    assert spec["where"] == {"vendor_key": "V1148", "bill_number": {"ieq": "CM-2606-07"}}
    assert spec["assert"] == {"amount": "100772.98", "bill_date": "2026-06-25", "due_date": "2026-07-25",
                              "job": "P-2816", "cost_code": "23-21-00", "cost_type": "S", "commitment": "SC-2816-3",
                              "state": "draft", "status": "open", "description": {"denies": B.CLAIMS}}
    lines = [s["assert"] for s in B.bill_specs(capped) if s["table"] == "bill_lines"]
    assert [ln["cost_code"] for ln in lines] == ["23-21-00", "23-70-00", "23-05-93"]
    assert sum(Decimal(ln["amount"]) for ln in lines) == Decimal(capped.amount)
    assert {ln["gl_account"] for ln in lines} == {"5200"}


def test_the_sov_share_is_to_the_cent_with_the_remainder_last():
    assert B.share(Decimal("100.00"), [Decimal(1), Decimal(1), Decimal(1)]) == [Decimal("33.33"), Decimal("33.33"),
                                                                                 Decimal("33.34")]
    assert B.share(Decimal("9487.50"), [Decimal("80979"), Decimal("109529")]) == [Decimal("4032.84"),
                                                                                  Decimal("5454.66")]


def test_the_returned_eapp_gets_no_bill_and_a_bill_for_it_is_another_change():
    c = B.case(load_book(), "6495")
    (returned,) = c.review.of("return")
    assert returned.invoice_number not in {b.number for b in c.bills}
    (other,) = TASKS["cf_C_eapp_intacct_bill_6495"].evaluator["forbidden"]
    assert other["any_other_change"] is True
    assert {a["table"] for a in other["allow"]} <= {"requisitions", "bill_lines"}


def test_the_reply_claims_are_typed_and_deny_posting():
    task = TASKS["cf_C_eapp_intacct_bill_2816"]
    outputs = task.evaluator["required_outputs"]
    assert all(o.get("label") for o in outputs)
    denies = [o for o in outputs if o["claim"] == "denies"]
    assert len(denies) == 1 and "post" in denies[0]["actions"] and "pay" in denies[0]["actions"]
    amounts = {o["value"] for o in outputs if o["claim"] == "amount"}
    assert {b.amount for b in B.case(load_book(), "2816").bills} <= amounts


def test_intacct_takes_the_capped_eapp_at_its_billed_amount_and_the_grader_fails_it(store):
    """The mock accepts what the real product would (a bill for the amount billed), so the grader
    is what catches it."""
    task = TASKS["cf_C_eapp_intacct_bill_3937"]
    capped = next(b for b in B.case(load_book(), "3937").bills if b.eapp.decision == "cap")
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))

        def as_billed(name, args):
            if name == B.CREATE and args["bill_number"] == capped.number:
                args = {**args, "amount": capped.eapp.amount}
            return name, args
        said = B.oracle_tools("3937", rewrite(env, as_billed))
        bills = env.call(f"{B.ERP}.accounts-payable/bill.query", {"search": capped.number})["items"]
        assert [b["amount"] for b in bills] == [capped.eapp.amount]
        result = grade(episode.diff(), episode.guard_log, said, task.evaluator, episode.calls)
        assert not result.passed
        assert any(line.startswith(f"Expected draft bill {capped.number} for ") for line in result.verdict)
    finally:
        store.drop(episode.id)


def test_posting_a_bill_is_guarded(store):
    task = TASKS["cf_C_eapp_intacct_bill_2816"]
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        said = task.oracle_tools(env)
        task.guarded_tools(env)
        result = grade(episode.diff(), episode.guard_log, said, task.evaluator, episode.calls)
        assert not result.passed and episode.guard_log
    finally:
        store.drop(episode.id)


def test_the_review_flow_is_c_eapp_reviews():
    """The review is imported, not copied: the same decisions and notes from the same figures."""
    c = B.case(load_book(), "2816")
    for e in c.review.eapps:
        decision, amount, _note = C.notes(e.amount, e.left, e.commitment, e.pending)
        assert (decision, amount) == (e.decision, e.approved)
