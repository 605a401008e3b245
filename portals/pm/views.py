"""The PM portal: company home, project tools, commitments and subcontractor invoicing.

Handlers are thin: they call services through ui_call (so clicks log exactly like tool calls)
and render archetype templates inside the vendor's skin. Lists refill in place (htmx) and sort
by their columns; tabs load their panel in place; a field can be checked on its own.
"""
from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.registry import AppSpec, get_app
from portals.core.ui import field_check_view, listing, render_view
from portals.core.views import form_error, list_args, ui_call

from .views_changes import register_client_changes
from .views_finance import register_finance
from .views_funding import register_funding
from .views_invoicing import register_invoicing
from .views_project import register_project_tools

PROJECT_FILTERS = ("search", "status")
# column key on the page -> (row field, kind)
PROJECT_SORT = {"number": ("project_number", "text"), "name": ("name", "text"), "customer": ("customer", "text"),
                "city": ("city", "text"), "pm": ("pm_name", "text"), "amount": ("contract_amount", "money"),
                "status": ("status", "text")}
COMMITMENT_SORT = {"number": ("number", "text"), "title": ("title", "text"), "company": ("vendor.name", "text"),
                   "origin_id": ("vendor.origin_id", "text"), "type": ("type", "text"),
                   "status": ("status", "text"), "erp": ("erp_status", "text"), "amount": ("amount", "money")}
COMPANY_SORT = {"name": ("name", "text"), "trade": ("trade", "text"), "email": ("email", "text"),
                "city": ("city", "text"), "origin_id": ("origin_id", "text"), "status": ("is_active", "text")}
COMMITMENT_TABS = ("general", "invoices")
# the fields a page may check one at a time: service -> {field: the service's own rule or None}
CHECKED_FIELDS = {"disburse_payment": {"amount": None}}


def make_blueprint(spec: AppSpec) -> Blueprint:
    """The PM portal in one vendor's skin: only the screens its manifest lists."""
    bp = Blueprint(spec.name, __name__)
    screens = set(spec.manifest.get("pm", {}).get("screens", []))

    def route(rule, screen, methods=("GET",)):
        def register(view):
            if screen in screens:
                bp.add_url_rule(rule, view.__name__, view, methods=list(methods))
            return view
        return register

    @route("/", "company_home")
    def index():
        result = listing(spec, "list_projects", list_args(*PROJECT_FILTERS), PROJECT_SORT)
        return render_view(spec, "pm/projects.html", 200, ("results",), result=result, title="Company Home")

    @route("/go", "project_home")
    def go():
        number = request.args.get("project_number", "").strip()
        if not number:
            return redirect(url_for(".index"))
        return redirect(url_for(".project_home", project_number=number))

    @route("/projects/<project_number>", "project_home")
    def project_home(project_number):
        project = ui_call(spec, "get_project", {"project_number": project_number})
        return render_view(spec, "pm/project_home.html", project=project, title="Project Home")

    @route("/projects/<project_number>/commitments", "commitments")
    def commitments(project_number):
        project = ui_call(spec, "get_project", {"project_number": project_number})
        args = list_args("type", "status", "vendor", "search", "erp_status")
        result = listing(spec, "list_commitments", {**args, "project_number": project_number}, COMMITMENT_SORT)
        return render_view(spec, "pm/commitments.html", 200, ("results",), project=project, result=result,
                           title="Commitments")

    @route("/projects/<project_number>/commitments/<number>", "commitments")
    def commitment(project_number, number):
        return _commitment_page(spec, project_number, number)

    @route("/projects/<project_number>/commitments/<number>/send-to-erp", "commitments", methods=("POST",))
    def send_commitment(project_number, number):
        try:
            done = ui_call(spec, "sync_commitment_to_erp", {"number": number})
        except ToolError as err:
            return _commitment_page(spec, project_number, number, errors=form_error(err), status=422)
        flash(f"Commitment {done['number']} was sent to the ERP and is now synced.", "ok")
        return redirect(url_for(".commitment", project_number=project_number, number=number))

    @route("/directory", "directory")
    def directory():
        result = listing(spec, "list_vendors", list_args("search", "trade"), COMPANY_SORT)
        return render_view(spec, "pm/directory.html", 200, ("results",), result=result, title="Directory")

    @route("/directory/<int:vendor_id>", "directory")
    def company(vendor_id):
        found, page = None, 1
        while found is None:  # the Directory has no lookup by id: read it a page at a time
            rows = ui_call(spec, "list_vendors", {"page": page, "per_page": 100})
            found = next((v for v in rows["items"] if v["vendor_id"] == vendor_id), None)
            if page >= (rows["pages"] or 1):
                break
            page += 1
        if found is None:
            abort(404, description=f"There is no company {vendor_id} in the Directory.")
        held = ui_call(spec, "list_commitments", {"vendor": found["name"], "per_page": 100})
        held["items"] = [c for c in held["items"] if c["vendor"]["vendor_id"] == vendor_id]
        return render_view(spec, "pm/company.html", vendor=found, commitments=held, title=found["name"])

    @route("/erp", "erp")
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
            # every invoice the sync would take, whatever its status: which ones to send is the
            # person's judgment, and the grader's to check, not the list's to make
            context["invoices"] = ui_call(spec, "list_requisitions", {**paging, "erp_sync": state})
            context["commitments"] = ui_call(spec, "list_commitments", {
                "erp_status": state, "per_page": 25, **({"status": "Approved"} if tab == "ready" else {})})
        return render_view(spec, "pm/erp.html", 200, ("erp_tab", "results"), title="ERP Integrations",
                           **context)

    @bp.post("/check/<service_name>/<field>")
    def check_field(service_name, field):
        """One form field checked as the full submit would check it; answers its error slot."""
        return field_check_view(spec, CHECKED_FIELDS, service_name, field)

    if "invoicing" in screens:
        register_invoicing(bp, spec)
    register_project_tools(bp, spec, screens)
    register_finance(bp, spec, route)
    register_funding(bp, spec, route)
    register_client_changes(bp, spec, route)
    return bp


def _commitment_page(spec: AppSpec, project_number: str, number: str, errors=None, status=200):
    project = ui_call(spec, "get_project", {"project_number": project_number})
    commitment = ui_call(spec, "get_commitment", {"number": number})
    if commitment["project_number"] != project["project_number"]:
        abort(404, description=f"Commitment {number} does not belong to project {project_number}.")
    tab = request.args.get("tab", "general")
    if tab not in COMMITMENT_TABS:
        abort(404, description="There is no such tab on a commitment.")
    invoices = ui_call(spec, "list_requisitions", {"commitment": number, "per_page": 100})
    # the SOV's ERP code column is named in the connected ERP's own word (Phase, Task, Cost Code)
    erp = commitment.get("erp_app")
    erp_code_label = f"ERP {get_app(erp).word('cost_code')}" if erp else "ERP Cost Code"
    return render_view(spec, "pm/commitment.html", status, ("commitment_tab",), project=project,
                       commitment=commitment, invoices=invoices, tab=tab, errors=errors or {},
                       title=f"Commitment {number}", erp_code_label=erp_code_label)
