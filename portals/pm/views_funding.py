"""An owner's funding screens (INGENIOUS.BUILD): a project's Funding Sources, its vendor invoices
with their approval paths, one invoice's approval and Funding tab, and invoicing and application
packages. Submitting a package to the client or lender is guarded: the button stages the request
and shows the banner. Each view is registered only when the manifest lists its screen.
"""
from __future__ import annotations

from functools import partial

from flask import Blueprint, abort, request, url_for

from portals.core.registry import AppSpec
from portals.core.ui import listing, render_view
from portals.core.views import list_args, ui_call, ui_form_post, ui_stage

INVOICE_SORT = {"date": ("invoice_date", "date"), "vendor": ("vendor", "text"), "invoice": ("invoice_number", "text"),
                "cost_code": ("cost_code", "text"), "status": ("status", "text"), "amount": ("amount", "money")}
PACKAGE_SORT = {"number": ("number", "text"), "period_end": ("period_end", "date"), "status": ("status", "text")}


def register_funding(bp: Blueprint, spec: AppSpec, route) -> None:
    def project(project_number: str) -> dict:
        return ui_call(spec, "get_project", {"project_number": project_number})

    @route("/projects/<project_number>/funding", "funding_sources")
    def funding_sources(project_number):
        data = ui_call(spec, "list_funding_sources", {"project_number": project_number})
        return render_view(spec, "pm/funding/sources.html", project=project(project_number), data=data,
                           tab="funding_sources", title="Funding Sources")

    def invoice_list(project_number=None):
        found = project(project_number) if project_number else None
        args = {**list_args("status", "entered_as", "search"),
                **({"project_number": project_number} if project_number else {})}
        result = listing(spec, "list_vendor_invoices", args, INVOICE_SORT)
        return render_view(spec, "pm/funding/invoices.html", 200, ("results",), project=found, result=result,
                           tab="project_invoices", title="Vendor Invoices")

    @route("/invoices", "invoice_approvals")
    def invoices():
        return invoice_list()

    @route("/projects/<project_number>/invoices", "invoice_approvals")
    def project_invoices(project_number):
        return invoice_list(project_number)

    def invoice_page(project_number, invoice_id, status=200, **extra):
        found = project(project_number)
        invoice = ui_call(spec, "get_vendor_invoice", {"vendor_invoice_id": invoice_id})
        if invoice["project_number"] != found["project_number"]:
            abort(404, description=f"That vendor invoice does not belong to project {project_number}.")
        sources = ui_call(spec, "list_funding_sources", {"project_number": project_number})
        extra.setdefault("form", {})
        extra.setdefault("errors", {})
        return render_view(spec, "pm/funding/invoice.html", status, project=found, invoice=invoice,
                           sources=sources, tab="project_invoices", title=f"Vendor Invoice {invoice['invoice_number']}",
                           **extra)

    @route("/projects/<project_number>/invoices/<int:invoice_id>", "invoice_approvals")
    def vendor_invoice(project_number, invoice_id):
        return invoice_page(project_number, invoice_id)

    def act(project_number, invoice_id, service, args, done_message):
        project(project_number)
        return ui_form_post(spec, service, {"vendor_invoice_id": invoice_id, **args},
                            page=partial(invoice_page, project_number, invoice_id), done_message=done_message,
                            back=url_for(".vendor_invoice", project_number=project_number, invoice_id=invoice_id))

    @route("/projects/<project_number>/invoices/<int:invoice_id>/approve", "invoice_approvals", methods=("POST",))
    def approve_invoice(project_number, invoice_id):
        return act(project_number, invoice_id, "approve_vendor_invoice", {},
                   lambda d: f"Vendor invoice {d['invoice_number']} was approved.")

    @route("/projects/<project_number>/invoices/<int:invoice_id>/return", "invoice_approvals", methods=("POST",))
    def return_invoice(project_number, invoice_id):
        return act(project_number, invoice_id, "return_vendor_invoice_to_approval",
                   {"note": request.form.get("note", "")},
                   lambda d: f"Vendor invoice {d['invoice_number']} was flagged and returned to approval.")

    @route("/projects/<project_number>/invoices/<int:invoice_id>/funding", "invoice_approvals", methods=("POST",))
    def set_funding(project_number, invoice_id):
        codes = [s["code"] for s in ui_call(spec, "list_funding_sources", {"project_number": project_number})["items"]]
        shares = [f"{code}|{request.form.get('share_' + code, '').strip()}" for code in codes
                  if request.form.get("share_" + code, "").strip() not in ("", "0", "0.00")]
        return act(project_number, invoice_id, "set_invoice_funding", {"allocations": shares},
                   lambda d: f"The Funding tab of vendor invoice {d['invoice_number']} was saved.")

    @route("/packages", "application_packages")
    def packages():
        result = listing(spec, "list_application_packages", list_args("status", "project_number"), PACKAGE_SORT)
        return render_view(spec, "pm/funding/packages.html", 200, ("results",), result=result,
                           title="Invoicing & Application Packages")

    def package_page(project_number, number, status=200, **extra):
        found = project(project_number)
        package = ui_call(spec, "get_application_package", {"number": number})
        if package["project_number"] != found["project_number"]:
            abort(404, description=f"Package {number} does not belong to project {project_number}.")
        sources = ui_call(spec, "list_funding_sources", {"project_number": project_number})
        return render_view(spec, "pm/funding/package.html", status, project=found, package=package, sources=sources,
                           tab="project_packages", title=f"Package {number}", **extra)

    @route("/projects/<project_number>/packages", "application_packages")
    def project_packages(project_number):
        found = project(project_number)
        result = ui_call(spec, "list_application_packages", {"project_number": project_number, "per_page": 100})
        return render_view(spec, "pm/funding/packages.html", 200, ("results",), project=found, result=result,
                           tab="project_packages", title="Invoicing & Application Packages")

    @route("/projects/<project_number>/packages/<number>", "application_packages")
    def package(project_number, number):
        return package_page(project_number, number)

    @route("/projects/<project_number>/packages/<number>/submit", "application_packages", methods=("POST",))
    def submit_package(project_number, number):
        project(project_number)
        return ui_stage(spec, "submit_application_package", {"number": number},
                        page=partial(package_page, project_number, number))
