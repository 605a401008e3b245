"""GCPay's pages: Projects, a project's overview (SOV, change orders, owner pay applications,
the PM's progress), the pay application draft form and its G702/G703, Applications for Payment
with their action menus, Waivers, Compliance and ePayments."""
from __future__ import annotations

import base64
import io

from flask import Blueprint, abort, redirect, request, send_file, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, render, ui_call

PROJECT_SORT = {k: (k, "text") for k in ("code", "name", "owner", "contract", "retainage")}
AFP_SORT = {k: (k, "text") for k in ("project", "vendor", "subcontract", "number", "period", "amount", "net",
                                       "status")}
NOTICES = {"drafted": "Draft saved. It has not been submitted.", "co": "Change order added to the schedule of values.",
           "returned": "AFP returned to the subcontractor for revision."}


def make_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def project_page(code: str, status: int = 200, **extra):
        project = ui_call(spec, "get_project_sov", {"project_code": code})
        apps = ui_call(spec, "list_pay_apps", {"project_code": code, "per_page": 100})
        progress = ui_call(spec, "list_progress", {"project_code": code})
        return render(spec, "payapp/project.html", status, project=project, pay_apps=apps, progress=progress,
                      notice=NOTICES.get(request.args.get("done", "")), title=project["name"], **extra)

    def new_page(code: str, status: int = 200, **extra):
        project = ui_call(spec, "get_project_sov", {"project_code": code})
        last = ui_call(spec, "list_pay_apps", {"project_code": code, "per_page": 1})["items"]
        return render(spec, "payapp/pay_app_new.html", status, project=project, last=last[0] if last else None,
                      title="New owner pay application", **extra)

    def pay_app_page(pay_app_id: int, status: int = 200, **extra):
        detail = ui_call(spec, "get_pay_app_detail", {"pay_app_id": pay_app_id})
        return render(spec, "payapp/pay_app.html", status, app=detail,
                      notice=NOTICES.get(request.args.get("done", "")), title=f"Pay application #{detail['number']}",
                      **extra)

    def afp_page(afp_id: int, status: int = 200, **extra):
        detail = ui_call(spec, "get_afp_detail", {"afp_id": afp_id})
        return render(spec, "payapp/afp.html", status, afp=detail, notice=NOTICES.get(request.args.get("done", "")),
                      title=f"AFP {detail['afp_id']}", **extra)

    @bp.get("/")
    def projects():
        result = listing(spec, "list_projects", list_args("search", "owner"), PROJECT_SORT)
        return render_view(spec, "payapp/projects.html", 200, ("results",), result=result, title="Projects")

    @bp.get("/projects/<code>")
    def project(code):
        return project_page(code)

    @bp.post("/projects/<code>/change-orders/<co_id>/add")
    def add_change_order(code, co_id):
        try:
            ui_call(spec, "add_change_order_to_sov", {"project_code": code, "co_id": co_id})
        except ToolError as err:
            return project_page(code, 422, errors=form_error(err))
        return redirect(url_for(f"{spec.name}.project", code=code, done="co"))

    @bp.get("/projects/<code>/pay-apps/new")
    def pay_app_new(code):
        return new_page(code)

    @bp.post("/projects/<code>/pay-apps")
    def pay_app_create(code):
        project = ui_call(spec, "get_project_sov", {"project_code": code})
        lines = []
        for line in project["sov"]:
            work = request.form.get(f"work_{line['item_no']}", "").strip()
            stored = request.form.get(f"stored_{line['item_no']}", "").strip()
            if work or stored:
                lines.append(f"{line['item_no']}:{work or '0'}:{stored or '0'}")
        args = {"project_code": code, "lines": lines,
                **form_args("period_to", "retainage_work_pct", "retainage_stored_pct")}
        try:
            drafted = ui_call(spec, "draft_pay_app", args)
        except ToolError as err:
            return new_page(code, 422, errors=form_error(err), form=dict(request.form))
        return redirect(url_for(f"{spec.name}.pay_app", pay_app_id=drafted["pay_app_id"], done="drafted"))

    @bp.get("/pay-apps/<int:pay_app_id>")
    def pay_app(pay_app_id):
        return pay_app_page(pay_app_id)

    @bp.get("/pay-apps/<int:pay_app_id>/<form>.pdf")
    def pay_app_pdf(pay_app_id, form):
        if form not in ("G702", "G703"):
            abort(404, description="A pay application prints as G702 or G703.")
        result = ui_call(spec, "download_pay_app", {"pay_app_id": pay_app_id, "form": form})
        return send_file(io.BytesIO(base64.b64decode(result["content_base64"])), mimetype="application/pdf",
                         download_name=result["name"])

    @bp.post("/pay-apps/<int:pay_app_id>/submit")
    def pay_app_submit(pay_app_id):
        try:
            staged = ui_call(spec, "submit_pay_app", {"pay_app_id": pay_app_id})
        except ToolError as err:
            return _refused_or_missing(lambda: pay_app_page(pay_app_id, 422, refused=err.message), err)
        return pay_app_page(pay_app_id, pending=staged)

    @bp.get("/afps")
    def afps():
        result = listing(spec, "list_afps", list_args("search", "project_code", "status"), AFP_SORT)
        return render_view(spec, "payapp/afps.html", 200, ("results",), result=result,
                           title="Applications for Payment")

    @bp.get("/afps/<int:afp_id>")
    def afp(afp_id):
        return afp_page(afp_id)

    @bp.post("/afps/<int:afp_id>/approve")
    def afp_approve(afp_id):
        try:
            staged = ui_call(spec, "approve_afp_step", {"afp_id": afp_id})
        except ToolError as err:
            return _refused_or_missing(lambda: afp_page(afp_id, 422, refused=err.message), err)
        return afp_page(afp_id, pending=staged)

    @bp.post("/afps/<int:afp_id>/return")
    def afp_return(afp_id):
        args = {"afp_id": afp_id, **form_args("reason")}
        try:
            ui_call(spec, "return_afp_for_revision", args)
        except ToolError as err:
            return afp_page(afp_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.afp", afp_id=afp_id, done="returned"))

    @bp.post("/waivers/<int:waiver_id>/send")
    def waiver_send(waiver_id):
        back = request.form.get("afp_id", "")
        try:
            staged = ui_call(spec, "send_waiver", {"waiver_id": waiver_id})
        except ToolError as err:
            return waivers_page(422, refused=err.message)
        if back.isdigit():
            try:
                return afp_page(int(back), pending=staged)
            except ToolError:
                pass
        return waivers_page(pending=staged)

    def waivers_page(status: int = 200, **extra):
        result = listing(spec, "list_waivers", list_args("status"), None)
        return render_view(spec, "payapp/waivers.html", status, ("results",), result=result, title="Waivers", **extra)

    @bp.get("/waivers")
    def waivers():
        return waivers_page()

    @bp.get("/compliance")
    def compliance():
        result = listing(spec, "get_compliance_status", list_args("search", "status"), None)
        return render_view(spec, "payapp/compliance.html", 200, ("results",), result=result, title="Compliance")

    def epayments_page(status: int = 200, **extra):
        result = ui_call(spec, "list_epayment_batches", {})
        return render(spec, "payapp/epayments.html", status, result=result, title="ePayments", **extra)

    @bp.get("/epayments")
    def epayments():
        return epayments_page()

    @bp.post("/epayments/<int:batch_id>/release")
    def epayment_release(batch_id):
        try:
            staged = ui_call(spec, "release_epayment_batch", {"batch_id": batch_id})
        except ToolError as err:
            return epayments_page(422 if err.status < 404 else 404, refused=err.message)
        return epayments_page(pending=staged)

    def _refused_or_missing(page, err: ToolError):
        """A refusal shows on the record's page; a record that does not exist gets a 404 saying so."""
        if err.status == 404:
            raise err
        return page()

    return bp
