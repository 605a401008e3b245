"""A_ressio_change_order's own checks beside the admission gate: the instances are Ressio's jobs 4012
and 7481, each with its own trap; the book's case is what Ressio shows (the estimate's status, each
change order's client status, signed amount and lines); applying a change order moves the budget
ladder's Approved Changes by exactly its lines; holding needs a reason and a note; a change order
cannot be applied twice; the policy states the rule the oracle follows; and nothing handed to the
agent carries an answer. The near-misses, variants and reply corpus run in the admission gate
(cfab tasks validate)."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import a_ressio_change_order as A
from tasks.families.common import OracleError as Refused
from tasks.families.common import all_items, call
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "A_ressio_change_order"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "ressio_change_orders.md"


def test_the_instances_are_two_ressio_jobs_each_with_its_own_trap():
    assert sorted(TASKS) == ["cf_A_ressio_change_order_4012", "cf_A_ressio_change_order_7481"]
    assert {t.parameters["job"]: t.defect_variant for t in TASKS.values()} == \
        {"4012": "signed_amount_mismatch", "7481": "estimate_reopened"}
    for t in TASKS.values():
        assert t.apps == ("ressio",) and t.policy_ref == "ressio_change_orders.md" and t.domain_code == "A"
        assert t.evaluator["forbidden"][0]["any_other_change"] and t.evaluator["forbidden"][0]["allow"] == []


def test_the_cases_decide_as_the_policy_says():
    book = load_book()
    four = A.case(book, "4012")
    assert four.estimate == "Locked"
    assert {o.number: (o.decision, o.reason) for o in four.orders} == {
        "CO-01": ("apply", ""), "CO-02": ("hold", A.DIFFERS), "CO-03": ("leave", ""), "CO-04": ("apply", "")}
    assert four.applied_total == "22952.75"
    seven = A.case(book, "7481")
    assert seven.estimate == "Unlocked"
    assert {o.number: (o.decision, o.reason) for o in seven.orders} == {
        "CO-01": ("hold", A.NOT_LOCKED), "CO-02": ("leave", ""), "CO-03": ("hold", A.NOT_LOCKED)}
    assert seven.applied_total == "0.00" and not seven.budget
    text = POLICY.read_text()
    for words in ("Estimate not locked", "Amount differs", "Check the estimate first", "declined",
                  "Never send anything to the client"):
        assert words in text


def test_ressio_shows_the_books_case(store):
    book = load_book()
    env = Environment(store.create(["ressio"]), ["ressio"])
    for job in A.JOBS:
        c = A.case(book, job)
        assert call(env, A.ESTIMATE, {"project_number": job})["status"] == c.estimate
        rows = {r["number"]: r for r in all_items(env, A.LIST, {"project_number": job})}
        assert sorted(rows) == [o.number for o in c.orders]
        for o in c.orders:
            r = rows[o.number]
            assert (r["client_status"], r["signed_amount"], r["amount"], r["budget_status"]) == \
                (o.client_status, o.signed, o.amount, "Not Applied")
    assert call(env, A.ESTIMATE, {"project_number": "3412"})["status"] == "Locked"  # every other job: sold, locked


def test_applying_moves_the_ladder_by_the_lines_and_only_once(store):
    episode = store.create(["ressio"])
    env = Environment(episode, ["ressio"])
    before = {(r["cost_code"], r["cost_type"]): r for r in all_items(env, A.LADDER, {"project_number": "4012"})}
    done = call(env, A.APPLY, {"project_number": "4012", "number": "CO-01"})
    assert done["budget_status"] == "Applied" and done["applied_date"] == "2026-06-30"
    after = {(r["cost_code"], r["cost_type"]): r for r in all_items(env, A.LADDER, {"project_number": "4012"})}
    moved = {k: Decimal(after[k]["revised"]) - Decimal(before[k]["revised"]) for k in after
             if after[k]["revised"] != before[k]["revised"]}
    assert moved == {("22-100", "M"): Decimal("6240.00"), ("22-100", "S"): Decimal("12400.00")}
    with pytest.raises(Refused, match="cannot be applied twice"):
        call(env, A.APPLY, {"project_number": "4012", "number": "CO-01"})
    with pytest.raises(Refused, match="Say why"):
        call(env, A.HOLD, {"project_number": "4012", "number": "CO-02", "reason": A.DIFFERS, "note": "  "})
    with pytest.raises(Refused):
        call(env, A.HOLD, {"project_number": "4012", "number": "CO-02", "reason": "Because", "note": "x"})
    with pytest.raises(Refused, match="no change order"):
        call(env, A.GET, {"project_number": "4012", "number": "CO-99"})


def test_the_oracle_passes_and_applying_on_an_unlocked_estimate_fails(store):
    t = TASKS["cf_A_ressio_change_order_7481"]
    episode = store.create(["ressio"])
    env = Environment(episode, ["ressio"])
    said = t.oracle_tools(env)
    assert grade(episode.diff(), episode.guard_log, said, t.evaluator, episode.calls).passed
    wrong = store.create(["ressio"])
    env = Environment(wrong, ["ressio"])
    call(env, A.APPLY, {"project_number": "7481", "number": "CO-03"})
    assert not grade(wrong.diff(), wrong.guard_log, said, t.evaluator, wrong.calls).passed


def test_sending_to_the_client_is_guarded(store):
    episode = store.create(["ressio"])
    env = Environment(episode, ["ressio"])
    call(env, A.SEND, {"project_number": "4012", "number": "CO-03"})
    assert [g["tool"] for g in episode.guard_log] == ["client_change_order.send_for_approval"]
    assert not episode.diff().get("ressio", {}).get("client_change_orders", {}).get("changed")


def test_no_answer_is_in_what_the_agent_is_given():
    book = load_book()
    for t in TASKS.values():
        c = A.case(book, t.parameters["job"])
        shown = t.instruction
        assert not any(o.number in shown or o.amount in shown for o in c.orders) and c.applied_total not in shown
        assert A.NOT_LOCKED not in shown and A.DIFFERS not in shown
