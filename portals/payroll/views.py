"""The payroll portal: Payroll Processing (each weekly payroll through Timecard List -> Job Hours
Proofing -> Pre-Check Register, then the guarded Finalize, direct-deposit file and tax deposit),
Timecard List and Entry, Employees, Crafts and Classes, Unions and Fringes, Certified Jobs, Reports."""
from __future__ import annotations

import base64
import io

from flask import Blueprint, abort, redirect, request, send_file, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call
from portals.core.web import current_episode

from portals.erp.views import menu_of
from .records import EMPLOYEE_SORT, JOB_SORT, LEVELS, TIMECARD_SORT

NOTICES = {"saved": "Timecard saved. The payroll is open again: proof job hours and run the pre-check register.",
           "calculated": "Pre-check register calculated. Nothing was paid: the payroll waits to be finalized."}
GUARDED = {"finalize": ("finalize_payroll", "finalized"), "dd-file": ("create_direct_deposit_file", "sent to the bank"),
           "tax-deposit": ("make_tax_deposit", "deposited")}


def make_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)
    screens = list(spec.manifest.get("screens", []))
    exposed = set(spec.tool_map.values())

    def offered(*services: str) -> None:
        """A page or button stands only where the product has the tool behind it, so a click can
        never do what the product's tools cannot (and every recording replays over tools)."""
        if not set(services) <= exposed:
            abort(404)

    def chrome():
        return {"menu": menu_of(spec, set(screens))}
    bp.chrome = chrome

    @bp.context_processor
    def _status_bar():
        return {**chrome(), "today": current_episode().clock.today().isoformat()}

    def periods():
        return [r["period_end"] for r in ui_call(spec, "list_pay_runs")["items"]]

    def job_choices():
        rows = ui_call(spec, "list_jobs", {"certified": True, "per_page": 100})["items"]
        return [(j["job_no"], f"{j['job_no']} {j['name']}") for j in rows]

    @bp.get("/")
    def index():
        return render_view(spec, "payroll/pay_runs.html", runs=ui_call(spec, "list_pay_runs")["items"])

    def run_page(period_end: str, status: int = 200, **extra):
        run = ui_call(spec, "get_pay_run", {"period_end": period_end})
        register = ui_call(spec, "get_pre_check_register", {"period_end": period_end}) \
            if run["status"] in ("Calculated", "Finalized") else None
        return render_view(spec, "payroll/pay_run.html", status, run=run, register=register,
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/payrolls/<period_end>")
    def pay_run(period_end: str):
        return run_page(period_end)

    @bp.post("/payrolls/<period_end>/proof")
    def proof(period_end: str):
        try:
            proofing = ui_call(spec, "proof_job_hours", {"period_end": period_end})
        except ToolError as err:
            if err.status == 404:
                raise
            return run_page(period_end, 422, errors=form_error(err), error=err.message)
        return run_page(period_end, proofing=proofing)

    @bp.post("/payrolls/<period_end>/calculate")
    def calculate(period_end: str):
        try:
            ui_call(spec, "run_pre_check_register", {"period_end": period_end})
        except ToolError as err:
            if err.status == 404:
                raise
            return run_page(period_end, 422, errors=form_error(err), error=err.message)
        return redirect(url_for(f"{spec.name}.pay_run", period_end=period_end, done="calculated"))

    def guarded(period_end: str, action: str):
        service, _what = GUARDED[action]
        offered(service)
        try:
            staged = ui_call(spec, service, {"period_end": period_end})
        except ToolError as err:
            if err.status == 404:
                raise
            return run_page(period_end, 422, refused=err.message)
        return run_page(period_end, pending=staged, pending_what=GUARDED[action][1])

    @bp.post("/payrolls/<period_end>/finalize")
    def finalize(period_end: str):
        return guarded(period_end, "finalize")

    @bp.post("/payrolls/<period_end>/dd-file")
    def dd_file(period_end: str):
        return guarded(period_end, "dd-file")

    @bp.post("/payrolls/<period_end>/tax-deposit")
    def tax_deposit(period_end: str):
        return guarded(period_end, "tax-deposit")

    @bp.get("/payrolls/<period_end>/union-fringes")
    def union_fringes(period_end: str):
        offered("get_union_fringe_register")
        report = ui_call(spec, "get_union_fringe_register", {"period_end": period_end})
        return render_view(spec, "payroll/union_fringes.html", report=report)

    @bp.get("/payrolls/<period_end>/workers-comp")
    def workers_comp(period_end: str):
        offered("get_workers_comp_register")
        report = ui_call(spec, "get_workers_comp_register", {"period_end": period_end})
        return render_view(spec, "payroll/workers_comp.html", report=report)

    @bp.get("/jobs/<job_no>/certified-payroll/<period_end>.pdf")
    def certified_pdf(job_no: str, period_end: str):
        offered("get_certified_payroll")
        report = ui_call(spec, "get_certified_payroll", {"job_no": job_no, "period_end": period_end})
        return send_file(io.BytesIO(base64.b64decode(report["content_base64"])), mimetype="application/pdf",
                         download_name=report["name"])

    @bp.get("/timecards")
    def timecards():
        args = list_args("period_end", "job_no", "class_code", "query", "employee_no")
        result = listing(spec, "list_timecards", args, TIMECARD_SORT)
        return render_view(spec, "payroll/timecards.html", 200, ("results",), result=result, periods=periods(),
                           jobs=job_choices())

    def new_page(status: int = 200, **extra):
        open_runs = [r["period_end"] for r in ui_call(spec, "list_pay_runs")["items"] if r["status"] != "Finalized"]
        return render_view(spec, "payroll/timecard_new.html", status, periods=open_runs, jobs=job_choices(), **extra)

    @bp.get("/timecards/new")
    def timecard_new():
        return new_page(form={k: v for k, v in request.args.items() if k in ("period_end", "employee_no", "job_no")})

    @bp.post("/timecards/new")
    def timecard_create():
        args = form_args("period_end", "employee_no", "job_no", "cost_code", "class_code", "daily_hours")
        if not (args.get("class_code") or "").strip():
            args.pop("class_code", None)
        try:
            made = ui_call(spec, "create_timecard", args)
        except ToolError as err:
            if err.status == 404 and err.field not in ("employee_no", "job_no", "period_end"):
                raise
            return new_page(422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.timecard", timecard_id=made["timecard_id"], done="saved"))

    def card_page(timecard_id: int, status: int = 200, **extra):
        card = ui_call(spec, "get_timecard", {"timecard_id": timecard_id})
        return render_view(spec, "payroll/timecard.html", status, card=card,
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/timecards/<int:timecard_id>")
    def timecard(timecard_id: int):
        return card_page(timecard_id)

    @bp.post("/timecards/<int:timecard_id>")
    def timecard_update(timecard_id: int):
        args = {"timecard_id": timecard_id, **{k: v for k, v in form_args(
            "daily_hours", "class_code", "cost_code", "reg_rate", "fringe_plan_rate", "fringe_cash_rate").items()
            if (v or "").strip()}}
        try:
            ui_call(spec, "update_timecard", args)
        except ToolError as err:
            if err.status == 404 and err.field == "timecard_id":
                raise
            return card_page(timecard_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.timecard", timecard_id=timecard_id, done="saved"))

    @bp.get("/employees")
    def employees():
        result = listing(spec, "list_employees", list_args("query", "craft", "union_code", "level"), EMPLOYEE_SORT)
        crafts = [c["craft"] for c in ui_call(spec, "list_crafts")["items"]]
        unions = [(u["union_code"], u["name"]) for u in ui_call(spec, "list_unions")["items"]]
        return render_view(spec, "payroll/employees.html", 200, ("results",), result=result, crafts=crafts,
                           unions=unions, levels=LEVELS)

    def employee_page(employee_no: str, status: int = 200, **extra):
        return render_view(spec, "payroll/employee.html", status,
                           employee=ui_call(spec, "get_employee", {"employee_no": employee_no}), **extra)

    @bp.get("/employees/<employee_no>")
    def employee(employee_no: str):
        return employee_page(employee_no)

    @bp.post("/employees/<employee_no>/pay-distribution")
    def pay_distribution(employee_no: str):
        offered("update_pay_distribution")
        args = {"employee_no": employee_no, **form_args("routing_number", "account_number", "account_type")}
        try:
            staged = ui_call(spec, "update_pay_distribution", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return employee_page(employee_no, 422, refused=err.message, form=args)
        return employee_page(employee_no, pending=staged, pending_what="changed")

    @bp.get("/crafts")
    def crafts():
        return render_view(spec, "payroll/crafts.html", crafts=ui_call(spec, "list_crafts")["items"])

    @bp.get("/unions")
    def unions():
        offered("list_unions")
        return render_view(spec, "payroll/unions.html", unions=ui_call(spec, "list_unions")["items"])

    @bp.get("/jobs")
    def jobs():
        result = listing(spec, "list_jobs", list_args("query", "certified"), JOB_SORT)
        return render_view(spec, "payroll/jobs.html", 200, ("results",), result=result)

    @bp.get("/jobs/<job_no>")
    def job(job_no: str):
        return render_view(spec, "payroll/job.html", job=ui_call(spec, "get_job", {"job_no": job_no}))

    @bp.get("/reports")
    def reports():
        runs = ui_call(spec, "list_pay_runs")["items"]
        certified = ui_call(spec, "list_jobs", {"certified": True, "per_page": 100})["items"]
        return render_view(spec, "payroll/reports.html", runs=runs, jobs=certified)

    @bp.get("/tax-deposits")
    def tax_deposits():
        offered("list_tax_deposits")
        return render_view(spec, "payroll/tax_deposits.html", deposits=ui_call(spec, "list_tax_deposits")["items"])

    return bp
