"""Screens: payments, retainage, change requests, project estimates, the cost type catalog and
the dimensions. Pay and release are guarded: they are staged, shown, and never executed."""
from __future__ import annotations

from flask import abort, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.views import form_args, form_error

PAYMENT_SORT = {"payment": ("payment_id", "text"), "date": ("payment_date", "date"), "vendor": ("vendor_name", "text"),
                "method": ("method", "text"), "document": ("document_number", "text"), "kind": ("kind", "text"),
                "entity": ("entity_id", "text"), "amount": ("amount", "money"), "state": ("state", "text")}
RETAINAGE_SORT = {"bill": ("bill_number", "text"), "date": ("bill_date", "date"), "vendor": ("vendor_name", "text"),
                  "project": ("project_id", "text"), "commitment": ("commitment", "text"),
                  "held": ("held", "money"), "state": ("state", "text"), "released": ("released_date", "date")}
CR_SORT = {"id": ("change_request_id", "text"), "project": ("project_id", "text"), "date": ("request_date", "date"),
           "type": ("change_type", "text"), "description": ("description", "text"), "task": ("task_id", "text"),
           "cost": ("cost_effect", "money"), "price": ("price_effect", "money"), "status": ("status", "text")}
ESTIMATE_SORT = {"id": ("estimate_id", "text"), "project": ("project_id", "text"), "type": ("estimate_type", "text"),
                 "date": ("estimate_date", "date"), "total": ("total", "money"), "primary": ("is_primary", "text")}
COST_TYPE_SORT = {"id": ("cost_type_id", "text"), "name": ("name", "text"), "accumulation": ("accumulation_type", "text"),
                  "account": ("gl_account", "text"), "status": ("status", "text")}
CR_FIELDS = ("project_id", "change_type", "description", "task_id", "cost_type_id", "cost_effect", "price_effect",
             "request_date")


def register_payables(s) -> None:
    route, call = s.route, s.call

    @route("/ap/payments", "payments")
    def payments():
        return s.listing("query_payments", "erp/payments.html",
                         ("vendor_id", "method", "state", "kind", "document_number", "date_from", "date_to"),
                         PAYMENT_SORT)

    @route("/ap/payments/new", "payments", writes=("create_payment",), methods=("GET", "POST"))
    def payment_new():
        if request.method == "GET":
            return s.page("erp/payment_form.html", form={"method": "Check", **request.args.to_dict()})
        form = form_args("vendor_id", "bill_numbers", "payment_date", "method")
        try:
            staged = call("create_payment", form)
        except ToolError as err:
            return s.page("erp/payment_form.html", 422, form=form, errors=form_error(err), refused=err.message)
        return s.page("erp/payment_form.html", form=form, staged=staged)

    @route("/ap/payments/<payment_id>", "payments")
    def payment_detail(payment_id):
        return s.page("erp/payment_detail.html", payment=call("get_payment", {"payment_id": payment_id}))

    @route("/retainage", "retainage")
    def retainage():
        return s.listing("query_retainage", "erp/retainage.html", ("project_id", "vendor_id", "commitment", "state"),
                         RETAINAGE_SORT)

    @route("/retainage/<commitment>", "retainage")
    def retainage_detail(commitment):
        return s.page("erp/retainage_detail.html", found=call("get_retainage", {"commitment": commitment}))

    @route("/retainage/<commitment>/release", "retainage", writes=("release_retainage",), methods=("POST",))
    def retainage_release(commitment):
        form = {"commitment": commitment, **form_args("release_date")}
        try:
            staged = call("release_retainage", form)
        except ToolError as err:
            found = call("get_retainage", {"commitment": commitment})  # a missing one is its own 404 page
            return s.page("erp/retainage_detail.html", 422, found=found, refused=err.message)
        return s.page("erp/retainage_detail.html", found=call("get_retainage", {"commitment": commitment}),
                      staged=staged)

    @route("/change-requests", "change_requests")
    def change_requests():
        return s.listing("list_change_requests", "erp/change_requests.html",
                         ("project_id", "status", "change_type", "search"), CR_SORT)

    @route("/change-requests/new", "change_requests", writes=("create_change_request",), methods=("GET", "POST"))
    def change_request_new():
        if request.method == "GET":
            return s.page("erp/change_request_form.html", form={"change_type": "owner", "price_effect": "0.00",
                                                               **request.args.to_dict()})
        form = form_args(*CR_FIELDS)
        try:
            created = call("create_change_request", form)
        except ToolError as err:
            return s.page("erp/change_request_form.html", 422, form=form, errors=form_error(err))
        return redirect(url_for(".change_request_detail", change_request_id=created["change_request_id"], saved=1))

    @route("/change-requests/<change_request_id>", "change_requests")
    def change_request_detail(change_request_id):
        found = call("get_change_request", {"change_request_id": change_request_id})
        return s.page("erp/change_request_detail.html", found=found, saved=request.args.get("saved"),
                      approved=request.args.get("approved"))

    @route("/change-requests/<change_request_id>/approve", "change_requests", writes=("approve_change_request",),
           methods=("POST",))
    def change_request_approve(change_request_id):
        try:
            call("approve_change_request", {"change_request_id": change_request_id})
        except ToolError as err:
            found = call("get_change_request", {"change_request_id": change_request_id})
            return s.page("erp/change_request_detail.html", 422, found=found, refused=err.message)
        return redirect(url_for(".change_request_detail", change_request_id=change_request_id, approved=1))

    @route("/estimates", "estimates")
    def estimates():
        return s.listing("query_project_estimates", "erp/estimates.html",
                         ("project_id", "estimate_type", "primary_only"), ESTIMATE_SORT)

    @route("/estimates/<estimate_id>", "estimates")
    def estimate_detail(estimate_id):
        return s.page("erp/estimate_detail.html", found=call("get_project_estimate", {"estimate_id": estimate_id}))

    @route("/cost-types", "cost_types")
    def cost_types():
        return s.listing("list_standard_cost_types", "erp/cost_types.html", ("search", "status"), COST_TYPE_SORT)

    @route("/cost-types/<code>", "cost_types")
    def cost_type_detail(code):
        found = next((t for t in call("list_standard_cost_types", {"search": code, "per_page": 100})["items"]
                      if t["cost_type_id"] == code), None)
        if found is None:
            abort(404, description=f"There is no {s.spec.word('cost_type').lower()} {code!r}.")
        return s.page("erp/cost_type_detail.html", found=found)

    @route("/dimensions", "dimensions")
    def dimensions():
        return s.page("erp/dimensions.html", result=call("list_dimensions"))
