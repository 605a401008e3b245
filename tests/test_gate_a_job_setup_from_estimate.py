"""A_job_setup_from_estimate's own checks beside the admission gate: the evaluator is
seeds.estimating.expected_setup asserted field by field (the job, every original-estimate line,
every contract item, each once), the twists are in the instance (an unawarded alternate, trucking
as subcontract, an unmapped activity), the policy states the rules without the case's figures,
and the private split re-prices the estimate. Near-misses, variants and the reply corpus run in
tests/test_gate.py."""
from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

from seeds import estimating as E
from seeds.book import load_book
from tasks.families import a_job_setup_from_estimate as A
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == A.FAMILY_NAME}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "job_setup_from_estimate.md"


def _specs(task, table):
    return [s for s in task.evaluator["expected"] if s["table"] == table]


def test_one_instance_over_three_apps():
    assert sorted(TASKS) == ["cf_A_job_setup_from_estimate_6031"]
    assert set(TASKS["cf_A_job_setup_from_estimate_6031"].apps) == {"hcss_heavybid", "hh2", "vista_erp"}


def test_every_field_of_the_expected_setup_is_asserted_once():
    book = load_book()
    want = E.expected_setup(book)
    task = TASKS["cf_A_job_setup_from_estimate_6031"]
    (job,) = _specs(task, "jobs")
    assert job["where"] == {"job": "6031"} and job["count"] == 1
    assert job["assert"]["original_budget"] == want["cost_total"]
    assert job["assert"]["contract_amount"] == want["contract_total"]
    assert set(job["assert"]) == {"name", "customer", "city", "state", "status", "start_date", "est_completion",
                                  "retainage_pct", "original_budget", "contract_amount"}
    lines = {(s["where"]["cost_code"], s["where"]["cost_type"]): s["assert"]["original_budget"]
             for s in _specs(task, "budget_lines")}
    assert lines == want["budget"] and all(s["count"] == 1 for s in _specs(task, "budget_lines"))
    items = {s["where"]["item_key"]: s["assert"]["scheduled_value"] for s in _specs(task, "contract_items")}
    assert items == {f"6031|{i['item']}": i["amount"] for i in want["items"]}
    assert task.evaluator["forbidden"][-1]["any_other_change"]


def test_the_twists_are_in_the_instance():
    book = load_book()
    want = E.expected_setup(book)
    assert "ALT2" not in {i["item"] for i in want["items"]} and "6031|ALT1" in {
        s["where"]["item_key"] for s in _specs(TASKS["cf_A_job_setup_from_estimate_6031"], "contract_items")}
    assert [u["activity"] for u in want["unmapped"]] == ["3030"]
    trucking = sum(Decimal(r["total"]) for b in E.awarded(E.won_estimate(book)) for a in b["activities"]
                   for r in a["resources"] if r["resource"] == E.TRUCKING)
    assert trucking > 0 and Decimal(want["budget"][("31200-000-", "S")]) >= trucking
    outputs = TASKS["cf_A_job_setup_from_estimate_6031"].evaluator["required_outputs"]
    assert {"value": "3030"}.items() <= next(o for o in outputs if o.get("value") == "3030").items()
    assert {o.get("value") for o in outputs} >= {"6031", want["cost_total"], want["contract_total"]}


def test_the_award_is_read_from_the_estimate_notes():
    assert A.awarded_alternates(E.AWARD_NOTE) == "1"
    assert A.awarded_alternates("Base Bid and Alternates 1 and Alternate 3 are awarded.") == "3"
    assert A.awarded_alternates("Base bid only; Alternate 1 is not accepted.") == ""


def test_the_policy_states_the_rules_but_no_figure():
    text = " ".join(POLICY.read_text().replace("**", "").split())
    for rule in ("Notice of Award", "hh2's HeavyJob cost-code map", "trucking", "Markups", "report it", "sync run"):
        assert rule in text, rule
    assert not re.search(r"\$\s*\d|\d{3}", text)
    instruction = TASKS["cf_A_job_setup_from_estimate_6031"].instruction
    assert not any(v in instruction for v in ("3030", "ALT", "TRKHAUL", "1356271", "1496262"))


def test_the_private_split_reprices_the_estimate():
    import copy
    import random

    book = load_book()
    public = A.truth(book)
    private = copy.deepcopy(book)
    params = A.private_salt(private, random.Random(7), set())
    assert params == [{"job": "6031"}]
    salted = A.truth(private)
    assert salted.cost_total != public.cost_total and salted.contract_total != public.contract_total
    assert [u[1] for u in salted.unmapped] == ["3030"]
    assert A.private_salt(copy.deepcopy(book), random.Random(7), {("estimates", "RIVERSIDE")}) == []
