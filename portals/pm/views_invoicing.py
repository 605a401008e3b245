"""Subcontractor invoicing pages: the filtered lists, an invoice, "Sync to ERP" and Procore Pay."""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.registry import AppSpec
from portals.core.ui import listing, render_view
from portals.core.views import form_error, list_args, render, ui_call

INVOICE_FILTERS = ("status", "erp_sync", "commitment", "search")
# column key on the page -> (row field, kind)
INVOICE_SORT = {"project": ("project_number", "text"), "invoice": ("invoice_number", "text"),
                "company": ("vendor", "text"), "commitment": ("commitment", "text"),
                "number": ("number", "number"), "period_end": ("period_end", "date"),
                "amount": ("amount", "money"), "retainage": ("retainage", "money"),
                "status": ("status", "text"), "erp_sync": ("erp_sync", "text")}


def _kept_filters(source) -> dict:
    """The list filters a row's form carries, so the list comes back the way it was."""
    return {k: source.get(k) for k in (*INVOICE_FILTERS, "sort", "page", "per_page") if source.get(k)}


def register_invoicing(bp: Blueprint, spec: AppSpec) -> None:

    def list_page(project_number: str | None, filters: dict, errors=None, status=200):
        project = ui_call(spec, "get_project", {"project_number": project_number}) if project_number else None
        args = {**filters, **({"project_number": project_number} if project_number else {})}
        result = listing(spec, "list_requisitions", args, INVOICE_SORT)
        return render_view(spec, "pm/invoicing.html", status, ("results",), project=project,
                           result=result, errors=errors or {}, title="Invoicing")

    def detail_page(project_number: str, requisition_id: int, errors=None, status=200, **extra):
        project = ui_call(spec, "get_project", {"project_number": project_number})
        invoice = ui_call(spec, "get_requisition", {"requisition_id": requisition_id})
        if invoice["project_number"] != project["project_number"]:
            abort(404, description=f"That invoice does not belong to project {project_number}.")
        return render(spec, "pm/invoice.html", status=status, project=project, invoice=invoice,
                      errors=errors or {}, title=f"Invoice {invoice['invoice_number']}", **extra)

    @bp.get("/invoicing")
    def company_invoicing():
        return list_page(None, list_args(*INVOICE_FILTERS))

    @bp.get("/projects/<project_number>/invoicing")
    def invoicing(project_number):
        return list_page(project_number, list_args(*INVOICE_FILTERS))

    @bp.get("/projects/<project_number>/invoicing/<int:requisition_id>")
    def invoice(project_number, requisition_id):
        return detail_page(project_number, requisition_id)

    @bp.post("/projects/<project_number>/invoicing/<int:requisition_id>/sync")
    def sync_invoice(project_number, requisition_id):
        # the page a button sat on: this project's list, the company's, ERP Integrations, or the invoice
        back_to = request.form.get("return_to")
        kept = _kept_filters(request.form)
        try:
            done = ui_call(spec, "sync_invoice_to_erp", {"requisition_id": requisition_id})
        except ToolError as err:
            if back_to in ("list", "company"):
                return list_page(project_number if back_to == "list" else None, kept, form_error(err), 422)
            return detail_page(project_number, requisition_id, form_error(err), 422)
        flash(f"Invoice {done['invoice_number']} was synced to the ERP.", "ok")
        if back_to == "list":
            return redirect(url_for(".invoicing", project_number=project_number, **kept))
        if back_to == "company":
            return redirect(url_for(".company_invoicing", **kept))
        if back_to == "erp":
            return redirect(url_for(".erp"))
        return redirect(url_for(".invoice", project_number=project_number, requisition_id=requisition_id))

    @bp.post("/projects/<project_number>/invoicing/<int:requisition_id>/pay")
    def pay_invoice(project_number, requisition_id):
        args = {"requisition_id": requisition_id}
        if request.form.get("amount", "").strip():
            args["amount"] = request.form["amount"]
        try:
            staged = ui_call(spec, "disburse_payment", args)
        except ToolError as err:
            return detail_page(project_number, requisition_id, form_error(err), 422,
                               form={"amount": request.form.get("amount", "")}, refused=err.message)
        return detail_page(project_number, requisition_id, pending=staged)
