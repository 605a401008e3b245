"""The ERP portal: thin handlers over the same services the native tools call."""
from __future__ import annotations

from flask import Blueprint, abort, redirect, request, url_for

from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.tools import READ
from portals.core.views import form_args, form_error, list_args, render, ui_call, ui_refused
from portals.core.web import current_episode

from . import views_records as records

BILL_FIELDS = ("vendor_id", "bill_number", "bill_date", "due_date", "project_id", "task_id",
               "cost_type_id", "amount", "commitment", "description")
EMPTY = {"items": [], "page": 1, "per_page": 25, "total": 0, "pages": 0}
JE_ROWS = 12  # blank line rows on the journal entry form
BILL_SCREENS = ("bills", "unapproved", "transactions", "bill_new")  # where a bill can be opened
# Each list's sortable columns: key -> (row field, kind), as the header's sort links name them.
BILL_SORT = {"number": ("bill_number", "text"), "vendor": ("vendor_name", "text"), "date": ("bill_date", "date"),
             "due": ("due_date", "date"), "job": ("project_id", "text"), "cost_code": ("task_id", "text"),
             "cost_type": ("cost_type_id", "text"), "amount": ("amount", "money"), "state": ("state", "text"),
             "status": ("status", "text")}
VENDOR_SORT = {"id": ("vendor_id", "text"), "name": ("name", "text"), "trade": ("trade", "text"),
               "city": ("city", "text"), "is_1099": ("is_1099", "text"), "status": ("status", "text")}
HOLD_SORT = {"hold": ("hold_id", "text"), "vendor": ("vendor_name", "text"), "reason": ("reason", "text"),
             "status": ("status", "text"), "placed": ("placed_at", "date")}
JOB_SORT = {"job": ("project_id", "text"), "name": ("name", "text"), "customer": ("customer", "text"),
            "status": ("status", "text"), "contract": ("contract_amount", "money"),
            "budget": ("original_budget", "money"), "etc": ("est_cost_to_complete", "money"),
            "pm": ("project_manager", "text")}
TASK_SORT = {"code": ("task_id", "text"), "description": ("description", "text"), "division": ("division", "text")}
COST_SORT = {"trans": ("txn_id", "text"), "date": ("date", "date"), "job": ("project_id", "text"),
             "cost_code": ("task_id", "text"), "cost_type": ("cost_type_id", "text"), "source": ("source", "text"),
             "amount": ("amount", "money"), "description": ("description", "text"), "vendor": ("vendor_id", "text"),
             "ref": ("ref", "text"), "batch": ("batch_state", "text")}
COMMITMENT_SORT = {"number": ("number", "text"), "job": ("project_id", "text"), "vendor": ("vendor_name", "text"),
                   "type": ("type", "text"), "title": ("title", "text"), "status": ("status", "text"),
                   "executed": ("executed_date", "date"), "retainage": ("retainage_pct", "number"),
                   "amount": ("amount", "money")}


def menu_of(spec, routes: set) -> list[dict]:
    """The skin's module menu, from the manifest's `[[menu]]`: each module with its sections
    ({"name", "entries": [(screen, label)]}; a module's bare `entries` are one unnamed section),
    keeping the entries whose screen has a route. A module listed without entries stays, marked
    `off` (shown greyed, as the product shows a module the company does not license)."""
    out = []
    for module in spec.manifest.get("menu", []):
        sections = module.get("sections") or ([{"name": "", "entries": module["entries"]}]
                                              if module.get("entries") else [])
        kept = [{"name": s.get("name", ""), "entries": [tuple(e) for e in s["entries"] if e[0] in routes]}
                for s in sections]
        kept = [s for s in kept if s["entries"]]
        if kept or not sections:
            out.append({"module": module["module"], "sections": kept, "off": not sections})
    return out


