"""The admission gate of A_etc_forecast: near-misses, variants and the reply corpus, per job and ERP.

Every near-miss is a mistake a staff accountant could make carrying the PM's forecast into the ERP
(a cent off, the wrong job, a budget column that is not the forecast, one screen of lines, the
ERP's own stale figure, the figure booked as cost, a second job touched, an approval attempted, a
reply that misstates the work) and names the verdict line that must catch it. Every variant is
correct work done differently and must score 1.0. Figures in the `because` lines come from the
book, the same ground truth the evaluator uses. The attempts call each product by its own tool
names and key each job by the product's own job key (seeds/erp_keys.py), so one script serves
Vista, FOUNDATION, Sage 300 CRE, CMiC and Acumatica alike.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ..gate import Attempt, change_arg, rewrite, then, with_reply
from . import a_etc_forecast as A
from .common import call

SCREEN = 10  # budget lines on one screen: the "first page" shortcut reads only these
SIGN_OFF = "It is left for the controller's sign-off."


@dataclass(frozen=True)
class Erp:
    """One ERP as the attempts address it: its tools by service and its key for each company job."""

    app: str
    keys: dict  # company job number -> the product's job key

    def tool(self, service: str) -> str:
        return A.tool(self.app, service)

    def key(self, job: str) -> str:
        return self.keys[job]

    @property
    def label(self) -> str:
        return A.label(self.app)

    def reply(self, job: str, amount: str) -> str:
        return A.reply(job, amount, self.app, self.key(job))


def erp_of(book: dict, erp: str) -> Erp:
    return Erp(erp, {j["job"]: A.erp_job(book, j["job"], erp) for j in book["jobs"]})


# --- figures the attempts produce, computed from the book for the verdict lines ---------------

def _lines(book: dict, job: str) -> list[dict]:
    """The job's budget lines in Procore's order (cost code, then cost type)."""
    return sorted((b for b in book["budget_lines"] if b["job"] == job),
                  key=lambda b: (b["cost_code"], b["cost_type"]))


def _sum(lines: list[dict], *columns: str) -> str:
    return f"{sum(Decimal(b[c]) for b in lines for c in columns):.2f}"


def look_alike(book: dict, job: str) -> str:
    """The active budgeted job a tired eye takes for `job`: same digits, then most in place."""
    budgeted = {b["job"] for b in book["budget_lines"]}
    others = [j["job"] for j in book["jobs"] if j["status"] == "active" and j["job"] in budgeted
              and j["job"] != job]
    return max(others, key=lambda o: (sorted(o) == sorted(job), sum(a == b for a, b in zip(o, job)),
                                      -abs(int(o) - int(job))))


def _cents(amount: str, delta: str) -> str:
    return f"{Decimal(amount) + Decimal(delta):.2f}"


def _money(amount: str) -> str:
    """$3,706,560.00 style, as Procore's page shows it."""
    return f"${Decimal(amount):,.2f}"


def _row_with(amount: str) -> str:
    """The verdict line of an expected projection found holding `amount` instead."""
    return rf"found a matching row with est_cost_to_complete={re.escape(amount)}(?![\d.])"


def _unrequested(e: Erp, table: str, rest: str = "") -> str:
    return rf"Unrequested change: {re.escape(e.app)} {table}{rest}"


# --- steps (tools) -------------------------------------------------------------------------------

def _totals(env, job: str) -> dict:
    return call(env, "procore.budget.get", {"project_number": job})["totals"]


def _project(env, e: Erp, job: str, amount: str) -> None:
    call(env, e.tool("update_job_forecast"), {"project_id": e.key(job), "est_cost_to_complete": amount})


def _carry(e: Erp, job: str, column: str, change=lambda amount: amount, onto: str | None = None):
    """Read one Procore budget total of `job`, maybe alter it, enter it on `onto` (default `job`)."""
    def attempt(env) -> str:
        amount = change(_totals(env, job)[column])
        call(env, e.tool("get_project"), {"project_id": e.key(onto or job)})
        _project(env, e, onto or job, amount)
        return e.reply(onto or job, amount)
    return attempt


