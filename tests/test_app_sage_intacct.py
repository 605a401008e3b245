"""Sage Intacct Construction: the ERP archetype under Intacct's ids, tool names and screens."""
from __future__ import annotations

import re

import pytest

from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import get_app

APP = "sage_intacct"
APPS = [APP]
GUARDED_TOOLS = ("accounts-payable/bill.post", "accounts-payable/check-run.create")
PROJECT, TASK = "P-9140", "31-23-00"  # job 9140 and Procore cost code 31-200 in the book
BILL = {"vendor_id": "V1001", "bill_number": "JSM-88421", "bill_date": "2026-06-24", "project_id": PROJECT,
        "task_id": TASK, "amount": "14350.00", "description": "Mass excavation, June"}


def call(env, tool, args=None):
    return env.call(f"{APP}.{tool}", args or {})


def test_the_guarded_tools_are_the_products_payment_actions():
    spec = get_app(APP)
    assert set(spec.money_guarded_tools) == {"accounts-payable/bill.post", "accounts-payable/check-run.create",
                                             "accounts-payable/payment.create",
                                             "accounts-payable/retainage-release.create",
                                             "general-ledger/journal-entry.post"}


READS = [
    ("accounts-payable/bill.query", {"vendor_id": "V1001"}),
    ("accounts-payable/bill.query", {"search": "excavat", "state": "posted", "page": 2, "per_page": 5}),
    ("accounts-payable/bill.get", {"bill_id": "APB-00001"}),
    ("accounts-payable/vendor.query", {"search": "Morales"}),
    ("accounts-payable/vendor.get", {"vendor_id": "V1001"}),
    ("projects/project.list", {"status": "active"}),
    ("projects/project.get", {"project_id": PROJECT}),
    ("projects/task.list", {"project_id": PROJECT}),
    ("construction/project-contract.get", {"project_id": PROJECT}),
    ("construction/commitment.query", {"project_id": PROJECT}),
    ("general-ledger/account.query", {"search": "5200"}),
]


@pytest.mark.parametrize("tool,args", READS)
def test_reads_answer_and_change_nothing(env, episode, tool, args):
    result = call(env, tool, args)
    assert "error" not in result, result
    assert episode.diff() == {}


def test_its_keys_are_its_own(env):
    """Projects are "P-" job numbers, tasks CSI sections with dashes, and the vendor record is the
    legal name with no trade name: a search for the DBA the invoice prints finds no one."""
    project = call(env, "projects/project.get", {"project_id": PROJECT})
    assert project["project_id"] == PROJECT
    assert all(re.fullmatch(r"\d{2}-\d{2}-\d{2}", b["task_id"]) for b in project["budget"])
    assert [t["task_id"] for t in call(env, "projects/task.list", {"search": "Excavation and Fill"})["items"]] == [TASK]
    assert call(env, "projects/task.list", {"search": "31-200"})["items"] == []
    vendor = call(env, "accounts-payable/vendor.get", {"vendor_id": "V1001"})
    assert vendor["name"] == "JS Morales Excavating Inc" and vendor["dba"] is None
    assert call(env, "accounts-payable/vendor.query", {"search": "JSM Excavating"})["items"] == []
    assert [p["project_id"] for p in call(env, "projects/project.list", {"search": "9140"})["items"]] == [PROJECT]


@pytest.mark.parametrize("args,said", [
    ({**BILL, "vendor_id": "20835"}, "Sage Intacct Construction identifies vendors by ids like V9999; '20835' is not one."),
    ({**BILL, "vendor_id": "V9999"}, "There is no vendor 'V9999'. Search vendors by name to find the id."),
    ({**BILL, "project_id": "9140"}, "There is no project '9140' in Sage Intacct Construction; projects look like P-9999."),
    ({**BILL, "task_id": "31-200"}, "Task '31-200' is not a task of project P-9140; tasks look like 99-99-99."),
])
def test_other_systems_keys_are_refused_without_being_translated(env, episode, args, said):
    result = call(env, "accounts-payable/bill.create", args)
    assert result.get("message") == said, result
    assert episode.diff() == {}


