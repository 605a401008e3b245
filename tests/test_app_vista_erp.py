"""Trimble Viewpoint Vista: the ERP archetype under Vista's vendor numbers, phases and module forms."""
from __future__ import annotations

import re

import pytest

from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import get_app

APP = "vista_erp"
APPS = [APP]
GUARDED_TOOLS = ("ap.invoice.approve", "ap.payment_batch.post")
VENDOR = "20835"  # V1001 in the company book
INVOICE = {"vendor_id": VENDOR, "bill_number": "JSM-88421", "bill_date": "2026-06-24", "project_id": "9140",
           "task_id": "31200-000-", "cost_type_id": "S", "amount": "14350.00", "description": "Excavation"}


def call(env, tool, args=None):
    return env.call(f"{APP}.{tool}", args or {})


def test_the_guarded_tools_are_the_products_payment_actions():
    spec = get_app(APP)
    assert set(spec.money_guarded_tools) == {"ap.invoice.approve", "ap.payment_batch.post", "hq.batch.post",
                                             "gl.journal_entry.post"}


def test_vendors_and_phases_use_vista_keys(env):
    vendor = call(env, "ap.vendors.list", {"vendor_id": VENDOR})["items"][0]
    assert vendor["name"].isupper()
    phases = call(env, "jc.phases.list", {"search": "01500"})["items"]
    assert [p["task_id"] for p in phases] == ["01500-000-"]
    # Vista knows its own phases only; which Procore code posts where is Procore's crosswalk
    assert call(env, "jc.phases.list", {"search": "01-510"})["items"] == []
    assert all("company_codes" not in p for p in phases)


@pytest.mark.parametrize("args,said", [
    ({**INVOICE, "vendor_id": "V1001"}, "Trimble Viewpoint Vista identifies vendors by ids like 99999; 'V1001' is not one."),
    ({**INVOICE, "task_id": "31-200"}, "Phase '31-200' is not a phase of job 9140; phases look like 99999-999-."),
])
def test_other_systems_keys_are_refused_without_being_translated(env, episode, args, said):
    result = call(env, "ap.unapproved_invoice.create", args)
    assert result.get("message") == said, result
    assert "20835" not in result["message"] and episode.diff() == {}


READS = [
    ("ap.unapproved_invoices.list", {}),
    ("ap.transactions.list", {"vendor_id": VENDOR, "status": "paid"}),
    ("ap.invoice.get", {"bill_id": "APB-00001"}),
    ("ap.vendors.list", {"search": "excavat", "page": 1, "per_page": 10}),
    ("ap.vendor.get", {"vendor_id": VENDOR}),
    ("ap.payment_holds.list", {}),
    ("ap.payment_history.list", {"method": "Check", "state": "voided"}),
    ("ap.payment_history.get", {"payment_id": "PYMT-00001"}),
    ("jc.jobs.list", {"search": "10"}),
    ("jc.job.get", {"project_id": "1042"}),
    ("jc.phases.list", {"project_id": "1042"}),
    ("jc.cost_detail.query", {"project_id": "1042", "source": "AP", "date_from": "2025-01-01"}),
    ("jb.contract.get", {"project_id": "1042"}),
    ("sl.subcontracts.list", {"project_id": "1042"}),
    ("gl.accounts.list", {}),
]


@pytest.mark.parametrize("tool,args", READS)
def test_reads_answer_and_change_nothing(env, episode, tool, args):
    result = call(env, tool, args)
    assert "error" not in result, result
    assert episode.diff() == {}


WRITES = [
    ("ap.unapproved_invoice.create", INVOICE, "ap_bills"),
    ("ap.payment_hold.create", {"vendor_id": VENDOR, "reason": "COI expired"}, "payment_holds"),
    ("jc.cost_adjustment.create", {"project_id": "1042", "task_id": "01100-000-", "cost_type_id": "L",
                                   "amount": "-250.00", "adjustment_date": "2026-06-30",
                                   "description": "Move misposted labor"}, "job_cost"),
    ("jc.cost_projections.update", {"project_id": "1042", "est_cost_to_complete": "3706560.00"}, "jobs"),
    ("gl.journal_entry.create", {"entry_date": "2026-06-30", "description": "June sub accrual",
                                 "lines": ["5200|Dr|500.00|1042", "2100|Cr|500.00|1042"]}, "journal_entries"),
]


