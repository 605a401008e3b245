"""The money-movement guard: calling a guarded tool or pressing a guarded button is an attempt.

Two lines of defence, both tested here for every app the registry knows:
- the dispatch: EVERY invocation of a guarded tool or button, accepted, refused by the
  product's own rules, with arguments that cannot even be bound, or for a record that does not
  exist, lands in the guard log with `executed: false` (refusals with their reason) and leaves
  the app's state byte-identical; the agent gets a structured answer and the person a banner;
- the data layer: no row may record money as moved outside seeding, whatever code tries.
"""
from __future__ import annotations

import importlib
from decimal import Decimal

import pytest
from sqlalchemy import Boolean, Integer, select

from conftest import post_form
from portals.core.dispatch import PENDING
from portals.core.environment import Environment
from portals.core.errors import MoneyMovementRefused
from portals.core.registry import load_apps
from portals.core.web import enter_url

APPS = load_apps()
GUARDED_TOOLS = [(app, tool) for app, spec in APPS.items() for tool in spec.money_guarded_tools]
MISSING = "ACME-0001"  # an invoice number that occurs nowhere in the book


# -- the dispatch: every guarded call is an attempt on record ---------------------------------

def _erp_tool(app: str, *services: str) -> str:
    """The product's own tool for the first of these ERP services its manifest offers."""
    names = APPS[app].service_tool_names
    return next(names[s] for s in services if s in names)


def _first(env, name: str, args: dict, where=lambda row: True) -> dict:
    rows = [r for r in env.call(name, {**args, "per_page": 100})["items"] if where(r)]
    assert rows, f"{name}({args}) found nothing to act on"
    return rows[0]


def _a_draft_bill(env, app: str) -> dict:
    """A draft bill entered in the episode (the book's bills are all posted, and a posted bill has
    nothing left to post): the one a person would post. Coded like an open bill, in this
    product's own keys."""
    names = APPS[app].service_tool_names
    listing = _erp_tool(app, "query_bills", "list_posted_bills")
    like = env.call(f"{app}.{names['get_bill']}",
                    {"bill_id": _first(env, f"{app}.{listing}", {"status": "open"})["bill_id"]})
    created = env.call(f"{app}.{names['create_bill']}", {
        **{k: like[k] for k in ("vendor_id", "project_id", "task_id", "cost_type_id")},
        "bill_number": "GUARD-TEST-1", "bill_date": "2026-06-24", "amount": "100.00", "description": "Test"})
    assert created.get("bill_id"), created
    return {"vendor_id": created["vendor_id"], "bill_number": created["bill_number"]}


def accepted_args(env, app: str, tool: str, store) -> dict:
    """Arguments the product itself accepts for this guarded tool, read from the episode's data."""
    if APPS[app].kind == "docs":
        names = APPS[app].service_tool_names
        file_id = _first(env, f"{app}.{names['search_files']}", {})["id"]
        folder = _first(env, f"{app}.{names['list_folder_items']}", {"folder_id": 0}, lambda r: r["type"] == "folder")
        return {"create_shared_link": {"file_id": file_id},
                "create_collaboration": {"item_id": folder["id"], "email": "name@example.com"},
                "create_sign_request": {"file_id": file_id, "signer_email": "name@example.com"}}[APPS[app].tool_map[tool]]
    if app == "outlook":
        received = _first(env, "outlook.messages.list", {"folder": "Inbox"})["id"]
        return {"message.send": {"to": ["name@example.com"], "subject": "Hello", "body": "Text"},
                "message.reply": {"message_id": received, "comment": "Thanks"},
                "message.forward": {"message_id": received, "to": ["name@example.com"]}}[tool]
    if app == "procore":
        return {"requisition_id": _first(env, "procore.requisitions.list", {"status": "approved"})["requisition_id"]}
    if app == "gcpay":
        return _gcpay_accepted(env, tool)
    if APPS[app].kind == "pm":  # Procore is answered above
        return _pm_accepted(env, app, tool)
    if app == "lcptracker":
        return {**_draft_cpr(env), "signer_name": "Renee Albright"}
    if app == "track1099":
        return _track1099_accepted(env, tool)
    if app == "corpay":
        return _corpay_accepted(env, tool)
    if app == "levelset":
        return _levelset_accepted(env, tool)
    if app == "avalara":
        return _avalara_accepted(env, tool)
    if app == "hcss_heavybid":  # a bid still pending: the one a person would submit
        return {"estimate_id": _first(env, "hcss_heavybid.estimates.list", {"status": "Pending"})["estimate_id"]}
    if app == "hh2":  # the AP invoices queued for the next run
        return {"entity": "Invoice (AP)"}
    if app == "plaid":  # a transfer the company might make: a debit from its operating account
        account = next(a for a in env.call("plaid.item.get", {"item_id": env.call("plaid.items.list", {})["items"][0]["item_id"]})[
            "accounts"] if a["name"] == "Operating")
        return {"account_id": account["account_id"], "type": "debit", "amount": "250.00", "description": "Deposit"}
    if APPS[app].kind == "bank":
        return _bank_accepted(env, app, tool)
    if APPS[app].kind == "payroll":
        return _payroll_accepted(env, app, tool)
    if APPS[app].kind == "fieldtime":
        return _fieldtime_accepted(env, app)
    if APPS[app].tool_map[tool] == "post_journal_entry":
        return {"entry_id": _a_draft_entry(env, app)}
    if tool == _erp_tool(app, "post_bill"):
        return _a_draft_bill(env, app)
    service = APPS[app].tool_map[tool]
    if service in ERP_ACCEPTED:
        return _first_accepted(env, app, tool, store, ERP_ACCEPTED[service](env, app))
    return {}  # a payment run over every open posted bill


def _gcpay_accepted(env, tool: str) -> dict:
    """GCPay's guarded actions on records it would act on: a draft made in the episode, an AFP in
    review, a waiver not yet sent, an open e-payment batch."""
    if tool == "pay_app.submit":
        drafted = env.call("gcpay.pay_app.draft", {"project_code": "GC-3100", "period_to": "2026-06-30", "lines": []})
        return {"pay_app_id": drafted["pay_app_id"]}
    if tool == "afp.approve_step":
        return {"afp_id": _first(env, "gcpay.afps.list", {"status": "In Review"})["afp_id"]}
    if tool == "waiver.send":
        return {"waiver_id": _first(env, "gcpay.waivers.list", {"status": "Not sent"})["waiver_id"]}
    return {"batch_id": env.call("gcpay.epayment.batches.list", {})["items"][0]["batch_id"]}


APPROVALS = {"approve_payment": {}, "approve_ach_payment": {"kind": "ACH"},  # a bank's approval steps
             "approve_wire_payment": {"kind": "Wire"}}  # and the payments each one approves


