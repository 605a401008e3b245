"""The ERP archetype under the vendors added as data only (a manifest, a skin and book fields keyed
by app): each test body below runs once per vendor, driven by the table of that vendor's facts
(its keys for vendor V1001, job 9140 and Procore cost code 31-200, its tool names, its guarded
tools, its screens and its vocabulary). What only one vendor has stays in its test_app_<app>.py."""
from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import get_app

BILL_NUMBER = "JSM-88421"


@dataclass(frozen=True)
class ErpVendor:
    app: str
    vendor: str  # V1001 in the book
    job: str  # job 9140 in the book
    code: str  # Procore cost code 31-200 in the book
    vendor_name: str  # as its vendor record spells J.S. Morales Excavating
    code_pattern: str  # every cost code on a job budget matches it
    procore_code_is_a_prefix: bool  # searching "31-200" finds its own code rather than nothing
    guarded_tools: frozenset[str]
    # tools: a vendor, a job, their lists, entering an invoice; releasing one invoice and running
    # payments (both guarded); saving the projected cost to complete (None: it has no projection)
    vendor_get: str
    job_get: str
    cost_codes_list: str
    jobs_list: str
    invoice_enter: str
    invoice_release: str
    payment_run: str
    projection_update: str | None
    reads: tuple[tuple[str, dict], ...]
    refused: tuple[tuple[dict, str], ...]  # invoice fields another system would send, and words of the refusal
    pages: tuple[str, ...]
    absent_pages: tuple[str, ...]  # the archetype's screens this product does not have
    skin_marks: tuple[bytes, ...]  # every page carries them
    entry_page_marks: tuple[bytes, ...]  # the page an entered invoice lands on
    # job-cost writes: a direct cost, the job's subcontracts, a change order to one (None: no such tools)
    direct_cost_enter: str | None = None
    commitments_list: str | None = None
    commitment_co_create: str | None = None

    def call(self, env, tool, args=None):
        return env.call(f"{self.app}.{tool}", args or {})

    @property
    def invoice(self) -> dict:
        return {"vendor_id": self.vendor, "bill_number": BILL_NUMBER, "bill_date": "2026-06-24",
                "project_id": self.job, "task_id": self.code, "amount": "14350.00",
                "description": "Mass excavation, June"}


def foundation_erp() -> ErpVendor:
    """FOUNDATION: its own vendor codes, year-job numbers, CSI-digit cost codes, tool names and
    Daily / Maintenance / Reports menus."""
    vendor, job, code = "JSMORA01", "24-9140", "312300"
    return ErpVendor(
        app="foundation_erp", vendor=vendor, job=job, code=code,
        vendor_name="J.S. Morales Excavating, Inc.", code_pattern=r"\d{6}", procore_code_is_a_prefix=False,
        guarded_tools=frozenset({"apinvoices.release_for_payment", "ap.pay_invoices.run",
                                 "ap.retainage.release", "gl.journal_entries.post"}),
        vendor_get="vendors.get", job_get="jobs.get", cost_codes_list="costcodes.list", jobs_list="jobs.list",
        invoice_enter="apinvoices.create", invoice_release="apinvoices.release_for_payment",
        payment_run="ap.pay_invoices.run", projection_update="jobs.cost_to_complete.update",
        reads=(
            ("apinvoices.list", {"vendor_id": vendor}),
            ("apinvoices.list", {"project_id": job, "state": "posted", "page": 2, "per_page": 5}),
            ("vendors.list", {"search": "Morales"}),
            ("jobs.contract.get", {"project_id": job}),
            ("jobcost.transactions.list", {"project_id": job, "task_id": code}),
            ("subcontracts.list", {"project_id": job}),
            ("gl.accounts.list", {"search": "5200"}),
        ),
        refused=(
            ({"vendor_id": "V1001"}, "ids like ACMEPL01"),
            ({"project_id": "9140"}, "no job"),
            ({"task_id": "31-200"}, "not a cost code of job 24-9140; cost codes look like 999999"),
        ),
        pages=("/", "/ap/bills", "/ap/bills/new", "/ap/payment-run", "/ap/vendors", f"/ap/vendors/{vendor}",
               "/jobs", f"/jobs/{job}", f"/jobs/{job}?tab=budget", f"/jobs/{job}?tab=contract", "/tasks",
               f"/cost-detail?project_id={job}", "/commitments", "/gl/journal-entries/new"),
        absent_pages=("/ap/unapproved", "/ap/holds", "/cost-adjustments/new", "/ap/transactions"),
        skin_marks=(b'class="skin-foundation"', b"Maintenance"),
        entry_page_marks=(b"Invoice #", b'Release invoice <span class="rec">JSM-88421</span></button>'),
    )


