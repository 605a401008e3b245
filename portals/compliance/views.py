"""LCPtracker's pages: Projects (wage determination, weekly CPRs), Payroll Records, Employees, Reports."""
from __future__ import annotations

import base64
import io

from flask import Blueprint, redirect, request, send_file, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call

from .cpr import CATEGORIES
from .records import EMPLOYEE_SORT, LEVELS, PROJECT_SORT, RECORD_SORT

NOTICES = {"noted": "Compliance note saved."}


def make_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def project_choices():
        rows = ui_call(spec, "list_projects", {"per_page": 100})["items"]
        return [(str(p["project_id"]), f"{p['contract_number']} – {p['name']}") for p in rows]

    @bp.get("/")
    def index():
        result = listing(spec, "list_projects", list_args("query", "state"), PROJECT_SORT)
        return render_view(spec, "compliance/projects.html", 200, ("results",), result=result)

    @bp.get("/projects/<int:project_id>")
    def project(project_id: int):
        found = ui_call(spec, "get_project", {"project_id": project_id})
        rates = ui_call(spec, "get_wage_rates", {"project_id": project_id})
        return render_view(spec, "compliance/project.html", project=found, rates=rates["rates"])

    def week_page(project_id: int, week: str, status: int = 200, **extra):
        found = ui_call(spec, "get_project", {"project_id": project_id})
        args = {"project_id": project_id, "week_ending": week, "per_page": 100}
        records = ui_call(spec, "list_payroll_records", {**args, "sort": request.args.get("sort") or "employee"})
        cpr = next((c for c in found["cprs"] if c["week_ending"] == week), None)
        validation = ui_call(spec, "validate_cpr", {"project_id": project_id, "week_ending": week}) \
            if request.args.get("validate") else None
        return render_view(spec, "compliance/week.html", status, project=found, week=week, records=records,
                           cpr=cpr, validation=validation, **extra)

    @bp.get("/projects/<int:project_id>/payroll/<week>")
    def week(project_id: int, week: str):
        return week_page(project_id, week)

    @bp.post("/projects/<int:project_id>/payroll/<week>/certify")
    def certify(project_id: int, week: str):
        args = {"project_id": project_id, "week_ending": week, **form_args("signer_name")}
        try:
            staged = ui_call(spec, "certify_and_submit_cpr", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return week_page(project_id, week, 422, errors=form_error(err), form=args, refused=err.message)
        return week_page(project_id, week, pending=staged)

    @bp.get("/projects/<int:project_id>/payroll/<week>/wh347.pdf")
    def wh347(project_id: int, week: str):
        report = ui_call(spec, "get_wh347", {"project_id": project_id, "week_ending": week})
        return send_file(io.BytesIO(base64.b64decode(report["content_base64"])), mimetype="application/pdf",
                         download_name=report["name"])

    @bp.get("/records")
    def records():
        args = list_args("project_id", "week_ending", "classification", "query")
        result = listing(spec, "list_payroll_records", args, RECORD_SORT)
        return render_view(spec, "compliance/records.html", 200, ("results",), result=result,
                           projects=project_choices())

    def record_page(record_id: int, status: int = 200, **extra):
        found = ui_call(spec, "get_payroll_record", {"record_id": record_id})
        return render_view(spec, "compliance/record.html", status, record=found, categories=CATEGORIES,
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/records/<int:record_id>")
    def record(record_id: int):
        return record_page(record_id)

    @bp.post("/records/<int:record_id>/notes")
    def add_note(record_id: int):
        args = {"record_id": record_id, **form_args("category", "note")}
        try:
            ui_call(spec, "add_record_note", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return record_page(record_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.record", record_id=record_id, done="noted"))

    @bp.get("/employees")
    def employees():
        result = listing(spec, "list_employees", list_args("query", "classification", "level"), EMPLOYEE_SORT)
        return render_view(spec, "compliance/employees.html", 200, ("results",), result=result, levels=LEVELS)

    @bp.get("/employees/<int:employee_id>")
    def employee(employee_id: int):
        return render_view(spec, "compliance/employee.html", employee=ui_call(spec, "get_employee",
                                                                             {"employee_id": employee_id}))

    @bp.get("/reports")
    def reports():
        found = ui_call(spec, "list_projects", {"per_page": 100})
        projects = [ui_call(spec, "get_project", {"project_id": p["project_id"]}) for p in found["items"]]
        return render_view(spec, "compliance/reports.html", projects=projects)

    return bp