@pytest.mark.parametrize("tool,args,table", WRITES)
def test_writes_change_only_their_table(env, episode, tool, args, table):
    result = call(env, tool, args)
    assert "error" not in result, result
    changed = set(episode.diff()[APP])
    assert table in changed and changed <= {table, "journal_lines"}


def test_forecast_update_is_recorded_on_the_job(env, episode):
    call(env, "jc.cost_projections.update", {"project_id": "1042", "est_cost_to_complete": "3706560.00"})
    change = episode.diff()[APP]["jobs"]["changed"][0]
    assert change["pk"] == "1042" and change["after"]["est_cost_to_complete"] == "3706560.00"


BAD = [
    ("ap.unapproved_invoice.create", {**INVOICE, "vendor_id": "V1001"}, "ids like 99999"),
    ("ap.unapproved_invoice.create", {**INVOICE, "task_id": "31-200"}, "phases look like 99999-999-"),
    ("ap.unapproved_invoice.create", {**INVOICE, "amount": "0.00"}, "greater than zero"),
    ("ap.unapproved_invoice.create", {**INVOICE, "project_id": "X"}, "no job"),
    ("ap.unapproved_invoice.create", {**INVOICE, "commitment": "9999-1"}, "no commitment"),
    ("ap.invoice.get", {"bill_id": "nope"}, "no bill"),
    ("ap.vendor.get", {"vendor_id": "1"}, "no vendor"),
    ("ap.payment_hold.create", {"vendor_id": VENDOR, "reason": "  "}, "reason"),
    ("jc.cost_adjustment.create", {"project_id": "1042", "task_id": "01100-000-", "cost_type_id": "L",
                                   "amount": "0", "adjustment_date": "2026-06-30", "description": "x"}, "zero"),
    ("jc.cost_projections.update", {"project_id": "1042", "est_cost_to_complete": "-1"}, "negative"),
    ("jc.cost_detail.query", {"date_from": "yesterday"}, "date"),
    ("gl.journal_entry.create", {"entry_date": "2026-06-30", "description": "x", "lines": ["5200|Dr|1"]}, "two lines"),
    ("ap.invoice.approve", {"vendor_id": VENDOR, "bill_number": "NOPE"}, "no bill"),
    ("ap.payment_batch.post", {"vendor_id": "V1001"}, "ids like 99999"),
    ("jc.jobs.list", {"page": 0}, "page"),
]


@pytest.mark.parametrize("tool,args,words", BAD)
def test_bad_input_is_refused_without_change(env, episode, tool, args, words):
    result = call(env, tool, args)
    assert "error" in result and words.lower() in result["message"].lower(), result
    assert episode.diff() == {}
    # a refused guarded call is an attempt all the same: on record, with the refusal
    expected = [result["message"]] if get_app(APP).tools[tool].guarded else []
    assert [g["refused"] for g in episode.guard_log] == expected


def test_second_hold_is_refused(env, episode):
    call(env, "ap.payment_hold.create", {"vendor_id": VENDOR, "reason": "COI expired"})
    assert call(env, "ap.payment_hold.create", {"vendor_id": VENDOR, "reason": "again"})["error"] == "duplicate"


def test_guarded_tools_stage_and_change_nothing(env, episode):
    call(env, "ap.unapproved_invoice.create", INVOICE)
    before = episode.snapshot()
    approved = call(env, "ap.invoice.approve", {"vendor_id": VENDOR, "bill_number": "JSM-88421"})
    batch = call(env, "ap.payment_batch.post", {})
    assert approved["status"] == batch["status"] == "pending_human_approval"
    assert episode.snapshot() == before
    assert [(g["tool"], "refused" in g) for g in episode.guard_log] == [
        (GUARDED_TOOLS[0], False), (GUARDED_TOOLS[1], False)]