def sage300cre() -> ErpVendor:
    """Sage 300 CRE (Timberline): ten-character vendor ids, year-and-job job ids, cost codes in the
    mask XX-XXXX with the category apart, AP / JC / GL tool names, a Navigator of Tasks / Setup /
    Inquiry folders; selecting invoices to pay, printing checks and releasing retainage guarded."""
    vendor, job, code = "JSMORALE01", "249140", "31-2300"
    return ErpVendor(
        app="sage300cre", vendor=vendor, job=job, code=code,
        vendor_name="J.S. Morales Excavating, Inc.", code_pattern=r"\d{2}-\d{4}", procore_code_is_a_prefix=False,
        guarded_tools=frozenset({"ap.select_invoices_to_pay", "ap.print_checks", "ap.retainage.release"}),
        vendor_get="ap.vendor.get", job_get="jc.job.get", cost_codes_list="jc.cost_codes.list",
        jobs_list="jc.jobs.list", invoice_enter="ap.invoice.enter", invoice_release="ap.select_invoices_to_pay",
        payment_run="ap.print_checks", projection_update="jc.projections.update",
        direct_cost_enter="jc.direct_cost.enter", commitments_list="jc.commitments.list",
        commitment_co_create="jc.commitment_co.create",
        reads=(
            ("ap.invoices.list", {"vendor_id": vendor}),
            ("ap.invoices.list", {"project_id": job, "state": "posted", "page": 2, "per_page": 5}),
            ("ap.vendors.list", {"search": "Morales"}),
            ("cn.contract.get", {"project_id": job}),
            ("jc.transactions.query", {"project_id": job, "task_id": code}),
            ("jc.commitments.list", {"project_id": job}),
            ("jc.commitment_cos.list", {"project_id": job}),
            ("ap.retainage.list", {"state": "held"}),
            ("gl.accounts.list", {"search": "5200"}),
        ),
        refused=(
            ({"vendor_id": "V1001"}, "ids like ACMEPLUM01"),
            ({"vendor_id": "JSMORA01"}, "no vendor"),  # FOUNDATION's vendor code
            ({"project_id": "9140"}, "no job"),
            ({"project_id": "24-9140"}, "no job"),
            ({"task_id": "31-200"}, "not a cost code of job 249140; cost codes look like 99-9999"),
            ({"task_id": "312300"}, "not a cost code of job 249140"),
        ),
        pages=("/", "/ap/bills", "/ap/bills/new", "/ap/bills/new/lines", "/ap/payment-run", "/ap/vendors",
               f"/ap/vendors/{vendor}", "/retainage", "/jobs", f"/jobs/{job}", f"/jobs/{job}?tab=budget",
               f"/jobs/{job}?tab=contract", "/tasks", f"/cost-detail?project_id={job}", "/cost-adjustments/new",
               "/commitments", "/sl/change-orders", "/sl/change-orders/new", "/gl/journal-entries/new"),
        absent_pages=("/ap/unapproved", "/ap/holds", "/ap/transactions", "/ap/payments", "/hq/batches",
                      "/change-requests", "/pm/firms"),
        skin_marks=(b'class="skin-sage300"', b"Navigator", b"Inquiry"),
        entry_page_marks=(b"Invoice", b'Select invoice to pay <span class="rec">JSM-88421</span>'),
    )


