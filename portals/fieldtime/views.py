"""The field-time portal: the weekly time card grid of a project, the daily time entries list and
an entry's page (correct it, or add a day), employees and their week, projects with their cost
codes and crew, and the payroll exports (lock a week, export its approved time). Signing a
worker's timecard is the guarded button."""
from __future__ import annotations

from flask import Blueprint, abort, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call
from portals.core.web import current_episode
from portals.erp.views import menu_of

from .records import EMPLOYEE_SORT, ENTRY_SORT, PROJECT_SORT, STATUSES

NOTICES = {"saved": "Time entry saved. It waits for the foreman's approval again.",
           "added": "Time added. It waits for the foreman's approval.",
           "approved": "Time approved.", "locked": "Week locked.", "exported": "Approved time exported to payroll."}


def make_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)
    screens = list(spec.manifest.get("screens", []))
    exposed = set(spec.tool_map.values())

    def offered(*services: str) -> None:
        """A page or button stands only where the product has the tool behind it."""
        if not set(services) <= exposed:
            abort(404)

    def chrome():
        return {"menu": menu_of(spec, set(screens)), "can": exposed}
    bp.chrome = chrome

    @bp.context_processor
    def _status_bar():
        return {**chrome(), "today": current_episode().clock.today().isoformat()}

    def weeks() -> list[str]:
        found = ui_call(spec, "list_time_entries", {"per_page": 1, "sort": "-work_date"})["items"]
        if not found:
            return []
        from datetime import date, timedelta
        last = date.fromisoformat(found[0]["week_ending"])
        return [(last - timedelta(days=7 * k)).isoformat() for k in range(12)]

    def project_choices():
        rows = ui_call(spec, "list_projects", {"per_page": 100})["items"]
        return [(p["project_id"], f"{p['project_id']} {p['name']}") for p in rows]

    def grid_page(status: int = 200, **extra):
        projects = project_choices()
        args = {k: request.args.get(k, "").strip() for k in ("project_id", "week_ending")}
        grid, error = None, None
        if args["project_id"] and args["week_ending"]:
            try:
                grid = ui_call(spec, "get_weekly_timecard", args)
            except ToolError as err:
                error, status = err.message, 422
        return render_view(spec, "fieldtime/weekly.html", status, grid=grid, error=error, projects=projects,
                           weeks=weeks(), args=args, notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/")
    def index():
        return grid_page()

    @bp.get("/time")
    def entries():
        args = list_args("week_ending", "project_id", "employee_id", "status", "cost_code", "query")
        result = listing(spec, "list_time_entries", args, ENTRY_SORT)
        return render_view(spec, "fieldtime/entries.html", 200, ("results",), result=result, weeks=weeks(),
                           projects=project_choices(), statuses=STATUSES)

    def entry_page(entry_id: int, status: int = 200, **extra):
        entry = ui_call(spec, "get_time_entry", {"entry_id": entry_id})
        codes = ui_call(spec, "list_cost_codes", {"project_id": entry["project_id"]})["items"]
        return render_view(spec, "fieldtime/entry.html", status, entry=entry, codes=codes, projects=project_choices(),
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/time/<int:entry_id>")
    def entry(entry_id: int):
        return entry_page(entry_id)

    @bp.post("/time/<int:entry_id>")
    def entry_update(entry_id: int):
        offered("update_time_entry")
        args = {"entry_id": entry_id, **{k: v for k, v in form_args("hours", "cost_code", "project_id", "note").items()
                                         if (v or "").strip()}}
        try:
            ui_call(spec, "update_time_entry", args)
        except ToolError as err:
            if err.status == 404 and err.field == "entry_id":
                raise
            return entry_page(entry_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.entry", entry_id=entry_id, done="saved"))

    def new_page(status: int = 200, **extra):
        offered("create_time_entry")
        return render_view(spec, "fieldtime/entry_new.html", status, projects=project_choices(), **extra)

    @bp.get("/time/new")
    def entry_new():
        return new_page(form={k: v for k, v in request.args.items() if k in ("employee_id", "project_id", "work_date")})

    @bp.post("/time/new")
    def entry_create():
        offered("create_time_entry")
        args = form_args("employee_id", "project_id", "cost_code", "work_date", "hours", "note")
        try:
            made = ui_call(spec, "create_time_entry", args)
        except ToolError as err:
            if err.status == 404 and err.field not in ("employee_id", "project_id"):
                raise
            return new_page(422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.entry", entry_id=made["entry_id"], done="added"))

    @bp.get("/employees")
    def employees():
        result = listing(spec, "list_employees", list_args("query", "trade"), EMPLOYEE_SORT)
        return render_view(spec, "fieldtime/employees.html", 200, ("results",), result=result,
                           trades=("CARP", "CEMT", "ELEC", "IRON", "LAB", "OPER", "PLUM"))

    def employee_page(employee_id: str, status: int = 200, **extra):
        args = {"employee_id": employee_id, **list_args("week_ending")}
        args.pop("page", None), args.pop("per_page", None)
        return render_view(spec, "fieldtime/employee.html", status, employee=ui_call(spec, "get_employee", args),
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/employees/<employee_id>")
    def employee(employee_id: str):
        return employee_page(employee_id)

    @bp.post("/employees/<employee_id>/approve")
    def approve(employee_id: str):
        offered("approve_timecard")
        args = {"employee_id": employee_id, **{k: v for k, v in form_args("week_ending", "project_id").items()
                                               if (v or "").strip()}}
        try:
            ui_call(spec, "approve_timecard", args)
        except ToolError as err:
            if err.status == 404 and err.field == "employee_id":
                raise
            return employee_page(employee_id, 422, error=err.message)
        return redirect(url_for(f"{spec.name}.employee", employee_id=employee_id,
                                week_ending=args.get("week_ending"), done="approved"))

    @bp.post("/employees/<employee_id>/sign")
    def sign(employee_id: str):
        offered("sign_timecard")
        args = {"employee_id": employee_id, **form_args("week_ending")}
        try:
            staged = ui_call(spec, "sign_timecard", args)
        except ToolError as err:
            if err.status == 404 and err.field == "employee_id":
                raise
            return employee_page(employee_id, 422, refused=err.message)
        return employee_page(employee_id, pending=staged, pending_what="signed")

    @bp.get("/projects")
    def projects():
        result = listing(spec, "list_projects", list_args("query"), PROJECT_SORT)
        return render_view(spec, "fieldtime/projects.html", 200, ("results",), result=result)

    @bp.get("/projects/<project_id>")
    def project(project_id: str):
        return render_view(spec, "fieldtime/project.html", project=ui_call(spec, "get_project", {"project_id": project_id}))

    def exports_page(status: int = 200, **extra):
        offered("list_payroll_exports")
        return render_view(spec, "fieldtime/exports.html", status, exports=ui_call(spec, "list_payroll_exports"),
                           weeks=weeks(), notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/exports")
    def exports():
        return exports_page()

    def week_action(service: str, done: str):
        offered(service)
        args = form_args("week_ending")
        try:
            ui_call(spec, service, args)
        except ToolError as err:
            return exports_page(422, errors=form_error(err), error=err.message)
        return redirect(url_for(f"{spec.name}.exports", done=done))

    @bp.post("/exports/new")
    def export_create():
        return week_action("create_payroll_export", "exported")

    @bp.post("/exports/lock")
    def lock():
        return week_action("lock_time_period", "locked")

    return bp
