"""B_draw_funding's own checks beside the admission gate: the instances are the two projects
INGENIOUS.BUILD holds a June draw for, the evaluator pins every Funding-tab share to the cent and the
bypassed invoice's flag once, and the policy's order is what the figures turn on (the grant only
on its eligible codes, equity first until it runs out partway through a line, the loan after).
The near-misses, variants and reply corpus themselves run in tests/test_gate.py (tools, every
instance) and e2e/test_gate_browser.py (the browser).
"""
from __future__ import annotations

from decimal import Decimal

import pytest

from seeds.book import load_book
from tasks.families import b_draw_funding as B
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "B_draw_funding"}


def test_the_instances_are_the_projects_with_a_june_draw():
    assert sorted(TASKS) == ["cf_B_draw_funding_2736", "cf_B_draw_funding_5965"]
    defects = {t.parameters["job"]: t.defect_variant for t in TASKS.values()}
    assert defects == {"2736": "entered_as_paid_grant_covers", "5965": "entered_as_approved_grant_short"}
    for t in TASKS.values():
        assert t.apps == ("ingenious_build",) and t.policy_ref == "owner_draw_funding.md"
        assert t.instruction.count(t.parameters["job"]) == 1
        for secret in ("EQUITY", "GRANT", "LOAN", "Entered as"):
            assert secret not in t.instruction  # the instruction hands over no answer


def test_the_shares_follow_the_policys_order():
    book = load_book()
    for job in B.FUNDING_JOBS:
        c = B.case(book, job)
        shares = c.shares()
        assert len(c.bypassed) == 1 and c.bypassed[0].invoice_id not in shares
        for x in c.lines:
            if x.fundable:
                assert sum(Decimal(v) for v in shares[x.invoice_id].values()) == Decimal(x.amount)
                assert ("GRANT" in shares[x.invoice_id]) == (x.cost_code in c.grant_codes)
        left = dict(c.remaining)
        assert Decimal(c.totals()["EQUITY"]) == Decimal(left["EQUITY"])  # equity is drawn to the cent
        split = [x for x in c.lines if set(shares.get(x.invoice_id, {})) == {"EQUITY", "LOAN"}]
        assert len(split) == 1 and split[0].line_no > c.bypassed[0].line_no  # funding the bypass moves it
        if job == "5965":  # the grant runs short: its line is split too
            g = next(x for x in c.lines if x.cost_code in c.grant_codes)
            assert shares[g.invoice_id]["GRANT"] == left["GRANT"] and len(shares[g.invoice_id]) > 1


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_evaluator_pins_each_share_and_the_flag_once(instance_id):
    task = TASKS[instance_id]
    c = B.case(load_book(), task.parameters["job"])
    specs = task.evaluator["expected"]
    assert all(s["count"] == 1 for s in specs)
    added = [s for s in specs if s["table"] == "funding_allocations"]
    assert len(added) == sum(len(v) for v in c.shares().values())
    assert {s["where"]["direct_cost_id"] for s in added} == {x.invoice_id for x in c.lines if x.fundable}
    flagged = [s for s in specs if s["table"] == "vendor_invoice_approvals"]
    assert [s["where"]["_pk"] for s in flagged] == [c.bypassed[0].invoice_id]
    assert task.evaluator["forbidden"][0]["any_other_change"] and task.evaluator["forbidden"][0]["allow"] == []


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_portal_form_is_one_of_its_variants(instance_id):
    assert any(a.name == "portal_form" and a.browser for a in TASKS[instance_id].variants)
