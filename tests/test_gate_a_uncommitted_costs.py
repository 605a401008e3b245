"""A_uncommitted_costs' own checks beside the admission gate: the instances are Ressio's jobs 3412,
8693 and 1990, the lines the book gives are the lines Ressio's budget ladder shows with cost applied
and nothing committed, a draft or voided purchase order on a line commits nothing, a code committed
under one cost type leaves its other cost types uncommitted, and a reply that adds one cost code's
two cost types together fails. The near-misses, variants and reply corpus themselves
run in the admission gate (cfab tasks validate)."""
from __future__ import annotations

from decimal import Decimal

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import a_uncommitted_costs as A
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "A_uncommitted_costs"}


def test_the_instances_are_three_ressio_jobs_each_with_its_own_trap():
    assert sorted(TASKS) == ["cf_A_uncommitted_costs_1990", "cf_A_uncommitted_costs_3412",
                             "cf_A_uncommitted_costs_8693"]
    assert {t.parameters["job"]: t.defect_variant for t in TASKS.values()} == \
        {"1990": "void_po_on_the_line", "3412": "one_code_two_cost_types", "8693": "draft_po_on_the_line"}
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
    nineteen = A.case(book, "1990")
    assert [x.voids for x in nineteen.lines if x.voids] == [("1990-15",)]  # a voided PO: nothing committed
    assert any("M" in x.other_types and x.cost_type != "M" for x in nineteen.lines)  # committed as material only
    orders = A.all_items(env, f"{A.APP}.purchase_orders.list", {"project_number": "1990"})
    assert {o["number"]: o["status"] for o in orders}["PO1990-15"] == "Void"  # Ressio shows it voided


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


def test_a_reading_by_cost_code_alone_fails_on_1990(store):
    """Leaving out a line because its cost code is committed under another cost type is a wrong reply."""
    t = TASKS["cf_A_uncommitted_costs_1990"]
    episode = store.create(["ressio"])
    env = Environment(episode, ["ressio"])
    said = t.oracle_tools(env)
    assert grade(episode.diff(), episode.guard_log, said, t.evaluator, episode.calls).passed
    x = next(x for x in A.case(load_book(), "1990").lines if x.other_types)
    dropped = said.replace(f"{x.cost_code} {A.TYPES[x.cost_type]}: {x.applied} applied. ", "")
    assert dropped != said and not grade(episode.diff(), episode.guard_log, dropped, t.evaluator,
                                         episode.calls).passed
