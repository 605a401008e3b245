"""FOUNDATION: the ERP archetype under a third vendor added as data only (a manifest, a skin and
book fields keyed by app): its own vendor codes, year-job numbers, CSI-digit cost codes, tool
names and Daily / Maintenance / Reports menus."""
from __future__ import annotations

import re

import pytest

from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import get_app

APP = "foundation_erp"
APPS = [APP, "procore"]
VENDOR, JOB, CODE = "JSMORA01", "24-9140", "312300"  # V1001, job 9140, cost code 31-200 in the book
INVOICE = {"vendor_id": VENDOR, "bill_number": "JSM-88421", "bill_date": "2026-06-24", "project_id": JOB,
           "task_id": CODE, "amount": "14350.00", "description": "Mass excavation, June"}


def call(env, tool, args=None):
    return env.call(f"{APP}.{tool}", args or {})


def test_the_guarded_tools_are_the_products_payment_actions():
    assert set(get_app(APP).money_guarded_tools) == {"apinvoices.release_for_payment", "ap.pay_invoices.run",
                                                     "ap.retainage.release", "gl.journal_entries.post"}


def test_its_keys_are_its_own(env):
    vendor = call(env, "vendors.get", {"vendor_id": VENDOR})
    assert vendor["name"] == "J.S. Morales Excavating, Inc." and vendor["vendor_id"] == VENDOR
    job = call(env, "jobs.get", {"project_id": JOB})
    assert job["name"] and all(re.fullmatch(r"\d{6}", b["task_id"]) for b in job["budget"])
    codes = call(env, "costcodes.list", {"search": "Excavation and Fill"})["items"]
    assert [c["task_id"] for c in codes] == [CODE]
    assert call(env, "costcodes.list", {"search": "31-200"})["items"] == []  # Procore's code, not its own
    assert call(env, "jobs.list", {"search": "9140"})["items"][0]["project_id"] == JOB


def test_procore_maps_its_codes_to_foundation_too(env):
    crosswalk = env.call("procore.erp.cost_code_map", {"erp_app": APP, "search": "31-200"})
    assert [(r["procore_code"], r["erp_codes"]) for r in crosswalk["items"]] == [("31-200", {APP: CODE})]


READS = [
    ("apinvoices.list", {"vendor_id": VENDOR}),
    ("apinvoices.list", {"project_id": JOB, "state": "posted", "page": 2, "per_page": 5}),
    ("vendors.list", {"search": "Morales"}),
    ("jobs.contract.get", {"project_id": JOB}),
    ("jobcost.transactions.list", {"project_id": JOB, "task_id": CODE}),
    ("subcontracts.list", {"project_id": JOB}),
    ("gl.accounts.list", {"search": "5200"}),
]


@pytest.mark.parametrize("tool,args", READS)
def test_reads_answer_and_change_nothing(env, episode, tool, args):
    result = call(env, tool, args)
    assert "error" not in result and (result.get("items") or result.get("lines")), result
    assert episode.diff() == {}


def test_an_invoice_is_entered_as_one_draft(env, episode):
    bill = call(env, "apinvoices.create", INVOICE)
    assert bill["state"] == "draft" and bill["project_id"] == JOB and bill["task_id"] == CODE
    assert [r["bill_id"] for r in episode.diff()[APP]["ap_bills"]["added"]] == [bill["bill_id"]]


@pytest.mark.parametrize("args,words", [
    ({**INVOICE, "vendor_id": "V1001"}, "ids like ACMEPL01"),
    ({**INVOICE, "project_id": "9140"}, "no job"),
    ({**INVOICE, "task_id": "31-200"}, "not a cost code of job 24-9140; cost codes look like 999999"),
])
def test_another_systems_keys_are_refused(env, episode, args, words):
    result = call(env, "apinvoices.create", args)
    assert "error" in result and words.lower() in result["message"].lower(), result
    assert episode.diff() == {}


def test_guarded_tools_stage_and_change_nothing(env, episode):
    call(env, "apinvoices.create", INVOICE)
    before = episode.snapshot()
    released = call(env, "apinvoices.release_for_payment", {"vendor_id": VENDOR, "bill_number": "JSM-88421"})
    run = call(env, "ap.pay_invoices.run", {})
    assert released["status"] == run["status"] == "pending_human_approval"
    assert episode.snapshot() == before and len(episode.guard_log) == 2


PAGES = ["/", "/ap/bills", "/ap/bills/new", "/ap/payment-run", "/ap/vendors", f"/ap/vendors/{VENDOR}", "/jobs",
         f"/jobs/{JOB}", f"/jobs/{JOB}?tab=budget", f"/jobs/{JOB}?tab=contract", "/tasks",
         f"/cost-detail?project_id={JOB}", "/commitments", "/gl/journal-entries/new"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_render_in_its_skin(client, path):
    resp = client.get(f"/{APP}{path}", follow_redirects=True)
    assert resp.status_code == 200
    assert b'class="skin-foundation"' in resp.data and b"Maintenance" in resp.data


def test_screens_it_does_not_have_do_not_exist(client):
    for path in ("/ap/unapproved", "/ap/holds", "/cost-adjustments/new", "/ap/transactions"):
        assert client.get(f"/{APP}{path}").status_code == 404, path


def test_the_entry_form_matches_the_tool(client, episode, store):
    resp = post_form(client, f"/{APP}/ap/bills/new", {**INVOICE, "due_date": "", "cost_type_id": "S",
                                                      "commitment": ""})
    assert resp.status_code == 302
    page = client.get(resp.location).data
    assert b"Invoice #" in page and b'Release invoice <span class="rec">JSM-88421</span></button>' in page
    other = store.create([APP])
    try:
        call(Environment(other, [APP]), "apinvoices.create", INVOICE)
        assert other.diff() == {APP: episode.diff()[APP]}
    finally:
        store.drop(other.id)


def test_the_cost_to_complete_is_saved_from_the_job_page(client, episode):
    resp = post_form(client, f"/{APP}/jobs/{JOB}/forecast", {"est_cost_to_complete": "12345.67"})
    assert resp.status_code == 302
    changed = episode.diff()[APP]["jobs"]["changed"]
    assert [(c["pk"], c["after"]["est_cost_to_complete"]) for c in changed] == [(JOB, "12345.67")]
    assert episode.calls[-1]["tool"] == "jobs.cost_to_complete.update"
