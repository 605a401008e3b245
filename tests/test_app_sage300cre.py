"""Sage 300 CRE (Timberline): the ERP archetype under a fourth vendor added as data only (a
manifest, a skin and book fields keyed by app): its own ten-character vendor ids, year-and-job
job ids, cost codes in the mask XX-XXXX with the category apart, its AP / JC / GL tool names, a
Navigator of Tasks / Setup / Inquiry folders, and selecting invoices to pay, printing checks and
releasing retainage guarded."""
from __future__ import annotations

import re

import pytest

from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import get_app

APP = "sage300cre"
APPS = [APP, "procore"]
VENDOR, JOB, CODE = "JSMORALE01", "249140", "31-2300"  # V1001, job 9140, cost code 31-200 in the book
INVOICE = {"vendor_id": VENDOR, "bill_number": "JSM-88421", "bill_date": "2026-06-24", "project_id": JOB,
           "task_id": CODE, "amount": "14350.00", "description": "Mass excavation, June"}


def call(env, tool, args=None):
    return env.call(f"{APP}.{tool}", args or {})


def test_the_guarded_tools_are_the_products_payment_actions():
    assert set(get_app(APP).money_guarded_tools) == {"ap.select_invoices_to_pay", "ap.print_checks",
                                                     "ap.retainage.release"}


def test_its_keys_are_its_own(env):
    vendor = call(env, "ap.vendor.get", {"vendor_id": VENDOR})
    assert vendor["name"] == "J.S. Morales Excavating, Inc." and vendor["vendor_id"] == VENDOR
    job = call(env, "jc.job.get", {"project_id": JOB})
    assert job["name"] and all(re.fullmatch(r"\d{2}-\d{4}", b["task_id"]) for b in job["budget"])
    codes = call(env, "jc.cost_codes.list", {"search": "Excavation and Fill"})["items"]
    assert [c["task_id"] for c in codes] == [CODE]
    assert call(env, "jc.cost_codes.list", {"search": "31-200"})["items"] == []  # Procore's code, not its own
    assert call(env, "jc.jobs.list", {"search": "9140"})["items"][0]["project_id"] == JOB


def test_procore_maps_its_codes_to_sage_300_too(env):
    crosswalk = env.call("procore.erp.cost_code_map", {"erp_app": APP, "search": "31-200"})
    assert [(r["procore_code"], r["erp_codes"]) for r in crosswalk["items"]] == [("31-200", {APP: CODE})]


READS = [
    ("ap.invoices.list", {"vendor_id": VENDOR}),
    ("ap.invoices.list", {"project_id": JOB, "state": "posted", "page": 2, "per_page": 5}),
    ("ap.vendors.list", {"search": "Morales"}),
    ("cn.contract.get", {"project_id": JOB}),
    ("jc.transactions.query", {"project_id": JOB, "task_id": CODE}),
    ("jc.commitments.list", {"project_id": JOB}),
    ("jc.commitment_cos.list", {"project_id": JOB}),
    ("ap.retainage.list", {"state": "held"}),
    ("gl.accounts.list", {"search": "5200"}),
]


@pytest.mark.parametrize("tool,args", READS)
def test_reads_answer_and_change_nothing(env, episode, tool, args):
    result = call(env, tool, args)
    assert "error" not in result and (result.get("items") or result.get("lines")), result
    assert episode.diff() == {}


def test_an_invoice_is_entered_as_one_unposted_invoice(env, episode):
    bill = call(env, "ap.invoice.enter", INVOICE)
    assert bill["state"] == "draft" and bill["project_id"] == JOB and bill["task_id"] == CODE
    assert [r["bill_id"] for r in episode.diff()[APP]["ap_bills"]["added"]] == [bill["bill_id"]]


