"""Avalara AvaTax's pages: the dashboard, Transactions (search, filters, paging, sorting; a
transaction's lines and tax by jurisdiction; void, and commit which a person approves), a new
transaction, Tax rates by address, Returns (approving one is a person's step) and Settings
(company, nexus, tax codes)."""
from __future__ import annotations

from functools import partial

from flask import Blueprint, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call, ui_stage

from .salestax import STATUSES, TX_SORT
from .salestax_returns import RETURN_SORT, RETURN_STATUSES

NOTICES = {"created": "Transaction saved as Uncommitted.", "voided": "Transaction voided."}
FORM_LINES = 5  # line rows the new-transaction form offers
ADDRESS = ("line1", "city", "region", "postal_code")


def form_lines() -> list[str]:
    """The filled rows of the form's line grid as "amount|tax code|description"."""
    out = []
    for n in range(1, FORM_LINES + 1):
        amount = (request.form.get(f"line_amount_{n}") or "").strip()
        code = (request.form.get(f"line_tax_code_{n}") or "").strip()
        text = (request.form.get(f"line_description_{n}") or "").strip()
        if amount or text:
            out.append(f"{amount}|{code}|{text}")
    return out


def make_salestax_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def notice():
        return NOTICES.get(request.args.get("done", ""))

    @bp.get("/")
    def index():
        tiles = {s: ui_call(spec, "list_transactions", {"status": s, "per_page": 1})["total"] for s in STATUSES}
        returns = ui_call(spec, "list_returns", {"status": "Open", "per_page": 10})
        recent = ui_call(spec, "list_transactions", {"per_page": 8})
        return render_view(spec, "avalara/dashboard.html", tiles=tiles, returns=returns, recent=recent)

    @bp.get("/transactions")
    def transactions():
        args = list_args("doc_type", "status", "region", "date_from", "date_to", "query")
        result = listing(spec, "list_transactions", args, TX_SORT)
        return render_view(spec, "avalara/transactions.html", 200, ("results",), result=result, statuses=STATUSES,
                           notice=notice())

    def tx_page(transaction_id: int, status: int = 200, **extra):
        t = ui_call(spec, "get_transaction", {"transaction_id": transaction_id})
        return render_view(spec, "avalara/transaction.html", status, t=t, notice=notice(), **extra)

    @bp.get("/transactions/<int:transaction_id>")
    def transaction(transaction_id: int):
        return tx_page(transaction_id)

    @bp.post("/transactions/<int:transaction_id>/void")
    def void(transaction_id: int):
        try:
            ui_call(spec, "void_transaction", {"transaction_id": transaction_id})
        except ToolError as err:
            if err.status == 404:
                raise
            return tx_page(transaction_id, 422, errors=form_error(err))
        return redirect(url_for(f"{spec.name}.transaction", transaction_id=transaction_id, done="voided"))

    @bp.post("/transactions/<int:transaction_id>/commit")
    def commit(transaction_id: int):
        return ui_stage(spec, "commit_transaction", {"transaction_id": transaction_id}, page=partial(tx_page, transaction_id))

    def codes():
        return [(c["tax_code"], f"{c['tax_code']} - {c['description']}") for c in ui_call(spec, "list_tax_codes")["items"]]

    def new_page(status: int = 200, **extra):
        extra.setdefault("form", {"doc_type": "PurchaseInvoice"})
        return render_view(spec, "avalara/transaction_new.html", status, codes=codes(), lines=FORM_LINES,
                           company=ui_call(spec, "get_company"), **extra)

    @bp.get("/transactions/new")
    def transaction_new():
        return new_page()

    @bp.post("/transactions/new")
    def create():
        args = {k: v for k, v in form_args("doc_type", "code", "date", "customer_vendor_code", "ship_to_line1",
                                           "ship_to_city", "ship_to_region", "ship_to_postal_code",
                                           "vendor_charged_tax", "description").items() if (v or "").strip()}
        args["lines"] = form_lines()
        try:
            made = ui_call(spec, "create_transaction", args)
        except ToolError as err:
            return new_page(422, errors=form_error(err), form={**args, **request.form})
        if made.get("transaction_id") is None:  # a SalesOrder: the quote, shown and not saved
            return new_page(200, quote=made, form=dict(request.form))
        return redirect(url_for(f"{spec.name}.transaction", transaction_id=made["transaction_id"], done="created"))

    @bp.get("/rates")
    def rates():
        args = {k: request.args.get(k) for k in ADDRESS if (request.args.get(k) or "").strip()}
        found, errors = None, {}
        if args:
            try:
                found = ui_call(spec, "rates_by_address", args)
            except ToolError as err:
                errors = form_error(err)
        return render_view(spec, "avalara/rates.html", 422 if errors else 200, found=found, errors=errors, form=args)

    @bp.get("/returns")
    def returns():
        result = listing(spec, "list_returns", list_args("status", "region"), RETURN_SORT)
        return render_view(spec, "avalara/returns.html", 200, ("results",), result=result, statuses=RETURN_STATUSES)

    def return_page(return_id: int, status: int = 200, **extra):
        r = ui_call(spec, "get_return", {"return_id": return_id})
        return render_view(spec, "avalara/return.html", status, r=r, **extra)

    @bp.get("/returns/<int:return_id>")
    def tax_return(return_id: int):
        return return_page(return_id)

    @bp.post("/returns/<int:return_id>/approve")
    def approve(return_id: int):
        return ui_stage(spec, "approve_return", {"return_id": return_id}, page=partial(return_page, return_id))

    @bp.get("/settings")
    def settings():
        return render_view(spec, "avalara/settings.html", company=ui_call(spec, "get_company"),
                           codes=ui_call(spec, "list_tax_codes")["items"])

    return bp
