"""C_ressio_bill_vista's own checks beside the admission gate: the instances are the two jobs Ressio
holds a planted held bill on, the clean bills are the book's approved and unsynced sub bills, each
becomes one unapproved Vista AP invoice whose every field the documents fix in Vista's own keys, the
held bill gets none, Vista takes a plausible wrong invoice the grader must catch, and approving one
is guarded. The near-misses, variants and reply corpus themselves run through
`cfab tasks validate` (tools and browser).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from seeds.ressio_sub_bills import HELD_CASES, planted
from tasks.families import c_ressio_bill_vista as R
from tasks.gate import rewrite
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "C_ressio_bill_vista"}


def test_the_instances_are_the_jobs_with_a_held_bill():
    assert sorted(TASKS) == ["cf_C_ressio_bill_vista_1632", "cf_C_ressio_bill_vista_2041"]
    for t in TASKS.values():
        assert t.apps == ("ressio", "vista_erp") and t.policy_ref == "ressio_bill_entry.md"
        assert t.money_movement_guard and t.evaluator["money_movement_guard"]
    assert {t.defect_variant for t in TASKS.values()} == {"draft_po", "over_po"}


def test_the_planted_bills_are_fixed_and_only_ressio_seeds_them():
    book = load_book()
    rows = planted(book)
    assert [r["invoice_number"] for r in rows] == [inv for _j, _c, _k, inv, _a in HELD_CASES]
    assert rows == planted(load_book())  # deterministic
    assert not any(r["invoice_number"] in {x["invoice_number"] for x in rows} for r in book["requisitions"])


def test_the_policy_names_every_field_the_agent_cannot_otherwise_know():
    text = " ".join((Path(__file__).parents[1] / "tasks" / "policies" / "ressio_bill_entry.md").read_text().split())
    for needle in ("Approved", "not synced", "Draft", "Remaining to Bill", "below zero", "Accounting Commitment #",
                   "period end", "net 30", "before retainage", "consolidates some phases", "section 4, Accounts payable in construction"):
        assert needle in text, needle


@pytest.mark.parametrize("job,held,kind", [("1632", "DPS-2606-01", "draft_po"), ("2041", "LSG2-2606-07", "over_po")])
def test_each_clean_bill_is_one_unapproved_invoice_and_the_held_one_none(job, held, kind):
    c = R.case(load_book(), job)
    assert [(h.invoice, h.kind) for h in c.held] == [(held, kind)]
    specs = TASKS[f"cf_C_ressio_bill_vista_{job}"].evaluator["expected"]
    assert [s["where"]["bill_number"] for s in specs] == [{"ieq": b.invoice} for b in c.bills]
    assert all(s["count"] == 1 and s["op"] == "added" and s["assert"]["state"] == "draft" for s in specs)
    assert held not in {b.invoice for b in c.bills}
    (other,) = TASKS[f"cf_C_ressio_bill_vista_{job}"].evaluator["forbidden"]
    assert other["any_other_change"] is True and {a["table"] for a in other["allow"]} <= {"bill_lines"}


def test_every_invoice_field_is_in_vistas_keys():
    c = R.case(load_book(), "1632")
    wda = next(b for b in c.bills if b.invoice == "WDA-2606-05")
    (spec,) = R.bill_specs(wda)
    assert spec["where"] == {"vendor_key": "21570", "bill_number": {"ieq": "WDA-2606-05"}}
    assert spec["assert"] == {"amount": "157081.14", "bill_date": "2026-06-25", "due_date": "2026-07-25",
                              "job": "1632", "cost_code": "09200-000-", "cost_type": "S", "commitment": "SC-1632-5",
                              "state": "draft", "status": "open", "description": {"denies": R.CLAIMS}}


def test_the_reply_claims_are_typed():
    outputs = TASKS["cf_C_ressio_bill_vista_2041"].evaluator["required_outputs"]
    assert all(o.get("label") for o in outputs)
    assert {o["claim"] for o in outputs} == {"id", "amount", "regex", "denies"}
    (denies,) = [o for o in outputs if o["claim"] == "denies"]
    assert {"post", "pay", "approve"} <= set(denies["actions"])


def test_vista_takes_the_po_amount_and_the_grader_fails_it(store):
    """The mock accepts what the real product would (an invoice for the PO's amount)."""
    task = TASKS["cf_C_ressio_bill_vista_2041"]
    book = load_book()
    first = R.case(book, "2041").bills[0]
    po_amount = next(c["amount"] for c in book["commitments"] if c["number"] == first.commitment)
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))

        def wrong(name, args):
            if name == R.CREATE and args["bill_number"] == first.invoice:
                args = {**args, "amount": po_amount}
            return name, args
        said = R.oracle_tools("2041", rewrite(env, wrong))
        result = grade(episode.diff(), episode.guard_log, said, task.evaluator, episode.calls)
        assert not result.passed
        assert any(line.startswith(f"Expected unapproved AP invoice {first.invoice} for ") for line in result.verdict)
    finally:
        store.drop(episode.id)


def test_approving_an_invoice_is_guarded(store):
    task = TASKS["cf_C_ressio_bill_vista_1632"]
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        said = task.oracle_tools(env)
        task.guarded_tools(env)
        result = grade(episode.diff(), episode.guard_log, said, task.evaluator, episode.calls)
        assert not result.passed and episode.guard_log
    finally:
        store.drop(episode.id)


def test_a_bad_sub_bill_id_is_a_clear_error(store):
    episode = store.create(["ressio"])
    try:
        env = Environment(episode, ["ressio"])
        said = env.call("ressio.sub_bill.get", {"requisition_id": 1})
        assert said["error"] == "not_found" and "requisition id 1" in said["message"]
    finally:
        store.drop(episode.id)


def test_a_wrong_total_or_job_on_a_line_grid_keeps_vistas_rules():
    """A bill of several lines is entered as a line grid (a private job has one): the near-misses
    change its total or its job alone, so Vista takes the entry and the grader must catch it."""
    from tasks.families.c_ressio_bill_vista_gate import _on_job, _total

    grid = {"amount": "300.00", "lines": ["|2200|09200-000-|S|100.00|item 1", "|2200|09500-000-|S|200.00|item 2"]}
    wrong = _total(grid, "330.00")
    assert wrong["amount"] == "330.00"
    assert wrong["lines"] == ["|2200|09200-000-|S|100.00|item 1", "|2200|09500-000-|S|230.00|item 2"]
    assert _total({"amount": "300.00", "project_id": "2200"}, "270.00") == {"amount": "270.00", "project_id": "2200"}
    moved = _on_job(grid, "5222")
    assert [ln.split("|")[1] for ln in moved["lines"]] == ["5222", "5222"] and "project_id" not in moved
    assert _on_job({"project_id": "2200"}, "5222") == {"project_id": "5222"}