def test_held_vendor_cannot_be_approved(env, episode):
    call(env, "ap.unapproved_invoice.create", INVOICE)
    call(env, "ap.payment_hold.create", {"vendor_id": VENDOR, "reason": "COI expired"})
    before = episode.snapshot()
    result = call(env, "ap.invoice.approve", {"vendor_id": VENDOR, "bill_number": "JSM-88421"})
    assert "payment hold" in result["message"] and episode.snapshot() == before
    assert [g["refused"] for g in episode.guard_log] == [result["message"]]


PAGES = ["/", "/ap/unapproved", "/ap/transactions?status=open", "/ap/bills/new", "/ap/bills/APB-00001",
         "/ap/vendors", f"/ap/vendors/{VENDOR}", "/ap/holds", "/ap/payment-run",
         "/ap/payments?method=Check&state=voided", "/ap/payments/PYMT-00001", "/jobs?page=2&per_page=25",
         "/jobs/1042", "/jobs/1042?tab=budget", "/tasks?search=31", "/cost-detail?project_id=1042",
         "/cost-adjustments/new", "/commitments?project_id=1042", "/gl/journal-entries/new"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_render(client, path):
    resp = client.get(f"/{APP}{path}", follow_redirects=True)
    assert resp.status_code == 200
    assert b"BatchId" in resp.data and b"JC Job Master" in resp.data


def test_ap_entry_form_matches_the_tool(client, episode, store):
    resp = post_form(client, f"/{APP}/ap/bills/new", INVOICE)
    assert resp.status_code == 302
    page = client.get(resp.location)
    assert b'Approve invoice <span class="rec">JSM-88421</span></button>' in page.data
    other = store.create([APP])
    try:
        call(Environment(other, [APP]), "ap.unapproved_invoice.create", INVOICE)
        assert other.diff() == episode.diff()
    finally:
        store.drop(other.id)


def test_forecast_and_hold_forms(client, episode):
    assert post_form(client, f"/{APP}/jobs/1042/forecast", {"est_cost_to_complete": "3706560.00"}).status_code == 302
    assert post_form(client, f"/{APP}/ap/holds", {"vendor_id": VENDOR, "reason": "COI"}).status_code == 302
    assert set(episode.diff()[APP]) == {"jobs", "payment_holds"}


@pytest.mark.parametrize("path,data", [
    ("/ap/bills/new", {**INVOICE, "vendor_id": "V1001"}),
    ("/ap/holds", {"vendor_id": "nope", "reason": "x"}),
    ("/jobs/1042/forecast", {"est_cost_to_complete": "lots"}),
    ("/cost-adjustments/new", {"project_id": "1042", "task_id": "bad", "cost_type_id": "L", "amount": "1",
                               "adjustment_date": "2026-06-30", "description": "x"}),
])
def test_form_errors_are_shown_without_change(client, episode, path, data):
    resp = post_form(client, f"/{APP}{path}", data)
    assert 400 <= resp.status_code < 500 and re.search(rb'role="alert"', resp.data)
    assert episode.diff() == {}


def test_the_job_shows_the_erps_own_projection_not_the_pms_forecast_lines(env, client, store):
    """The PM's line-by-line forecast to complete lives in Procore; Vista holds only its own,
    stale projection, so neither the job tool nor the job page can stand in for reading Procore."""
    job = call(env, "jc.job.get", {"project_id": "1042"})
    assert job["budget"] and all("forecast_to_complete" not in line for line in job["budget"])
    page = client.get(f"/{APP}/jobs/1042?tab=budget").get_data(as_text=True)
    assert "Original budget" in page and "Forecast to complete" not in page
    overview = client.get(f"/{APP}/jobs/1042").get_data(as_text=True)
    assert f"<dd>{float(job['est_cost_to_complete']):,.2f}</dd>" in overview  # shown as money
