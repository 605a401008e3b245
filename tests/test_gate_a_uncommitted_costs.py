"""A_uncommitted_costs' own checks beside the admission gate: the instances are Ressio's jobs 3412
and 8693, the lines the book gives are the lines Ressio's budget ladder shows with cost applied and
nothing committed, a draft purchase order on a line commits nothing, and a reply that adds one
cost code's two cost types together fails. The near-misses, variants and reply corpus themselves
run in the admission gate (cfab tasks validate)."""
from __future__ import annotations

from decimal import Decimal

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import a_uncommitted_costs as A
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "A_uncommitted_costs"}


def test_the_instances_are_two_ressio_jobs_each_with_its_own_trap():
    assert sorted(TASKS) == ["cf_A_uncommitted_costs_3412", "cf_A_uncommitted_costs_8693"]
    assert {t.parameters["job"]: t.defect_variant for t in TASKS.values()} == \
        {"3412": "one_code_two_cost_types", "8693": "draft_po_on_the_line"}
    for t in TASKS.values():
        assert t.apps == ("ressio",) and t.policy_ref == "budget_commitment_review.md"
        assert t.evaluator["expected"] == [] and t.evaluator["forbidden"][0]["any_other_change"]


def test_the_books_lines_are_the_ladders(store):
    book = load_book()
    env = Environment(store.create(["ressio"]), ["ressio"])
    for job in A.JOBS:
        c = A.case(book, job)
        rows = A.all_items(env, A.LADDER, {"project_number": job})
        assert A.flagged(rows) == [(x.cost_code, x.cost_type, x.applied) for x in c.lines] and c.lines
    three = A.case(book, "3412")
    assert [x.cost_code for x in three.lines].count("01-200") == 2  # two cost types, two lines
    eight = A.case(book, "8693")
    assert all(x.drafts for x in eight.lines)  # each line carries an unsigned PO: nothing committed
    assert three.total == A.money(sum(Decimal(x.applied) for x in three.lines))


def test_no_answer_is_in_what_the_agent_is_given():
    for t in TASKS.values():
        c = A.case(load_book(), t.parameters["job"])
        shown = t.instruction
        assert not any(x.applied in shown or x.cost_code in shown for x in c.lines) and c.total not in shown


def test_the_oracles_reply_passes_and_a_merged_line_fails(store):
    t = TASKS["cf_A_uncommitted_costs_3412"]
    episode = store.create(["ressio"])
    env = Environment(episode, ["ressio"])
    said = t.oracle_tools(env)
    assert grade(episode.diff(), episode.guard_log, said, t.evaluator, episode.calls).passed
    c = A.case(load_book(), "3412")
    e, o = (x for x in c.lines if x.cost_code == "01-200")
    merged = said.replace(f"01-200 Equipment: {e.applied} applied. 01-200 Other: {o.applied} applied.",
                          f"01-200: {A.money(Decimal(e.applied) + Decimal(o.applied))} applied.")
    assert merged != said and not grade(episode.diff(), episode.guard_log, merged, t.evaluator, episode.calls).passed