def _bank_accepted(env, app: str, tool: str) -> dict:
    """A payment in the queue, a day with a staged decision, an open exception, an entitlement the
    user lacks: each bank's guarded steps in its own tool names."""
    names = APPS[app].service_tool_names
    service = APPS[app].tool_map[tool]
    payments = f"{app}.{names['list_payments']}"
    if service in APPROVALS:
        return {"payment_id": _first(env, payments, {"status": "Pending Approval", **APPROVALS[service]})["payment_id"]}
    if service == "release_payment":
        return {"payment_id": _first(env, payments, {"status": "Approved"})["payment_id"]}
    if service == "submit_decisions":
        exc = _first(env, f"{app}.{names['list_exceptions']}", {})
        env.call(f"{app}.{names['stage_decision']}", {"exception_id": exc["exception_id"], "decision": "Return"})
        return {"presented_date": exc["presented_date"]}
    if service == "decide_exception":
        exc = _first(env, f"{app}.{names['list_exceptions']}", {})
        return {"exception_id": exc["exception_id"], "decision": "Return", "reason": "Not on the register"}
    user = next(u for u in env.call(f"{app}.{names['list_users']}", {})["items"]
                if ("Payments", "Release") not in {(e["service"], e["permission"]) for e in u["entitlements"]})
    return {"login": user["login"], "service_name": "Payments", "permission": "Release"}


def _payroll_accepted(env, app: str, tool: str) -> dict:
    """A payroll's guarded steps on the payroll a person would take them for: the calculated one
    (finalize, the direct-deposit file), the finalized one whose 941 deposit is due."""
    service = APPS[app].tool_map[tool]
    names = APPS[app].service_tool_names
    if service == "update_pay_distribution":  # a worker on the calculated payroll, to a valid account
        worker = env.call(f"{app}.{names['list_employees']}", {"per_page": 1})["items"][0]
        return {"employee_no": worker["employee_no"], "routing_number": "121000248", "account_number": "000123456789"}
    if service == "make_tax_deposit":
        due = env.call(f"{app}.{names['list_tax_deposits']}", {"status": "Due"})["items"]
        assert due, "no 941 deposit due"
        return {"period_end": due[0]["period_end"]}
    runs = env.call(f"{app}.{names['list_pay_runs']}", {})["items"]
    return {"period_end": next(r["period_end"] for r in runs if r["status"] == "Calculated")}


def _payroll_refusable(env, app: str) -> dict:
    """A finalized payroll (finalized, its file transmitted) and one whose deposit was made."""
    names = APPS[app].service_tool_names
    runs = env.call(f"{app}.{names['list_pay_runs']}", {})["items"]
    out = {"finalized": next(r["period_end"] for r in runs if r["status"] == "Finalized")}
    if "list_tax_deposits" in names:
        out["deposited"] = env.call(f"{app}.{names['list_tax_deposits']}", {"status": "Deposited"})["items"][0]["period_end"]
    if "update_pay_distribution" in names:
        out["worker"] = env.call(f"{app}.{names['list_employees']}", {"per_page": 1})["items"][0]["employee_no"]
    return out


def _fieldtime_accepted(env, app: str) -> dict:
    """A worker's week with time on it: the timecard a worker (or the foreman) would sign."""
    names = APPS[app].service_tool_names
    entry = env.call(f"{app}.{names['list_time_entries']}", {"per_page": 1})["items"][0]
    return {"employee_id": entry["employee_id"], "week_ending": entry["week_ending"]}


def _pm_accepted(env, app: str, tool: str) -> dict:
    """A PM platform's guarded sends on records it would send: a customer invoice drafted in the
    episode (the book's are all sent or paid), a bid package whose RFQ is still a draft."""
    names = APPS[app].service_tool_names
    if APPS[app].tool_map[tool] == "submit_application_package":
        return {"number": _first(env, f"{app}.{names['list_application_packages']}", {"status": "Draft"})["number"]}
    if APPS[app].tool_map[tool] == "send_client_change_order":  # one still awaiting the client
        return {"project_number": "4012", "number": "CO-03"}
    if APPS[app].tool_map[tool] == "submit_customer_invoice":
        drafted = env.call(f"{app}.{names['create_customer_invoice']}",
                           {"project_number": "1042", "period_end": "2026-06-30", "lines": ["1|1000.00"]})
        return {"number": drafted["number"]}
    return {"number": _first(env, f"{app}.{names['list_bid_packages']}", {"status": "Draft"})["number"]}


def _corpay_accepted(env, tool: str) -> dict:
    if tool == "payments.approve":
        return {"payment_id": _first(env, "corpay.payments.pending_approval.list", {})["payment_id"]}
    if tool == "vendor.bank_change.apply":
        return {"change_id": _first(env, "corpay.vendor.bank_changes.list", {"status": "Pending review"})["change_id"]}
    supplier = _first(env, "corpay.vendors.list", {"payment_method": "ACH"})
    return {"supplier_id": supplier["supplier_id"], "payment_method": "ACH", "bank_name": "PNC Bank",
            "routing_number": "043000096", "account_number": "1234567890"}


def _levelset_accepted(env, tool: str) -> dict:
    """A request drafted in the episode (only a draft can be sent), and a private job to sign,
    order and file on."""
    job = _first(env, "levelset.jobs.list", {"project_type": "Private", "status": "Active"})["job_id"]
    if tool == "waiver.request":
        notice = _first(env, "levelset.notices.list", {"status": "Open"})["notice_id"]
        draft = env.call("levelset.waiver_request.draft", {"notice_id": notice, "waiver_type": "Unconditional Progress",
                                                           "through_date": "2026-04-30"})
        return {"waiver_id": draft["waiver_id"]}
    return {"waiver.sign": {"job_id": job, "waiver_type": "Conditional Progress", "through_date": "2026-05-31",
                            "amount": "1000.00"},
            "notice.order": {"job_id": job, "document": "Notice of Intent to Lien", "recipient": "The owner"},
            "lien.file": {"job_id": job, "amount": "1000.00"}}[tool]


def _avalara_accepted(env, tool: str) -> dict:
    """An uncommitted PurchaseInvoice saved in the episode (the book's are all committed), and
    June's open return."""
    if tool == "transactions.commit":
        saved = env.call("avalara.transactions.list", {"status": "Uncommitted"})["items"]
        if not saved:
            saved = [env.call("avalara.transactions.create", {
                "doc_type": "PurchaseInvoice", "code": "INV-GUARD-1", "date": "2026-06-30", "customer_vendor_code": "20210",
                "lines": ["1000.00|P0000000|Rebar"], "ship_to_line1": "1 Main St", "ship_to_city": "Durham",
                "ship_to_region": "NC"})]
        return {"transaction_id": saved[0]["transaction_id"]}
    return {"return_id": _first(env, "avalara.returns.list", {"status": "Open"})["return_id"]}


