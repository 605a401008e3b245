"""Screens for the records some products keep beyond the shared AP / JC core (payments, retainage,
change requests, estimates, entities, batches, progress billing, firms, SL and PO).

Each screen registers only where the vendor's manifest lists it, through the blueprint's own
`route` (so a write is always one of the vendor's tools), lists sort and page in place (htmx),
and the entity a person works in (multi-entity products) keeps every list that takes one to it.
"""
from __future__ import annotations

from flask import abort, redirect, request, session, url_for

from sqlalchemy import select

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args
from portals.core.web import current_episode

from .models import Batch, Entity

EMPTY = {"items": [], "page": 1, "per_page": 25, "total": 0, "pages": 0}
GRID = ("gl_account", "project_id", "task_id", "cost_type_id", "amount", "memo")  # a bill line's cells
GRID_ROWS = 6  # blank line rows on the bill form


def bill_grid(form) -> tuple[dict, list[str]]:
    """The bill form's line grid: its cells (to show again) and the filled rows as tool lines."""
    cells, lines = {}, []
    for n in range(1, GRID_ROWS + 1):
        row = [str(form.get(f"line_{c}_{n}", "")).strip() for c in GRID]
        cells.update({f"line_{c}_{n}": v for c, v in zip(GRID, row) if v})
        if any(row):
            lines.append("|".join(row))
    return cells, lines


def header_rows(spec, model, *columns) -> list[tuple]:
    """Rows the skin's header shows on every page, read as they are without a logged tool call
    (the selector is not an action of the person's)."""
    episode = current_episode()
    with episode.lock, episode.app(spec.name).session() as db:
        order = [getattr(model, c) for c in columns]
        return [tuple(r) for r in db.execute(select(*order).order_by(*order))]


def _key(spec) -> str:
    return f"entity:{spec.name}"


def current_entity(spec) -> str | None:
    """The entity this browser works in; None is the top level (every entity)."""
    if "entities" not in spec.manifest.get("screens", []):
        return None
    return session.get(_key(spec)) or None


def entity_args(spec, service: str) -> dict:
    """{"entity_id": …} for a list service that keeps to one entity, while a person works in one."""
    entity = current_entity(spec)
    if not entity or "entity_id" not in {p.name for p in spec.tool_for_service(service).params}:
        return {}
    return {"entity_id": entity}


class Screens:
    """The pieces every record screen uses, bound to one blueprint."""

    def __init__(self, bp, spec, route, call):
        self.bp, self.spec, self.route, self.call = bp, spec, route, call

    def listing(self, service, template, names, sortable, fixed=None, status=200, **extra):
        """A list screen: its filters from the URL, sorted by `sortable`'s columns, paged; a refused
        filter is a 400 with its message; `status` is the page's own (e.g. 422 under a refused form)."""
        args = {**list_args(*names), **entity_args(self.spec, service), **(fixed or {})}
        try:
            result, errors = listing(self.spec, service, args, sortable), {}
        except ToolError as err:
            result, errors, status = EMPTY, form_error(err), 400
        return render_view(self.spec, template, status, ("results",), result=result, errors=errors,
                           entity=current_entity(self.spec), **extra)

    def page(self, template, status=200, **context):
        return render_view(self.spec, template, status, entity=current_entity(self.spec), **context)


def _opens(path: str) -> bool:
    """Whether a GET of this path reaches a page (not only a POST action)."""
    from flask import current_app
    from werkzeug.exceptions import HTTPException

    try:
        current_app.url_map.bind("localhost").match(path.split("?", 1)[0], method="GET")
    except HTTPException:
        return False
    return True


def register(bp, spec, route, call) -> None:
    """Add the record screens the manifest lists to the vendor's blueprint."""
    from .views_payables import register_payables
    from .views_posting import register_posting

    screens = Screens(bp, spec, route, call)

    @bp.context_processor
    def _header():
        """What the skin's header shows: the entity selector, the open batch in the batch bar."""
        out = {}
        if "switch_entity" in bp.writes_of:
            out.update(entity_choices=header_rows(spec, Entity, "entity_id", "name"),
                       current_entity=current_entity(spec))
        if "batches" in bp.writes_of:
            open_ap = [b for b in header_rows(spec, Batch, "source", "status", "mth", "batch_id")
                       if b[0] == "AP Entry" and b[1] == "open"]
            if open_ap:
                out.update(mth=f"{open_ap[-1][2][5:]}/{open_ap[-1][2][2:4]}", batch_id=open_ap[-1][3])
        return out

    @route("/entity", "entities")
    def switch_entity():
        """Work at the top level (blank) or inside one entity; lists keep to it until switched."""
        wanted = request.args.get("entity_id", "").strip()
        if wanted:
            if wanted not in dict(header_rows(spec, Entity, "entity_id", "name")):
                abort(404, description=f"There is no {spec.word('entity').lower()} {wanted!r}.")
        session[_key(spec)] = wanted
        back = request.args.get("next", "")
        if not back.startswith(spec.base_path + "/") or "//" in back or not _opens(back):
            back = url_for(".entities")  # e.g. switched on the page a POST answered: no page to go back to
        return redirect(back)

    @route("/entities", "entities")
    def entities():
        return screens.listing("list_entities", "erp/entities.html", ("search",),
                               {"id": ("entity_id", "text"), "name": ("name", "text"), "state": ("state", "text"),
                                "projects": ("project_count", "number")})

    @route("/entities/<entity_id>", "entities")
    def entity_detail(entity_id):
        found = next((e for e in call("list_entities", {"search": entity_id, "per_page": 100})["items"]
                      if e["entity_id"] == entity_id), None)
        if found is None:
            abort(404, description=f"There is no {spec.word('entity').lower()} {entity_id!r}.")
        projects = call("list_projects", {"entity_id": entity_id, "per_page": 100})
        return screens.page("erp/entity_detail.html", found=found, projects=projects)

    @route("/ap/bills/new/lines", "bill_new", writes=("create_bill",), methods=("GET", "POST"))
    def bill_lines_new():
        """The bill entry form with a line grid: one line per account or code the bill splits across."""
        if request.method == "GET":
            return screens.page("erp/bill_lines_form.html", rows=GRID_ROWS)
        cells, lines = bill_grid(request.form)
        form = form_args("vendor_id", "bill_number", "bill_date", "due_date", "commitment", "amount", "description")
        if not lines:  # this form codes the bill in its lines only
            return screens.page("erp/bill_lines_form.html", 422, rows=GRID_ROWS, form=form,
                                errors={"lines": "Fill at least one line."})
        try:
            bill = call("create_bill", {**form, "lines": lines})
        except ToolError as err:
            return screens.page("erp/bill_lines_form.html", 422, rows=GRID_ROWS, form={**form, **cells},
                                errors=form_error(err))
        return redirect(url_for(".bill_detail", bill_id=bill["bill_id"], saved=1))

    register_payables(screens)
    register_posting(screens)