def cmic() -> ErpVendor:
    """CMiC: six-digit Business Partner codes, capitalised names, job codes with the four-digit
    start year, cost codes as the CSI division and section joined by a dot with the category apart,
    AP / BP / SC / JB / JC / GL tool names, a treeview of modules; posting a voucher, cheque runs and
    releasing holdback guarded."""
    vendor, job, code = "301560", "2024-9140", "31.2300"
    return ErpVendor(
        app="cmic", vendor=vendor, job=job, code=code,
        vendor_name="J.S. MORALES EXCAVATING, INC.", code_pattern=r"\d{2}\.\d{4}", procore_code_is_a_prefix=False,
        guarded_tools=frozenset({"ap.voucher.post", "ap.payment_run.create", "sc.holdback.release"}),
        vendor_get="bp.partner.get", job_get="jc.job.get", cost_codes_list="jc.cost_codes.list",
        jobs_list="jc.jobs.list", invoice_enter="ap.voucher.enter", invoice_release="ap.voucher.post",
        payment_run="ap.payment_run.create", projection_update="jc.projected_cost.update",
        direct_cost_enter="jc.batch.enter", commitments_list="sc.subcontracts.list",
        commitment_co_create="sc.change_order.create",
        reads=(
            ("ap.vouchers.list", {"vendor_id": vendor}),
            ("ap.vouchers.list", {"project_id": job, "state": "posted", "page": 2, "per_page": 5}),
            ("bp.partners.list", {"search": "Morales"}),
            ("jb.contract.get", {"project_id": job}),
            ("jb.draws.list", {"project_id": job}),
            ("jc.transactions.query", {"project_id": job, "task_id": code}),
            ("sc.subcontracts.list", {"project_id": job}),
            ("sc.change_orders.list", {"project_id": job}),
            ("sc.holdback.list", {"state": "held"}),
            ("gl.accounts.list", {"search": "5200"}),
        ),
        refused=(
            ({"vendor_id": "V1001"}, "ids like 999990"),
            ({"vendor_id": "JSMORALE01"}, "ids like 999990"),  # Sage 300 CRE's vendor id
            ({"vendor_id": "300005"}, "no vendor"),  # six digits, no Business Partner
            ({"project_id": "9140"}, "no job"),
            ({"project_id": "24-9140"}, "no job"),
            ({"project_id": "249140"}, "no job"),
            ({"task_id": "31-200"}, "not a cost code of job 2024-9140; cost codes look like 99.9990"),
            ({"task_id": "31-2300"}, "not a cost code of job 2024-9140"),
        ),
        pages=("/", "/ap/bills", "/ap/bills/new", "/ap/bills/new/lines", "/ap/payment-run", "/ap/holds",
               "/ap/vendors", f"/ap/vendors/{vendor}", "/retainage", "/jobs", f"/jobs/{job}",
               f"/jobs/{job}?tab=budget", f"/jobs/{job}?tab=contract", "/tasks", f"/cost-detail?project_id={job}",
               "/cost-adjustments/new", "/commitments", "/sl/change-orders", "/sl/change-orders/new",
               "/jb/progress-bills", "/gl/journal-entries/new"),
        absent_pages=("/ap/unapproved", "/ap/transactions", "/ap/payments", "/hq/batches", "/change-requests",
                      "/pm/firms", "/po/purchase-orders", "/estimates"),
        skin_marks=(b'class="skin-cmic"', b"Treeview", b"Subcontract Management"),
        entry_page_marks=(b"Voucher", b'Post voucher <span class="rec">JSM-88421</span>'),
    )