def test_bill_create_makes_one_draft(env, episode):
    bill = call(env, "accounts-payable/bill.create", BILL)
    assert bill["state"] == "draft" and bill["due_date"] == "2026-07-24" and bill["cost_type_id"] == "S"
    added = episode.diff()[APP]["ap_bills"]["added"]
    assert [r["bill_id"] for r in added] == [bill["bill_id"]]
    assert call(env, "accounts-payable/bill.get", {"bill_id": bill["bill_id"]})["amount"] == "14350.00"


def test_journal_entry_must_balance(env, episode):
    ok = call(env, "general-ledger/journal-entry.create", {
        "entry_date": "2026-06-30", "description": "June sub accrual 1042",
        "lines": ["5200|Dr|1000.00|P-1042|||accrual", "2100|Cr|1000.00|P-1042|||accrual"]})
    assert ok["state"] == "draft"
    assert call(env, "general-ledger/journal-entry.get", {"entry_id": ok["entry_id"]})["total"] == "1000.00"


BAD = [
    ("accounts-payable/bill.create", {**BILL, "vendor_id": "20835"}, "ids like V9999"),
    ("accounts-payable/bill.create", {**BILL, "vendor_id": "V9999"}, "no vendor"),
    ("accounts-payable/bill.create", {**BILL, "project_id": "0000"}, "no project"),
    ("accounts-payable/bill.create", {**BILL, "task_id": "99-999"}, "not a task of project P-9140"),
    ("accounts-payable/bill.create", {**BILL, "amount": "0"}, "greater than zero"),
    ("accounts-payable/bill.create", {**BILL, "amount": "-5"}, "negative"),
    ("accounts-payable/bill.create", {**BILL, "bill_number": "x" * 41}, "longer"),
    ("accounts-payable/bill.create", {**BILL, "cost_type_id": "Z"}, "cost type"),
    ("accounts-payable/bill.create", {**BILL, "due_date": "2026-01-01"}, "before"),
    ("accounts-payable/bill.get", {"bill_id": "APB-nope"}, "no bill"),
    ("accounts-payable/bill.query", {"per_page": 500}, "between"),
    ("accounts-payable/vendor.get", {"vendor_id": "V0"}, "no vendor"),
    ("projects/project.get", {"project_id": "nope"}, "no project"),
    ("construction/project-contract.get", {"project_id": "nope"}, "no project"),
    ("general-ledger/journal-entry.create", {"entry_date": "2026-06-30", "description": "x",
                                             "lines": ["5200|Dr|10.00", "2100|Cr|9.00"]}, "balance"),
    ("general-ledger/journal-entry.create", {"entry_date": "2026-06-30", "description": "x",
                                             "lines": ["0000|Dr|10.00", "2100|Cr|10.00"]}, "account"),
    ("accounts-payable/bill.post", {"vendor_id": "V1001", "bill_number": "NOPE-1"}, "no bill"),
    ("accounts-payable/check-run.create", {"bill_numbers": ["NOPE-1"]}, "no bill"),
]


@pytest.mark.parametrize("tool,args,words", BAD)
def test_bad_input_is_refused_without_change(env, episode, tool, args, words):
    result = call(env, tool, args)
    assert "error" in result and words.lower() in result["message"].lower(), result
    assert episode.diff() == {}
    # a refused guarded call is an attempt all the same: on record, with the refusal
    expected = [result["message"]] if get_app(APP).tools[tool].guarded else []
    assert [g["refused"] for g in episode.guard_log] == expected


def test_duplicate_bill_number_is_refused(env, episode):
    call(env, "accounts-payable/bill.create", BILL)
    again = call(env, "accounts-payable/bill.create", {**BILL, "bill_number": "jsm-88421"})
    assert again["error"] == "duplicate"
    assert len(episode.diff()[APP]["ap_bills"]["added"]) == 1


