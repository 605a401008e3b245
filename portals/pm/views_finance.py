"""The project-finance screens: the pipeline by stage, a project's Overview, Scope, Contract and
Budget tabs, commitment SOVs and their eApps, vendor and customer invoices and bid packages.

Each view is registered only when the vendor's manifest lists its screen. Sending a customer
invoice and a bid package's RFQ are guarded: the button stages the request and shows the banner.
"""
from __future__ import annotations

from functools import partial

from flask import Blueprint, abort, flash, redirect, request, url_for

from portals.core.errors import NotFound, ToolError
from portals.core.registry import AppSpec
from portals.core.ui import listing, render_view
from portals.core.views import form_error, list_args, ui_call, ui_form_post, ui_stage

# column key on the page -> (row field, kind)
PIPELINE_SORT = {"number": ("project_number", "text"), "name": ("name", "text"), "stage": ("stage", "text"),
                 "customer": ("customer", "text"), "amount": ("contract_amount", "money"), "pm": ("pm_name", "text")}
BUDGET_SORT = {"cost_code": ("cost_code", "text"), "description": ("description", "text"),
               "cost_type": ("cost_type", "text"),
               **{c: (c, "money") for c in ("budget", "actuals", "open", "at_risk", "cost_at_complete", "variance")}}
LADDER_SORT = {"cost_code": ("cost_code", "text"), "description": ("description", "text"),
               "cost_type": ("cost_type", "text"),
               **{c: (c, "money") for c in ("original", "approved_changes", "revised", "committed", "applied",
                                             "committed_vs_applied", "uncommitted", "estimate_to_complete",
                                             "estimate_at_completion")}}
BOQ_SORT = {"item_code": ("item_code", "text"), "line_no": ("line_no", "number"), "description": ("description", "text"),
            "unit": ("unit", "text"), "kind": ("kind", "text"), "change_order": ("change_order", "text"),
            **{c: (c, "money") for c in ("quantity", "rate", "contract_value", "measured_qty", "measured_pct",
                                          "measured_value")}}
REESTIMATE_SORT = {"cost_code": ("cost_code", "text"), "description": ("description", "text"),
                   "cost_type": ("cost_type", "text"), "reestimate": ("reestimate", "money")}
COMMITMENT_SORT = {"number": ("number", "text"), "title": ("title", "text"), "vendor": ("vendor.name", "text"),
                   "type": ("type", "text"), "status": ("status", "text"), "amount": ("amount", "money")}
EAPP_SORT = {"project": ("project_number", "text"), "invoice": ("invoice_number", "text"),
             "company": ("vendor", "text"), "commitment": ("commitment", "text"), "number": ("number", "number"),
             "period_end": ("period_end", "date"), "amount": ("amount", "money"), "status": ("status", "text")}
VENDOR_INVOICE_SORT = {"date": ("date", "date"), "vendor": ("vendor", "text"), "invoice": ("invoice_number", "text"),
                       "cost_code": ("cost_code", "text"), "amount": ("amount", "money")}
CUSTOMER_INVOICE_SORT = {"number": ("number", "text"), "project": ("project_number", "text"),
                         "application": ("application_no", "number"), "period_end": ("period_end", "date"),
                         "status": ("status", "text"), "this_period": ("this_period", "money"),
                         "amount_due": ("amount_due", "money")}
PACKAGE_SORT = {"number": ("number", "text"), "title": ("title", "text"), "trade": ("trade", "text"),
                "status": ("status", "text"), "due": ("due_date", "date"), "estimate": ("estimate", "money")}
VENDOR_SORT = {"name": ("name", "text"), "trade": ("trade", "text"), "city": ("city", "text"),
               "origin_id": ("origin_id", "text")}
VENDOR_INVOICE_FIELDS = ("vendor_id", "invoice_number", "invoice_date", "cost_code", "cost_type", "amount",
                         "description")


def _project(spec: AppSpec, project_number: str) -> dict:
    return ui_call(spec, "get_project", {"project_number": project_number})


def _or_none(spec: AppSpec, service: str, args: dict):
    """A project's record that may not exist yet (a prospect has no customer contract)."""
    try:
        return ui_call(spec, service, args)
    except NotFound:
        return None