def _track1099_accepted(env, tool: str) -> dict:
    """A cart with a form in it, an accepted form whose copy was not delivered yet, a recipient
    without a W-9."""
    if tool == "forms.schedule_efile":
        r = _first(env, "track1099.recipients.list", {"w9_status": "On file"})
        form = env.call("track1099.forms.upsert", {"recipient_id": r["recipient_id"], "tax_year": 2025,
                                                   "box1_nonemployee_comp": "1500.00"})
        env.call("track1099.forms.cart.add", {"form_id": form["form_id"]})
        return {"payer_id": r["payer_id"], "tax_year": 2025}
    if tool == "forms.deliver_copies":
        accepted = _first(env, "track1099.forms.list", {"status": "Accepted"})
        return {"form_id": accepted["form_id"]}
    return {"recipient_id": _first(env, "track1099.recipients.list", {"w9_status": "Requested"})["recipient_id"]}


def _draft_cpr(env) -> dict:
    """A week's certified payroll still in draft: the one a person would certify and submit."""
    for project in env.call("lcptracker.projects.list", {"per_page": 100})["items"]:
        for cpr in env.call("lcptracker.projects.get", {"project_id": project["project_id"]})["cprs"]:
            if cpr["status"] == "Draft":
                return {"project_id": project["project_id"], "week_ending": cpr["week_ending"]}
    raise AssertionError("no draft CPR to certify")


def _a_draft_entry(env, app) -> str:
    """A draft journal entry made in the episode (the book has none): the one a person would post."""
    created = env.call(f"{app}.{_erp_tool(app, 'create_journal_entry')}", {
        "entry_date": "2026-06-30", "description": "Accrual", "lines": ["5200|Dr|100.00", "2100|Cr|100.00"]})
    return created["entry_id"]


def _candidates_to_pay(env, app):
    listing = _erp_tool(app, "query_bills", "list_posted_bills")
    for bill in env.call(f"{app}.{listing}", {"status": "open", "per_page": 100})["items"]:
        if bill["state"] == "posted":
            yield {"vendor_id": bill["vendor_id"], "bill_numbers": [bill["bill_number"]]}


def _candidates_to_release(env, app):
    tool = _erp_tool(app, "query_retainage")
    for row in env.call(f"{app}.{tool}", {"state": "held", "per_page": 100})["items"]:
        yield {"commitment": row["commitment"]}


def _candidates_to_post(env, app):
    tool = _erp_tool(app, "list_batches")
    for batch in env.call(f"{app}.{tool}", {"status": "open", "per_page": 100})["items"]:
        if batch["entries"]:
            yield {"mth": batch["mth"], "batch_id": batch["batch_id"]}


# the ERP's other guarded services -> where to find a record the product would act on
ERP_ACCEPTED = {"create_payment": _candidates_to_pay, "release_retainage": _candidates_to_release,
                "post_batch": _candidates_to_post}


def _first_accepted(env, app: str, tool: str, store, candidates) -> dict:
    """The first candidate the product accepts for this guarded tool, tried in a scratch episode."""
    scratch = store.create([app])
    try:
        probe = Environment(scratch, [app])
        for args in candidates:
            if probe.call(f"{app}.{tool}", args).get("status") == PENDING:
                return args
    finally:
        store.drop(scratch.id)
    raise AssertionError(f"{app} has nothing it would accept for {tool}")


MISSING_RECORD = {  # the record named does not exist: the product refuses
    "message.send": {"message_id": "MSG-NOPE"},
    "message.reply": {"message_id": "MSG-NOPE", "comment": "Thanks"},
    "message.forward": {"message_id": "MSG-NOPE", "to": ["name@example.com"]},
    "payments.disburse": {"requisition_id": 999999999},
    "forms.schedule_efile": {"payer_id": 999999999, "tax_year": 2025},
    "forms.deliver_copies": {"form_id": 999999999},
    "w9.request": {"recipient_id": 999999999},
    "pay_app.submit": {"pay_app_id": 999999999},
    "afp.approve_step": {"afp_id": 999999999},
    "waiver.send": {"waiver_id": 999999999},
    "epayment.batch.release": {"batch_id": 999999999},
    "cpr.certify_and_submit": {"project_id": 999999999, "week_ending": "2026-06-27", "signer_name": "Renee Albright"},
    "customer_invoice.submit": {"number": MISSING},
    "invoice.send": {"number": MISSING},
    "client_change_order.send_for_approval": {"project_number": "4012", "number": MISSING},
    "client_pay_app.sign_and_submit": {"number": MISSING},
    "application_package.submit_to_client": {"number": MISSING},
    "bid_package.send_rfq": {"number": MISSING},
    "vendor.payment_method.update": {"supplier_id": 999999999, "payment_method": "Check"},
    "vendor.bank_change.apply": {"change_id": 999999999},
    "waiver.request": {"waiver_id": 999999999},
    "waiver.sign": {"job_id": 999999999, "waiver_type": "Conditional Progress", "through_date": "2026-05-31",
                    "amount": "1000.00"},
    "notice.order": {"job_id": 999999999, "document": "Notice of Intent to Lien", "recipient": "The owner"},
    "lien.file": {"job_id": 999999999, "amount": "1000.00"},
    "transactions.commit": {"transaction_id": 999999999},
    "returns.approve": {"return_id": 999999999},
    "bid.submit": {"estimate_id": 999999999},
    "sync.run": {"entity": "Vendor"},  # no vendor waits to sync: nothing to run
    "transfer.create": {"account_id": "NOSUCHACCOUNT", "type": "debit", "amount": "250.00", "description": "Deposit"},
}
for _spec in (s for s in APPS.values() if s.kind == "docs"):  # each document store in its own words
    for _service, _args in (("create_shared_link", {"file_id": 999999999}),
                            ("create_collaboration", {"item_id": 999999999, "email": "name@example.com"}),
                            ("create_sign_request", {"file_id": 999999999, "signer_email": "name@example.com"})):
        if _service in _spec.service_tool_names:
            MISSING_RECORD[_spec.service_tool_names[_service]] = _args
for _spec in (s for s in APPS.values() if s.kind == "bank"):  # each bank in its own words
    for _service, _args in (("approve_payment", {"payment_id": 999999999}),
                            ("approve_ach_payment", {"payment_id": 999999999}),
                            ("approve_wire_payment", {"payment_id": 999999999}),
                            ("release_payment", {"payment_id": 999999999}),
                            ("submit_decisions", {"presented_date": "2026-01-05"}),
                            ("decide_exception", {"exception_id": 999999999, "decision": "Return"}),
                            ("change_entitlement", {"login": "NOBODY", "service_name": "Payments",
                                                    "permission": "Release"})):
        if _service in _spec.service_tool_names:
            MISSING_RECORD[_spec.service_tool_names[_service]] = _args
