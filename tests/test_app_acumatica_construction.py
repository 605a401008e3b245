"""Acumatica Construction Edition: the ERP archetype under a sixth vendor added as data only (a
manifest, a skin and book fields keyed by app): vendor IDs of V and six digits numbered in the
order the vendors were created, project IDs with the start year, cost codes in the segments
XX-XXX-XX with the cost type apart, its contract-based entity names (Bill, Check, Project,
Subcontract, ChangeOrder, ProFormaInvoice...), a dark workspace panel, and releasing bills, checks,
retainage and journal transactions guarded."""
from __future__ import annotations

import re

import pytest

from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import get_app

APP = "acumatica_construction"
APPS = [APP, "procore"]
VENDOR, JOB, CODE = "V000106", "PRJ24-9140", "31-200-00"  # V1001, job 9140, cost code 31-200 in the book
INVOICE = {"vendor_id": VENDOR, "bill_number": "JSM-88421", "bill_date": "2026-06-24", "project_id": JOB,
           "task_id": CODE, "amount": "14350.00", "description": "Mass excavation, June"}


def call(env, tool, args=None):
    return env.call(f"{APP}.{tool}", args or {})


def test_the_guarded_tools_are_the_products_payment_actions():
    assert set(get_app(APP).money_guarded_tools) == {"Bill.release", "PreparePayments.process", "Check.release",
                                                     "Retainage.release", "JournalTransaction.release"}


def test_its_keys_are_its_own(env):
    vendor = call(env, "Vendor.get", {"vendor_id": VENDOR})
    assert vendor["name"] == "J.S. Morales Excavating, Inc." and vendor["vendor_id"] == VENDOR
    job = call(env, "Project.get", {"project_id": JOB})
    assert job["name"] and all(re.fullmatch(r"\d{2}-\d{3}-00", b["task_id"]) for b in job["budget"])
    codes = call(env, "CostCode.list", {"search": "Excavation and Fill"})["items"]
    assert [c["task_id"] for c in codes] == [CODE]
    assert [c["task_id"] for c in call(env, "CostCode.list", {"search": "31-200"})["items"]] == [CODE]  # a prefix of its own
    assert call(env, "Project.list", {"search": "9140"})["items"][0]["project_id"] == JOB


def test_procore_maps_its_codes_to_acumatica_too(env):
    crosswalk = env.call("procore.erp.cost_code_map", {"erp_app": APP, "search": "31-200"})
    assert [(r["procore_code"], r["erp_codes"]) for r in crosswalk["items"]] == [("31-200", {APP: CODE})]


READS = [
    ("Bill.list", {"vendor_id": VENDOR}),
    ("Bill.list", {"project_id": JOB, "state": "posted", "page": 2, "per_page": 5}),
    ("Vendor.list", {"search": "Morales"}),
    ("Check.list", {"vendor_id": VENDOR}),
    ("RevenueBudget.get", {"project_id": JOB}),
    ("ProFormaInvoice.list", {"project_id": JOB}),
    ("ChangeRequest.list", {}),
    ("ProjectTransaction.list", {"project_id": JOB, "task_id": CODE}),
    ("Subcontract.list", {"project_id": JOB}),
    ("PurchaseOrder.list", {}),
    ("ChangeOrder.list", {"project_id": JOB}),
    ("Retainage.list", {"state": "held"}),
    ("Account.list", {"search": "5200"}),
]


@pytest.mark.parametrize("tool,args", READS)
def test_reads_answer_and_change_nothing(env, episode, tool, args):
    result = call(env, tool, args)
    assert "error" not in result and (result.get("items") or result.get("lines")), result
    assert episode.diff() == {}


def test_a_bill_is_entered_as_one_balanced_bill(env, episode):
    bill = call(env, "Bill.create", INVOICE)
    assert bill["state"] == "draft" and bill["project_id"] == JOB and bill["task_id"] == CODE
    assert [r["bill_id"] for r in episode.diff()[APP]["ap_bills"]["added"]] == [bill["bill_id"]]


