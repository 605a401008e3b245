"""Levelset's pages: the dashboard (a Deadlines panel, Upcoming or All, and new notices), Jobs and a
job's summary (stakeholders, furnishing dates, its deadlines, notices, waivers and orders, and the
order wizard), Notices and a notice (draft a waiver request), Waivers and a waiver (send a drafted
request, which a person approves), and Monthly Notice Control (cancel a scheduled notice)."""
from __future__ import annotations

from flask import Blueprint, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call

from .lien import (DEADLINE_SORT, DOCUMENTS, JOB_SORT, NOTICE_SORT, NOTICE_STATUSES, ORDER_STATUSES, WAIVER_SORT,
                   WAIVER_STATUSES, WAIVER_TYPES)

NOTICES = {"drafted": "Waiver request drafted. It has not been sent.",
           "cancelled": "The scheduled notice is cancelled; it will not be sent."}
UPCOMING_DAYS = 90  # the dashboard's Upcoming panel


def make_lien_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def notice():
        return NOTICES.get(request.args.get("done", ""))

    def refused_or_raise(err: ToolError):
        if err.status == 404:
            raise err
        return err.message

    @bp.get("/")
    def index():
        view = "All" if request.args.get("view") == "all" else "Upcoming"
        args = {"per_page": 25, "page": request.args.get("page", 1)}
        if view == "Upcoming":
            args["within_days"] = UPCOMING_DAYS
        deadlines = ui_call(spec, "list_deadlines", args)
        new = ui_call(spec, "list_notices", {"status": "Open", "per_page": 10})
        return render_view(spec, "levelset/dashboard.html", deadlines=deadlines, view=view, new=new,
                           days=UPCOMING_DAYS, notice=notice())

    @bp.get("/deadlines")
    def deadlines():
        result = listing(spec, "list_deadlines", list_args("within_days", "state"), DEADLINE_SORT)
        return render_view(spec, "levelset/deadlines.html", 200, ("results",), result=result)

    @bp.get("/jobs")
    def jobs():
        result = listing(spec, "list_jobs", list_args("query", "state", "project_type", "status"), JOB_SORT)
        return render_view(spec, "levelset/jobs.html", 200, ("results",), result=result)

    def job_page(job_id: int, status: int = 200, **extra):
        j = ui_call(spec, "get_job", {"job_id": job_id})
        view = "All" if request.args.get("view") == "all" else "Upcoming"
        shown = [d for d in j["deadlines"] if view == "All" or d["days_left"] >= 0]
        extra.setdefault("form", {})
        return render_view(spec, "levelset/job.html", status, j=j, view=view, shown=shown, documents=DOCUMENTS,
                           waiver_types=WAIVER_TYPES, notice=notice(), **extra)

    @bp.get("/jobs/<int:job_id>")
    def job(job_id: int):
        return job_page(job_id)

    def guarded_post(job_id: int, service: str, fields: tuple[str, ...], renamed: dict | None = None):
        args = {"job_id": job_id, **form_args(*fields)}
        for form_name, arg in (renamed or {}).items():  # one page, two amount fields: each its own name
            if form_name in request.form:
                args[arg] = request.form[form_name]
        try:
            staged = ui_call(spec, service, args)
        except ToolError as err:
            return job_page(job_id, 422, refused=refused_or_raise(err), errors=form_error(err), form=args)
        return job_page(job_id, pending=staged)

    @bp.post("/jobs/<int:job_id>/order")
    def order(job_id: int):
        return guarded_post(job_id, "order_notice", ("document", "recipient"))

    @bp.post("/jobs/<int:job_id>/lien")
    def lien(job_id: int):
        return guarded_post(job_id, "file_lien", (), {"lien_amount": "amount"})

    @bp.post("/jobs/<int:job_id>/sign")
    def sign(job_id: int):
        return guarded_post(job_id, "sign_waiver", ("waiver_type", "through_date", "amount"))

    @bp.get("/notices")
    def notices():
        result = listing(spec, "list_notices", list_args("status", "job_id", "query"), NOTICE_SORT)
        return render_view(spec, "levelset/notices.html", 200, ("results",), result=result, statuses=NOTICE_STATUSES)

    def notice_page(notice_id: int, status: int = 200, **extra):
        n = ui_call(spec, "get_notice", {"notice_id": notice_id})
        extra.setdefault("form", {})
        return render_view(spec, "levelset/notice.html", status, n=n, waiver_types=WAIVER_TYPES, notice=notice(),
                           **extra)

    @bp.get("/notices/<int:notice_id>")
    def notice_detail(notice_id: int):
        return notice_page(notice_id)

    @bp.post("/notices/<int:notice_id>/waiver-request")
    def draft_request(notice_id: int):
        args = {"notice_id": notice_id,
                **{k: v for k, v in form_args("waiver_type", "through_date", "amount", "note").items() if v.strip()}}
        try:
            made = ui_call(spec, "draft_waiver_request", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return notice_page(notice_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.waiver", waiver_id=made["waiver_id"], done="drafted"))

    @bp.get("/waivers")
    def waivers():
        result = listing(spec, "list_waivers", list_args("status", "waiver_type", "job_id", "query"), WAIVER_SORT)
        return render_view(spec, "levelset/waivers.html", 200, ("results",), result=result, statuses=WAIVER_STATUSES,
                           types=WAIVER_TYPES)

    def waiver_page(waiver_id: int, status: int = 200, **extra):
        w = ui_call(spec, "get_waiver", {"waiver_id": waiver_id})
        return render_view(spec, "levelset/waiver.html", status, w=w, notice=notice(), **extra)

    @bp.get("/waivers/<int:waiver_id>")
    def waiver(waiver_id: int):
        return waiver_page(waiver_id)

    @bp.post("/waivers/<int:waiver_id>/send")
    def send(waiver_id: int):
        try:
            staged = ui_call(spec, "request_waiver", {"waiver_id": waiver_id})
        except ToolError as err:
            return waiver_page(waiver_id, 422, refused=refused_or_raise(err))
        return waiver_page(waiver_id, pending=staged)

    @bp.get("/orders")
    def orders():
        result = listing(spec, "list_orders", list_args("status", "job_id"))
        return render_view(spec, "levelset/orders.html", 200, ("results",), result=result, statuses=ORDER_STATUSES,
                           notice=notice())

    @bp.post("/orders/<int:order_id>/cancel")
    def cancel(order_id: int):
        try:
            ui_call(spec, "cancel_monthly_notice", {"order_id": order_id})
        except ToolError as err:
            if err.status == 404:
                raise
            result = listing(spec, "list_orders", {})
            return render_view(spec, "levelset/orders.html", 422, result=result, statuses=ORDER_STATUSES,
                               errors=form_error(err))
        return redirect(url_for(f"{spec.name}.orders", done="cancelled"))

    return bp