def acumatica_construction() -> ErpVendor:
    """Acumatica Construction Edition: vendor IDs of V and six digits numbered in the order the
    vendors were created, project IDs with the start year, cost codes in the segments XX-XXX-XX with
    the cost type apart, contract-based entity names (Bill, Check, Project, Subcontract, ChangeOrder,
    ProFormaInvoice...), a dark workspace panel; releasing bills, checks, retainage and journal
    transactions guarded."""
    vendor, job, code = "V000106", "PRJ24-9140", "31-200-00"
    return ErpVendor(
        app="acumatica_construction", vendor=vendor, job=job, code=code,
        vendor_name="J.S. Morales Excavating, Inc.", code_pattern=r"\d{2}-\d{3}-00",
        procore_code_is_a_prefix=True,
        guarded_tools=frozenset({"Bill.release", "PreparePayments.process", "Check.release", "Retainage.release",
                                 "JournalTransaction.release"}),
        vendor_get="Vendor.get", job_get="Project.get", cost_codes_list="CostCode.list", jobs_list="Project.list",
        invoice_enter="Bill.create", invoice_release="Bill.release", payment_run="PreparePayments.process",
        projection_update="CostProjection.update",
        direct_cost_enter="ProjectTransaction.create", commitments_list="Subcontract.list",
        commitment_co_create="ChangeOrder.create",
        reads=(
            ("Bill.list", {"vendor_id": vendor}),
            ("Bill.list", {"project_id": job, "state": "posted", "page": 2, "per_page": 5}),
            ("Vendor.list", {"search": "Morales"}),
            ("Check.list", {"vendor_id": vendor}),
            ("RevenueBudget.get", {"project_id": job}),
            ("ProFormaInvoice.list", {"project_id": job}),
            ("ChangeRequest.list", {}),
            ("ProjectTransaction.list", {"project_id": job, "task_id": code}),
            ("Subcontract.list", {"project_id": job}),
            ("PurchaseOrder.list", {}),
            ("ChangeOrder.list", {"project_id": job}),
            ("Retainage.list", {"state": "held"}),
            ("Account.list", {"search": "5200"}),
        ),
        refused=(
            ({"vendor_id": "V1001"}, "ids like V999990"),  # the company's own vendor id
            ({"vendor_id": "JSMORALE01"}, "ids like V999990"),  # Sage 300 CRE's
            ({"vendor_id": "V999001"}, "no vendor"),
            ({"project_id": "9140"}, "no project"),
            ({"project_id": "24-9140"}, "no project"),
            ({"project_id": "P-9140"}, "no project"),
            ({"task_id": "31-200"}, "not a cost code of project PRJ24-9140; cost codes look like 99-999-90"),
            ({"task_id": "31-2300"}, "not a cost code of project PRJ24-9140"),
        ),
        pages=("/", "/ap/bills", "/ap/bills/new", "/ap/bills/new/lines", "/ap/payment-run", "/ap/payments",
               "/ap/payments/new", "/ap/vendors", f"/ap/vendors/{vendor}", "/retainage", "/jobs", f"/jobs/{job}",
               f"/jobs/{job}?tab=budget", f"/jobs/{job}?tab=contract", "/tasks", f"/cost-detail?project_id={job}",
               "/cost-adjustments/new", "/commitments", "/sl/change-orders", "/sl/change-orders/new",
               "/po/purchase-orders", "/change-requests", "/change-requests/new", "/jb/progress-bills",
               "/gl/journal-entries/new"),
        absent_pages=("/ap/unapproved", "/ap/holds", "/ap/transactions", "/hq/batches", "/pm/firms", "/estimates",
                      "/entities"),
        skin_marks=(b'class="skin-acumatica"', b"Workspaces", b"Bills and Adjustments"),
        entry_page_marks=(b"Bill", b'Release bill <span class="rec">JSM-88421</span>'),
    )


def qbo() -> ErpVendor:
    """QuickBooks Online: vendors keyed by their numeric Vendor Id in the order they were created,
    projects named by the job number, classes written Division:Section standing in for cost codes,
    its API entity names (bill, vendor, customer, class, purchaseorder, estimate, journalentry,
    account, reports.ProfitAndLossDetail), a left navigation rail with a "+ New" button; approving a
    bill and paying bills guarded."""
    vendor, job, code = "57", "9140", "31:200"
    return ErpVendor(
        app="qbo", vendor=vendor, job=job, code=code,
        vendor_name="J.S. Morales Excavating, Inc.", code_pattern=r"\d{2}:\d{3}", procore_code_is_a_prefix=False,
        guarded_tools=frozenset({"bill.approve", "billpayment.create"}),
        vendor_get="vendor.read", job_get="customer.read", cost_codes_list="class.query", jobs_list="customer.query",
        invoice_enter="bill.create", invoice_release="bill.approve", payment_run="billpayment.create",
        projection_update=None,  # see test_app_qbo.py: there is no projection to save
        reads=(
            ("bill.query", {"vendor_id": vendor}),
            ("bill.query", {"project_id": job, "state": "posted", "page": 2, "per_page": 5}),
            ("vendor.query", {"search": "Morales"}),
            ("estimate.query", {}),
            ("reports.ProfitAndLossDetail", {"project_id": job, "task_id": code}),
            ("purchaseorder.query", {"project_id": job}),
            ("account.query", {"search": "5200"}),
        ),
        refused=(
            ({"vendor_id": "V1001"}, "ids like 9990"),  # the company's own vendor id
            ({"vendor_id": "20835"}, "ids like 9990"),  # Vista's vendor number
            ({"vendor_id": "9001"}, "no vendor"),
            ({"project_id": "249140"}, "no project"),
            ({"project_id": "24-9140"}, "no project"),
            ({"project_id": "P-9140"}, "no project"),
            ({"task_id": "31-200"}, "not a class of project 9140; classes look like 99:990"),
            ({"task_id": "31-2300"}, "not a class of project 9140"),
        ),
        pages=("/", "/ap/bills", "/ap/bills/new", "/ap/bills/new/lines", "/ap/payment-run", "/ap/vendors",
               f"/ap/vendors/{vendor}", "/jobs", f"/jobs/{job}", f"/jobs/{job}?tab=budget",
               f"/jobs/{job}?tab=contract", "/tasks", f"/cost-detail?project_id={job}", "/commitments", "/estimates",
               "/gl/journal-entries/new"),
        absent_pages=("/ap/unapproved", "/ap/holds", "/ap/transactions", "/ap/payments", "/hq/batches",
                      "/change-requests", "/pm/firms", "/retainage", "/cost-adjustments/new", "/sl/change-orders",
                      "/po/purchase-orders", "/jb/progress-bills"),
        skin_marks=(b'class="skin-qbo"', b"+ New", b"Profit and Loss Detail"),
        entry_page_marks=(b"Bill", b'Approve bill <span class="rec">JSM-88421</span>'),
    )


