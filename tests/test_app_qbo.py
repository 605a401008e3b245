"""QuickBooks Online: the ERP archetype under a seventh vendor added as data only (a manifest, a
skin and book fields keyed by app): vendors keyed by their numeric Vendor Id in the order they
were created, projects named by the job number, classes written Division:Section standing in for
cost codes, its API entity names (bill, vendor, customer, class, purchaseorder, estimate,
journalentry, account, reports.ProfitAndLossDetail), a left navigation rail with a "+ New"
button, and approving a bill and paying bills guarded."""
from __future__ import annotations

import re

import pytest

from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import get_app

APP = "qbo"
APPS = [APP, "procore"]
VENDOR, JOB, CODE = "57", "9140", "31:200"  # V1001, job 9140, cost code 31-200 in the book
INVOICE = {"vendor_id": VENDOR, "bill_number": "JSM-88421", "bill_date": "2026-06-24", "project_id": JOB,
           "task_id": CODE, "amount": "14350.00", "description": "Mass excavation, June"}


def call(env, tool, args=None):
    return env.call(f"{APP}.{tool}", args or {})


def test_the_guarded_tools_are_the_products_payment_actions():
    assert set(get_app(APP).money_guarded_tools) == {"bill.approve", "billpayment.create"}


def test_its_keys_are_its_own(env):
    vendor = call(env, "vendor.read", {"vendor_id": VENDOR})
    assert vendor["name"] == "J.S. Morales Excavating, Inc." and vendor["vendor_id"] == VENDOR
    job = call(env, "customer.read", {"project_id": JOB})
    assert job["name"] and all(re.fullmatch(r"\d{2}:\d{3}", b["task_id"]) for b in job["budget"])
    codes = call(env, "class.query", {"search": "Excavation and Fill"})["items"]
    assert [c["task_id"] for c in codes] == [CODE]
    assert call(env, "class.query", {"search": "31-200"})["items"] == []  # Procore's code, not its own
    assert call(env, "customer.query", {"search": "9140"})["items"][0]["project_id"] == JOB


def test_procore_maps_its_codes_to_quickbooks_classes_too(env):
    crosswalk = env.call("procore.erp.cost_code_map", {"erp_app": APP, "search": "31-200"})
    assert [(r["procore_code"], r["erp_codes"]) for r in crosswalk["items"]] == [("31-200", {APP: CODE})]


READS = [
    ("bill.query", {"vendor_id": VENDOR}),
    ("bill.query", {"project_id": JOB, "state": "posted", "page": 2, "per_page": 5}),
    ("vendor.query", {"search": "Morales"}),
    ("estimate.query", {}),
    ("reports.ProfitAndLossDetail", {"project_id": JOB, "task_id": CODE}),
    ("purchaseorder.query", {"project_id": JOB}),
    ("account.query", {"search": "5200"}),
]


@pytest.mark.parametrize("tool,args", READS)
def test_reads_answer_and_change_nothing(env, episode, tool, args):
    result = call(env, tool, args)
    assert "error" not in result and (result.get("items") or result.get("lines")), result
    assert episode.diff() == {}


def test_a_bill_is_entered_as_one_bill_pending_approval(env, episode):
    bill = call(env, "bill.create", INVOICE)
    assert bill["state"] == "draft" and bill["project_id"] == JOB and bill["task_id"] == CODE
    assert [r["bill_id"] for r in episode.diff()[APP]["ap_bills"]["added"]] == [bill["bill_id"]]


@pytest.mark.parametrize("args,words", [
    ({**INVOICE, "vendor_id": "V1001"}, "ids like 9990"),  # the company's own vendor id
    ({**INVOICE, "vendor_id": "20835"}, "ids like 9990"),  # Vista's vendor number
    ({**INVOICE, "vendor_id": "9001"}, "no vendor"),
    ({**INVOICE, "project_id": "249140"}, "no project"),
    ({**INVOICE, "project_id": "24-9140"}, "no project"),
    ({**INVOICE, "project_id": "P-9140"}, "no project"),
    ({**INVOICE, "task_id": "31-200"}, "not a class of project 9140; classes look like 99:990"),
    ({**INVOICE, "task_id": "31-2300"}, "not a class of project 9140"),
])
def test_another_systems_keys_are_refused(env, episode, args, words):
    result = call(env, "bill.create", args)
    assert "error" in result and words.lower() in result["message"].lower(), result
    assert episode.diff() == {}


def test_guarded_tools_stage_and_change_nothing(env, episode):
    call(env, "bill.create", INVOICE)
    before = episode.snapshot()
    selected = call(env, "bill.approve", {"vendor_id": VENDOR, "bill_number": "JSM-88421"})
    checks = call(env, "billpayment.create", {})
    assert selected["status"] == checks["status"] == "pending_human_approval"
    assert episode.snapshot() == before and len(episode.guard_log) == 2


def test_a_journal_entry_is_a_normal_write(env, episode):
    entry = call(env, "journalentry.create", {"entry_date": "2026-06-29", "description": "Reclass 31:200",
                                              "lines": [f"5200|Dr|250.00|{JOB}|{CODE}|S|Reclass",
                                                        "2000|Cr|250.00||||Reclass"]})
    assert "error" not in entry, entry
    assert set(episode.diff()[APP]) <= {"journal_entries", "journal_lines"} and episode.guard_log == []


PAGES = ["/", "/ap/bills", "/ap/bills/new", "/ap/bills/new/lines", "/ap/payment-run", "/ap/vendors",
         f"/ap/vendors/{VENDOR}", "/jobs", f"/jobs/{JOB}", f"/jobs/{JOB}?tab=budget",
         f"/jobs/{JOB}?tab=contract", "/tasks", f"/cost-detail?project_id={JOB}", "/commitments", "/estimates",
         "/gl/journal-entries/new"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_render_in_its_skin(client, path):
    resp = client.get(f"/{APP}{path}", follow_redirects=True)
    assert resp.status_code == 200
    assert b'class="skin-qbo"' in resp.data and b"+ New" in resp.data and b"Profit and Loss Detail" in resp.data


def test_screens_it_does_not_have_do_not_exist(client):
    for path in ("/ap/unapproved", "/ap/holds", "/ap/transactions", "/ap/payments", "/hq/batches",
                 "/change-requests", "/pm/firms", "/retainage", "/cost-adjustments/new", "/sl/change-orders",
                 "/po/purchase-orders", "/jb/progress-bills"):
        assert client.get(f"/{APP}{path}").status_code == 404, path


def test_the_entry_form_matches_the_tool(client, episode, store):
    resp = post_form(client, f"/{APP}/ap/bills/new", {**INVOICE, "due_date": "", "cost_type_id": "S",
                                                      "commitment": ""})
    assert resp.status_code == 302
    page = client.get(resp.location).data
    assert b"Bill" in page and b'Approve bill <span class="rec">JSM-88421</span>' in page
    other = store.create([APP])
    try:
        call(Environment(other, [APP]), "bill.create", INVOICE)
        assert other.diff() == {APP: episode.diff()[APP]}
    finally:
        store.drop(other.id)


def test_there_is_no_projection_to_save(client):
    assert b"/forecast" not in client.get(f"/{APP}/jobs/{JOB}").data