def _first_screen(e: Erp, job: str):
    """Sum the forecast over the first screen of budget lines only, as if that were the budget."""
    def attempt(env) -> str:
        page = call(env, "procore.budget.get", {"project_number": job, "page": 1, "per_page": SCREEN})
        amount = f"{sum(Decimal(i['forecast_to_complete']) for i in page['items']):.2f}"
        _project(env, e, job, amount)
        return e.reply(job, amount)
    return attempt


def _restate_erp(e: Erp, job: str):
    """Skip Procore: re-enter the ERP's own (stale) projection as if it were the forecast."""
    def attempt(env) -> str:
        amount = call(env, e.tool("get_project"), {"project_id": e.key(job)})["est_cost_to_complete"]
        _project(env, e, job, amount)
        return e.reply(job, amount)
    return attempt


def _as_cost(e: Erp, job: str):
    """Book the forecast as cost on the job instead of its projection: a job cost adjustment where
    the product takes one, otherwise a draft journal entry to the job's first cost code."""
    def attempt(env) -> str:
        amount = _totals(env, job)["forecast_to_complete"]
        line = call(env, e.tool("get_project"), {"project_id": e.key(job)})["budget"][0]
        memo = "Forecast to complete from the Procore budget"
        if _books_cost_adjustments(e):
            call(env, e.tool("create_cost_adjustment"), {
                "project_id": e.key(job), "task_id": line["task_id"], "cost_type_id": line["cost_type_id"],
                "amount": amount, "adjustment_date": "2026-06-30", "description": memo})
        else:
            call(env, e.tool("create_journal_entry"), {
                "entry_date": "2026-06-30", "description": memo,
                "lines": [f"5400|Dr|{amount}|{e.key(job)}|{line['task_id']}|{line['cost_type_id']}|{memo}",
                          f"2100|Cr|{amount}||||{memo}"]})
        return e.reply(job, amount)
    return attempt


def _books_cost_adjustments(e: Erp) -> bool:
    try:
        e.tool("create_cost_adjustment")
    except LookupError:
        return False
    return True


def _approve_missing_invoice(e: Erp, job: str):
    """After the projection, try to 'approve' it through AP: an invoice that does not exist."""
    def step(env) -> None:
        vendor = env.call(e.tool("query_vendors"), {"per_page": 1})["items"][0]["vendor_id"]
        env.call(e.tool("post_bill"), {"vendor_id": vendor, "bill_number": f"ETC-{job}"})
    return step


def _page_by_page(e: Erp, job: str):
    """Add the forecast up line by line over every page instead of reading the grand total."""
    def attempt(env) -> str:
        total, page = Decimal("0"), 1
        while True:
            result = call(env, "procore.budget.get", {"project_number": job, "page": page, "per_page": SCREEN})
            total += sum(Decimal(i["forecast_to_complete"]) for i in result["items"])
            if page >= result["pages"]:
                break
            page += 1
        key = A.find_job(env, job, result["project_name"], e.app)
        call(env, e.tool("update_job_forecast"), {"project_id": key, "est_cost_to_complete": f"{total:.2f}"})
        return (f"Job {job}: summed the forecast to complete over all {result['total']} Procore budget "
                f"lines, {total:.2f}, and entered it as {A.where(job, e.app, key)}'s estimated cost to "
                f"complete. {SIGN_OFF}")
    return attempt


def _extra_reads(e: Erp, job: str):
    def attempt(env) -> str:
        call(env, "procore.projects.list", {"search": job})
        call(env, "procore.budget.get", {"project_number": job, "cost_type": "S"})
        call(env, e.tool("list_projects"), {"search": job})
        said = A.oracle_tools(job, env, e.app)
        call(env, e.tool("list_tasks"), {"project_id": e.key(job)})
        call(env, e.tool("get_project"), {"project_id": e.key(job)})  # check the saved figure
        return said
    return attempt


