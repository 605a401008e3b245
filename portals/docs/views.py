"""The document store's web pages: the root folder, folders, search, recent files, the file
preview and, where the product signs documents, its signature page."""
from __future__ import annotations

import base64
import io

from flask import Blueprint, redirect, request, send_file, url_for

from portals.core.errors import ToolError
from portals.core.ui import field_check_view, listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call

from .browse import DOWNLOAD_CAP, KINDS
from .manage import _email

# column key on the page -> (row field, kind); folders stay ahead of files whatever the sort
ITEM_SORT = {"name": ("name", "text"), "location": ("path", "text"), "kind": ("kind", "text"),
             "updated": ("created_at", "date"), "size": ("size", "number")}
# the fields a page may check one at a time: service -> {field: the service's own rule}
CHECKED_FIELDS = {"create_collaboration": {"email": lambda v: _email(v, "email")},
                  "create_sign_request": {"signer_email": lambda v: _email(v, "signer_email")}}


def _is_folder(row: dict) -> bool:
    return row.get("type") == "folder"

NOTICES = {"uploaded": "File uploaded.", "metadata": "Metadata saved."}
SIGN_KINDS = ("subcontract", "change_order", "lien_waiver", "w9")


def make_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def folder_page(folder_id: int, status: int = 200, **extra):
        args = list_args("page", "per_page")
        items = listing(spec, "list_folder_items", {"folder_id": folder_id, **args}, ITEM_SORT, _is_folder)
        return render_view(spec, "docs/folder.html", status, ("results",), listing=items,
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    def file_page(doc_id: int, status: int = 200, **extra):
        info = ui_call(spec, "get_file_info", {"file_id": doc_id})
        text = ui_call(spec, "ocr_pdf", {"file_id": doc_id})
        return render_view(spec, "docs/file.html", status, file=info, text=text,
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/")
    def all_files():
        return folder_page(0)

    @bp.get("/folder/<int:folder_id>")
    def folder(folder_id: int):
        return folder_page(folder_id)

    @bp.get("/search")
    def search():
        result = listing(spec, "search_files", list_args("query", "kind"), ITEM_SORT)
        return render_view(spec, "docs/search.html", 200, ("results",), result=result, kinds=KINDS,
                           heading="Search results")

    @bp.get("/recents")
    def recents():
        result = listing(spec, "search_files", list_args("kind"), ITEM_SORT)
        return render_view(spec, "docs/search.html", 200, ("results",), result=result, kinds=KINDS,
                           heading="Recents")

    signs = "create_sign_request" in spec.service_tool_names  # Box Sign; SharePoint signs nothing

    if signs:
        @bp.get("/sign")
        def sign():
            kind = request.args.get("kind") or "subcontract"
            result = listing(spec, "search_files", {**list_args("query"), "kind": kind}, ITEM_SORT)
            return render_view(spec, "docs/sign.html", 200, ("results",), result=result, kinds=SIGN_KINDS,
                               kind=kind)

    @bp.get("/file/<int:doc_id>")
    def file(doc_id: int):
        return file_page(doc_id)

    @bp.post("/check/<service_name>/<field>")
    def check_field(service_name: str, field: str):
        """One form field checked as the full submit would check it; answers its error slot."""
        return field_check_view(spec, CHECKED_FIELDS, service_name, field)

    @bp.get("/file/<int:doc_id>/download")
    def download(doc_id: int):
        result = ui_call(spec, "download_file", {"file_id": doc_id, "max_bytes": DOWNLOAD_CAP})
        return send_file(io.BytesIO(base64.b64decode(result["content_base64"])),
                         mimetype="application/pdf", download_name=result["name"])

    @bp.post("/folder/<int:folder_id>/upload")
    def upload(folder_id: int):
        args = {"folder_id": folder_id, **form_args("name", "content")}
        try:
            ui_call(spec, "upload_file", args)
        except ToolError as err:
            return folder_page(folder_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.folder", folder_id=folder_id, done="uploaded"))

    @bp.post("/folder/<int:folder_id>/collaborate")
    def collaborate(folder_id: int):
        args = {"item_id": folder_id, "item_type": "folder", **form_args("email", "role")}
        try:
            staged = ui_call(spec, "create_collaboration", args)
        except ToolError as err:
            return folder_page(folder_id, 422, errors=form_error(err), form=args, refused=err.message)
        return folder_page(folder_id, pending=staged)

    @bp.post("/file/<int:doc_id>/metadata")
    def metadata(doc_id: int):
        args = {"file_id": doc_id, **form_args("template", "key", "value")}
        try:
            ui_call(spec, "apply_metadata", args)
        except ToolError as err:
            return file_page(doc_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.file", doc_id=doc_id, done="metadata"))

    @bp.post("/file/<int:doc_id>/share")
    def share(doc_id: int):
        args = {"file_id": doc_id, **form_args("access")}
        try:
            staged = ui_call(spec, "create_shared_link", args)
        except ToolError as err:
            return file_page(doc_id, 422, errors=form_error(err), form=args, refused=err.message)
        return file_page(doc_id, pending=staged)

    if signs:
        @bp.post("/file/<int:doc_id>/sign")
        def request_signature(doc_id: int):
            args = {"file_id": doc_id, **form_args("signer_email", "message")}
            try:
                staged = ui_call(spec, "create_sign_request", args)
            except ToolError as err:
                return file_page(doc_id, 422, errors=form_error(err), form=args, refused=err.message)
            return file_page(doc_id, pending=staged)

    return bp