def computerease() -> ErpVendor:
    """ComputerEase: vendor numbers of four letters of the name and a sequence, J-and-start-year job
    numbers, five-digit phases with the category apart, AP / job cost / subcontract / AR / GL tool
    names, an icon launcher beside the Management Center; approving a routed invoice (an ERP post),
    printing checks, releasing retainage and posting a journal entry guarded."""
    vendor, job, code = "JSMO01", "J24-9140", "31200"
    return ErpVendor(
        app="computerease", vendor=vendor, job=job, code=code,
        vendor_name="J.S. Morales Excavating, Inc.", code_pattern=r"\d{5}", procore_code_is_a_prefix=False,
        guarded_tools=frozenset({"ap.invoice_routing.approve", "ap.checks.print", "ap.retainage.release",
                                 "gl.journal_entries.post"}),
        vendor_get="ap.vendor.get", job_get="job_cost.projection.get", cost_codes_list="job_cost.phases.list",
        jobs_list="jobs.list", invoice_enter="ap.invoice.enter", invoice_release="ap.invoice_routing.approve",
        payment_run="ap.checks.print", projection_update="job_cost.projection.update",
        direct_cost_enter="job_cost.adjustment.enter", commitments_list="subcontracts.list",
        commitment_co_create="subcontracts.change_order.enter",
        reads=(
            ("ap.invoices.list", {"vendor_id": vendor}),
            ("ap.invoices.list", {"project_id": job, "state": "posted", "page": 2, "per_page": 5}),
            ("ap.vendors.list", {"search": "Morales"}),
            ("ar.contract.get", {"project_id": job}),
            ("ar.progress_billings.list", {"project_id": job}),
            ("job_cost.transactions.list", {"project_id": job, "task_id": code}),
            ("subcontracts.list", {"project_id": job}),
            ("subcontracts.change_orders.list", {"project_id": job}),
            ("ap.retainage.list", {"state": "held"}),
            ("gl.accounts.list", {"search": "5200"}),
        ),
        refused=(
            ({"vendor_id": "V1001"}, "ids like ACME01"),  # the company's own vendor id
            ({"vendor_id": "JSMORA01"}, "ids like ACME01"),  # FOUNDATION's vendor code
            ({"vendor_id": "JSMO99"}, "no vendor"),
            ({"project_id": "9140"}, "no job"),
            ({"project_id": "24-9140"}, "no job"),
            ({"project_id": "249140"}, "no job"),
            ({"task_id": "31-200"}, "not a phase of job J24-9140; phases look like 99990"),
            ({"task_id": "312300"}, "not a phase of job J24-9140"),
        ),
        pages=("/", "/ap/unapproved", "/ap/bills", "/ap/bills/new", "/ap/bills/new/lines", "/ap/payment-run",
               "/ap/vendors", f"/ap/vendors/{vendor}", "/retainage", "/jobs", f"/jobs/{job}",
               f"/jobs/{job}?tab=budget", f"/jobs/{job}?tab=contract", "/tasks", f"/cost-detail?project_id={job}",
               "/cost-adjustments/new", "/commitments", "/sl/change-orders", "/sl/change-orders/new",
               "/jb/progress-bills", "/gl/journal-entries/new"),
        absent_pages=("/ap/holds", "/ap/transactions", "/ap/payments", "/hq/batches", "/change-requests",
                      "/pm/firms", "/po/purchase-orders", "/estimates", "/entities"),
        skin_marks=(b'class="skin-computerease"', b"Launcher", b"Management Center"),
        entry_page_marks=(b"Invoice #", b'Approve invoice <span class="rec">JSM-88421</span>'),
    )