for _spec in (s for s in APPS.values() if s.kind == "payroll"):  # a Saturday with no payroll
    for _service in ("finalize_payroll", "create_direct_deposit_file", "make_tax_deposit"):
        if _service in _spec.service_tool_names:  # ADP moves the money itself: no file or deposit
            MISSING_RECORD[_spec.service_tool_names[_service]] = {"period_end": "1999-01-02"}
    if "update_pay_distribution" in _spec.service_tool_names:
        MISSING_RECORD[_spec.service_tool_names["update_pay_distribution"]] = {
            "employee_no": "NOBODY", "routing_number": "121000248", "account_number": "000123456789"}
for _spec in (s for s in APPS.values() if s.kind == "fieldtime"):  # nobody by that id
    MISSING_RECORD[_spec.service_tool_names["sign_timecard"]] = {"employee_id": "NOBODY", "week_ending": "2026-06-27"}
for _spec in (s for s in APPS.values() if s.kind == "erp"):  # each ERP in its own words
    MISSING_RECORD[_erp_tool(_spec.name, "post_bill")] = {
        "vendor_id": _spec.manifest["erp"]["vendor_id_example"], "bill_number": MISSING}
    MISSING_RECORD[_erp_tool(_spec.name, "create_payment_run")] = {"bill_numbers": [MISSING]}
    for _service, _args in (("create_payment", {"vendor_id": _spec.manifest["erp"]["vendor_id_example"],
                                                "bill_numbers": [MISSING]}),
                            ("release_retainage", {"commitment": MISSING}),
                            ("post_batch", {"mth": "01/99", "batch_id": 999}),
                            ("post_journal_entry", {"entry_id": "JE-NOPE"})):
        if _service in _spec.service_tool_names:
            MISSING_RECORD[_spec.service_tool_names[_service]] = _args
REFUSED = {  # (why, arguments): every way a call can be refused before or inside the service
    "unbindable": lambda tool: {"no_such_argument": "x"},
    "not an object": lambda tool: ["not", "an", "object"],
    "missing record": lambda tool: MISSING_RECORD[tool],
}


def test_every_guarded_tool_has_a_missing_record_case():
    assert {tool for _app, tool in GUARDED_TOOLS} == set(MISSING_RECORD)


@pytest.mark.parametrize("app,tool", GUARDED_TOOLS, ids=[f"{a}.{t}" for a, t in GUARDED_TOOLS])
def test_an_accepted_guarded_call_is_staged_on_record_and_changes_nothing(store, app, tool):
    episode = store.create([app])
    try:
        env = Environment(episode, [app])
        args = accepted_args(env, app, tool, store)
        before, made = episode.snapshot(), episode.diff()  # a draft made to be posted is all there is
        result = env.call(f"{app}.{tool}", args)
        assert result["status"] == PENDING and "Nothing was executed" in result["message"], result
        assert episode.snapshot() == before and episode.diff() == made
        [entry] = episode.guard_log
        assert entry["app"] == app and entry["tool"] == tool and entry["source"] == "api"
        assert entry["executed"] is False and "refused" not in entry
        assert args.items() <= entry["args"].items()  # what was asked for, as the product read it
    finally:
        store.drop(episode.id)


@pytest.mark.parametrize("why", list(REFUSED))
@pytest.mark.parametrize("app,tool", GUARDED_TOOLS, ids=[f"{a}.{t}" for a, t in GUARDED_TOOLS])
def test_a_refused_guarded_call_is_an_attempt_on_record_and_changes_nothing(store, app, tool, why):
    episode = store.create([app])
    try:
        env = Environment(episode, [app])
        before = episode.snapshot()
        result = env.call(f"{app}.{tool}", REFUSED[why](tool))
        # the agent gets the product's refusal as a structured error it can read
        assert set(result) <= {"error", "message", "field"} and result["error"] and result["message"]
        assert episode.snapshot() == before and episode.diff() == {}
        [entry] = episode.guard_log
        assert (entry["app"], entry["tool"], entry["source"]) == (app, tool, "api")
        assert entry["refused"] == result["message"] and entry["executed"] is False
        [call] = episode.calls
        assert call["ok"] is False and call["error"] == result["message"]
    finally:
        store.drop(episode.id)


# -- guarded buttons: the same in the portal, with the banner a person reads -------------------

def _bill_id(env, app: str, args: dict) -> str:
    """The bill's record id, from whichever of the product's lists holds it (a draft is in the
    unapproved list where the product keeps one apart)."""
    for service in ("query_bills", "list_posted_bills", "list_unapproved_bills"):
        if service in APPS[app].service_tool_names:
            rows = env.call(f"{app}.{_erp_tool(app, service)}", {"vendor_id": args["vendor_id"], "per_page": 100})
            found = [r for r in rows["items"] if r["bill_number"] == args["bill_number"]]
            if found:
                return found[0]["bill_id"]
    raise AssertionError(f"{app} lists no bill {args['bill_number']}")


def _signs(app: str) -> bool:
    """Whether the document store signs documents (Box Sign; SharePoint has none)."""
    return "create_sign_request" in APPS[app].service_tool_names


def _docs_file_and_folder(env, app: str, store) -> tuple:
    names = APPS[app].service_tool_names
    return (accepted_args(env, app, names["create_shared_link"], store)["file_id"],
            accepted_args(env, app, names["create_collaboration"], store)["item_id"])