def register_finance(bp: Blueprint, spec: AppSpec, route) -> None:
    stages = list(spec.manifest.get("pm", {}).get("stage_order", []))

    @route("/", "pipeline")
    def index():
        result = listing(spec, "list_project_pipeline", list_args("stage", "search"), PIPELINE_SORT)
        return render_view(spec, "pm/fin/pipeline.html", 200, ("results",), result=result, stages=stages,
                           title="Projects")

    @route("/projects/<project_number>", "overview")
    def overview(project_number):
        project = _project(spec, project_number)
        data = ui_call(spec, "get_financial_overview", {"project_number": project_number})
        return render_view(spec, "pm/fin/overview.html", project=project, data=data, tab="overview",
                           stages=stages, title="Overview")

    @route("/projects/<project_number>/scope", "scope")
    def scope(project_number):
        project = _project(spec, project_number)
        sov = _or_none(spec, "get_prime_contract_sov", {"project_number": project_number})
        packages = ui_call(spec, "list_bid_packages", {"project_number": project_number, "per_page": 100})
        return render_view(spec, "pm/fin/scope.html", project=project, sov=sov, packages=packages, tab="scope",
                           title="Scope")

    @route("/projects/<project_number>/contract", "contract")
    def contract(project_number):
        project = _project(spec, project_number)
        sov = _or_none(spec, "get_prime_contract_sov", {"project_number": project_number})
        args = {**list_args("status", "search"), "project_number": project_number, "kind": "owner"}
        orders = listing(spec, "list_change_orders", args, {"number": ("number", "text"), "title": ("title", "text"),
                                                             "status": ("status", "text"), "amount": ("amount", "money"),
                                                             "created": ("created_date", "date")})
        invoices = ui_call(spec, "list_customer_invoices", {"project_number": project_number, "per_page": 100})
        return render_view(spec, "pm/fin/contract.html", 200, ("results",), project=project, sov=sov, result=orders,
                           invoices=invoices, tab="contract", title="Contract")

    @route("/projects/<project_number>/budget", "cost_budget")
    def cost_budget(project_number):
        project = _project(spec, project_number)
        args = {**list_args("search", "cost_type"), "project_number": project_number}
        result = listing(spec, "get_cost_budget", args, BUDGET_SORT)
        return render_view(spec, "pm/fin/budget.html", 200, ("results",), project=project, result=result,
                           tab="cost_budget", title="Budget")

    @route("/projects/<project_number>/budget-ladder", "budget_ladder")
    def budget_ladder(project_number):
        project = _project(spec, project_number)
        args = {**list_args("search", "cost_type"), "project_number": project_number}
        # an owner's product (its budget tool the project budget) shows the owner's forecast too
        service = "get_project_budget" if "get_project_budget" in spec.service_tool_names else "get_budget_ladder"
        result = listing(spec, service, args, LADDER_SORT)
        return render_view(spec, "pm/fin/ladder.html", 200, ("results",), project=project, result=result,
                           tab="budget_ladder", title="Budget")

    @route("/projects/<project_number>/boq", "boq")
    def boq(project_number):
        project = _project(spec, project_number)
        args = {**list_args("search", "kind"), "project_number": project_number}
        result = listing(spec, "get_boq", args, BOQ_SORT)
        return render_view(spec, "pm/fin/boq.html", 200, ("results",), project=project, result=result,
                           tab="boq", title="BOQ")

    @route("/projects/<project_number>/reestimate", "reestimate")
    def reestimate(project_number):
        project = _project(spec, project_number)
        args = {**list_args("search", "cost_type"), "project_number": project_number}
        result = listing(spec, "get_reestimate", args, REESTIMATE_SORT)
        return render_view(spec, "pm/fin/reestimate.html", 200, ("results",), project=project, result=result,
                           tab="reestimate", title="Re-estimate")

    @route("/projects/<project_number>/commitments", "commitments_sov")
    def project_commitments(project_number):
        project = _project(spec, project_number)
        args = {**list_args("type", "status", "vendor", "search"), "project_number": project_number}
        result = listing(spec, "list_commitments", args, COMMITMENT_SORT)
        return render_view(spec, "pm/fin/commitments.html", 200, ("results",), project=project, result=result,
                           tab="project_commitments", title="Commitments")

    @route("/projects/<project_number>/commitments/<number>", "commitments_sov")
    def commitment_sov(project_number, number):
        project = _project(spec, project_number)
        commitment = ui_call(spec, "get_commitment_sov", {"number": number})
        if commitment["project_number"] != project["project_number"]:
            abort(404, description=f"Commitment {number} does not belong to project {project_number}.")
        eapps = ui_call(spec, "list_requisitions", {"commitment": number, "per_page": 100})
        return render_view(spec, "pm/fin/commitment.html", project=project, commitment=commitment, eapps=eapps,
                           tab="project_commitments", title=f"Commitment {number}")

    @route("/eapps", "eapps")
    def eapps():
        result = listing(spec, "list_requisitions", list_args("status", "commitment", "search"), EAPP_SORT)
        return render_view(spec, "pm/fin/eapps.html", 200, ("results",), result=result, title="eApps")

    def eapp_page(project_number, requisition_id, status=200, **extra):
        project = _project(spec, project_number)
        found = ui_call(spec, "get_requisition", {"requisition_id": requisition_id})
        if found["project_number"] != project["project_number"]:
            abort(404, description=f"That eApp does not belong to project {project_number}.")
        commitment = ui_call(spec, "get_commitment_sov", {"number": found["commitment"]})
        return render_view(spec, "pm/fin/eapp.html", status, project=project, eapp=found, commitment=commitment,
                           tab="project_commitments", title=f"eApp {found['invoice_number']}", **extra)

    @route("/projects/<project_number>/eapps/<int:requisition_id>", "eapps")
    def eapp(project_number, requisition_id):
        return eapp_page(project_number, requisition_id)

    @route("/projects/<project_number>/eapps/<int:requisition_id>/review", "eapps", methods=("POST",))
    def review_eapp(project_number, requisition_id):
        form = {k: request.form.get(k, "") for k in ("decision", "approved_amount", "note")}
        args = {"requisition_id": requisition_id, **{k: v for k, v in form.items() if v.strip()}}
        return ui_form_post(
            spec, "review_eapp", args, page=partial(eapp_page, project_number, requisition_id),
            done_message=lambda done: f"eApp {done['invoice_number']} was "
                                      + ("approved." if done["status"] == "approved" else "returned to revise and resubmit."),
            back=url_for(".eapp", project_number=project_number, requisition_id=requisition_id))

    def vendor_invoice_list(project_number=None):
        project = _project(spec, project_number) if project_number else None
        args = {**list_args("vendor", "cost_code", "date_from", "date_to"),
                **({"project_number": project_number} if project_number else {})}
        result = listing(spec, "list_direct_costs", args, VENDOR_INVOICE_SORT)
        return render_view(spec, "pm/fin/vendor_invoices.html", 200, ("results",), project=project, result=result,
                           tab="project_vendor_invoices", title="Vendor Invoices")

    @route("/vendor-invoices", "vendor_invoices")
    def vendor_invoices():
        return vendor_invoice_list()

    @route("/projects/<project_number>/vendor-invoices", "vendor_invoices")
    def project_vendor_invoices(project_number):
        return vendor_invoice_list(project_number)

    def all_vendors() -> list[dict]:
        out, page = [], 1
        while True:
            rows = ui_call(spec, "list_vendors", {"page": page, "per_page": 100})
            out += rows["items"]
            if page >= (rows["pages"] or 1):
                return out
            page += 1

    @route("/projects/<project_number>/vendor-invoices/new", "vendor_invoices", methods=("GET", "POST"))
    def new_vendor_invoice(project_number):
        project = _project(spec, project_number)
        form, errors, status = {}, {}, 200
        if request.method == "POST":
            form = {k: request.form.get(k, "") for k in VENDOR_INVOICE_FIELDS}
            try:
                args = {k: v for k, v in form.items() if v.strip() != ""}
                done = ui_call(spec, "create_vendor_invoice", {**args, "project_number": project_number})
            except ToolError as err:
                errors, status = form_error(err), 422
            else:
                flash(f"Vendor invoice {done['invoice_number']} from {done['vendor']} was entered, pending "
                      "approval.", "ok")
                return redirect(url_for(".project_vendor_invoices", project_number=project_number))
        return render_view(spec, "pm/fin/vendor_invoice_new.html", status, project=project, vendors=all_vendors(),
                           form=form, errors=errors, tab="project_vendor_invoices", title="New Vendor Invoice")

    @route("/customer-invoices", "customer_invoices")
    def customer_invoices():
        result = listing(spec, "list_customer_invoices", list_args("status", "search"), CUSTOMER_INVOICE_SORT)
        return render_view(spec, "pm/fin/customer_invoices.html", 200, ("results",), result=result,
                           title="Customer Invoices")

    def invoice_page(project_number, number, status=200, **extra):
        project = _project(spec, project_number)
        invoice = ui_call(spec, "get_customer_invoice", {"number": number})
        if invoice["project_number"] != project["project_number"]:
            abort(404, description=f"Customer invoice {number} does not belong to project {project_number}.")
        return render_view(spec, "pm/fin/customer_invoice.html", status, project=project, invoice=invoice,
                           tab="contract", title=f"Customer Invoice {number}", **extra)

    @route("/projects/<project_number>/customer-invoices/<number>", "customer_invoices")
    def customer_invoice(project_number, number):
        return invoice_page(project_number, number)

    @route("/projects/<project_number>/customer-invoices/<number>/send", "customer_invoices", methods=("POST",))
    def send_customer_invoice(project_number, number):
        _project(spec, project_number)
        return ui_stage(spec, "submit_customer_invoice", {"number": number},
                        page=partial(invoice_page, project_number, number))

    @route("/projects/<project_number>/customer-invoices/new", "customer_invoices", methods=("GET", "POST"))
    def new_customer_invoice(project_number):
        project = _project(spec, project_number)
        sov = _or_none(spec, "get_prime_contract_sov", {"project_number": project_number})
        if sov is None:
            abort(404, description=f"Project {project_number} has no customer contract to invoice.")
        last = ui_call(spec, "list_customer_invoices", {"project_number": project_number, "sort": "-application",
                                                        "per_page": 1})["items"]
        previous = ui_call(spec, "get_customer_invoice", {"number": last[0]["number"]}) if last else None
        form, errors, status = {}, {}, 200
        if request.method == "POST":
            form = dict(request.form)
            entered = {line["line_no"]: form.get("line_%s" % line["line_no"], "").strip() for line in sov["lines"]}
            lines = [f"{no}|{amount}" for no, amount in entered.items() if amount]
            args = {"project_number": project_number, "lines": lines}
            if form.get("period_end", "").strip():
                args["period_end"] = form["period_end"]
            try:
                done = ui_call(spec, "create_customer_invoice", args)
            except ToolError as err:
                errors, status = form_error(err), 422
            else:
                flash(f"Customer invoice {done['number']} was saved as a draft.", "ok")
                return redirect(url_for(".customer_invoice", project_number=project_number, number=done["number"]))
        done_before = {line["line_no"]: line["completed_to_date"] for line in (previous or {}).get("lines", [])}
        return render_view(spec, "pm/fin/customer_invoice_new.html", status, project=project, sov=sov,
                           done_before=done_before, form=form, errors=errors, tab="contract",
                           title="New Customer Invoice")

    def package_page(status=200, **extra):
        result = listing(spec, "list_bid_packages", list_args("status", "search"), PACKAGE_SORT)
        return render_view(spec, "pm/fin/bid_packages.html", status, ("results",), result=result,
                           title="Bid Packages", **extra)

    @route("/bid-packages", "bid_packages")
    def bid_packages():
        return package_page()

    @route("/bid-packages/<number>/send-rfq", "bid_packages", methods=("POST",))
    def send_rfq(number):
        return ui_stage(spec, "send_rfq", {"number": number}, page=package_page)

    @route("/vendors", "vendors")
    def vendors():
        result = listing(spec, "list_vendors", list_args("search", "trade"), VENDOR_SORT)
        return render_view(spec, "pm/fin/vendors.html", 200, ("results",), result=result, title="Vendors")
