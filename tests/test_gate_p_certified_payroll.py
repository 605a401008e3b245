"""P_certified_payroll's own checks beside the admission gate: the review reproduces the domain
primer's overtime and apprentice examples, each job's week carries the defects seeds/payroll.py
plants (kinds and counts differ by job) and the compliant cash-fringe records are left alone, the
policy states the rules without a figure, and the evaluator asserts every finding and nothing
else. The near-misses, variants and reply corpus run in tests/test_gate.py and the gold replay
in e2e/test_people.py."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from seeds.book import load_book
from seeds.payroll import PLANTED
from tasks.families import p_certified_payroll as P
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "P_certified_payroll"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "certified_payroll.md"
CARP = {"classification": "Carpenter", "base_rate": "38.50", "fringe_rate": "14.20", "apprentice_ratio": "1:3"}
RATES = [{**CARP, "level": "J"}, *({**CARP, "level": f"A{i}", "base_rate": "19.25"} for i in (1, 2, 3, 4))]


def _rec(rid, level="J", st="52.70", ot="57.75", ot_hours="5", plan="0.00", cash="14.20", who=None):
    return {"record_id": rid, "employee_id": who or rid, "employee": f"Worker {rid:02d}", "classification": "Carpenter",
            "level": level, "ot_hours": ot_hours, "st_rate": st, "ot_rate": ot, "fringe_plan": plan, "fringe_cash": cash}


def _review(records, unregistered=()):
    employees = {r["employee_id"]: {"classification": "Carpenter",
                                    "apprentice_registration": None if r["record_id"] in unregistered else "NC-RAP-1"}
                 for r in records}
    return P.review("0000", {"project_id": 1, "contract_number": "X-1"}, RATES, records, employees)


def test_the_primers_overtime_example():
    """DOMAIN.md section 5: $38.50 + $14.20 in cash, 45 hours. OT at 1.5 x base with no fringe on the
    OT hours (57.75) underpays; 1.5 x base plus the cash fringe (71.95) is owed; 1.5 x 52.70 overpays."""
    crew = [_rec(i, ot_hours="0", ot="71.95") for i in range(10, 14)]
    short = _review([_rec(1), *crew])
    assert [(f.record_id, f.category) for f in short.findings] == [(1, "Overtime")]
    assert _review([_rec(1, ot="71.95"), *crew]).findings == ()
    overpaid = _review([_rec(1, ot="79.05"), *crew])
    assert overpaid.findings == () and 1 in overpaid.cash_fringe
    # fringe to plans: OT at 1.5 x base is right, the plan gets the fringe on every hour
    assert _review([_rec(1, st="38.50", plan="14.20", cash="0.00"), *crew]).findings == ()


def test_the_primers_apprentice_examples():
    """1:3, six journeyworkers allow two apprentices: a third is over the ratio (the most advanced
    are covered first); an apprentice with no registered program is not counted and is a finding."""
    journey = [_rec(i, ot_hours="0", ot="71.95") for i in range(10, 16)]
    apprentices = [_rec(i, level=lv, st="33.45", ot="43.08", ot_hours="0") for i, lv in ((1, "A1"), (2, "A3"), (3, "A2"))]
    over = _review(journey + apprentices)
    assert [(f.record_id, f.category) for f in over.findings] == [(1, "Apprentice ratio")]
    unregistered = _review(journey + apprentices, unregistered={1})
    assert [(f.record_id, f.category) for f in unregistered.findings] == [(1, "Apprentice registration")]
    # below the WD: the basic rate short is the wage, a fringe short only the fringe
    low = _review([_rec(1, st="52.00", ot="71.95", ot_hours="0"), _rec(2, st="38.50", plan="13.00", cash="0.00",
                                                                      ot_hours="0"), *journey])
    assert [(f.record_id, f.category) for f in low.findings] == [(1, "Below prevailing wage"), (2, "Fringe benefits")]


KIND_CATEGORY = {"over_ratio": "Apprentice ratio", "extra_apprentice": "Apprentice ratio",
                 "unregistered_apprentice": "Apprentice registration", "ot_straight_time": "Overtime",
                 "ot_without_cash_fringe": "Overtime", "below_base": "Below prevailing wage",
                 "fringe_short": "Fringe benefits", "misclassified": "Misclassification",
                 "not_on_wd": "Misclassification"}


def test_six_jobs_each_with_its_own_planted_findings():
    """Six jobs reviewed against FOUNDATION Payroll, two against ADP Workforce Now and two against Rippling."""
    adp = [f"cf_P_certified_payroll_adp_{j}" for j in P.ADP_DEFECTS]
    rippling = [f"cf_P_certified_payroll_rippling_{j}" for j in P.RIPPLING_DEFECTS]
    assert sorted(TASKS) == sorted([f"cf_P_certified_payroll_{j}" for j in P.JOBS] + adp + rippling)
    assert set(P.JOBS) | set(P.ADP_DEFECTS) | set(P.RIPPLING_DEFECTS) == set(PLANTED)
    assert {TASKS[i].apps for i in adp} == {("lcptracker", "adp")} and "ADP Workforce Now" in TASKS[adp[0]].instruction
    assert {TASKS[i].apps for i in rippling} == {("lcptracker", "rippling")} and "Rippling" in TASKS[rippling[0]].instruction
    assert all(TASKS[f"cf_P_certified_payroll_{j}"].apps == ("lcptracker", "foundation_payroll") for j in P.JOBS)
    book = load_book()
    counts = set()
    for job in P.JOBS + tuple(P.ADP_DEFECTS) + tuple(P.RIPPLING_DEFECTS):
        r = P.truth(book, job)
        planted = sorted(KIND_CATEGORY[k] for k in PLANTED[job] if k in KIND_CATEGORY)
        assert sorted(f.category for f in r.findings) == planted, job
        counts.add(len(r.findings))
        if "cash_fringe" in PLANTED[job] or "cash_fringe_ot_overpaid" in PLANTED[job]:
            assert r.cash_fringe, job  # a compliant cash-fringe record to leave alone
    assert len(counts) >= 3 and any("unregistered_apprentice" in k for k in PLANTED.values())
    # the rest of the book keeps paying as the WD requires (tests/test_book.py), so only these weeks have findings
    assert P.truth(book, "1042").findings and all(t.money_movement_guard for t in TASKS.values())


def test_the_policy_states_the_rules_but_no_figure():
    text = " ".join(POLICY.read_text().replace("**", "").split())
    for rule in ("one compliance note", "first check it fails", "registered apprenticeship program",
                 "one and a half times the WD's basic rate", "paid the fringe in cash is compliant",
                 "do not certify or submit", "Any finding blocks certification"):
        assert rule in text, rule
    assert not re.search(r"\$\s*\d|\d+\.\d\d", text)  # the rates are the WD's, the figures the week's
    assert all(t.policy_ref == POLICY.name for t in TASKS.values())


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_every_finding_is_asserted_and_nothing_else_allowed(instance_id):
    task = TASKS[instance_id]
    r = P.truth(load_book(), instance_id.rsplit("_", 1)[1])
    notes = task.evaluator["expected"]
    assert sorted((e["where"]["record_id"], e["where"]["category"]) for e in notes) == \
        sorted((f.record_id, f.category) for f in r.findings)
    assert all(e["table"] == "record_notes" and e["count"] == 1 for e in notes)
    assert task.evaluator["forbidden"] == [{"any_other_change": True, "allow": [],
                                            "label": task.evaluator["forbidden"][0]["label"]}]
    assert any(a.name == "portal_form" and a.browser for a in task.variants)
    assert not set(r.cash_fringe) & {f.record_id for f in r.findings}