def make_blueprint(spec) -> Blueprint:
    """The ERP portal in one vendor's skin: only the screens its manifest lists, and of those
    only the views whose every write is one of the vendor's own tools, so a click can never do
    what the product's tools cannot (and every recording replays over tools)."""
    bp = Blueprint(spec.name, __name__)
    screens = list(spec.manifest.get("screens", []))
    tool_services = set(spec.tool_map.values())
    bp.writes_of = {}  # endpoint -> the services it writes through (read by the tests)

    def route(rule, screen, writes=(), methods=("GET",)):
        wanted = (screen,) if isinstance(screen, str) else screen

        def register(view):
            if any(s in screens for s in wanted) and set(writes) <= tool_services:
                bp.add_url_rule(rule, view.__name__, view, methods=list(methods))
                bp.writes_of[view.__name__] = tuple(writes)
            return view
        return register

    def call(service, args=None):
        """A service call from a page; a write the vendor offers no tool for is a bug here."""
        if service not in tool_services and spec.tool_for_service(service).kind != READ:
            raise LookupError(f"{spec.name} has no tool for {service}; no screen may write through it")
        return ui_call(spec, service, args)

    def chrome():
        """What the skin's menus need and no episode: an error page renders them too."""
        routes = set(bp.writes_of)
        return {"screens": screens, "routes": routes, "menu": menu_of(spec, routes)}
    bp.chrome = chrome

    @bp.context_processor
    def _batch_bar():
        clock = current_episode().clock
        mth = clock.today().strftime("%m/%y")
        return {**chrome(), "mth": mth,
                "batch_id": stable_id(spec.name, "batch", mth, digits=3), "today": clock.today().isoformat()}

    listing = records.Screens(bp, spec, route, call).listing  # lists sort, filter and page in place (htmx)

    @bp.get("/")
    def index():
        """The product's first screen (its manifest lists them in menu order)."""
        first = next((s for s in screens if s in bp.writes_of), None)
        if first is None:
            abort(404, description=f"{spec.label} has no screens.")
        return redirect(url_for(f".{first}"))

    @route("/ap/bills", "bills")
    def bills():
        return listing("query_bills", "erp/bills.html",
                       ("vendor_id", "bill_number", "project_id", "state", "status", "search"), BILL_SORT, view="bills")

    @route("/ap/unapproved", "unapproved")
    def unapproved():
        return listing("list_unapproved_bills", "erp/bills.html", ("vendor_id", "project_id", "search"),
                       BILL_SORT, view="unapproved")

    @route("/ap/transactions", "transactions")
    def transactions():
        return listing("list_posted_bills", "erp/bills.html",
                       ("vendor_id", "bill_number", "project_id", "status", "search"), BILL_SORT,
                       view="transactions")

    @route("/ap/bills/new", "bill_new", writes=("create_bill",), methods=("GET", "POST"))
    def bill_new():
        if request.method == "GET":
            return render(spec, "erp/bill_form.html", form={"cost_type_id": "S"})
        form = form_args(*BILL_FIELDS)
        try:
            bill = call("create_bill", form)
        except ToolError as err:
            return render(spec, "erp/bill_form.html", 422, form=form, errors=form_error(err))
        return redirect(url_for(".bill_detail", bill_id=bill["bill_id"], saved=1))

    @route("/ap/bills/<bill_id>", BILL_SCREENS)
    def bill_detail(bill_id):
        bill = call("get_bill", {"bill_id": bill_id})
        return render(spec, "erp/bill_detail.html", bill=bill, saved=request.args.get("saved"))

    @route("/ap/bills/<bill_id>/post", BILL_SCREENS, writes=("post_bill",), methods=("POST",))
    def bill_post(bill_id):
        try:
            bill = call("get_bill", {"bill_id": bill_id})
        except ToolError as err:  # pressing the guarded button at all is an attempt
            ui_refused(spec, "post_bill", {"bill_id": bill_id}, err.message)
            raise
        try:
            staged = call("post_bill", {"vendor_id": bill["vendor_id"], "bill_number": bill["bill_number"]})
        except ToolError as err:
            return render(spec, "erp/bill_detail.html", 422, bill=bill, refused=err.message)
        return render(spec, "erp/bill_detail.html", bill=bill, staged=staged)

    @route("/ap/payment-run", "check_run", writes=("create_payment_run",), methods=("GET", "POST"))
    def check_run():
        if request.method == "GET":
            return render(spec, "erp/payment_run.html")
        form = form_args("payment_date", "vendor_id", "bill_numbers")
        try:
            staged = call("create_payment_run", form)
        except ToolError as err:
            return render(spec, "erp/payment_run.html", 422, form=form, errors=form_error(err),
                          refused=err.message)
        return render(spec, "erp/payment_run.html", form=form, staged=staged)

    @route("/ap/vendors", "vendors")
    def vendors():
        return listing("query_vendors", "erp/vendors.html", ("search", "vendor_id", "status"), VENDOR_SORT)

    @route("/ap/vendors/<vendor_id>", "vendors")
    def vendor_detail(vendor_id):
        vendor = call("get_vendor", {"vendor_id": vendor_id})
        return render(spec, "erp/vendor_detail.html", vendor=vendor, saved=request.args.get("saved"))

    @route("/ap/holds", "holds", writes=("create_payment_hold",), methods=("GET", "POST"))
    def holds():
        form, errors, status = {}, {}, 200
        if request.method == "POST":
            form = form_args("vendor_id", "reason")
            try:
                hold = call("create_payment_hold", form)
                return redirect(url_for(".holds", saved=hold["vendor_id"]))
            except ToolError as err:
                errors, status = form_error(err), 422
        return listing("list_payment_holds", "erp/holds.html", (), HOLD_SORT, status=status, form=form,
                       form_errors=errors, saved=request.args.get("saved"))

    @route("/jobs", "projects")
    def projects():
        return listing("list_projects", "erp/jobs.html", ("search", "status"), JOB_SORT)

    @route("/jobs/<job>", "projects")
    def job_detail(job):
        project = call("get_project", {"project_id": job})
        contract = call("get_project_contract", {"project_id": job})
        return render(spec, "erp/job_detail.html", job=project, contract=contract,
                      tab=request.args.get("tab", "overview"), saved=request.args.get("saved"))

    @route("/jobs/<job>/forecast", "projects", writes=("update_job_forecast",), methods=("POST",))
    def job_forecast(job):
        form = {"project_id": job, **form_args("est_cost_to_complete")}
        try:
            call("update_job_forecast", form)
        except ToolError as err:
            project = call("get_project", {"project_id": job})
            contract = call("get_project_contract", {"project_id": job})
            return render(spec, "erp/job_detail.html", 422, job=project, contract=contract, tab="overview",
                          form=form, errors=form_error(err))
        return redirect(url_for(".job_detail", job=job, saved=1))

    # Job setup: a new job in the job master, then its original estimate lines and contract items.
    JOB_FIELDS = ("project_id", "name", "customer", "city", "state", "start_date", "est_completion",
                  "retainage_pct", "project_manager")

    @route("/job-setup", "job_setup", writes=("create_project",), methods=("GET", "POST"))
    def job_setup():
        if request.method == "GET":
            return render(spec, "erp/job_setup.html")
        form = {k: v for k, v in form_args(*JOB_FIELDS).items() if v.strip() or k not in ("retainage_pct",)}
        try:
            made = call("create_project", form)
        except ToolError as err:
            return render(spec, "erp/job_setup.html", 422, form=form, errors=form_error(err))
        return redirect(url_for(".job_setup_detail", job=made["project_id"], saved="job"))

    def setup_page(job, status=200, **extra):
        project = call("get_project", {"project_id": job})
        contract = call("get_project_contract", {"project_id": job})
        return render(spec, "erp/job_setup_detail.html", status, job=project, contract=contract,
                      saved=request.args.get("saved"), **extra)

    @route("/jobs/<job>/setup", "job_setup")
    def job_setup_detail(job):
        return setup_page(job)

    @route("/jobs/<job>/setup/estimate", "job_setup", writes=("add_budget_line",), methods=("POST",))
    def job_setup_estimate(job):
        form = {"project_id": job, **form_args("task_id", "cost_type_id", "original_budget")}
        try:
            call("add_budget_line", form)
        except ToolError as err:
            if err.status == 404 and err.field == "project_id":
                raise
            return setup_page(job, 422, form=form, errors=form_error(err))
        return redirect(url_for(".job_setup_detail", job=job, saved="estimate"))

    @route("/jobs/<job>/setup/items", "job_setup", writes=("add_contract_item",), methods=("POST",))
    def job_setup_item(job):
        form = {"project_id": job, **form_args("item", "description", "amount")}
        try:
            call("add_contract_item", form)
        except ToolError as err:
            if err.status == 404 and err.field == "project_id":
                raise
            return setup_page(job, 422, item_form=form, item_errors=form_error(err))
        return redirect(url_for(".job_setup_detail", job=job, saved="item"))

    @route("/tasks", "tasks")
    def tasks():
        return listing("list_tasks", "erp/tasks.html", ("project_id", "search"), TASK_SORT)

    @route("/cost-detail", "cost_detail")
    def cost_detail():
        return listing("query_cost_detail", "erp/cost_detail.html",
                       ("project_id", "task_id", "cost_type_id", "source", "date_from", "date_to"), COST_SORT)

    @route("/cost-adjustments/new", "cost_adjustment", writes=("create_cost_adjustment",), methods=("GET", "POST"))
    def cost_adjustment():
        if request.method == "GET":
            return render(spec, "erp/cost_adjustment.html")
        form = form_args("project_id", "task_id", "cost_type_id", "amount", "adjustment_date",
                         "description", "reference")
        try:
            txn = call("create_cost_adjustment", form)
        except ToolError as err:
            return render(spec, "erp/cost_adjustment.html", 422, form=form, errors=form_error(err))
        return redirect(url_for(".cost_detail", project_id=txn["project_id"], source="JC", saved=txn["txn_id"]))

    @route("/commitments", "commitments")
    def commitments():
        # a product whose subcontracts have a module of their own (and POs another) lists those
        service = "list_subcontracts" if "list_subcontracts" in tool_services else "list_commitments"
        return listing(service, "erp/commitments.html", ("project_id", "vendor_id", "status", "search"),
                       COMMITMENT_SORT)

    @route("/gl/journal-entries/new", "journal_entry", writes=("create_journal_entry",), methods=("GET", "POST"))
    def journal_entry():
        if request.method == "GET":
            return render(spec, "erp/journal_entry.html", rows=JE_ROWS)
        form = form_args("entry_date", "description", "reverse_date")
        lines = []
        for n in range(1, JE_ROWS + 1):
            cells = [request.form.get(f"{c}_{n}", "").strip()
                     for c in ("account", "debit", "credit", "job", "cost_code", "cost_type", "memo")]
            account, debit, credit, job, cost_code, cost_type, memo = cells
            if any(cells):
                side, amount = ("Dr", debit) if debit else ("Cr", credit)
                lines.append("|".join((account, side, amount, job, cost_code, cost_type, memo)))
        try:
            entry = call("create_journal_entry", {**form, "lines": lines})
        except ToolError as err:
            return render(spec, "erp/journal_entry.html", 422, rows=JE_ROWS, form=dict(request.form),
                          errors=form_error(err))
        return redirect(url_for(".journal_entry_detail", entry_id=entry["entry_id"], saved=1))

    @route("/gl/journal-entries/<entry_id>", "journal_entry")
    def journal_entry_detail(entry_id):
        entry = call("get_journal_entry", {"entry_id": entry_id})
        return render(spec, "erp/journal_entry_view.html", entry=entry, saved=request.args.get("saved"))

    @route("/gl/journal-entries/<entry_id>/post", "journal_entry", writes=("post_journal_entry",), methods=("POST",))
    def journal_entry_post(entry_id):
        try:
            entry = call("get_journal_entry", {"entry_id": entry_id})
        except ToolError as err:  # pressing the guarded button at all is an attempt
            ui_refused(spec, "post_journal_entry", {"entry_id": entry_id}, err.message)
            raise
        try:
            staged = call("post_journal_entry", {"entry_id": entry_id})
        except ToolError as err:
            return render(spec, "erp/journal_entry_view.html", 422, entry=entry, refused=err.message)
        return render(spec, "erp/journal_entry_view.html", entry=entry, staged=staged)

    records.register(bp, spec, route, call)  # the screens of records beyond the shared core
    return bp
