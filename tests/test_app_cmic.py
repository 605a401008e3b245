"""CMiC: the ERP archetype under a fifth vendor added as data only (a manifest, a skin and book
fields keyed by app): six-digit Business Partner codes, capitalised names, job codes with the
four-digit start year, cost codes as the CSI division and section joined by a dot with the
category apart, its AP / BP / SC / JB / JC / GL tool names, a treeview of modules, and posting a
voucher, cheque runs and releasing holdback guarded."""
from __future__ import annotations

import re

import pytest

from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import get_app

APP = "cmic"
APPS = [APP, "procore"]
VENDOR, JOB, CODE = "301560", "2024-9140", "31.2300"  # V1001, job 9140, cost code 31-200 in the book
INVOICE = {"vendor_id": VENDOR, "bill_number": "JSM-88421", "bill_date": "2026-06-24", "project_id": JOB,
           "task_id": CODE, "amount": "14350.00", "description": "Mass excavation, June"}


def call(env, tool, args=None):
    return env.call(f"{APP}.{tool}", args or {})


def test_the_guarded_tools_are_the_products_payment_actions():
    assert set(get_app(APP).money_guarded_tools) == {"ap.voucher.post", "ap.payment_run.create",
                                                     "sc.holdback.release"}


def test_its_keys_are_its_own(env):
    vendor = call(env, "bp.partner.get", {"vendor_id": VENDOR})
    assert vendor["name"] == "J.S. MORALES EXCAVATING, INC." and vendor["vendor_id"] == VENDOR
    job = call(env, "jc.job.get", {"project_id": JOB})
    assert job["name"] and all(re.fullmatch(r"\d{2}\.\d{4}", b["task_id"]) for b in job["budget"])
    codes = call(env, "jc.cost_codes.list", {"search": "Excavation and Fill"})["items"]
    assert [c["task_id"] for c in codes] == [CODE]
    assert call(env, "jc.cost_codes.list", {"search": "31-200"})["items"] == []  # Procore's code, not its own
    assert call(env, "jc.jobs.list", {"search": "9140"})["items"][0]["project_id"] == JOB


def test_procore_maps_its_codes_to_cmic_too(env):
    crosswalk = env.call("procore.erp.cost_code_map", {"erp_app": APP, "search": "31-200"})
    assert [(r["procore_code"], r["erp_codes"]) for r in crosswalk["items"]] == [("31-200", {APP: CODE})]


READS = [
    ("ap.vouchers.list", {"vendor_id": VENDOR}),
    ("ap.vouchers.list", {"project_id": JOB, "state": "posted", "page": 2, "per_page": 5}),
    ("bp.partners.list", {"search": "Morales"}),
    ("jb.contract.get", {"project_id": JOB}),
    ("jb.draws.list", {"project_id": JOB}),
    ("jc.transactions.query", {"project_id": JOB, "task_id": CODE}),
    ("sc.subcontracts.list", {"project_id": JOB}),
    ("sc.change_orders.list", {"project_id": JOB}),
    ("sc.holdback.list", {"state": "held"}),
    ("gl.accounts.list", {"search": "5200"}),
]


@pytest.mark.parametrize("tool,args", READS)
def test_reads_answer_and_change_nothing(env, episode, tool, args):
    result = call(env, tool, args)
    assert "error" not in result and (result.get("items") or result.get("lines")), result
    assert episode.diff() == {}


def test_a_voucher_is_entered_as_one_unposted_voucher(env, episode):
    bill = call(env, "ap.voucher.enter", INVOICE)
    assert bill["state"] == "draft" and bill["project_id"] == JOB and bill["task_id"] == CODE
    assert [r["bill_id"] for r in episode.diff()[APP]["ap_bills"]["added"]] == [bill["bill_id"]]


@pytest.mark.parametrize("args,words", [
    ({**INVOICE, "vendor_id": "V1001"}, "ids like 999990"),
    ({**INVOICE, "vendor_id": "JSMORALE01"}, "ids like 999990"),  # Sage 300 CRE's vendor id
    ({**INVOICE, "vendor_id": "300005"}, "no vendor"),  # six digits, no Business Partner
    ({**INVOICE, "project_id": "9140"}, "no job"),
    ({**INVOICE, "project_id": "24-9140"}, "no job"),
    ({**INVOICE, "project_id": "249140"}, "no job"),
    ({**INVOICE, "task_id": "31-200"}, "not a cost code of job 2024-9140; cost codes look like 99.9990"),
    ({**INVOICE, "task_id": "31-2300"}, "not a cost code of job 2024-9140"),
])
def test_another_systems_keys_are_refused(env, episode, args, words):
    result = call(env, "ap.voucher.enter", args)
    assert "error" in result and words.lower() in result["message"].lower(), result
    assert episode.diff() == {}


