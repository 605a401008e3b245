"""Helpers every portal blueprint uses: call a service as the bound browser, render with the skin."""
from __future__ import annotations

from flask import flash, redirect, render_template, request

from .dispatch import call_service, record_refused
from .errors import ToolError
from .registry import AppSpec
from .web import current_episode

PER_PAGE_CHOICES = (25, 50, 100)


def ui_call(spec: AppSpec, service_name: str, args: dict | None = None) -> dict:
    """Run a service for the browser bound to this request (logged with source "ui")."""
    return call_service(current_episode(), spec.name, service_name, args or {}, source="ui")


def ui_refused(spec: AppSpec, service_name: str, args: dict, reason: str) -> None:
    """Record a guarded button pressed on a record the page could not find: still an attempt."""
    episode = current_episode()
    record_refused(episode, spec.name, spec.tool_for_service(service_name), args, "ui", reason)


def list_args(*names: str) -> dict:
    """Query-string filters for a list service, with paging; blank values are dropped."""
    args = {n: request.args.get(n) for n in names if request.args.get(n, "").strip() != ""}
    for key in ("page", "per_page"):
        if request.args.get(key):
            args[key] = request.args[key]
    return args


def form_args(*names: str) -> dict:
    """The named fields of a posted form (checkboxes absent means false, left to the schema)."""
    return {n: request.form.get(n) for n in names if n in request.form}


def render(spec: AppSpec, template: str, status: int = 200, **context):
    """Render an archetype page inside the vendor's skin; htmx requests get the partial alone."""
    context.setdefault("errors", {})
    context.setdefault("form", {})
    return render_template(template, spec=spec, skin=spec.skin, word=spec.word,
                           is_htmx=bool(getattr(request, "htmx", False)), **context), status


def form_error(err: ToolError) -> dict:
    """Errors keyed by field for a form re-render; general ones under "_form"."""
    return {err.field or "_form": err.message}


def ui_form_post(spec: AppSpec, service_name: str, args: dict, *, page, done_message, back: str):
    """A form's action: run the service; refused, `page(422, errors=..., form=...)` shows the
    form again with its error and what was typed; done, the message is flashed and the browser
    is sent `back` (post/redirect/get). A record that does not exist stays a 404."""
    try:
        done = ui_call(spec, service_name, args)
    except ToolError as err:
        if err.status == 404:
            raise
        return page(422, errors=form_error(err), form=dict(request.form))
    flash(done_message(done), "ok")
    return redirect(back)


def ui_stage(spec: AppSpec, service_name: str, args: dict, *, page):
    """A guarded button: the service stages the request for a person, and `page` shows the record
    again with the pending banner, or with why it was refused (422). A missing record: 404."""
    try:
        staged = ui_call(spec, service_name, args)
    except ToolError as err:
        if err.status == 404:
            raise
        return page(422, refused=err.message)
    return page(pending=staged)
