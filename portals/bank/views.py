"""A treasury portal's pages: Accounts (balances, Information Reporting, BAI2 downloads), Payments
(templates, drafts, approvals), Fraud Protection (Positive Pay exceptions, issue files, issued
checks) and Administration (users and entitlements). A page or button whose service the bank's
manifest does not map is not there: Chase decides an exception in one guarded step, so it has no
staging form and no Submit; it releases nothing and changes no entitlement from the portal."""
from __future__ import annotations

import io

from flask import Blueprint, redirect, request, send_file, url_for

from portals.core.errors import ToolError
from portals.core.ui import listing, render_view
from portals.core.views import form_args, form_error, list_args, ui_call

from .admin import PERMISSIONS, SERVICES
from .payments import PAYMENT_SORT, STATUSES, TEMPLATE_SORT
from .positive_pay import EXCEPTION_SORT, FILE_SORT, ISSUED_SORT
from .reporting import TXN_SORT, TYPE_CODES

NOTICES = {"drafted": "Payment saved as a draft. It moves no money until it is approved and released.",
           "staged": "Decision saved. Decisions take effect only when they are submitted before the cutoff.",
           "uploaded": "Issue file uploaded and processed."}


def make_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)
    offers = set(spec.service_tool_names)  # the services this bank's portal offers

    def accounts():
        return ui_call(spec, "list_accounts")["items"]

    def account_choices():
        return [(a["account_number"], f"{a['name']} {a['account_masked']}") for a in accounts()]

    @bp.get("/")
    def index():
        return render_view(spec, "bank/accounts.html", accounts=accounts(),
                           balances=ui_call(spec, "get_balances", {}))

    @bp.get("/transactions")
    def transactions():
        args = list_args("account", "report", "date_from", "date_to", "direction", "type_code", "query", "reference")
        result = listing(spec, "search_transactions", args, TXN_SORT)
        return render_view(spec, "bank/transactions.html", 200, ("results",), result=result,
                           accounts=account_choices(), type_codes=sorted(TYPE_CODES.items()))

    @bp.get("/transactions/<int:transaction_id>")
    def transaction(transaction_id: int):
        return render_view(spec, "bank/transaction.html",
                           txn=ui_call(spec, "get_transaction", {"transaction_id": transaction_id}))

    @bp.get("/reports")
    def reports():
        day = request.args.get("as_of_date") or None
        balances = ui_call(spec, "get_balances", {"as_of_date": day} if day else {})
        return render_view(spec, "bank/reports.html", balances=balances, accounts=account_choices())

    @bp.get("/reports/bai2")
    def bai2():
        args = {k: v for k, v in request.args.items() if k in ("report", "as_of_date", "account") and v.strip()}
        try:
            found = ui_call(spec, "download_bai2", args)
        except ToolError as err:
            if err.status == 404:
                raise
            balances = ui_call(spec, "get_balances", {})
            return render_view(spec, "bank/reports.html", 422, balances=balances, accounts=account_choices(),
                               errors=form_error(err), form=args)
        return send_file(io.BytesIO(found["content"].encode()), mimetype="text/plain", as_attachment=True,
                         download_name=found["name"])

    @bp.get("/payments")
    def payments():
        result = listing(spec, "list_payments", list_args("status", "kind", "query", "date_from", "date_to"),
                         PAYMENT_SORT)
        return render_view(spec, "bank/payments.html", 200, ("results",), result=result, statuses=STATUSES)

    @bp.get("/payments/approvals")
    def approvals():
        pending = ui_call(spec, "list_payments", {"status": "Pending Approval", "per_page": 100})
        approved = ui_call(spec, "list_payments", {"status": "Approved", "per_page": 100})
        return render_view(spec, "bank/approvals.html", awaiting=pending, approved=approved)

    def payment_page(payment_id: int, status: int = 200, **extra):
        found = ui_call(spec, "get_payment", {"payment_id": payment_id})
        return render_view(spec, "bank/payment.html", status, payment=found,
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/payments/<int:payment_id>")
    def payment(payment_id: int):
        return payment_page(payment_id)

    def guarded(service: str, payment_id: int):
        try:
            staged = ui_call(spec, service, {"payment_id": payment_id})
        except ToolError as err:
            if err.status == 404:
                raise
            return payment_page(payment_id, 422, refused=err.message)
        return payment_page(payment_id, pending=staged)

    def approval_service(payment_id: int) -> str:
        """The bank's approval step; where ACH and wires are approved in their own modules, the
        payment's kind picks it (an unknown payment still reaches the guarded step, to be refused)."""
        if "approve_payment" in offers:
            return "approve_payment"
        try:
            kind = ui_call(spec, "get_payment", {"payment_id": payment_id})["kind"]
        except ToolError:
            kind = "Wire"
        return "approve_ach_payment" if kind == "ACH" else "approve_wire_payment"

    @bp.post("/payments/<int:payment_id>/approve")
    def approve(payment_id: int):
        return guarded(approval_service(payment_id), payment_id)

    if "release_payment" in offers:
        @bp.post("/payments/<int:payment_id>/release")
        def release(payment_id: int):
            return guarded("release_payment", payment_id)

    @bp.get("/payments/templates")
    def templates():
        result = listing(spec, "list_templates", list_args("kind", "query"), TEMPLATE_SORT)
        return render_view(spec, "bank/templates.html", 200, ("results",), result=result)

    def template_of(template_id: str | None) -> dict | None:
        if not (template_id or "").isdigit():
            return None
        rows = ui_call(spec, "list_templates", {"per_page": 100})
        found = [t for t in rows["items"] if str(t["template_id"]) == template_id]
        page = 2
        while not found and page <= rows["pages"]:
            more = ui_call(spec, "list_templates", {"per_page": 100, "page": page})
            found = [t for t in more["items"] if str(t["template_id"]) == template_id]
            page += 1
        return found[0] if found else None

    @bp.get("/payments/new")
    def new_payment():
        template = template_of(request.args.get("template_id"))
        return render_view(spec, "bank/payment_new.html", chosen=template,
                           templates=ui_call(spec, "list_templates", {"per_page": 100})["items"])

    @bp.post("/payments/new")
    def create_payment():
        args = form_args("template_id", "amount", "value_date", "memo")
        template = template_of(args.get("template_id"))
        service = "draft_ach" if template and template["kind"] == "ACH" else "draft_wire"
        try:
            if template is None:
                raise ToolError("Choose a template.", "template_id")
            made = ui_call(spec, service, args)
        except ToolError as err:
            return render_view(spec, "bank/payment_new.html", 422, chosen=template, errors=form_error(err), form=args,
                               templates=ui_call(spec, "list_templates", {"per_page": 100})["items"])
        return redirect(url_for(f"{spec.name}.payment", payment_id=made["payment_id"], done="drafted"))

    def exceptions_page(status: int = 200, **extra):
        args = list_args("presented_date", "decision")
        result = listing(spec, "list_exceptions", args, EXCEPTION_SORT)
        return render_view(spec, "bank/exceptions.html", status, result=result,
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/positive-pay")
    def exceptions():
        return exceptions_page()

    @bp.get("/positive-pay/exceptions/<int:exception_id>")
    def exception(exception_id: int):
        return render_view(spec, "bank/exception.html",
                           exc=ui_call(spec, "get_exception", {"exception_id": exception_id}))

    def back_to_list(done: str):
        kept = {k: v for k, v in request.args.items() if k in ("presented_date", "decision", "sort", "page") and v}
        return redirect(url_for(f"{spec.name}.exceptions", done=done, **kept))

    if "stage_decision" in offers:
        @bp.post("/positive-pay/exceptions/<int:exception_id>/decision")
        def stage(exception_id: int):
            args = {"exception_id": exception_id, **form_args("decision", "reason")}
            try:
                ui_call(spec, "stage_decision", args)
            except ToolError as err:
                if err.status == 404:
                    raise
                return exceptions_page(422, errors={f"{exception_id}": err.message}, form=args)
            return back_to_list("staged")

    if "submit_decisions" in offers:
        @bp.post("/positive-pay/submit")
        def submit():
            args = form_args("presented_date")
            try:
                staged = ui_call(spec, "submit_decisions", args)
            except ToolError as err:
                if err.status == 404:
                    raise
                return exceptions_page(422, refused=err.message)
            return exceptions_page(pending=staged)

    if "decide_exception" in offers:
        @bp.post("/positive-pay/exceptions/<int:exception_id>/decide")
        def decide(exception_id: int):
            args = {"exception_id": exception_id, **form_args("decision", "reason")}
            try:
                staged = ui_call(spec, "decide_exception", args)
            except ToolError as err:
                if err.status == 404:
                    raise
                return exceptions_page(422, errors={f"{exception_id}": err.message}, form=args, refused=err.message)
            return exceptions_page(pending=staged)

    @bp.get("/positive-pay/issue-files")
    def issue_files():
        result = listing(spec, "list_issue_files", list_args("account"), FILE_SORT)
        return render_view(spec, "bank/issue_files.html", 200, ("results",), result=result,
                           notice=NOTICES.get(request.args.get("done", "")))

    @bp.post("/positive-pay/issue-files")
    def upload():
        args = form_args("file_name", "content")
        sent = request.files.get("file")
        if sent and sent.filename:
            args["content"] = sent.read(400_001).decode("utf-8", errors="replace")
            args.setdefault("file_name", sent.filename)
            if not (args.get("file_name") or "").strip():
                args["file_name"] = sent.filename
        try:
            ui_call(spec, "upload_issue_file", args)
        except ToolError as err:
            result = listing(spec, "list_issue_files", {}, FILE_SORT)
            return render_view(spec, "bank/issue_files.html", 422, result=result, errors=form_error(err),
                               form={k: v for k, v in args.items() if k != "content" or len(v) < 20000})
        return redirect(url_for(f"{spec.name}.issue_files", done="uploaded"))

    @bp.get("/positive-pay/issue-files/<int:file_id>/download")
    def download_issue_file(file_id: int):
        found = ui_call(spec, "download_issue_file", {"file_id": file_id})
        return send_file(io.BytesIO(found["content"].encode()), mimetype="text/csv", as_attachment=True,
                         download_name=found["name"])

    @bp.get("/positive-pay/issued-checks")
    def issued_checks():
        args = list_args("serial", "status", "payee", "date_from", "date_to", "amount")
        result = listing(spec, "search_issued_checks", args, ISSUED_SORT)
        return render_view(spec, "bank/issued_checks.html", 200, ("results",), result=result)

    def users_page(status: int = 200, **extra):
        return render_view(spec, "bank/users.html", status, users=ui_call(spec, "list_users")["items"],
                           services=SERVICES, permissions=PERMISSIONS, **extra)

    @bp.get("/administration/users")
    def users():
        return users_page()

    if "change_entitlement" in offers:
        @bp.post("/administration/entitlements")
        def entitlements():
            args = form_args("login", "service_name", "permission", "grant")
            try:
                staged = ui_call(spec, "change_entitlement", args)
            except ToolError as err:
                return users_page(422, errors=form_error(err), form=args, refused=err.message)
            return users_page(pending=staged)

    return bp
