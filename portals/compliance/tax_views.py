"""Track1099's pages: Forms (status chips), a form, a new 1099-NEC, the Cart (checkout), Recipients,
a recipient (W-9, TIN match, W-9 request), Payers, TIN Matches and W-9 Requests."""
from __future__ import annotations

from functools import partial

from flask import Blueprint, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call, ui_stage

from .tax import CLASSIFICATIONS, FORM_SORT, FORM_STATUSES, PAYER_SORT, RECIPIENT_SORT, W9_STATUSES

NOTICES = {"saved": "Form saved as a draft.", "carted": "Form added to the cart.",
           "uncarted": "Form removed from the cart; it is a draft again.", "deleted": "Draft form deleted.",
           "matched": "TIN match result received.", "recipient": "Recipient saved."}
TAX_YEARS = ("2026", "2025", "2024")
RECIPIENT_FIELDS = ("name", "business_name", "tin", "tin_type", "tax_classification", "exempt_payee_code", "email")
NEW_RECIPIENT_FIELDS = ("payer_id", "name", "business_name", "tin", "tin_type", "tax_classification",
                        "exempt_payee_code", "reference_id", "address", "city", "state", "zip", "email")


def make_tax_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    def payer_choices():
        return [(str(p["payer_id"]), p["name"]) for p in ui_call(spec, "list_payers", {"per_page": 100})["items"]]

    def recipient_choices():
        rows, page = [], 1
        while True:
            found = ui_call(spec, "list_recipients", {"per_page": 100, "page": page})
            rows += found["items"]
            if page >= (found["pages"] or 1):
                break
            page += 1
        return [(str(r["recipient_id"]), f"{r['name']} ({r['tin_masked'] or 'no TIN'})") for r in rows]

    def notice():
        return NOTICES.get(request.args.get("done", ""))

    @bp.get("/")
    def index():
        args = list_args("payer_id", "tax_year", "status", "query")
        result = listing(spec, "list_forms", args, FORM_SORT)
        return render_view(spec, "tax/forms.html", 200, ("results",), result=result, payers=payer_choices(),
                           statuses=FORM_STATUSES, years=TAX_YEARS, notice=notice())

    def form_page(form_id: int, status: int = 200, **extra):
        found = ui_call(spec, "get_form", {"form_id": form_id})
        return render_view(spec, "tax/form.html", status, f=found, notice=notice(), **extra)

    @bp.get("/forms/<int:form_id>")
    def form(form_id: int):
        return form_page(form_id)

    @bp.post("/forms/<int:form_id>")
    def save_form(form_id: int):
        found = ui_call(spec, "get_form", {"form_id": form_id})
        args = {"recipient_id": found["recipient_id"], "tax_year": found["tax_year"],
                **form_args("box1_nonemployee_comp", "box4_federal_withheld")}
        if not (args.get("box4_federal_withheld") or "").strip():
            args.pop("box4_federal_withheld", None)
        try:
            ui_call(spec, "upsert_form", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return form_page(form_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.form", form_id=form_id, done="saved"))

    def form_action(service: str, form_id: int, done: str):
        try:
            ui_call(spec, service, {"form_id": form_id})
        except ToolError as err:
            if err.status == 404:
                raise
            return form_page(form_id, 422, errors=form_error(err))
        if service == "delete_form":
            return redirect(url_for(f"{spec.name}.index", done=done))
        return redirect(url_for(f"{spec.name}.form", form_id=form_id, done=done))

    @bp.post("/forms/<int:form_id>/cart")
    def add_to_cart(form_id: int):
        return form_action("add_form_to_cart", form_id, "carted")

    @bp.post("/forms/<int:form_id>/uncart")
    def remove_from_cart(form_id: int):
        return form_action("remove_form_from_cart", form_id, "uncarted")

    @bp.post("/forms/<int:form_id>/delete")
    def delete(form_id: int):
        return form_action("delete_form", form_id, "deleted")

    @bp.post("/forms/<int:form_id>/deliver")
    def deliver(form_id: int):
        return ui_stage(spec, "deliver_copies", {"form_id": form_id}, page=partial(form_page, form_id))

    def new_form_page(status: int = 200, **extra):
        return render_view(spec, "tax/form_new.html", status, recipients=recipient_choices(), years=TAX_YEARS, **extra)

    @bp.get("/forms/new")
    def new_form():
        return new_form_page(form={"recipient_id": request.args.get("recipient_id", "")})

    @bp.post("/forms/new")
    def create_form():
        args = form_args("recipient_id", "tax_year", "box1_nonemployee_comp", "box4_federal_withheld")
        if not (args.get("box4_federal_withheld") or "").strip():
            args.pop("box4_federal_withheld", None)
        try:
            made = ui_call(spec, "upsert_form", args)
        except ToolError as err:
            return new_form_page(422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.form", form_id=made["form_id"], done="saved"))

    def cart_page(status: int = 200, **extra):
        payers = payer_choices()
        payer = request.values.get("payer_id") or (payers[0][0] if payers else "")
        year = request.values.get("tax_year") or TAX_YEARS[1]
        cart = ui_call(spec, "get_cart", {"payer_id": payer, "tax_year": year}) if payer else None
        return render_view(spec, "tax/cart.html", status, cart=cart, payers=payers, years=TAX_YEARS, **extra)

    @bp.get("/cart")
    def cart():
        return cart_page()

    @bp.post("/cart/schedule")
    def schedule():
        args = form_args("payer_id", "tax_year")
        return ui_stage(spec, "schedule_efile", args, page=cart_page)

    @bp.get("/recipients")
    def recipients():
        result = listing(spec, "list_recipients", list_args("payer_id", "query", "w9_status"), RECIPIENT_SORT)
        return render_view(spec, "tax/recipients.html", 200, ("results",), result=result, payers=payer_choices(),
                           w9_statuses=W9_STATUSES, notice=notice())

    def recipient_page(recipient_id: int, status: int = 200, **extra):
        found = ui_call(spec, "get_recipient", {"recipient_id": recipient_id})
        extra.setdefault("form", {k: found.get(k) or "" for k in RECIPIENT_FIELDS})
        return render_view(spec, "tax/recipient.html", status, r=found, classifications=CLASSIFICATIONS,
                           notice=notice(), **extra)

    @bp.get("/recipients/<int:recipient_id>")
    def recipient(recipient_id: int):
        return recipient_page(recipient_id)

    @bp.post("/recipients/<int:recipient_id>")
    def update_recipient(recipient_id: int):
        args = {"recipient_id": recipient_id, **form_args(*RECIPIENT_FIELDS)}
        for key in ("tin_type", "tax_classification"):
            if not (args.get(key) or "").strip():
                args.pop(key, None)
        try:
            ui_call(spec, "update_recipient", args)
        except ToolError as err:
            if err.status == 404:
                raise
            return recipient_page(recipient_id, 422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.recipient", recipient_id=recipient_id, done="recipient"))

    @bp.post("/recipients/<int:recipient_id>/tin-match")
    def tin_match(recipient_id: int):
        try:
            ui_call(spec, "submit_tin_match", {"recipient_id": recipient_id})
        except ToolError as err:
            if err.status == 404:
                raise
            return recipient_page(recipient_id, 422, errors=form_error(err))
        return redirect(url_for(f"{spec.name}.recipient", recipient_id=recipient_id, done="matched"))

    @bp.post("/recipients/<int:recipient_id>/w9-request")
    def w9_request(recipient_id: int):
        args = {"recipient_id": recipient_id, **{k: v for k, v in form_args("email").items() if v.strip()}}
        return ui_stage(spec, "request_w9", args, page=partial(recipient_page, recipient_id))

    def new_recipient_page(status: int = 200, **extra):
        return render_view(spec, "tax/recipient_new.html", status, payers=payer_choices(),
                           classifications=CLASSIFICATIONS, **extra)

    @bp.get("/recipients/new")
    def new_recipient():
        return new_recipient_page(form={"tin_type": "EIN"})

    @bp.post("/recipients/new")
    def create_recipient():
        args = form_args(*NEW_RECIPIENT_FIELDS)
        for key in ("business_name", "tax_classification", "exempt_payee_code", "reference_id", "email"):
            if not (args.get(key) or "").strip():
                args.pop(key, None)
        try:
            made = ui_call(spec, "create_recipient", args)
        except ToolError as err:
            return new_recipient_page(422, errors=form_error(err), form=args)
        return redirect(url_for(f"{spec.name}.recipient", recipient_id=made["recipient_id"], done="recipient"))

    @bp.get("/payers")
    def payers():
        result = listing(spec, "list_payers", list_args("query"), PAYER_SORT)
        return render_view(spec, "tax/payers.html", 200, ("results",), result=result)

    @bp.get("/payers/<int:payer_id>")
    def payer(payer_id: int):
        return render_view(spec, "tax/payer.html", p=ui_call(spec, "get_payer", {"payer_id": payer_id}))

    @bp.get("/tin-matches")
    def tin_matches():
        result = listing(spec, "list_tin_matches", list_args("result", "query"))
        return render_view(spec, "tax/tin_matches.html", 200, ("results",), result=result)

    @bp.get("/w9-requests")
    def w9_requests():
        result = listing(spec, "list_w9_requests", list_args("status"))
        return render_view(spec, "tax/w9_requests.html", 200, ("results",), result=result)

    return bp