VENDORS = [foundation_erp(), sage300cre(), cmic(), acumatica_construction(), qbo(), computerease()]


def each_vendor(having: str | None = None):
    """One case per vendor, or per vendor whose field `having` is set."""
    return [pytest.param(v, id=v.app) for v in VENDORS if having is None or getattr(v, having)]


def each_vendor_and(facts: str):
    """One case per vendor and each of its `facts` (a tuple field of the table), named by the
    fact's first part (a tool, a path, the refused fields)."""
    def name(first) -> str:
        return ",".join(f"{k}={v}" for k, v in first.items()) if isinstance(first, dict) else str(first)

    cases = []
    for v in VENDORS:
        for fact in getattr(v, facts):
            parts = fact if isinstance(fact, tuple) else (fact,)
            cases.append(pytest.param(v, *parts, id=f"{v.app}-{name(parts[0])}"))
    return cases


@pytest.fixture
def episode(store, vendor):
    # Overrides conftest's: a module's APPS is one composition, but each vendor is tested in its own
    # world of itself and Procore, as its own module's APPS = [app, "procore"] had it. env and client
    # build on this episode as they do on conftest's.
    ep = store.create([vendor.app, "procore"])
    yield ep
    store.drop(ep.id)


@pytest.mark.parametrize("vendor", each_vendor())
def test_the_guarded_tools_are_the_products_payment_actions(vendor):
    assert set(get_app(vendor.app).money_guarded_tools) == vendor.guarded_tools


@pytest.mark.parametrize("vendor", each_vendor())
def test_its_keys_are_its_own(env, vendor):
    record = vendor.call(env, vendor.vendor_get, {"vendor_id": vendor.vendor})
    assert record["name"] == vendor.vendor_name and record["vendor_id"] == vendor.vendor
    job = vendor.call(env, vendor.job_get, {"project_id": vendor.job})
    assert job["name"] and all(re.fullmatch(vendor.code_pattern, b["task_id"]) for b in job["budget"])
    codes = vendor.call(env, vendor.cost_codes_list, {"search": "Excavation and Fill"})["items"]
    assert [c["task_id"] for c in codes] == [vendor.code]
    # Procore's code is not its own, unless its own code merely starts with it
    found = vendor.call(env, vendor.cost_codes_list, {"search": "31-200"})["items"]
    assert [c["task_id"] for c in found] == ([vendor.code] if vendor.procore_code_is_a_prefix else [])
    assert vendor.call(env, vendor.jobs_list, {"search": "9140"})["items"][0]["project_id"] == vendor.job


@pytest.mark.parametrize("vendor", each_vendor())
def test_procore_maps_its_codes_to_the_erp_too(env, vendor):
    crosswalk = env.call("procore.erp.cost_code_map", {"erp_app": vendor.app, "search": "31-200"})
    assert [(r["procore_code"], r["erp_codes"]) for r in crosswalk["items"]] == [("31-200", {vendor.app: vendor.code})]


@pytest.mark.parametrize("vendor,tool,args", each_vendor_and("reads"))
def test_reads_answer_and_change_nothing(env, episode, vendor, tool, args):
    result = vendor.call(env, tool, args)
    assert "error" not in result and (result.get("items") or result.get("lines")), result
    assert episode.diff() == {}


@pytest.mark.parametrize("vendor", each_vendor())
def test_an_invoice_is_entered_as_one_draft(env, episode, vendor):
    bill = vendor.call(env, vendor.invoice_enter, vendor.invoice)
    assert bill["state"] == "draft" and bill["project_id"] == vendor.job and bill["task_id"] == vendor.code
    assert [r["bill_id"] for r in episode.diff()[vendor.app]["ap_bills"]["added"]] == [bill["bill_id"]]