def test_guarded_tools_stage_and_change_nothing(env, episode):
    call(env, "ap.voucher.enter", INVOICE)
    before = episode.snapshot()
    selected = call(env, "ap.voucher.post", {"vendor_id": VENDOR, "bill_number": "JSM-88421"})
    checks = call(env, "ap.payment_run.create", {})
    assert selected["status"] == checks["status"] == "pending_human_approval"
    assert episode.snapshot() == before and len(episode.guard_log) == 2


def test_a_jc_batch_a_subcontract_change_order_and_a_pwp_hold_are_normal_writes(env, episode):
    cost = call(env, "jc.batch.enter", {"project_id": JOB, "task_id": CODE, "cost_type_id": "S",
                                              "amount": "250.00", "adjustment_date": "2026-06-29",
                                              "description": "Reclass from 31.2300 overhead"})
    assert "error" not in cost and cost["project_id"] == JOB, cost
    number = call(env, "sc.subcontracts.list", {"project_id": JOB, "search": "SC-"})["items"][0]["number"]
    made = call(env, "sc.change_order.create", {"subcontract": number, "description": "Added scope per RFI 99",
                                                 "amount": "1200.00", "act_date": "2026-06-29"})
    assert made["status"] == "open" and made["subcontract"] == number, made
    hold = call(env, "ap.pwp_hold.place", {"vendor_id": VENDOR, "reason": "Pay when paid: owner draw 7 unpaid"})
    assert "error" not in hold and hold["vendor_id"] == VENDOR, hold
    assert set(episode.diff()[APP]) == {"job_cost", "sl_change_orders", "payment_holds"} and episode.guard_log == []


PAGES = ["/", "/ap/bills", "/ap/bills/new", "/ap/bills/new/lines", "/ap/payment-run", "/ap/holds", "/ap/vendors",
         f"/ap/vendors/{VENDOR}", "/retainage", "/jobs", f"/jobs/{JOB}", f"/jobs/{JOB}?tab=budget",
         f"/jobs/{JOB}?tab=contract", "/tasks", f"/cost-detail?project_id={JOB}", "/cost-adjustments/new",
         "/commitments", "/sl/change-orders", "/sl/change-orders/new", "/jb/progress-bills", "/gl/journal-entries/new"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_render_in_its_skin(client, path):
    resp = client.get(f"/{APP}{path}", follow_redirects=True)
    assert resp.status_code == 200
    assert b'class="skin-cmic"' in resp.data and b"Treeview" in resp.data and b"Subcontract Management" in resp.data


def test_screens_it_does_not_have_do_not_exist(client):
    for path in ("/ap/unapproved", "/ap/transactions", "/ap/payments", "/hq/batches", "/change-requests",
                 "/pm/firms", "/po/purchase-orders", "/estimates"):
        assert client.get(f"/{APP}{path}").status_code == 404, path


def test_the_entry_form_matches_the_tool(client, episode, store):
    resp = post_form(client, f"/{APP}/ap/bills/new", {**INVOICE, "due_date": "", "cost_type_id": "S",
                                                      "commitment": ""})
    assert resp.status_code == 302
    page = client.get(resp.location).data
    assert b"Voucher" in page and b'Post voucher <span class="rec">JSM-88421</span>' in page
    other = store.create([APP])
    try:
        call(Environment(other, [APP]), "ap.voucher.enter", INVOICE)
        assert other.diff() == {APP: episode.diff()[APP]}
    finally:
        store.drop(other.id)


def test_the_projected_cost_to_complete_is_saved_from_the_job_page(client, episode):
    resp = post_form(client, f"/{APP}/jobs/{JOB}/forecast", {"est_cost_to_complete": "12345.67"})
    assert resp.status_code == 302
    changed = episode.diff()[APP]["jobs"]["changed"]
    assert [(c["pk"], c["after"]["est_cost_to_complete"]) for c in changed] == [(JOB, "12345.67")]
    assert episode.calls[-1]["tool"] == "jc.projected_cost.update"
