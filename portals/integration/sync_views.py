"""hh2's pages: the sync client's dashboard (status tiles, errors, Sync Now, which a person
approves), the sync map by entity with a mapping's detail and repair, and the sync log."""
from __future__ import annotations

from flask import Blueprint, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call

from .sync import ENTITIES, LOG_ENTITIES, LOG_SORT, LOG_STATUSES, MAPPING_SORT, SYSTEMS

NOTICES = {"saved": "Mapping saved; it takes effect at the next sync run."}


def make_sync_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def dashboard(status: int = 200, **extra):
        s = ui_call(spec, "get_sync_status")
        errors = ui_call(spec, "list_sync_log", {"status": "Error", "per_page": 10})
        return render_view(spec, "hh2/dashboard.html", status, s=s, errors=errors, entities=LOG_ENTITIES, **extra)

    @bp.get("/")
    def index():
        return dashboard()

    @bp.post("/sync/run")
    def run():
        args = {k: v for k, v in form_args("entity").items() if v.strip()}
        try:
            staged = ui_call(spec, "run_sync", args)
        except ToolError as err:
            return dashboard(422, refused=err.message)
        return dashboard(pending=staged)

    @bp.get("/mappings")
    def mappings():
        result = listing(spec, "list_mappings", list_args("entity", "system", "status", "query"), MAPPING_SORT)
        return render_view(spec, "hh2/mappings.html", 200, ("results",), result=result, entities=ENTITIES,
                           systems=SYSTEMS)

    def mapping_page(mapping_id: int, status: int = 200, **extra):
        m = ui_call(spec, "get_mapping", {"mapping_id": mapping_id})
        extra.setdefault("form", {"erp_key": m["erp_key"] or "", "erp_name": m["erp_name"] or ""})
        return render_view(spec, "hh2/mapping.html", status, m=m, notice=NOTICES.get(request.args.get("done", "")),
                           **extra)

    @bp.get("/mappings/<int:mapping_id>")
    def mapping(mapping_id: int):
        return mapping_page(mapping_id)

    @bp.post("/mappings/<int:mapping_id>")
    def save_mapping(mapping_id: int):
        args = {"mapping_id": mapping_id, **form_args("erp_key", "erp_name")}
        try:
            ui_call(spec, "update_mapping", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return mapping_page(mapping_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.mapping", mapping_id=mapping_id, done="saved"))

    @bp.get("/log")
    def log():
        result = listing(spec, "list_sync_log", list_args("status", "entity", "query"), LOG_SORT)
        return render_view(spec, "hh2/log.html", 200, ("results",), result=result, statuses=LOG_STATUSES,
                           entities=LOG_ENTITIES)

    return bp
