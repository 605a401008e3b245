"""HeavyBid's pages: the estimate list, an estimate (information, notice of award, the biditem
tree beside its grid, exports, the guarded Submit Bid), its activities, its resources, the bid
summary, and an export to accounting with its .xlsx download."""
from __future__ import annotations

from flask import Blueprint, Response, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call

from .est_xlsx import export_xlsx
from .estimating import ESTIMATE_SORT, RESOURCE_SORT, RESOURCE_TYPES, STATUSES

NOTICES = {"exported": "Exported to accounting."}


def make_estimating_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    @bp.get("/")
    def index():
        result = listing(spec, "list_estimates", list_args("query", "status"), ESTIMATE_SORT)
        return render_view(spec, "hcss_heavybid/estimates.html", 200, ("results",), result=result, statuses=STATUSES)

    def estimate_page(estimate_id: int, status: int = 200, **extra):
        e = ui_call(spec, "get_estimate", {"estimate_id": estimate_id})
        items = ui_call(spec, "list_biditems", {"estimate_id": estimate_id, "per_page": 100})["items"]
        acts = ui_call(spec, "list_activities", {"estimate_id": estimate_id, "per_page": 100})["items"]
        return render_view(spec, "hcss_heavybid/estimate.html", status, e=e, items=items, acts=acts,
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/estimates/<int:estimate_id>")
    def estimate(estimate_id: int):
        return estimate_page(estimate_id)

    @bp.get("/estimates/<int:estimate_id>/activities")
    def activities(estimate_id: int):
        e = ui_call(spec, "get_estimate", {"estimate_id": estimate_id})
        result = listing(spec, "list_activities", {"estimate_id": estimate_id, **list_args("biditem_id")})
        items = ui_call(spec, "list_biditems", {"estimate_id": estimate_id, "per_page": 100})["items"]
        choices = [(b["biditem_id"], f"{b['client_code']} {b['description']}") for b in items]
        return render_view(spec, "hcss_heavybid/activities.html", 200, ("results",), e=e, result=result, choices=choices)

    @bp.get("/estimates/<int:estimate_id>/resources")
    def resources(estimate_id: int):
        e = ui_call(spec, "get_estimate", {"estimate_id": estimate_id})
        args = {"estimate_id": estimate_id, **list_args("type", "query", "activity_id")}
        result = listing(spec, "list_resources", args, RESOURCE_SORT)
        return render_view(spec, "hcss_heavybid/resources.html", 200, ("results",), e=e, result=result,
                           types=RESOURCE_TYPES)

    @bp.get("/estimates/<int:estimate_id>/bid-summary")
    def summary(estimate_id: int):
        e = ui_call(spec, "get_estimate", {"estimate_id": estimate_id})
        return render_view(spec, "hcss_heavybid/summary.html", e=e,
                           s=ui_call(spec, "get_bid_summary", {"estimate_id": estimate_id}))

    @bp.post("/estimates/<int:estimate_id>/export")
    def export(estimate_id: int):
        args = {"estimate_id": estimate_id, **form_args("alternates")}
        try:
            made = ui_call(spec, "export_budget", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return estimate_page(estimate_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.export_view", export_id=made["export_id"], done="exported"))

    @bp.post("/estimates/<int:estimate_id>/submit")
    def submit(estimate_id: int):
        try:
            staged = ui_call(spec, "submit_bid", {"estimate_id": estimate_id})
        except ToolError as err:
            if err.status == 404:
                raise
            return estimate_page(estimate_id, 422, refused=err.message)
        return estimate_page(estimate_id, pending=staged)

    @bp.get("/exports/<int:export_id>")
    def export_view(export_id: int):
        x = ui_call(spec, "get_export", {"export_id": export_id})
        e = ui_call(spec, "get_estimate", {"estimate_id": x["estimate_id"]})
        return render_view(spec, "hcss_heavybid/export.html", x=x, e=e,
                           notice=NOTICES.get(request.args.get("done", "")))

    @bp.get("/exports/<int:export_id>/download")
    def export_download(export_id: int):
        x = ui_call(spec, "get_export", {"export_id": export_id})
        e = ui_call(spec, "get_estimate", {"estimate_id": x["estimate_id"]})
        return Response(export_xlsx(e, x), mimetype="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                        headers={"Content-Disposition": f'attachment; filename="{x["file_name"]}"'})

    return bp