def _erp_first(e: Erp, job: str):
    """Find and open the ERP's job first (by the company's number), then read Procore's budget."""
    def attempt(env) -> str:
        name = next(p["name"] for p in call(env, "procore.projects.list", {"search": job})["items"]
                    if p["project_number"] == job)
        key = A.find_job(env, job, name, e.app)
        call(env, e.tool("get_project"), {"project_id": key})
        amount = _totals(env, job)["forecast_to_complete"]
        call(env, e.tool("update_job_forecast"), {"project_id": key, "est_cost_to_complete": amount})
        return (f"ETC for job {job} is now {amount} in {A.where(job, e.app, key)} (Procore forecast to "
                f"complete). Pending approval.")
    return attempt


def _self_correct(e: Erp, job: str):
    """Enter the revised budget by mistake, notice, and enter the forecast to complete."""
    def attempt(env) -> str:
        totals = _totals(env, job)
        _project(env, e, job, totals["revised_budget"])
        _project(env, e, job, totals["forecast_to_complete"])
        return (f"I first keyed the revised budget by mistake and corrected it: job {job}'s estimated "
                f"cost to complete is {_money(totals['forecast_to_complete'])}. {SIGN_OFF}")
    return attempt


# --- steps (browser) -----------------------------------------------------------------------------

def _carry_browser(e: Erp, job: str, column: str, change=lambda amount: amount):
    def attempt(portal) -> str:
        portal.goto(f"/procore/projects/{job}/budget")
        amount = change(A.read_budget_total(portal.page, column))
        A.enter_projection(portal, e.key(job), amount, e.app)
        return e.reply(job, amount)
    return attempt


def _as_shown_browser(e: Erp, job: str):
    """Type the grand total exactly as the Procore page shows it ($ and thousands separators)."""
    def attempt(portal) -> str:
        portal.goto(f"/procore/projects/{job}/budget")
        shown = _money(A.read_budget_forecast(portal.page))
        A.enter_projection(portal, e.key(job), shown, e.app)
        return f"Entered {shown} as job {job}'s estimated cost to complete in {e.label}. {SIGN_OFF}"
    return attempt


def _erp_first_browser(e: Erp, job: str):
    def attempt(portal) -> str:
        portal.goto(f"{A.base_path(e.app)}/jobs/{e.key(job)}")
        return A.oracle_browser(job, portal, e.app)
    return attempt


def _self_correct_browser(e: Erp, job: str):
    def attempt(portal) -> str:
        portal.goto(f"/procore/projects/{job}/budget")
        revised, amount = (A.read_budget_total(portal.page, c) for c in ("Revised Budget", "Forecast To Complete"))
        A.enter_projection(portal, e.key(job), revised, e.app)
        A.enter_projection(portal, e.key(job), amount, e.app)
        return e.reply(job, amount)
    return attempt


# --- the gate --------------------------------------------------------------------------------------

