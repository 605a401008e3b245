"""The PM portal: company home, project tools, commitments and subcontractor invoicing.

Handlers are thin: they call services through ui_call (so clicks log exactly like tool calls)
and render archetype templates inside the vendor's skin.
"""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.registry import AppSpec
from portals.core.views import form_error, list_args, render, ui_call

from .views_invoicing import register_invoicing
from .views_project import register_project_tools

PROJECT_FILTERS = ("search", "status")


def make_blueprint(spec: AppSpec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    @bp.get("/")
    def index():
        result = ui_call(spec, "list_projects", list_args(*PROJECT_FILTERS))
        return render(spec, "pm/projects.html", result=result, title="Company Home")

    @bp.get("/go")
    def go():
        number = request.args.get("project_number", "").strip()
        if not number:
            return redirect(url_for(".index"))
        return redirect(url_for(".project_home", project_number=number))

    @bp.get("/projects/<project_number>")
    def project_home(project_number):
        project = ui_call(spec, "get_project", {"project_number": project_number})
        return render(spec, "pm/project_home.html", project=project, title="Project Home")

    @bp.get("/projects/<project_number>/commitments")
    def commitments(project_number):
        project = ui_call(spec, "get_project", {"project_number": project_number})
        args = list_args("type", "status", "vendor", "search", "erp_status")
        result = ui_call(spec, "list_commitments", {**args, "project_number": project_number})
        return render(spec, "pm/commitments.html", project=project, result=result, title="Commitments")

    @bp.get("/projects/<project_number>/commitments/<number>")
    def commitment(project_number, number):
        return _commitment_page(spec, project_number, number)

    @bp.post("/projects/<project_number>/commitments/<number>/send-to-erp")
    def send_commitment(project_number, number):
        try:
            done = ui_call(spec, "sync_commitment_to_erp", {"number": number})
        except ToolError as err:
            return _commitment_page(spec, project_number, number, errors=form_error(err), status=422)
        flash(f"Commitment {done['number']} was sent to the ERP and is now synced.", "ok")
        return redirect(url_for(".commitment", project_number=project_number, number=number))

    @bp.get("/directory")
    def directory():
        result = ui_call(spec, "list_vendors", list_args("search", "trade"))
        return render(spec, "pm/directory.html", result=result, title="Directory")

    @bp.get("/erp")
    def erp():
        tab = request.args.get("tab", "ready")
        if tab not in ("ready", "synced", "cost_codes"):
            abort(404, description="There is no such tab in ERP Integrations.")
        context = {"tab": tab}
        paging = list_args("search")
        if tab == "cost_codes":
            context["codes"] = ui_call(spec, "get_erp_cost_code_map", paging)
        else:
            state = "not_synced" if tab == "ready" else "synced"
            extra = {"status": "approved"} if tab == "ready" else {}
            context["invoices"] = ui_call(spec, "list_requisitions", {**paging, **extra, "erp_sync": state})
            context["commitments"] = ui_call(spec, "list_commitments", {
                "erp_status": state, "per_page": 25, **({"status": "Approved"} if tab == "ready" else {})})
        return render(spec, "pm/erp.html", title="ERP Integrations", **context)

    register_invoicing(bp, spec)
    register_project_tools(bp, spec)
    return bp


def _commitment_page(spec: AppSpec, project_number: str, number: str, errors=None, status=200):
    project = ui_call(spec, "get_project", {"project_number": project_number})
    commitment = ui_call(spec, "get_commitment", {"number": number})
    if commitment["project_number"] != project["project_number"]:
        abort(404, description=f"Commitment {number} does not belong to project {project_number}.")
    invoices = ui_call(spec, "list_requisitions", {"commitment": number, "per_page": 100})
    return render(spec, "pm/commitment.html", status=status, project=project, commitment=commitment,
                  invoices=invoices, errors=errors or {}, title=f"Commitment {number}")