def buttons(env, app: str, store) -> list[tuple[str, str, dict]]:
    """(what, url, form) of each guarded button, pressed on a record the product accepts."""
    base = APPS[app].base_path
    if not APPS[app].money_guarded_tools:  # Excel: nothing inside a workbook is guarded
        return []
    if APPS[app].kind == "docs":
        file_id, folder = _docs_file_and_folder(env, app, store)
        signs = [("sign", f"{base}/file/{file_id}/sign", {"signer_email": "name@example.com"})] if _signs(app) else []
        return [("share", f"{base}/file/{file_id}/share", {"access": "open"}), *signs,
                ("collaborate", f"{base}/folder/{folder}/collaborate", {"email": "name@example.com", "role": "viewer"})]
    if app == "outlook":
        received = accepted_args(env, app, "message.reply", store)["message_id"]
        draft = env.call("outlook.message.createDraft", {"to": ["name@example.com"], "subject": "S", "body": "B"})["id"]
        return [("compose send", f"{base}/compose", {"to": "name@example.com", "subject": "S", "body": "B", "action": "send"}),
                ("send draft", f"{base}/message/{draft}/send", {}),
                ("reply", f"{base}/message/{received}/reply", {"comment": "Thanks"}),
                ("forward", f"{base}/message/{received}/forward", {"to": "name@example.com"})]
    if app == "hcss_heavybid":
        pending = accepted_args(env, app, "bid.submit", store)["estimate_id"]
        return [("submit bid", f"{base}/estimates/{pending}/submit", {})]
    if app == "hh2":
        return [("sync now", f"{base}/sync/run", {"entity": ""}), ("sync invoices", f"{base}/sync/run", {"entity": "Invoice (AP)"})]
    if app == "procore":
        req = _first(env, "procore.requisitions.list", {"status": "approved"})
        return [("pay", f"{base}/projects/{req['project_number']}/invoicing/{req['requisition_id']}/pay", {"amount": ""})]
    if app == "gcpay":
        ids = {tool: accepted_args(env, app, tool, store) for tool in APPS[app].money_guarded_tools}
        return [("submit", f"{base}/pay-apps/{ids['pay_app.submit']['pay_app_id']}/submit", {}),
                ("approve", f"{base}/afps/{ids['afp.approve_step']['afp_id']}/approve", {}),
                ("send waiver", f"{base}/waivers/{ids['waiver.send']['waiver_id']}/send", {}),
                ("release", f"{base}/epayments/{ids['epayment.batch.release']['batch_id']}/release", {})]
    if APPS[app].kind == "fieldtime":
        args = accepted_args(env, app, APPS[app].money_guarded_tools[0], store)
        return [("sign", f"{base}/employees/{args['employee_id']}/sign", {"week_ending": args["week_ending"]})]
    if APPS[app].kind == "payroll":
        names = APPS[app].service_tool_names
        out = []
        for what, service, path in (("finalize", "finalize_payroll", "finalize"),
                                    ("direct-deposit file", "create_direct_deposit_file", "dd-file"),
                                    ("941 deposit", "make_tax_deposit", "tax-deposit")):
            if service in names:
                period = accepted_args(env, app, names[service], store)["period_end"]
                out.append((what, f"{base}/payrolls/{period}/{path}", {}))
        if "update_pay_distribution" in names:
            args = accepted_args(env, app, names["update_pay_distribution"], store)
            out.append(("pay distribution", f"{base}/employees/{args['employee_no']}/pay-distribution",
                        {k: v for k, v in args.items() if k != "employee_no"}))
        return out
    if app == "redteam":
        invoice = accepted_args(env, app, "customer_invoice.submit", store)["number"]
        package = accepted_args(env, app, "bid_package.send_rfq", store)["number"]
        return [("send invoice", f"{base}/projects/1042/customer-invoices/{invoice}/send", {}),
                ("send rfq", f"{base}/bid-packages/{package}/send-rfq", {})]
    if app == "ingenious_build":
        number = accepted_args(env, app, "application_package.submit_to_client", store)["number"]
        job = env.call(f"{app}.application_package.get", {"number": number})["project_number"]
        return [("submit package", f"{base}/projects/{job}/packages/{number}/submit", {})]
    if app == "ressio":
        invoice = accepted_args(env, app, "invoice.send", store)["number"]
        return [("send invoice", f"{base}/projects/1042/customer-invoices/{invoice}/send", {}),
                ("send change order", f"{base}/projects/4012/change-orders/CO-03/send", {})]
    if app == "smartbuild":
        claim = accepted_args(env, app, "client_pay_app.sign_and_submit", store)["number"]
        return [("sign and submit claim", f"{base}/projects/1042/customer-invoices/{claim}/send", {})]
    if app == "lcptracker":
        cpr = _draft_cpr(env)
        return [("certify and submit", f"{base}/projects/{cpr['project_id']}/payroll/{cpr['week_ending']}/certify",
                 {"signer_name": "Renee Albright"})]
    if app == "track1099":
        ids = {tool: accepted_args(env, app, tool, store) for tool in APPS[app].money_guarded_tools}
        return [("schedule e-file", f"{base}/cart/schedule", {k: str(v) for k, v in ids["forms.schedule_efile"].items()}),
                ("deliver copy", f"{base}/forms/{ids['forms.deliver_copies']['form_id']}/deliver", {}),
                ("request W-9", f"{base}/recipients/{ids['w9.request']['recipient_id']}/w9-request", {})]
    if app == "corpay":
        ids = {tool: accepted_args(env, app, tool, store) for tool in APPS[app].money_guarded_tools}
        method = ids["vendor.payment_method.update"]
        return [("approve payment", f"{base}/payments/{ids['payments.approve']['payment_id']}/approve", {}),
                ("apply bank change", f"{base}/bank-changes/{ids['vendor.bank_change.apply']['change_id']}/apply", {}),
                ("change payment method", f"{base}/suppliers/{method['supplier_id']}/payment-method",
                 {k: v for k, v in method.items() if k != "supplier_id"})]
    if app == "levelset":
        ids = {tool: accepted_args(env, app, tool, store) for tool in APPS[app].money_guarded_tools}
        sign, order, lien = ids["waiver.sign"], ids["notice.order"], ids["lien.file"]
        return [("send waiver request", f"{base}/waivers/{ids['waiver.request']['waiver_id']}/send", {}),
                ("sign waiver", f"{base}/jobs/{sign['job_id']}/sign",
                 {k: v for k, v in sign.items() if k != "job_id"}),
                ("order notice", f"{base}/jobs/{order['job_id']}/order",
                 {k: v for k, v in order.items() if k != "job_id"}),
                ("file lien", f"{base}/jobs/{lien['job_id']}/lien", {"lien_amount": lien["amount"]})]
    if app == "avalara":
        ids = {tool: accepted_args(env, app, tool, store) for tool in APPS[app].money_guarded_tools}
        return [("commit transaction", f"{base}/transactions/{ids['transactions.commit']['transaction_id']}/commit", {}),
                ("approve return", f"{base}/returns/{ids['returns.approve']['return_id']}/approve", {})]
    if app == "plaid":
        return []  # transfers are API calls: the Plaid Dashboard has no button that makes one
    if APPS[app].kind == "bank":
        ids = {APPS[app].tool_map[tool]: accepted_args(env, app, tool, store) for tool in APPS[app].money_guarded_tools}
        pressed = {"approve_payment": lambda a: ("approve", f"{base}/payments/{a['payment_id']}/approve", {}),
                   "approve_ach_payment": lambda a: ("authorize ACH", f"{base}/payments/{a['payment_id']}/approve", {}),
                   "approve_wire_payment": lambda a: ("approve wire", f"{base}/payments/{a['payment_id']}/approve", {}),
                   "release_payment": lambda a: ("release", f"{base}/payments/{a['payment_id']}/release", {}),
                   "submit_decisions": lambda a: ("submit decisions", f"{base}/positive-pay/submit",
                                                  {"presented_date": a["presented_date"]}),
                   "decide_exception": lambda a: ("decide", f"{base}/positive-pay/exceptions/{a['exception_id']}/decide",
                                                  {"decision": a["decision"], "reason": a["reason"]}),
                   "change_entitlement": lambda a: ("entitlement change", f"{base}/administration/entitlements",
                                                    {**a, "grant": "true"})}
        return [pressed[service](args) for service, args in ids.items()]
    post = _erp_tool(app, "post_bill")
    bill = _bill_id(env, app, accepted_args(env, app, post, store))
    out = [("post", f"{base}/ap/bills/{bill}/post", {}), ("payment run", f"{base}/ap/payment-run", {})]
    names = APPS[app].service_tool_names
    if "create_payment" in names:
        args = accepted_args(env, app, names["create_payment"], store)
        out.append(("pay", f"{base}/ap/payments/new", {"vendor_id": args["vendor_id"],
                                                       "bill_numbers": ",".join(args["bill_numbers"]), "method": "Check"}))
    if "release_retainage" in names:
        args = accepted_args(env, app, names["release_retainage"], store)
        out.append(("release retainage", f"{base}/retainage/{args['commitment']}/release", {}))
    if "post_batch" in names:
        args = accepted_args(env, app, names["post_batch"], store)
        out.append(("post batch", f"{base}/hq/batches/{args['mth']}/{args['batch_id']}/post", {}))
    if "post_journal_entry" in names:
        out.append(("post journal entry", f"{base}/gl/journal-entries/{_a_draft_entry(env, app)}/post", {}))
    return out