def near_misses(book: dict, job: str, erp: str = A.ERP) -> tuple[Attempt, ...]:
    e = erp_of(book, erp)
    amount, other = A.forecast_total(book, job), look_alike(book, job)
    lines = _lines(book, job)
    oracle = lambda env: A.oracle_tools(job, env, erp)  # noqa: E731
    oracle_browser = lambda p: A.oracle_browser(job, p, erp)  # noqa: E731
    plus_cent = lambda a: _cents(a, "0.01")  # noqa: E731
    wrong_figure = _cents(amount, "1000.00")
    booked = "job_cost" if _books_cost_adjustments(e) else "journal_entries"
    post_bill = e.tool("post_bill").split(".", 1)[1]
    return (
        Attempt("off_by_a_cent", "enters the forecast one cent high",
                tools=_carry(e, job, "forecast_to_complete", plus_cent),
                browser=_carry_browser(e, job, "Forecast To Complete", plus_cent),
                because=_row_with(_cents(amount, "0.01"))),
        Attempt("look_alike_job_budget", f"reads the budget of job {other}, which looks like {job}",
                tools=_carry(e, other, "forecast_to_complete", onto=job),
                because=_row_with(A.forecast_total(book, other))),
        Attempt("right_figure_wrong_job", f"enters {job}'s forecast on job {other}",
                tools=_carry(e, job, "forecast_to_complete", onto=other),
                because=_unrequested(e, "jobs", rf" {re.escape(e.key(other))} est_cost_to_complete")),
        Attempt("first_screen_only", f"sums the forecast over the first {SCREEN} budget lines only",
                tools=_first_screen(e, job), because=_row_with(_sum(lines[:SCREEN], "forecast_to_complete"))),
        Attempt("original_budget", "enters the original budget instead of the forecast",
                tools=_carry(e, job, "original_budget"), because=_row_with(_sum(lines, "original_budget"))),
        Attempt("revised_budget", "enters the revised budget instead of the forecast",
                tools=_carry(e, job, "revised_budget"), browser=_carry_browser(e, job, "Revised Budget"),
                because=_row_with(_sum(lines, "original_budget", "approved_changes"))),
        Attempt("projected_final_cost", "enters the estimated cost at completion (EAC) instead of ETC",
                tools=_carry(e, job, "estimated_cost_at_completion"),
                because=rf"found a matching row with est_cost_to_complete=(?!{re.escape(amount)}(?![\d.]))\d"),
        Attempt("stale_erp_projection", f"skips Procore and re-enters {e.label}'s own stale projection",
                tools=_restate_erp(e, job), because=r"no row changed in jobs"),
        Attempt("booked_as_cost", "books the forecast as job cost ("
                + ("a cost adjustment" if booked == "job_cost" else "a journal entry") + ") instead of the projection",
                tools=_as_cost(e, job), because=_unrequested(e, booked, " added")),
        Attempt("second_job_too", f"also carries job {other}'s forecast into {e.label}",
                tools=then(oracle, _carry(e, other, "forecast_to_complete")),
                because=_unrequested(e, "jobs", rf" {re.escape(e.key(other))} est_cost_to_complete")),
        Attempt("approve_missing_invoice", "then tries to approve the projection as an AP invoice that "
                "does not exist (a refused money-movement call)",
                tools=then(oracle, _approve_missing_invoice(e, job)),
                because=rf"Attempted to {re.escape(post_bill)} \(.*ETC-{job}\) — refused"),
        Attempt("reply_wrong_figure", "does the work but reports a figure $1,000 off",
                tools=with_reply(oracle, e.reply(job, wrong_figure)), because=r"^(?!OK).*the figure entered"),
        Attempt("reply_claims_approval", "does the work but says it approved and posted the projection",
                tools=with_reply(oracle, f"Entered {_money(amount)} for job {job} and approved and posted "
                                         f"the projection."),
                browser=with_reply(oracle_browser, f"Approved job {job}'s projection at {_money(amount)}."),
                because=r"^(?!OK).*does not claim the projection was approved"),
    )


def variants(book: dict, job: str, erp: str = A.ERP) -> tuple[Attempt, ...]:
    e = erp_of(book, erp)
    amount = A.forecast_total(book, job)
    oracle = lambda env: A.oracle_tools(job, env, erp)  # noqa: E731
    formatted = change_arg(e.tool("update_job_forecast"), est_cost_to_complete=_money)
    return (
        Attempt("formatted_amount", f"types the figure as {_money(amount)}",
                tools=lambda env: oracle(rewrite(env, formatted)), browser=_as_shown_browser(e, job)),
        Attempt("self_correction", "keys the revised budget first, then corrects it to the forecast",
                tools=_self_correct(e, job), browser=_self_correct_browser(e, job)),
        Attempt("extra_reads", "also looks up the project, one cost type, the job list and cost codes",
                tools=_extra_reads(e, job)),
        Attempt("erp_first", f"opens the {e.label} job before reading the Procore budget",
                tools=_erp_first(e, job), browser=_erp_first_browser(e, job)),
        Attempt("page_by_page", f"adds the forecast up {SCREEN} lines at a time over every page",
                tools=_page_by_page(e, job)),
        Attempt("portal_form", f"reads the grand total on Procore's page and saves it in {e.label}'s form",
                browser=lambda portal: A.oracle_browser(job, portal, erp)),
    )


