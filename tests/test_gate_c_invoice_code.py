"""C_invoice_code's own checks beside the admission gate: the evaluator pins every field the
source documents determine, the look-alikes reach the ERP and the grader catches them, and the
crosswalk must be read. The near-misses, variants and reply corpus themselves run in
tests/test_gate.py (tools) and e2e/test_gate_browser.py (the browser).
"""
from __future__ import annotations

import json
import re

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import c_invoice_code as C
from tasks.families import c_invoice_code_gate as G
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "C_invoice_code"}
TASK = TASKS["cf_C_invoice_code_9140"]
CODING = C.coding(load_book())


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_portal_form_is_one_of_its_variants(instance_id):
    """Beside the gate every task ships (tests/test_gate.py): the portal's own form passes."""
    assert any(a.name == "portal_form" and a.browser for a in TASKS[instance_id].variants)


def _reply_grade(task, reply):
    outputs = {"required_outputs": task.evaluator["required_outputs"], "expected": [], "forbidden": []}
    return grade({}, [], reply, outputs, None)


def test_the_reply_checks_are_typed_claims_with_labels():
    outputs = TASK.evaluator["required_outputs"]
    assert all(isinstance(o, dict) and o.get("label") for o in outputs), outputs
    assert {o["claim"] for o in outputs} == {"id", "amount", "denies", "regex"}
    ids = {o["value"] for o in outputs if o["claim"] == "id"}
    assert ids == {CODING.invoice, CODING.po}
    # the job and the cost code may be said the company's way or Intacct's, and only those ways
    job, code = [o for o in outputs if o["claim"] == "regex"]
    said = lambda o, text: _reply_grade(TASK, text).passed or bool(re.search(o["pattern"], text, re.I))  # noqa: E731
    for o, right, wrong in ((job, (CODING.job, CODING.project), (f"{CODING.job}1", CODING.po, f"X{CODING.project}")),
                            (code, (CODING.cost_code, CODING.task), (f"{CODING.cost_code}0", f"{CODING.task}.01"))):
        assert all(said(o, f"coded to {v}.") for v in right), o
        assert not any(said(o, f"coded to {v}.") for v in wrong), o


def test_the_bill_is_pinned_field_by_field_from_the_invoice_and_the_commitment():
    book = load_book()
    doc = next(d for d in book["documents"] if d["name"] == f"{C.INVOICE}.pdf")["fields"]
    commitment = next(k for k in book["commitments"] if k["number"] == doc["po_number"])
    vendor = next(v for v in book["vendors"] if v["vendor_id"] == commitment["vendor_id"])
    job = next(j for j in book["jobs"] if j["job"] == commitment["job"])
    line = commitment["lines"][0]
    crosswalk = next(m for m in book["erp_cost_code_map"] if m["code"] == line["cost_code"])
    bill = TASK.evaluator["expected"][0]
    # Intacct's own keys: its vendor id, its project for the job and its task for the line's code
    assert bill["where"] == {"vendor_key": vendor[C.KEYS["vendor_field"]],
                             "bill_number": {"ieq": doc["invoice_number"]}}
    assert bill["count"] == 1
    asserted = bill["assert"]
    assert {k: asserted[k] for k in ("amount", "bill_date", "due_date", "job", "commitment")} == {
        "amount": doc["total"], "bill_date": doc["invoice_date"], "due_date": doc["due_date"],
        "job": job[C.KEYS["job_field"]], "commitment": commitment["number"]}
    assert (asserted["cost_code"], asserted["cost_type"]) == (crosswalk[C.KEYS["cost_code_field"]], line["cost_type"])
    assert asserted["job"] != commitment["job"] and asserted["cost_code"] != line["cost_code"]
    assert (asserted["state"], asserted["status"]) == ("draft", "open")
    assert asserted["description"] == {"denies": C.CLAIMS}


def test_the_routing_draft_is_exactly_one_message_to_the_pm_alone():
    one, routing = TASK.evaluator["expected"][1:]
    assert one["where"] == routing["where"] == {"folder": "Drafts", "to_addrs": {"ieq": C.ROUTE_TO}}
    assert one["count"] == routing["count"] == 1 and "assert" not in one
    assert routing["assert"]["cc_addrs"] == "[]"
    assert routing["assert"]["subject"] == {"mentions": [CODING.invoice, CODING.po]}
    (other,) = TASK.evaluator["forbidden"]
    assert other["allow"] == [{"app": "outlook", "table": "messages", "op": "added",
                               "where": {"folder": "Deleted Items", "is_draft": 1}}]


