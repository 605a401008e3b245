"""Screens: batches (post is guarded), progress billing, PM firms, subcontract change orders,
subcontracts and purchase orders."""
from __future__ import annotations

from flask import redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.views import form_args, form_error

BATCH_SORT = {"mth": ("mth", "text"), "batch": ("batch_id", "number"), "source": ("source", "text"),
              "status": ("status", "text"), "entries": ("entries", "number"), "total": ("total", "money"),
              "posted": ("date_posted", "date")}
PROGRESS_SORT = {"month": ("bill_month", "text"), "project": ("project_id", "text"), "bill": ("bill_number", "number"),
                 "application": ("application", "number"), "this_period": ("this_period", "money"),
                 "to_date": ("billed_to_date", "money"), "retainage": ("retainage", "money"),
                 "due": ("amount_due", "money"), "status": ("status", "text")}
FIRM_SORT = {"firm": ("firm_number", "number"), "name": ("firm_name", "text"), "sort": ("sort_name", "text"),
             "type": ("firm_type", "text"), "vendor": ("vendor_id", "text"), "city": ("city", "text")}
SLCO_SORT = {"subcontract": ("subcontract", "text"), "co": ("change_order", "number"), "date": ("act_date", "date"),
             "description": ("description", "text"), "amount": ("amount", "money"), "status": ("status", "text")}
PO_SORT = {"number": ("number", "text"), "project": ("project_id", "text"), "vendor": ("vendor_name", "text"),
           "title": ("title", "text"), "status": ("status", "text"), "orig": ("orig_cost", "money"),
           "cur": ("cur_cost", "money"), "inv": ("inv_cost", "money"), "remaining": ("remaining", "money")}
SLCO_FIELDS = ("subcontract", "item", "act_date", "description", "amount")


def register_posting(s) -> None:
    route, call = s.route, s.call
    offered = set(s.spec.tool_map.values())

    @route("/hq/batches", "batches")
    def batches():
        return s.listing("list_batches", "erp/batches.html", ("mth", "source", "status"), BATCH_SORT)

    def batch_page(mth, batch_id, status=200, **extra):
        args = {"mth": mth, "batch_id": batch_id, **{k: v for k, v in request.args.items() if k in ("page", "per_page")}}
        return s.page("erp/batch_detail.html", status, batch=call("get_batch", args), **extra)

    @route("/hq/batches/<mth>/<int:batch_id>", "batches")
    def batch_detail(mth, batch_id):
        return batch_page(mth, batch_id)

    @route("/hq/batches/<mth>/<int:batch_id>/post", "batches", writes=("post_batch",), methods=("POST",))
    def batch_post(mth, batch_id):
        try:
            staged = call("post_batch", {"mth": mth, "batch_id": batch_id})
        except ToolError as err:
            return batch_page(mth, batch_id, 422, refused=err.message)  # a missing batch is its own 404
        return batch_page(mth, batch_id, staged=staged)

    @route("/jb/progress-bills", "progress_bills")
    def progress_bills():
        return s.listing("list_progress_bills", "erp/progress_bills.html", ("project_id", "bill_month", "status"),
                         PROGRESS_SORT)

    @route("/jb/progress-bills/<job>/<int:application>", "progress_bills")
    def progress_bill_detail(job, application):
        found = call("get_progress_bill", {"project_id": job, "application": application})
        return s.page("erp/progress_bill_detail.html", found=found)

    @route("/pm/firms", "firms")
    def firms():
        return s.listing("list_firms", "erp/firms.html", ("search", "firm_type"), FIRM_SORT)

    @route("/pm/firms/<int:firm_number>", "firms")
    def firm_detail(firm_number):
        return s.page("erp/firm_detail.html", found=call("get_firm", {"firm_number": firm_number}))

    @route("/sl/change-orders", "sl_change_orders")
    def sl_change_orders():
        return s.listing("list_sl_change_orders", "erp/sl_change_orders.html", ("subcontract", "project_id", "status"),
                         SLCO_SORT, saved=request.args.get("saved"))

    @route("/sl/change-orders/new", "sl_change_orders", writes=("create_sl_change_order",), methods=("GET", "POST"))
    def sl_change_order_new():
        if request.method == "GET":
            return s.page("erp/sl_change_order_form.html", form={"item": "1", **request.args.to_dict()})
        form = form_args(*SLCO_FIELDS)
        try:
            created = call("create_sl_change_order", form)
        except ToolError as err:
            return s.page("erp/sl_change_order_form.html", 422, form=form, errors=form_error(err))
        return redirect(url_for(".sl_change_orders", subcontract=created["subcontract"],
                                saved=f"{created['subcontract']} CO {created['change_order']}"))

    @route("/po/purchase-orders", "purchase_orders")
    def purchase_orders():
        return s.listing("list_purchase_orders", "erp/purchase_orders.html", ("project_id", "vendor_id", "status", "search"),
                         PO_SORT, kind="purchase_order")

    @route("/po/purchase-orders/<number>", "purchase_orders")
    def purchase_order_detail(number):
        found = call("get_purchase_order", {"purchase_order": number})
        return s.page("erp/commitment_detail.html", found=found, kind="purchase_order")

    if "get_subcontract" in offered:  # the subcontract's own record, where the product has one
        @route("/sl/subcontracts/<number>", ("commitments", "sl_change_orders"))
        def subcontract_detail(number):
            found = call("get_subcontract", {"subcontract": number})
            return s.page("erp/commitment_detail.html", found=found, kind="subcontract")