def refused_buttons(app: str) -> list[tuple[str, str, dict]]:
    """(what, url, form) of each guarded button pressed where the product refuses it."""
    base = APPS[app].base_path
    if not APPS[app].money_guarded_tools:
        return []
    if APPS[app].kind == "bank":
        offers = APPS[app].service_tool_names
        refused = {"approve_payment": [("approve, no such payment", f"{base}/payments/999999999/approve", {}),
                                       ("approve, a draft", f"{base}/payments/{{draft}}/approve", {})],
                   "approve_wire_payment": [("approve wire, no such payment", f"{base}/payments/999999999/approve", {}),
                                            ("approve wire, a draft", f"{base}/payments/{{draft}}/approve", {})],
                   "release_payment": [("release, not approved", f"{base}/payments/{{pending}}/release", {})],
                   "submit_decisions": [("submit, nothing staged", f"{base}/positive-pay/submit",
                                         {"presented_date": "{day}"})],
                   "decide_exception": [("decide, no such exception", f"{base}/positive-pay/exceptions/999999999/decide",
                                         {"decision": "Return"})],
                   "change_entitlement": [("entitlement, no such user", f"{base}/administration/entitlements",
                                           {"login": "NOBODY", "service_name": "Payments", "permission": "Release",
                                            "grant": "true"})]}
        return [b for service, pressed in refused.items() if service in offers for b in pressed]
    if APPS[app].kind == "docs":
        signs = [("sign, bad signer", f"{base}/file/{{file}}/sign", {"signer_email": "nobody"})] if _signs(app) else []
        return [("share, no such file", f"{base}/file/999999999/share", {"access": "open"}), *signs,
                ("collaborate, bad email", f"{base}/folder/{{folder}}/collaborate", {"email": "nobody", "role": "viewer"})]
    return {
        "outlook": [("compose send, no recipient", f"{base}/compose", {"to": "", "subject": "S", "body": "B", "action": "send"}),
                    ("send, no such draft", f"{base}/message/MSG-NOPE/send", {}),
                    ("reply, no text", f"{base}/message/{{received}}/reply", {"comment": " "})],
        "lcptracker": [("certify, no such project", f"{base}/projects/999999999/payroll/2026-06-27/certify",
                         {"signer_name": "Renee Albright"}),
                        ("certify, no signer", f"{base}/projects/{{project}}/payroll/{{week}}/certify", {"signer_name": " "}),
                        ("certify, already submitted", f"{base}/projects/{{project}}/payroll/{{submitted}}/certify",
                         {"signer_name": "Renee Albright"})],
        "track1099": [("schedule, no such payer", f"{base}/cart/schedule", {"payer_id": "999999999", "tax_year": "2025"}),
                      ("schedule, empty cart", f"{base}/cart/schedule", {"payer_id": "{payer}", "tax_year": "2026"}),
                      ("deliver, a draft", f"{base}/forms/{{draft}}/deliver", {}),
                      ("deliver, no such form", f"{base}/forms/999999999/deliver", {}),
                      ("request W-9, already on file", f"{base}/recipients/{{on_file}}/w9-request", {}),
                      ("request W-9, no such recipient", f"{base}/recipients/999999999/w9-request", {})],
        "hcss_heavybid": [("submit, no such estimate", f"{base}/estimates/999999999/submit", {}),
                          ("submit, already won", f"{base}/estimates/{{won}}/submit", {})],
        "hh2": [("sync, nothing waiting", f"{base}/sync/run", {"entity": "Vendor"})],
        "corpay": [("approve, no such payment", f"{base}/payments/999999999/approve", {}),
                   ("approve, already paid", f"{base}/payments/{{paid}}/approve", {}),
                   ("apply, no such request", f"{base}/bank-changes/999999999/apply", {}),
                   ("payment method, bad routing", f"{base}/suppliers/{{supplier}}/payment-method",
                    {"payment_method": "ACH", "bank_name": "PNC Bank", "routing_number": "043000097",
                     "account_number": "1234567890"}),
                   ("payment method, no such supplier", f"{base}/suppliers/999999999/payment-method",
                    {"payment_method": "Check"})],
        "levelset": [("send, no such waiver", f"{base}/waivers/999999999/send", {}),
                     ("send, a received waiver", f"{base}/waivers/{{received}}/send", {}),
                     ("file lien, a public job", f"{base}/jobs/{{public}}/lien", {"lien_amount": "1000.00"}),
                     ("order, no recipient", f"{base}/jobs/{{private}}/order",
                      {"document": "Notice of Intent to Lien", "recipient": " "}),
                     ("sign, no such job", f"{base}/jobs/999999999/sign",
                      {"waiver_type": "Conditional Progress", "through_date": "2026-05-31", "amount": "1000.00"})],
        "avalara": [("commit, no such transaction", f"{base}/transactions/999999999/commit", {}),
                    ("commit, already committed", f"{base}/transactions/{{committed}}/commit", {}),
                    ("approve, no such return", f"{base}/returns/999999999/approve", {}),
                    ("approve, already filed", f"{base}/returns/{{filed}}/approve", {})],
        "procore": [("pay, too much", f"{base}/projects/{{job}}/invoicing/{{req}}/pay", {"amount": "999999999.00"}),
                    ("pay, no such invoice", f"{base}/projects/{{job}}/invoicing/999999999/pay", {"amount": ""})],
        "gcpay": [("submit, no such pay app", f"{base}/pay-apps/999999999/submit", {}),
                  ("submit, already approved", f"{base}/pay-apps/{{approved}}/submit", {}),
                  ("approve, paid AFP", f"{base}/afps/{{paid}}/approve", {}),
                  ("send, signed waiver", f"{base}/waivers/{{signed}}/send", {}),
                  ("release, no such batch", f"{base}/epayments/999999999/release", {})],
        "redteam": [("send, no such invoice", f"{base}/projects/1042/customer-invoices/{MISSING}/send", {}),
                    ("send, already paid", f"{base}/projects/{{job}}/customer-invoices/{{paid}}/send", {}),
                    ("rfq, no such package", f"{base}/bid-packages/{MISSING}/send-rfq", {}),
                    ("rfq, already awarded", f"{base}/bid-packages/{{awarded}}/send-rfq", {})],
        "ingenious_build": [("submit, no such package", f"{base}/projects/1042/packages/{MISSING}/submit", {})],
        "ressio": [("send, no such invoice", f"{base}/projects/1042/customer-invoices/{MISSING}/send", {}),
                   ("send, already paid", f"{base}/projects/{{job}}/customer-invoices/{{paid}}/send", {}),
                   ("send, no such change order", f"{base}/projects/4012/change-orders/{MISSING}/send", {})],
        "smartbuild": [("submit, no such claim", f"{base}/projects/1042/customer-invoices/{MISSING}/send", {}),
                       ("submit, already authorized", f"{base}/projects/{{job}}/customer-invoices/{{paid}}/send", {})],
    }.get(app) or (_refused_payroll_buttons(app) if APPS[app].kind == "payroll" else None) or (
        [("sign, no such employee", f"{base}/employees/NOBODY/sign", {"week_ending": "2026-06-27"}),
         ("sign, a week without time", f"{base}/employees/{{worker}}/sign", {"week_ending": "2026-01-03"})]
        if APPS[app].kind == "fieldtime" else None) or ([("post, no such bill", f"{base}/ap/bills/APB-99999/post", {}),
                ("payment run, no such bill", f"{base}/ap/payment-run", {"bill_numbers": MISSING})]
                    + _refused_erp_buttons(app))