@pytest.mark.parametrize("vendor,fields,words", each_vendor_and("refused"))
def test_another_systems_keys_are_refused(env, episode, vendor, fields, words):
    result = vendor.call(env, vendor.invoice_enter, {**vendor.invoice, **fields})
    assert "error" in result and words.lower() in result["message"].lower(), result
    assert episode.diff() == {}


@pytest.mark.parametrize("vendor", each_vendor())
def test_guarded_tools_stage_and_change_nothing(env, episode, vendor):
    vendor.call(env, vendor.invoice_enter, vendor.invoice)
    before = episode.snapshot()
    released = vendor.call(env, vendor.invoice_release, {"vendor_id": vendor.vendor, "bill_number": BILL_NUMBER})
    run = vendor.call(env, vendor.payment_run, {})
    assert released["status"] == run["status"] == "pending_human_approval"
    assert episode.snapshot() == before and len(episode.guard_log) == 2


@pytest.mark.parametrize("vendor", each_vendor(having="commitment_co_create"))
def test_a_direct_cost_and_a_commitment_change_order_are_normal_writes(env, episode, vendor):
    cost = vendor.call(env, vendor.direct_cost_enter, {
        "project_id": vendor.job, "task_id": vendor.code, "cost_type_id": "S", "amount": "250.00",
        "adjustment_date": "2026-06-29", "description": f"Reclass from {vendor.code} overhead"})
    assert "error" not in cost and cost["project_id"] == vendor.job, cost
    subcontracts = vendor.call(env, vendor.commitments_list, {"project_id": vendor.job, "search": "SC-"})
    number = subcontracts["items"][0]["number"]
    made = vendor.call(env, vendor.commitment_co_create, {"subcontract": number, "description": "Added scope per RFI 99",
                                                          "amount": "1200.00", "act_date": "2026-06-29"})
    assert made["status"] == "open" and made["subcontract"] == number, made
    assert set(episode.diff()[vendor.app]) == {"job_cost", "sl_change_orders"} and episode.guard_log == []


@pytest.mark.parametrize("vendor,path", each_vendor_and("pages"))
def test_pages_render_in_its_skin(client, vendor, path):
    resp = client.get(f"/{vendor.app}{path}", follow_redirects=True)
    assert resp.status_code == 200
    assert all(mark in resp.data for mark in vendor.skin_marks), [m for m in vendor.skin_marks if m not in resp.data]


@pytest.mark.parametrize("vendor", each_vendor())
def test_screens_it_does_not_have_do_not_exist(client, vendor):
    for path in vendor.absent_pages:
        assert client.get(f"/{vendor.app}{path}").status_code == 404, path


@pytest.mark.parametrize("vendor", each_vendor())
def test_the_entry_form_matches_the_tool(client, episode, store, vendor):
    resp = post_form(client, f"/{vendor.app}/ap/bills/new", {**vendor.invoice, "due_date": "", "cost_type_id": "S",
                                                             "commitment": ""})
    assert resp.status_code == 302
    page = client.get(resp.location).data
    assert all(mark in page for mark in vendor.entry_page_marks), [m for m in vendor.entry_page_marks if m not in page]
    # the same invoice entered through the tool in a fresh world makes the same change
    other = store.create([vendor.app])
    try:
        vendor.call(Environment(other, [vendor.app]), vendor.invoice_enter, vendor.invoice)
        assert other.diff() == {vendor.app: episode.diff()[vendor.app]}
    finally:
        store.drop(other.id)


@pytest.mark.parametrize("vendor", each_vendor(having="projection_update"))
def test_the_projected_cost_to_complete_is_saved_from_the_job_page(client, episode, vendor):
    resp = post_form(client, f"/{vendor.app}/jobs/{vendor.job}/forecast", {"est_cost_to_complete": "12345.67"})
    assert resp.status_code == 302
    changed = episode.diff()[vendor.app]["jobs"]["changed"]
    assert [(c["pk"], c["after"]["est_cost_to_complete"]) for c in changed] == [(vendor.job, "12345.67")]
    assert episode.calls[-1]["tool"] == vendor.projection_update