@pytest.mark.parametrize("args,words", [
    ({**INVOICE, "vendor_id": "V1001"}, "ids like ACMEPLUM01"),
    ({**INVOICE, "vendor_id": "JSMORA01"}, "no vendor"),  # another ERP's vendor code
    ({**INVOICE, "project_id": "9140"}, "no job"),
    ({**INVOICE, "project_id": "24-9140"}, "no job"),
    ({**INVOICE, "task_id": "31-200"}, "not a cost code of job 249140; cost codes look like 99-9999"),
    ({**INVOICE, "task_id": "312300"}, "not a cost code of job 249140"),
])
def test_another_systems_keys_are_refused(env, episode, args, words):
    result = call(env, "ap.invoice.enter", args)
    assert "error" in result and words.lower() in result["message"].lower(), result
    assert episode.diff() == {}


def test_guarded_tools_stage_and_change_nothing(env, episode):
    call(env, "ap.invoice.enter", INVOICE)
    before = episode.snapshot()
    selected = call(env, "ap.select_invoices_to_pay", {"vendor_id": VENDOR, "bill_number": "JSM-88421"})
    checks = call(env, "ap.print_checks", {})
    assert selected["status"] == checks["status"] == "pending_human_approval"
    assert episode.snapshot() == before and len(episode.guard_log) == 2


def test_a_direct_cost_and_a_commitment_change_order_are_normal_writes(env, episode):
    cost = call(env, "jc.direct_cost.enter", {"project_id": JOB, "task_id": CODE, "cost_type_id": "S",
                                              "amount": "250.00", "adjustment_date": "2026-06-29",
                                              "description": "Reclass from 31-2300 overhead"})
    assert "error" not in cost and cost["project_id"] == JOB, cost
    number = call(env, "jc.commitments.list", {"project_id": JOB, "search": "SC-"})["items"][0]["number"]
    made = call(env, "jc.commitment_co.create", {"subcontract": number, "description": "Added scope per RFI 99",
                                                 "amount": "1200.00", "act_date": "2026-06-29"})
    assert made["status"] == "open" and made["subcontract"] == number, made
    assert set(episode.diff()[APP]) == {"job_cost", "sl_change_orders"} and episode.guard_log == []


PAGES = ["/", "/ap/bills", "/ap/bills/new", "/ap/bills/new/lines", "/ap/payment-run", "/ap/vendors",
         f"/ap/vendors/{VENDOR}", "/retainage", "/jobs", f"/jobs/{JOB}", f"/jobs/{JOB}?tab=budget",
         f"/jobs/{JOB}?tab=contract", "/tasks", f"/cost-detail?project_id={JOB}", "/cost-adjustments/new",
         "/commitments", "/sl/change-orders", "/sl/change-orders/new", "/gl/journal-entries/new"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_render_in_its_skin(client, path):
    resp = client.get(f"/{APP}{path}", follow_redirects=True)
    assert resp.status_code == 200
    assert b'class="skin-sage300"' in resp.data and b"Navigator" in resp.data and b"Inquiry" in resp.data


def test_screens_it_does_not_have_do_not_exist(client):
    for path in ("/ap/unapproved", "/ap/holds", "/ap/transactions", "/ap/payments", "/hq/batches",
                 "/change-requests", "/pm/firms"):
        assert client.get(f"/{APP}{path}").status_code == 404, path


def test_the_entry_form_matches_the_tool(client, episode, store):
    resp = post_form(client, f"/{APP}/ap/bills/new", {**INVOICE, "due_date": "", "cost_type_id": "S",
                                                      "commitment": ""})
    assert resp.status_code == 302
    page = client.get(resp.location).data
    assert b"Invoice" in page and b'Select invoice to pay <span class="rec">JSM-88421</span>' in page
    other = store.create([APP])
    try:
        call(Environment(other, [APP]), "ap.invoice.enter", INVOICE)
        assert other.diff() == {APP: episode.diff()[APP]}
    finally:
        store.drop(other.id)


def test_the_projected_cost_to_complete_is_saved_from_the_job_page(client, episode):
    resp = post_form(client, f"/{APP}/jobs/{JOB}/forecast", {"est_cost_to_complete": "12345.67"})
    assert resp.status_code == 302
    changed = episode.diff()[APP]["jobs"]["changed"]
    assert [(c["pk"], c["after"]["est_cost_to_complete"]) for c in changed] == [(JOB, "12345.67")]
    assert episode.calls[-1]["tool"] == "jc.projections.update"