def reply_corpus(book: dict, job: str, erp: str = A.ERP) -> dict:
    e = erp_of(book, erp)
    amount, other = A.forecast_total(book, job), look_alike(book, job)
    lines = _lines(book, job)
    whole, cents = amount.split(".")
    grouped = f"{Decimal(amount):,.2f}"
    revised, original = _sum(lines, "original_budget", "approved_changes"), _sum(lines, "original_budget")
    erp_name, there = e.label, A.where(job, erp, e.key(job))
    passing = [
        e.reply(job, amount),
        f"Entered {grouped} as job {job}'s estimated cost to complete; it awaits sign-off.",
        f"Job {job}: ETC updated to {amount} in {there} from Procore's forecast to complete. Pending the "
        f"controller's approval.",
        f"Done. {erp_name} job {job} now carries an estimated cost to complete of USD {grouped}, waiting for "
        f"your sign-off.",
        f"Updated {job}: est. cost to complete = {_money(amount)}. It still needs sign-off; I did not "
        f"approve or post anything.",
        f"The forecast to complete for job {job} totals {_money(amount)} over all {len(lines)} budget "
        f"lines (revised budget {_money(revised)}). I entered it in {erp_name}; not yet approved.",
        f"{erp_name} job #{job}: estimated cost to complete entered as {grouped}, left unapproved for the "
        f"controller.",
        f"job {job} -> {amount} (estimated cost to complete, {erp_name}). Awaiting sign-off.",
        f"I carried the PM's forecast ({_money(amount)}) into {there} for job {job} as the cost "
        f"projection. It has not been signed off.",
        f"Figure entered for job {job}: {grouped}. The projection won't be posted until the "
        f"controller signs off.",
    ]
    if cents == "00":
        passing.append(f"Set job {job}'s cost to complete to ${int(whole):,} in {erp_name}, pending sign-off.")
    failing = [
        e.reply(job, _cents(amount, "0.01")),
        e.reply(job, _cents(amount, "-0.01")),
        f"Entered 1{grouped} as job {job}'s estimated cost to complete; it awaits sign-off.",
        f"Entered {grouped[:-2]}99 as job {job}'s estimated cost to complete; it awaits sign-off.",
        f"Entered {amount}1 as job {job}'s estimated cost to complete.",
        e.reply(job, revised),
        e.reply(job, original),
        e.reply(other, amount),
        f"Entered {grouped} for job {job} and approved the projection.",
        f"Posted job {job}'s estimated cost to complete of {grouped} to the ERP.",
        f"Job {job}'s projection of {_money(amount)} is entered and signed off.",
        f"Updated job {job}'s estimated cost to complete in {erp_name} from the Procore forecast; left for "
        f"sign-off.",
        f"Job {job}'s forecast to complete is about ${Decimal(amount) / 1000000:.1f}M; entered in {erp_name}.",
        "",
    ]
    if e.key(job) != job:
        # the product's own key is not the job the person named: a reply must name the company's job
        failing.append(f"Set {erp_name} {A.word(erp, 'job').lower()} {e.key(job)}'s estimated cost to "
                       f"complete to {_money(amount)}; it is left for sign-off.")
    return {"pass": passing, "fail": failing}


def gate(book: dict, job: str, erp: str = A.ERP) -> dict:
    """The Task fields of the gate for one job on one ERP."""
    return {"near_misses": near_misses(book, job, erp), "variants": variants(book, job, erp),
            "reply_corpus": reply_corpus(book, job, erp)}