def _episode(store):
    episode = store.create(list(TASK.apps))
    return episode, Environment(episode, list(TASK.apps))


def test_the_lookalike_bill_reaches_the_erp_and_the_grader_catches_it(store):
    """The trap is not the tool's to refuse: Intacct takes a bill for the look-alike vendor on its
    own commitment, so the wrong bill lands in the state and the grader must fail it."""
    other, po, task, ctype = G._other_vendor(load_book(), CODING)
    episode, env = _episode(store)
    try:
        inv = C.find_invoice(env)
        k = {**G._right(CODING), "vendor_id": other, "task": task, "cost_type": ctype}
        saved = env.call(G.BILL, {**C.bill_args(inv, k), "commitment": po})
        assert saved["vendor_id"] == other and saved["state"] == "draft"
        env.call(G.DRAFT, C.draft_args(inv, G._right(CODING)))
        result = grade(episode.diff(), episode.guard_log, C._reply(inv, k), TASK.evaluator)
        assert not result.passed and result.details["gate"] == "forbidden"
        assert any(line.startswith("Unrequested change: sage_intacct ap_bills") for line in result.verdict)
    finally:
        store.drop(episode.id)


def test_intacct_treats_a_lower_case_bill_number_as_the_same_bill(store):
    """Why the bill number is matched ignoring case: the ERP refuses the second spelling."""
    episode, env = _episode(store)
    try:
        inv = C.find_invoice(env)
        k = C.read_coding(env, inv["po"])
        env.call(G.BILL, {**C.bill_args(inv, k), "bill_number": inv["invoice_number"].lower()})
        again = env.call(G.BILL, C.bill_args(inv, k))
        assert again.get("error") == "duplicate"
    finally:
        store.drop(episode.id)


def test_a_discarded_draft_alone_is_not_the_routing_email(store):
    """The allowance for a discarded draft opens no hole: with no draft left in Drafts, it fails."""
    episode, env = _episode(store)
    try:
        inv = C.find_invoice(env)
        k = C.read_coding(env, inv["po"])
        env.call(G.BILL, C.bill_args(inv, k))
        draft = env.call(G.DRAFT, C.draft_args(inv, k))
        env.call("outlook.message.move", {"message_id": draft["id"], "destination": "Deleted Items"})
        (row,) = episode.diff()["outlook"]["messages"]["added"]
        assert row["folder"] == "Deleted Items" and json.loads(row["to_addrs"]) == [C.ROUTE_TO]
        result = grade(episode.diff(), episode.guard_log, C._reply(inv, k), TASK.evaluator)
        assert not result.passed
        assert any(line.startswith("Expected one routing draft") for line in result.verdict), result.verdict
    finally:
        store.drop(episode.id)


def test_intacct_refuses_the_other_systems_keys_so_the_crosswalk_must_be_read(store):
    """Procore's cost code, the bare job number and Procore's company id are refused by Intacct,
    and the refusals name the shape of Intacct's keys, never the translation."""
    episode, env = _episode(store)
    try:
        inv = C.find_invoice(env)
        k = C.read_coding(env, inv["po"])
        procore_id = env.call("procore.commitments.get", {"number": inv["po"]})["vendor"]["vendor_id"]
        for change in ({"task_id": CODING.cost_code}, {"project_id": CODING.job}, {"vendor_id": str(procore_id)}):
            refused = env.call(G.BILL, {**C.bill_args(inv, k), **change})
            assert "error" in refused, change
            assert CODING.task not in refused["message"] and CODING.project not in refused["message"].replace(
                f"project {CODING.project};", ""), refused["message"]
        assert episode.diff() == {}
    finally:
        store.drop(episode.id)


def test_the_instruction_gives_away_nothing_the_agent_must_find():
    text = TASK.instruction
    for value in (CODING.total, CODING.date, CODING.due, CODING.po, CODING.vendor, CODING.cost_code,
                  CODING.project, CODING.task):
        assert value not in text, value
    assert f"${float(CODING.total):,.2f}" not in text