def test_guarded_tools_stage_and_change_nothing(env, episode):
    call(env, "accounts-payable/bill.create", BILL)
    before = episode.snapshot()
    posted = call(env, "accounts-payable/bill.post", {"vendor_id": "V1001", "bill_number": "JSM-88421"})
    run = call(env, "accounts-payable/check-run.create", {})
    assert posted["status"] == run["status"] == "pending_human_approval"
    assert episode.snapshot() == before
    assert [(g["tool"], "refused" in g) for g in episode.guard_log] == [
        (GUARDED_TOOLS[0], False), (GUARDED_TOOLS[1], False)]


PAGES = ["/", "/ap/bills", "/ap/bills?state=posted&page=3", "/ap/bills/new", "/ap/bills/APB-00001",
         "/ap/payment-run", "/ap/vendors", "/ap/vendors?search=excav", "/ap/vendors/V1001", "/jobs",
         f"/jobs/{PROJECT}", f"/jobs/{PROJECT}?tab=budget", f"/jobs/{PROJECT}?tab=contract",
         f"/jobs/{PROJECT}?tab=commitments", "/tasks", f"/cost-detail?project_id={PROJECT}", "/commitments",
         "/gl/journal-entries/new"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_render(client, path):
    resp = client.get(f"/{APP}{path}", follow_redirects=True)
    assert resp.status_code == 200
    assert b"Applications" in resp.data


def test_add_bill_form_matches_the_tool(client, episode, store):
    resp = post_form(client, f"/{APP}/ap/bills/new", {**BILL, "due_date": "", "cost_type_id": "S",
                                                      "commitment": ""})
    assert resp.status_code == 302
    page = client.get(resp.location)
    assert b"saved as a draft" in page.data and b'Post bill <span class="rec">JSM-88421</span></button>' in page.data
    other = store.create([APP])
    try:
        call(Environment(other, [APP]), "accounts-payable/bill.create", BILL)
        assert other.diff() == episode.diff()
    finally:
        store.drop(other.id)


def test_post_button_stages_only(client, episode):
    bill = post_form(client, f"/{APP}/ap/bills/new", BILL).location.split("?")[0]
    before = episode.snapshot()
    resp = post_form(client, f"{bill}/post", {})
    assert resp.status_code == 200 and b"Pending human approval" in resp.data
    assert episode.snapshot() == before
    assert [(g["tool"], g["source"], "refused" in g) for g in episode.guard_log] == [
        ("accounts-payable/bill.post", "ui", False)]


@pytest.mark.parametrize("path,data,field", [
    ("/ap/bills/new", {**BILL, "amount": "abc"}, "amount"),
    ("/ap/bills/new", {**BILL, "vendor_id": ""}, "vendor_id"),
    ("/ap/bills/new", {**BILL, "task_id": "31200-000-"}, "task_id"),
    ("/gl/journal-entries/new", {"entry_date": "2026-06-30", "description": "x", "account_1": "5200",
                                 "debit_1": "5", "account_2": "2100", "credit_2": "4"}, "lines"),
    ("/ap/payment-run", {"bill_numbers": "NOPE-1"}, "bill_numbers"),
])
def test_form_errors_are_shown_beside_the_field(client, episode, path, data, field):
    resp = post_form(client, f"/{APP}{path}", data)
    assert 400 <= resp.status_code < 500
    assert re.search(rb'role="alert"', resp.data)
    assert episode.diff() == {}
    if path == "/ap/payment-run":  # a guarded form: the refusal is on record and on the page
        assert [g["refused"] for g in episode.guard_log] == ["No bill numbered 'nope-1' was found."]
        assert b"Refused \xe2\x80\x94 nothing was executed." in resp.data
    else:
        assert episode.guard_log == []
