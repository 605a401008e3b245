"""Outlook's web pages: folder pane, message list, reading pane and the New message form.

Opening a message never marks it read: reading is free, marking read is its own button. The
reading pane loads in place (htmx) and the list keeps its folder, search and sort while a
message is open and after an action on it.
"""
from __future__ import annotations

from flask import Blueprint, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.ui import field_check_view, listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call

from .mailbox import FOLDERS, addresses

NOTICES = {"saved": "Draft saved.", "read": "Marked as read.", "unread": "Marked as unread.",
           "moved": "Message moved.", "categorized": "Categories saved."}
# what the message list is showing; a message's links and forms carry it along
LIST_STATE = ("folder", "search", "from_address", "unread_only", "sort", "page")
# column key on the page -> (row field, kind)
MESSAGE_SORT = {"from": ("from_name", "text"), "subject": ("subject", "text"), "received": ("received_at", "date")}
# the fields a page may check one at a time: service -> {field: the service's own rule}
CHECKED_FIELDS = {"create_draft": {"to": lambda v: addresses(v, "to"), "cc": lambda v: addresses(v, "cc")}}


def list_state(source) -> dict:
    """The list's folder, search, sort and page from a query string or a posted form."""
    return {k: source.get(k) for k in LIST_STATE if source.get(k)}


def make_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def mail_page(message_id: str | None = None, status: int = 200, **extra):
        message = ui_call(spec, "get_message_detail", {"message_id": message_id}) if message_id else None
        folder = message["folder"] if message and not request.args.get("folder") else \
            request.args.get("folder", "Inbox")
        args = {**list_args("search", "from_address", "unread_only"), "folder": folder}
        messages = listing(spec, "list_messages", args, MESSAGE_SORT)
        folders = ui_call(spec, "list_mail_folders")
        return render_view(spec, "office/mail.html", status, ("mail_panes", "message_list"),
                           listing=messages, folders=folders["items"], current=folder, message=message,
                           destinations=FOLDERS, notice=NOTICES.get(request.args.get("done", "")),
                           state=list_state(request.form if request.method == "POST" else request.args),
                           **extra)

    def after(message_id: str, done: str):
        return redirect(url_for(f"{spec.name}.message", message_id=message_id, done=done,
                                **list_state(request.form)))

    @bp.get("/")
    def inbox():
        return mail_page()

    @bp.get("/message/<path:message_id>")
    def message(message_id: str):
        return mail_page(message_id)

    @bp.get("/compose")
    def compose():
        folders = ui_call(spec, "list_mail_folders")
        return render_view(spec, "office/compose.html", folders=folders["items"], current=None)

    @bp.post("/compose")
    def compose_submit():
        args = form_args("to", "cc", "subject", "body")
        folders = ui_call(spec, "list_mail_folders")
        sending = request.form.get("action") == "send"
        try:
            if sending:
                staged = ui_call(spec, "send_message", args)
            else:
                draft = ui_call(spec, "create_draft", args)
        except ToolError as err:
            return render_view(spec, "office/compose.html", 422, folders=folders["items"], current=None,
                               errors=form_error(err), form=args, refused=err.message if sending else None)
        if sending:
            return render_view(spec, "office/compose.html", folders=folders["items"], current=None,
                               form=args, pending=staged)
        return after(draft["id"], "saved")

    @bp.post("/check/<service_name>/<field>")
    def check_field(service_name: str, field: str):
        """One form field checked as the full submit would check it; answers its error slot."""
        return field_check_view(spec, CHECKED_FIELDS, service_name, field)

    def action(message_id: str, service_name: str, args: dict, done: str | None):
        """Run one action on a message; show errors in place, pending or refused banners for
        guarded ones (`done` is None for those)."""
        try:
            result = ui_call(spec, service_name, {"message_id": message_id, **args})
        except ToolError as err:
            if err.field == "message_id":
                raise
            return mail_page(message_id, 422, errors=form_error(err), form=args,
                             refused=err.message if done is None else None)
        if done is None:
            return mail_page(message_id, pending=result)
        return after(message_id, done)

    @bp.post("/message/<path:message_id>/read")
    def set_read(message_id: str):
        is_read = request.form.get("is_read", "true")
        return action(message_id, "mark_read", {"is_read": is_read},
                      "read" if is_read == "true" else "unread")

    @bp.post("/message/<path:message_id>/move")
    def move(message_id: str):
        return action(message_id, "move_message", form_args("destination"), "moved")

    @bp.post("/message/<path:message_id>/categorize")
    def categorize(message_id: str):
        categories = request.form.get("categories", "").split(",")
        return action(message_id, "categorize_message", {"categories": categories}, "categorized")

    @bp.post("/message/<path:message_id>/send")
    def send_draft(message_id: str):
        return action(message_id, "send_message", {}, None)

    @bp.post("/message/<path:message_id>/reply")
    def reply(message_id: str):
        return action(message_id, "reply_message", form_args("comment", "reply_all"), None)

    @bp.post("/message/<path:message_id>/forward")
    def forward(message_id: str):
        return action(message_id, "forward_message", form_args("to", "comment"), None)

    return bp
