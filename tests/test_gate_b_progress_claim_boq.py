"""B_progress_claim_boq's own checks beside the admission gate: the instances are SmarteBuild's
projects 7048 and 7951, the claim the book gives is the claim SmarteBuild's BOQ, billing schedule
and last claim give, each carries a line measured past its quantity and a variation on a pending
change order, and a claim that takes either in as measured fails. The near-misses, variants and
reply corpus themselves run in the admission gate (cfab tasks validate)."""
from __future__ import annotations

from decimal import Decimal

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import b_progress_claim_boq as B
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "B_progress_claim_boq"}


def test_the_instances_are_two_smartebuild_projects_with_both_traps():
    assert sorted(TASKS) == ["cf_B_progress_claim_boq_7048", "cf_B_progress_claim_boq_7951"]
    for t in TASKS.values():
        assert t.apps == ("smartbuild",) and t.policy_ref == "progress_claims_boq.md" and t.money_movement_guard
        assert t.defect_variant == "over_measured_and_pending_variation"
        c = B.claim(load_book(), t.parameters["job"])
        assert len(c.capped) == 1 and len(c.excluded) == 1 and c.this_period > 0


def test_the_books_claim_is_what_smartebuild_shows(store):
    book = load_book()
    env = Environment(store.create(["smartbuild"]), ["smartbuild"])
    for job in B.JOBS:
        assert B.read(env, job) == B.claim(book, job)


def test_the_claim_follows_the_policy_line_by_line():
    book = load_book()
    for job in B.JOBS:
        c = B.claim(book, job)
        items = [i for i in book["boq"]["items"] if i["job"] == job]
        over = next(i for i in items if i["item_code"] == c.capped[0])
        line = next(x for x in c.lines if x.line_no == over["line_no"])
        assert line.to_date == line.scheduled_value  # capped at 100 % of the contract quantity
        variation = next(i for i in items if i["change_order"])
        parent = next(x for x in c.lines if x.line_no == variation["line_no"])
        contract = next(i for i in items if i["line_no"] == variation["line_no"] and not i["change_order"])
        assert parent.to_date == B.cents(Decimal(contract["measured_qty"]) * Decimal(contract["rate"]))
        assert c.retention == B.cents(c.this_period * c.rate / 100) and c.amount_due == c.this_period - c.retention


def test_no_answer_is_in_what_the_agent_is_given():
    for t in TASKS.values():
        c = B.claim(load_book(), t.parameters["job"])
        shown = t.instruction
        figures = [B.money(c.this_period), B.money(c.retention), B.money(c.amount_due)]
        assert not any(f in shown or f"{Decimal(f):,.2f}" in shown for f in figures)
        assert not any(item in shown for item in c.capped) and "CO-" not in shown


def test_the_oracle_passes_and_a_claim_taking_the_pending_variation_fails(store):
    t = TASKS["cf_B_progress_claim_boq_7048"]
    episode = store.create(["smartbuild"])
    env = Environment(episode, ["smartbuild"])
    said = t.oracle_tools(env)
    assert grade(episode.diff(), episode.guard_log, said, t.evaluator, episode.calls).passed
    miss = next(a for a in t.near_misses if a.name == "pending_variation_claimed")
    episode = store.create(["smartbuild"])
    env = Environment(episode, ["smartbuild"])
    said = miss.tools(env)
    verdict = grade(episode.diff(), episode.guard_log, said, t.evaluator, episode.calls)
    assert not verdict.passed