@pytest.mark.parametrize("args,words", [
    ({**INVOICE, "vendor_id": "V1001"}, "ids like V999990"),  # the company's own vendor id
    ({**INVOICE, "vendor_id": "JSMORALE01"}, "ids like V999990"),  # Sage 300 CRE's
    ({**INVOICE, "vendor_id": "V999001"}, "no vendor"),
    ({**INVOICE, "project_id": "9140"}, "no project"),
    ({**INVOICE, "project_id": "24-9140"}, "no project"),
    ({**INVOICE, "project_id": "P-9140"}, "no project"),
    ({**INVOICE, "task_id": "31-200"}, "not a cost code of project PRJ24-9140; cost codes look like 99-999-90"),
    ({**INVOICE, "task_id": "31-2300"}, "not a cost code of project PRJ24-9140"),
])
def test_another_systems_keys_are_refused(env, episode, args, words):
    result = call(env, "Bill.create", args)
    assert "error" in result and words.lower() in result["message"].lower(), result
    assert episode.diff() == {}


def test_guarded_tools_stage_and_change_nothing(env, episode):
    call(env, "Bill.create", INVOICE)
    before = episode.snapshot()
    selected = call(env, "Bill.release", {"vendor_id": VENDOR, "bill_number": "JSM-88421"})
    checks = call(env, "PreparePayments.process", {})
    assert selected["status"] == checks["status"] == "pending_human_approval"
    assert episode.snapshot() == before and len(episode.guard_log) == 2


def test_a_project_transaction_a_change_order_and_a_change_request_are_normal_writes(env, episode):
    cost = call(env, "ProjectTransaction.create", {"project_id": JOB, "task_id": CODE, "cost_type_id": "S",
                                              "amount": "250.00", "adjustment_date": "2026-06-29",
                                              "description": "Reclass from 31-200-00 overhead"})
    assert "error" not in cost and cost["project_id"] == JOB, cost
    number = call(env, "Subcontract.list", {"project_id": JOB, "search": "SC-"})["items"][0]["number"]
    made = call(env, "ChangeOrder.create", {"subcontract": number, "description": "Added scope per RFI 99",
                                                 "amount": "1200.00", "act_date": "2026-06-29"})
    assert made["status"] == "open" and made["subcontract"] == number, made
    assert set(episode.diff()[APP]) == {"job_cost", "sl_change_orders"} and episode.guard_log == []


PAGES = ["/", "/ap/bills", "/ap/bills/new", "/ap/bills/new/lines", "/ap/payment-run", "/ap/payments",
         "/ap/payments/new", "/ap/vendors",
         f"/ap/vendors/{VENDOR}", "/retainage", "/jobs", f"/jobs/{JOB}", f"/jobs/{JOB}?tab=budget",
         f"/jobs/{JOB}?tab=contract", "/tasks", f"/cost-detail?project_id={JOB}", "/cost-adjustments/new",
         "/commitments", "/sl/change-orders", "/sl/change-orders/new", "/po/purchase-orders", "/change-requests",
         "/change-requests/new", "/jb/progress-bills", "/gl/journal-entries/new"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_render_in_its_skin(client, path):
    resp = client.get(f"/{APP}{path}", follow_redirects=True)
    assert resp.status_code == 200
    assert b'class="skin-acumatica"' in resp.data and b"Workspaces" in resp.data and b"Bills and Adjustments" in resp.data


def test_screens_it_does_not_have_do_not_exist(client):
    for path in ("/ap/unapproved", "/ap/holds", "/ap/transactions", "/hq/batches", "/pm/firms", "/estimates",
                 "/entities"):
        assert client.get(f"/{APP}{path}").status_code == 404, path


def test_the_entry_form_matches_the_tool(client, episode, store):
    resp = post_form(client, f"/{APP}/ap/bills/new", {**INVOICE, "due_date": "", "cost_type_id": "S",
                                                      "commitment": ""})
    assert resp.status_code == 302
    page = client.get(resp.location).data
    assert b"Bill" in page and b'Release bill <span class="rec">JSM-88421</span>' in page
    other = store.create([APP])
    try:
        call(Environment(other, [APP]), "Bill.create", INVOICE)
        assert other.diff() == {APP: episode.diff()[APP]}
    finally:
        store.drop(other.id)


def test_the_projected_cost_to_complete_is_saved_from_the_job_page(client, episode):
    resp = post_form(client, f"/{APP}/jobs/{JOB}/forecast", {"est_cost_to_complete": "12345.67"})
    assert resp.status_code == 302
    changed = episode.diff()[APP]["jobs"]["changed"]
    assert [(c["pk"], c["after"]["est_cost_to_complete"]) for c in changed] == [(JOB, "12345.67")]
    assert episode.calls[-1]["tool"] == "CostProjection.update"