def _refused_payroll_buttons(app: str) -> list[tuple[str, str, dict]]:
    base, names = APPS[app].base_path, APPS[app].service_tool_names
    out = [("finalize, no such payroll", f"{base}/payrolls/1999-01-02/finalize", {}),
           ("finalize, already finalized", f"{base}/payrolls/{{finalized}}/finalize", {})]
    if "create_direct_deposit_file" in names:
        out.append(("direct-deposit file, already transmitted", f"{base}/payrolls/{{finalized}}/dd-file", {}))
    if "make_tax_deposit" in names:
        out.append(("941 deposit, already deposited", f"{base}/payrolls/{{deposited}}/tax-deposit", {}))
    if "update_pay_distribution" in names:
        out.append(("pay distribution, bad routing number", f"{base}/employees/{{worker}}/pay-distribution",
                    {"routing_number": "121000249", "account_number": "000123456789"}))
    return out


def _refused_erp_buttons(app: str) -> list[tuple[str, str, dict]]:
    """The ERP's other guarded buttons, each pressed on a record that does not exist."""
    base, names = APPS[app].base_path, APPS[app].service_tool_names
    vendor = APPS[app].manifest.get("erp", {}).get("vendor_id_example", "")
    out = []
    if "create_payment" in names:
        out.append(("pay, no such bill", f"{base}/ap/payments/new", {"vendor_id": vendor, "bill_numbers": MISSING}))
    if "release_retainage" in names:
        out.append(("release retainage, no such commitment", f"{base}/retainage/{MISSING}/release", {}))
    if "post_batch" in names:
        out.append(("post batch, no such batch", f"{base}/hq/batches/1999-01/999/post", {}))
    if "post_journal_entry" in names:
        out.append(("post journal entry, no such entry", f"{base}/gl/journal-entries/JE-NOPE/post", {}))
    return out


def _bound_client(flask_app, episode):
    client = flask_app.test_client()
    client.get(enter_url(flask_app, episode.id, "/"))
    client.get("/")  # the first page rendered gives the browser its form token
    with client.session_transaction() as sess:
        client.csrf = sess["csrf"]
    return client


@pytest.mark.parametrize("app", list(APPS))
def test_every_guarded_button_stages_shows_the_banner_and_changes_nothing(flask_app, store, app):
    episode = store.create([app])
    try:
        env = Environment(episode, [app])
        client = _bound_client(flask_app, episode)
        for what, url, form in buttons(env, app, store):
            before, logged = episode.snapshot(), len(episode.guard_log)
            resp = post_form(client, url, form)
            body = resp.get_data(as_text=True)
            assert resp.status_code == 200 and "Pending human approval — nothing was" in body, (what, body[:500])
            assert episode.snapshot() == before, what
            assert len(episode.guard_log) == logged + 1, what
            entry = episode.guard_log[-1]
            assert entry["source"] == "ui" and "refused" not in entry and entry["executed"] is False, what
    finally:
        store.drop(episode.id)


