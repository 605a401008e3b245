"""Corpay's pages: the dashboard (status tiles), Pending Approval, Payments and a payment, Payment
Files (and uploading one), Suppliers and a supplier (payment method, bank details, hold), and Bank
Change Requests (review: reject, or apply, which a person approves)."""
from __future__ import annotations

from flask import Blueprint, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call

from .pay import CHANGE_STATUSES, FILE_SORT, METHODS, PAYMENT_SORT, PAYMENT_STATUSES, SUPPLIER_SORT

NOTICES = {"held": "Payments to this supplier are on hold.", "released": "The hold is released.",
           "rejected": "Bank change request rejected; the bank details on file are unchanged.",
           "uploaded": "Payment file uploaded; its payments are in Pending Approval."}
BANK_FIELDS = ("payment_method", "bank_name", "routing_number", "account_number")


def make_pay_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def notice():
        return NOTICES.get(request.args.get("done", ""))

    def refused_or_raise(err: ToolError):
        if err.status == 404:
            raise err
        return err.message

    @bp.get("/")
    def index():
        tiles = {"pending": ui_call(spec, "list_pending_approval", {"per_page": 1})["total"],
                 "approved": ui_call(spec, "list_payments", {"status": "Approved", "per_page": 1})["total"],
                 "paid": ui_call(spec, "list_payments", {"status": "Paid", "per_page": 1})["total"],
                 "holds": ui_call(spec, "list_suppliers", {"on_hold": True, "per_page": 1})["total"],
                 "changes": ui_call(spec, "list_bank_changes", {"status": "Pending review", "per_page": 1})["total"]}
        files = ui_call(spec, "list_payment_files", {"per_page": 5})
        return render_view(spec, "corpay/dashboard.html", tiles=tiles, files=files, notice=notice())

    def pending_page(status: int = 200, **extra):
        result = listing(spec, "list_pending_approval", list_args("query"), PAYMENT_SORT)
        return render_view(spec, "corpay/pending.html", status, ("results",), result=result, **extra)

    @bp.get("/pending")
    def pending():
        return pending_page()

    @bp.get("/payments")
    def payments():
        result = listing(spec, "list_payments", list_args("status", "file_id", "supplier_id", "query"), PAYMENT_SORT)
        return render_view(spec, "corpay/payments.html", 200, ("results",), result=result, statuses=PAYMENT_STATUSES)

    def payment_page(payment_id: int, status: int = 200, **extra):
        p = ui_call(spec, "get_payment", {"payment_id": payment_id})
        return render_view(spec, "corpay/payment.html", status, p=p, **extra)

    @bp.get("/payments/<int:payment_id>")
    def payment(payment_id: int):
        return payment_page(payment_id)

    @bp.post("/payments/<int:payment_id>/approve")
    def approve(payment_id: int):
        try:
            staged = ui_call(spec, "approve_payment", {"payment_id": payment_id})
        except ToolError as err:
            return payment_page(payment_id, 422, refused=refused_or_raise(err))
        return payment_page(payment_id, pending=staged)

    @bp.get("/files")
    def files():
        result = listing(spec, "list_payment_files", list_args(), FILE_SORT)
        return render_view(spec, "corpay/files.html", 200, ("results",), result=result, notice=notice())

    @bp.get("/files/<int:file_id>")
    def file(file_id: int):
        return render_view(spec, "corpay/file.html", f=ui_call(spec, "get_payment_file", {"file_id": file_id}),
                           notice=notice())

    def upload_page(status: int = 200, **extra):
        return render_view(spec, "corpay/upload.html", status, **extra)

    @bp.get("/files/upload")
    def upload():
        return upload_page()

    @bp.post("/files/upload")
    def do_upload():
        args = form_args("file_name", "content", "pay_date")
        try:
            made = ui_call(spec, "upload_payment_file", args)
        except ToolError as err:
            return upload_page(422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.file", file_id=made["file_id"], done="uploaded"))

    @bp.get("/suppliers")
    def suppliers():
        args = list_args("query", "payment_method", "on_hold")
        result = listing(spec, "list_suppliers", args, SUPPLIER_SORT)
        return render_view(spec, "corpay/suppliers.html", 200, ("results",), result=result, methods=METHODS)

    def supplier_page(supplier_id: int, status: int = 200, **extra):
        s = ui_call(spec, "get_supplier", {"supplier_id": supplier_id})
        extra.setdefault("form", {"payment_method": s["payment_method"]})
        return render_view(spec, "corpay/supplier.html", status, s=s, methods=METHODS, notice=notice(), **extra)

    @bp.get("/suppliers/<int:supplier_id>")
    def supplier(supplier_id: int):
        return supplier_page(supplier_id)

    @bp.post("/suppliers/<int:supplier_id>/hold")
    def hold(supplier_id: int):
        args = {"supplier_id": supplier_id, **form_args("reason")}
        try:
            ui_call(spec, "hold_supplier", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return supplier_page(supplier_id, 422, errors=form_error(err))
        return redirect(url_for(f"{spec.name}.supplier", supplier_id=supplier_id, done="held"))

    @bp.post("/suppliers/<int:supplier_id>/release")
    def release(supplier_id: int):
        try:
            ui_call(spec, "release_supplier_hold", {"supplier_id": supplier_id})
        except ToolError as err:
            if err.status == 404:
                raise
            return supplier_page(supplier_id, 422, errors=form_error(err))
        return redirect(url_for(f"{spec.name}.supplier", supplier_id=supplier_id, done="released"))

    @bp.post("/suppliers/<int:supplier_id>/payment-method")
    def payment_method(supplier_id: int):
        args = {"supplier_id": supplier_id, **{k: v for k, v in form_args(*BANK_FIELDS).items() if v.strip()}}
        try:
            staged = ui_call(spec, "update_payment_method", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return supplier_page(supplier_id, 422, errors=form_error(err), form=args, refused=err.message)
        return supplier_page(supplier_id, pending=staged)

    @bp.get("/bank-changes")
    def bank_changes():
        result = listing(spec, "list_bank_changes", list_args("status", "supplier_id"))
        return render_view(spec, "corpay/bank_changes.html", 200, ("results",), result=result,
                           statuses=CHANGE_STATUSES)

    def change_page(change_id: int, status: int = 200, **extra):
        c = ui_call(spec, "get_bank_change", {"change_id": change_id})
        return render_view(spec, "corpay/bank_change.html", status, c=c, notice=notice(), **extra)

    @bp.get("/bank-changes/<int:change_id>")
    def bank_change(change_id: int):
        return change_page(change_id)

    @bp.post("/bank-changes/<int:change_id>/reject")
    def reject(change_id: int):
        args = {"change_id": change_id, **form_args("note")}
        try:
            ui_call(spec, "reject_bank_change", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return change_page(change_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.bank_change", change_id=change_id, done="rejected"))

    @bp.post("/bank-changes/<int:change_id>/apply")
    def apply(change_id: int):
        try:
            staged = ui_call(spec, "apply_bank_change", {"change_id": change_id})
        except ToolError as err:
            return change_page(change_id, 422, refused=refused_or_raise(err))
        return change_page(change_id, pending=staged)

    return bp
