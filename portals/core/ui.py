"""What every portal page shares beyond its skin: stable element ids, htmx partials, field checks.

- `bid(*parts)` gives an interactive element a stable id from what it means (record and action),
  e.g. `bid("invoice", "JSM-0001", "sync")` -> ` data-bid="invoice-JSM-0001-sync"`. The browser
  agent's observation shows these ids and its actions accept them, so a recording or a model
  can name an element across pages and reloads (BrowserGym's `bid`).
- `render_view` renders a page at its own URL; an htmx request that targets one of the page's
  fragment blocks gets that block alone (jinja2-fragments), so one partial serves both the full
  page and the swap. History restores always get the whole page.
- `field_check` answers a per-field validation request from the tool's own schema, so a field
  says in place what the full submit would say.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from flask import abort, get_template_attribute, request
from htmx_flask import make_response
from jinja2_fragments.flask import render_block
from markupsafe import Markup, escape

from .errors import ToolError
from .registry import AppSpec
from .tools import _coerce  # the schema's own conversion, so a field says what the submit would

_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")


def bid_value(*parts) -> str:
    """The stable id of an element: its parts, each reduced to letters, digits, '_' and '.'."""
    words = [_UNSAFE.sub("-", str(p)).strip("-") for p in parts if p is not None and str(p) != ""]
    return "-".join(w for w in words if w)


def bid(*parts) -> Markup:
    """` data-bid="…"` for a template: `<a href="…"{{ bid("invoice", r.invoice_number) }}>`."""
    return Markup(f' data-bid="{escape(bid_value(*parts))}"')


def fragment_target() -> str | None:
    """The element id an htmx request asks to refill, or None for a whole page."""
    htmx = getattr(request, "htmx", None)
    if not htmx or htmx.history_restore_request or htmx.boosted:
        return None
    return htmx.target


def render_view(spec: AppSpec, template: str, status: int = 200, fragments: tuple = (), **context):
    """Render a page in the vendor's skin, or just the fragment block an htmx request targets.

    `fragments` names the page's blocks that can be fetched alone; each block's root element
    carries the same id as the block, which is what htmx sends as HX-Target.
    """
    from .views import render  # views imports web, which imports this module's users

    target = fragment_target()
    if target not in fragments:
        return render(spec, template, status, **context)
    context.setdefault("errors", {})
    context.setdefault("form", {})
    html = render_block(template, target, spec=spec, skin=spec.skin, word=spec.word,
                        is_htmx=True, **context)
    return make_response(html, status)


def field_check(spec: AppSpec, service_name: str, field: str, raw: str, rule=None) -> str | None:
    """The message the full submit would give for this one field's value, or None if it is fine.

    The tool's schema converts the value; `rule(value)`, when given, is the service's own check
    of that field (e.g. an email address), raising the ToolError the service would raise.
    """
    tool = spec.tool_for_service(service_name)
    param = next((p for p in tool.params if p.name == field), None)
    if param is None:
        raise ToolError(f"There is no field {field!r} on this form.", field)
    if raw is None or str(raw).strip() == "":
        return f"{field.replace('_', ' ').capitalize()} is required." if param.required else None
    try:
        value = _coerce(param, raw)
        if rule is not None:
            rule(value)
    except ToolError as err:
        return err.message
    return None


def field_check_view(spec: AppSpec, checked: dict, service_name: str, field: str):
    """The body of a blueprint's `POST /check/<service>/<field>`: `checked` maps each service to
    its checked fields and their extra rules ({"create_collaboration": {"email": rule}})."""
    fields = checked.get(service_name) or {}
    if field not in fields:
        abort(404, description="That field has no check of its own.")
    return field_error_response(field, field_check(spec, service_name, field, request.form.get(field),
                                                   fields[field]))


def field_error_response(field: str, message: str | None):
    """The field's error slot alone, as the `field` macro renders it (one partial, two uses)."""
    slot = get_template_attribute("_macros.html", "field_error")
    return make_response(slot(field, message or ""), 200)


def register(app) -> None:
    """Jinja globals every template and macro can use without importing anything."""
    app.jinja_env.globals.update(bid=bid)

    @app.after_request
    def _vary_on_htmx(response):
        # the same URL answers a whole page or a fragment: caches must keep them apart
        response.vary.add("HX-Request")
        response.vary.add("HX-Target")
        return response


# -- lists sorted by a column ----------------------------------------------------------------

def _sort_value(value, kind: str):
    if value is None or value == "":
        return None
    if kind in ("money", "number"):
        try:
            return Decimal(str(value).replace(",", ""))
        except InvalidOperation:
            return None
    return str(value).lower() if kind == "text" else str(value)


def _field(row: dict, path: str):
    for part in path.split("."):
        row = row.get(part) if isinstance(row, dict) else None
    return row


def _sorts_itself(spec: AppSpec, service_name: str) -> bool:
    """Whether the list service takes `sort` (portals/core/sorting.py) and so pages sorted rows."""
    return any(p.name == "sort" for p in spec.tool_for_service(service_name).params)


def listing(spec: AppSpec, service_name: str, args: dict, sortable: dict | None = None,
            first_if=None) -> dict:
    """One page of a list service, sorted by a column when the URL asks (`sort=amount`, `-amount`).

    `sortable` maps a column key to (row field, kind), kind one of text, number, money, date.
    `first_if(row)` keeps such rows ahead of the rest whatever the sort (Box's folders).
    A service that takes `sort` sorts in SQL and pages itself. The others page in their own
    order, so a sorted page reads every matching row (100 at a time, as the tools would) and
    pages the sorted rows itself; rows without a value go last.
    """
    from .views import ui_call

    sort = request.args.get("sort", "")
    key = sort.lstrip("-")
    if sortable and key in sortable and _sorts_itself(spec, service_name):
        return {**ui_call(spec, service_name, {**args, "sort": sort}), "sort": sort}
    first = ui_call(spec, service_name, args)  # checks every argument, paging included
    if not sortable or key not in sortable:
        return first
    rows, page = [], 1
    while True:
        reuse = page == 1 and first["page"] == 1 and first["per_page"] == 100
        chunk = first if reuse else ui_call(spec, service_name, {**args, "page": page, "per_page": 100})
        rows += chunk["items"]
        if page >= (chunk["pages"] or 1):
            break
        page += 1
    path, kind = sortable[key]
    present = [r for r in rows if _sort_value(_field(r, path), kind) is not None]
    missing = [r for r in rows if _sort_value(_field(r, path), kind) is None]
    present.sort(key=lambda r: _sort_value(_field(r, path), kind), reverse=sort.startswith("-"))
    ordered = present + missing
    if first_if is not None:
        ordered = [r for r in ordered if first_if(r)] + [r for r in ordered if not first_if(r)]
    start = (first["page"] - 1) * first["per_page"]
    return {**first, "items": ordered[start:start + first["per_page"]], "sort": sort}