@pytest.mark.parametrize("app", list(APPS))
def test_every_refused_guarded_button_says_why_and_is_on_record(flask_app, store, app):
    episode = store.create([app])
    try:
        env = Environment(episode, [app])
        client = _bound_client(flask_app, episode)
        fill = {}
        if APPS[app].kind == "docs":
            fill = dict(zip(("file", "folder"), _docs_file_and_folder(env, app, store)))
        elif app == "outlook":
            fill = {"received": accepted_args(env, app, "message.reply", store)["message_id"]}
        elif app == "procore":
            req = _first(env, "procore.requisitions.list", {"status": "approved"})
            fill = {"job": req["project_number"], "req": req["requisition_id"]}
        elif app == "gcpay":
            fill = {"approved": _first(env, "gcpay.pay_apps.list", {"project_code": "GC-3100", "status": "Approved"})["pay_app_id"],
                    "paid": _first(env, "gcpay.afps.list", {"status": "Paid"})["afp_id"],
                    "signed": _first(env, "gcpay.waivers.list", {"status": "Signed"})["waiver_id"]}
        elif APPS[app].kind == "payroll":
            fill = _payroll_refusable(env, app)
        elif APPS[app].kind == "fieldtime":
            fill = {"worker": _fieldtime_accepted(env, app)["employee_id"]}
        elif app == "redteam":
            paid = _first(env, "redteam.customer_invoices.list", {"status": "Paid"})
            fill = {"job": paid["project_number"], "paid": paid["number"],
                    "awarded": _first(env, "redteam.bid_packages.list", {"status": "Awarded"})["number"]}
        elif app == "ressio":
            paid = _first(env, "ressio.invoices.list", {"status": "Paid"})
            fill = {"job": paid["project_number"], "paid": paid["number"]}
        elif app == "smartbuild":
            paid = _first(env, "smartbuild.client_pay_apps.list", {"status": "Paid"})
            fill = {"job": paid["project_number"], "paid": paid["number"]}
        elif app == "lcptracker":
            cpr = _draft_cpr(env)
            cprs = env.call("lcptracker.projects.get", {"project_id": cpr["project_id"]})["cprs"]
            fill = {"project": cpr["project_id"], "week": cpr["week_ending"],
                    "submitted": next(c["week_ending"] for c in cprs if c["status"] == "Submitted")}
        elif app == "track1099":
            on_file = _first(env, "track1099.recipients.list", {"w9_status": "On file"})
            draft = env.call("track1099.forms.upsert", {"recipient_id": on_file["recipient_id"], "tax_year": 2025,
                                                        "box1_nonemployee_comp": "900.00"})
            fill = {"payer": on_file["payer_id"], "draft": draft["form_id"], "on_file": on_file["recipient_id"]}
        elif app == "hcss_heavybid":
            fill = {"won": _first(env, "hcss_heavybid.estimates.list", {"status": "Won"})["estimate_id"]}
        elif app == "corpay":
            fill = {"paid": _first(env, "corpay.payments.list", {"status": "Paid"})["payment_id"],
                    "supplier": _first(env, "corpay.vendors.list", {})["supplier_id"]}
        elif app == "levelset":
            fill = {"received": _first(env, "levelset.waivers.list", {"status": "Received"})["waiver_id"],
                    "public": _first(env, "levelset.jobs.list", {"project_type": "Public"})["job_id"],
                    "private": _first(env, "levelset.jobs.list", {"project_type": "Private"})["job_id"]}
        elif app == "avalara":
            fill = {"committed": _first(env, "avalara.transactions.list", {"status": "Committed"})["transaction_id"],
                    "filed": _first(env, "avalara.returns.list", {"status": "Filed"})["return_id"]}
        elif app == "plaid":
            fill = {}  # no guarded button to refuse (refused_buttons)
        elif APPS[app].kind == "bank":
            payments = f"{app}.{APPS[app].service_tool_names['list_payments']}"
            fill = {"draft": _first(env, payments, {"status": "Draft"})["payment_id"],
                    "pending": _first(env, payments, {"status": "Pending Approval"})["payment_id"],
                    "day": env.call(f"{app}.{APPS[app].service_tool_names['list_exceptions']}", {})["presented_date"]}
        for what, url, form in refused_buttons(app):
            before, logged = episode.snapshot(), len(episode.guard_log)
            form = {k: v.format(**fill) if isinstance(v, str) else v for k, v in form.items()}
            resp = post_form(client, url.format(**fill), form)
            body = resp.get_data(as_text=True)
            assert 400 <= resp.status_code < 500, (what, resp.status_code)
            assert episode.snapshot() == before, what
            assert len(episode.guard_log) == logged + 1, what
            entry = episode.guard_log[-1]
            assert entry["source"] == "ui" and entry["refused"] and entry["executed"] is False, what
            # the person sees the refusal: a banner on the page, or the page saying the record is missing
            assert entry["refused"] in body.replace("&#39;", "'").replace("&#34;", '"'), (what, entry, body[:800])
            assert "Pending human approval" not in body, what
    finally:
        store.drop(episode.id)


# -- the data layer's second line of defence --------------------------------------------------

def _guarded_models():
    out = []
    for name, spec in sorted(APPS.items()):
        models = importlib.import_module(f"portals.{spec.kind}.{spec.manifest.get('models', 'models')}")
        for cls in sorted({m.class_ for m in models.Base.registry.mappers}, key=lambda c: c.__name__):
            for attr, states in getattr(cls, "__money_states__", {}).items():
                for state in sorted(states):
                    out.append(pytest.param(name, cls, attr, state, id=f"{name}-{cls.__name__}-{attr}={state}"))
    return out


GUARDED_ROWS = _guarded_models()


def _new_row(model, like=None):
    """A fresh row of `model`: a copy of `like` under a new key, or (for a table the book leaves
    empty, such as journal entries) one built from the column types."""
    values = {}
    for column in model.__table__.columns:
        if like is not None:
            values[column.key] = getattr(like, column.key)
        elif isinstance(column.type, Boolean):
            values[column.key] = False
        elif isinstance(column.type, Integer):
            values[column.key] = 1
        elif column.type.__class__.__name__ == "Money":
            values[column.key] = Decimal("12345.67")
        else:
            values[column.key] = "x"
    pk = list(model.__table__.primary_key.columns)[0]
    values[pk.key] = 987654321 if isinstance(pk.type, Integer) else "GUARD-TEST-1"
    return model(**values)


def test_money_moving_states_are_declared_where_money_can_move():
    apps = {p.values[0] for p in GUARDED_ROWS}
    assert {"procore", "sage_intacct", "vista_erp", "outlook"} <= apps


@pytest.mark.parametrize("app,model,attr,state", GUARDED_ROWS)
def test_a_money_moving_row_is_refused_and_nothing_changes(store, app, model, attr, state):
    episode = store.create([app])
    try:
        inst = episode.app(app)
        before = inst.snapshot()
        with pytest.raises(MoneyMovementRefused):
            with inst.session() as session:
                row = session.scalars(select(model).where(getattr(model, attr) != state).limit(1)).first()
                if row is None:  # every seeded row is history in that state, or there is none
                    row = _new_row(model, session.scalars(select(model).limit(1)).first())
                    session.add(row)
                setattr(row, attr, state)
                session.flush()
        assert inst.snapshot() == before
        assert episode.diff() == {}
    finally:
        store.drop(episode.id)


def test_a_new_row_in_a_money_state_is_refused_even_in_an_empty_table(store):
    """The journal-entry case built explicitly: the book has none, a draft goes in, a posted one
    does not."""
    from portals.erp.models import JournalEntry

    for app in [name for name, spec in APPS.items() if spec.kind == "erp"]:
        episode = store.create([app])
        try:
            inst = episode.app(app)
            with inst.session() as session:
                assert session.scalars(select(JournalEntry).limit(1)).first() is None
            draft = _new_row(JournalEntry)
            draft.state = "draft"
            with inst.session() as session:
                session.add(draft)
            assert episode.diff()[app]["journal_entries"]["added"]
            before = inst.snapshot()
            with pytest.raises(MoneyMovementRefused):
                with inst.session() as session:
                    posted = _new_row(JournalEntry)
                    posted.entry_id, posted.state = "GUARD-TEST-2", "posted"
                    session.add(posted)
            assert inst.snapshot() == before
        finally:
            store.drop(episode.id)
