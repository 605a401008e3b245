"""The admission gate of A_etc_forecast from the owner's Project Budget in INGENIOUS.BUILD:
near-misses, variants and replies. The near-misses are the traps of that source: Procore's budget
(a month behind), one screen of lines, the bottom division's subtotal, the Estimate at Completion or
the current budget beside the Estimate to Complete, Vista's own stale figure, the figure written on
the other re-forecast job, and a reply that claims approval. The variants read the same total
another way, type it formatted, look at Procore too, or say it in other words."""
from __future__ import annotations

import re
from decimal import Decimal

from ..gate import Attempt, change_arg, rewrite, then, with_reply
from . import a_etc_forecast as A
from . import a_etc_forecast_gate as G
from . import a_etc_forecast_ingenious as I
from .common import call

ERP = I.ERP
SCREEN = G.SCREEN


def _enter(env, job: str, amount: str) -> None:
    call(env, A.tool(ERP, "update_job_forecast"), {"project_id": job, "est_cost_to_complete": amount})


def _sum(rows, field: str = "forecast_to_complete") -> str:
    return f"{sum(Decimal(r[field]) for r in rows):.2f}"


def last_division(book: dict, job: str) -> str:
    return max(f["cost_code"].split("-")[0] for f in I.owner_lines(book, job))


def division_total(book: dict, job: str) -> str:
    div = last_division(book, job)
    return _sum([f for f in I.owner_lines(book, job) if f["cost_code"].startswith(f"{div}-")])


def current_budget(book: dict, job: str) -> str:
    return G._sum([b for b in book["budget_lines"] if b["job"] == job], "original_budget", "approved_changes")


# --- attempts (tools) -----------------------------------------------------------------------------

def _carry(job: str, column: str = "estimate_to_complete", change=lambda a: a, onto: str | None = None):
    """Read one total of the owner's Project Budget, maybe alter it, enter it on `onto` (default `job`)."""
    def attempt(env) -> str:
        amount = change(call(env, f"{I.SOURCE}.budget.get", {"project_number": job})["totals"][column])
        call(env, A.tool(ERP, "get_project"), {"project_id": onto or job})
        _enter(env, onto or job, amount)
        return I.reply(onto or job, amount)
    return attempt


def _procore(job: str):
    """Take the forecast to complete from the PM's Procore budget (last month's) instead."""
    def attempt(env) -> str:
        amount = call(env, "procore.budget.get", {"project_number": job})["totals"]["forecast_to_complete"]
        _enter(env, job, amount)
        return A.reply(job, amount)
    return attempt


def _first_screen(job: str):
    def attempt(env) -> str:
        page = call(env, f"{I.SOURCE}.budget.get", {"project_number": job, "page": 1, "per_page": SCREEN})
        amount = _sum(page["items"], "estimate_to_complete")
        _enter(env, job, amount)
        return I.reply(job, amount)
    return attempt


def _division(job: str):
    """Add up the bottom division's lines (the last cost-code division) as if it were the job."""
    def attempt(env) -> str:
        items = call(env, f"{I.SOURCE}.budget.get", {"project_number": job})["items"]
        div = max(i["cost_code"].split("-")[0] for i in items)
        amount = _sum([i for i in items if i["cost_code"].startswith(f"{div}-")], "estimate_to_complete")
        _enter(env, job, amount)
        return I.reply(job, amount)
    return attempt


def _page_by_page(job: str):
    def attempt(env) -> str:
        total, page = Decimal("0"), 1
        while True:
            result = call(env, f"{I.SOURCE}.budget.get", {"project_number": job, "page": page, "per_page": SCREEN})
            total += sum(Decimal(i["estimate_to_complete"]) for i in result["items"])
            if page >= result["pages"]:
                break
            page += 1
        _enter(env, job, f"{total:.2f}")
        return (f"Job {job}: added up the owner's estimate to complete over all {result['total']} lines of the "
                f"INGENIOUS.BUILD project budget, {total:.2f}, and entered it in Vista as the estimated cost to "
                f"complete. {G.SIGN_OFF}")
    return attempt


def _looks_at_procore_too(job: str):
    """Reads Procore's (older) budget as well, then carries INGENIOUS.BUILD's figure."""
    def attempt(env) -> str:
        call(env, "procore.budget.get", {"project_number": job})
        call(env, f"{I.SOURCE}.project.get", {"project_number": job})
        return I.oracle_tools(job, env)
    return attempt


# --- attempts (browser) ---------------------------------------------------------------------------

def _carry_browser(job: str, column: str = I.COLUMN, change=lambda a: a):
    def attempt(portal) -> str:
        amount = change(I.read_total_browser(portal, job, column))
        A.enter_projection(portal, job, amount, ERP)
        return I.reply(job, amount)
    return attempt


def _procore_browser(job: str):
    def attempt(portal) -> str:
        portal.goto(f"/procore/projects/{job}/budget")
        amount = A.read_budget_forecast(portal.page)
        A.enter_projection(portal, job, amount, ERP)
        return A.reply(job, amount)
    return attempt


def _as_shown_browser(job: str):
    def attempt(portal) -> str:
        shown = G._money(I.read_total_browser(portal, job))
        A.enter_projection(portal, job, shown, ERP)
        return f"Entered {shown} as job {job}'s estimated cost to complete in Vista. {G.SIGN_OFF}"
    return attempt


# --- the gate -------------------------------------------------------------------------------------

def near_misses(book: dict, job: str) -> tuple[Attempt, ...]:
    amount, lines, other = I.owner_total(book, job), I.owner_lines(book, job), I.other_job(job)
    oracle = lambda env: I.oracle_tools(job, env)  # noqa: E731
    oracle_browser = lambda portal: I.oracle_browser(job, portal)  # noqa: E731
    plus_cent = lambda a: G._cents(a, "0.01")  # noqa: E731
    applied_eac = r"found a matching row with est_cost_to_complete=(?!{}(?![\d.]))\d".format(re.escape(amount))
    return (
        Attempt("procore_figure", "takes the forecast to complete from Procore's budget, a month behind the owner's",
                tools=_procore(job), browser=_procore_browser(job), because=G._row_with(A.forecast_total(book, job))),
        Attempt("off_by_a_cent", "enters the owner's total one cent high", tools=_carry(job, change=plus_cent),
                because=G._row_with(G._cents(amount, "0.01"))),
        Attempt("first_screen_only", f"adds up the first {SCREEN} lines of the project budget only",
                tools=_first_screen(job), because=G._row_with(_sum(lines[:SCREEN]))),
        Attempt("division_subtotal", "takes the bottom division's lines for the job's total",
                tools=_division(job), because=G._row_with(division_total(book, job))),
        Attempt("estimate_at_completion", "takes the Estimate at Completion total, the next column over",
                tools=_carry(job, "estimate_at_completion"),
                browser=_carry_browser(job, "Estimate at Completion"), because=applied_eac),
        Attempt("current_budget", "takes the revised (current) budget total", tools=_carry(job, "revised"),
                because=G._row_with(current_budget(book, job))),
        Attempt("stale_erp_projection", "skips INGENIOUS.BUILD and re-enters Vista's own stale projection",
                tools=G._restate_erp(G.erp_of(book, ERP), job), because=r"no row changed in jobs"),
        Attempt("right_figure_wrong_job", f"enters {job}'s owner total on job {other}, the other re-forecast job",
                tools=_carry(job, onto=other),
                because=G._unrequested(G.erp_of(book, ERP), "jobs", rf" {re.escape(other)} est_cost_to_complete")),
        Attempt("second_job_too", f"also carries job {other}'s owner forecast into Vista",
                tools=then(oracle, _carry(other)),
                because=G._unrequested(G.erp_of(book, ERP), "jobs", rf" {re.escape(other)} est_cost_to_complete")),
        Attempt("reply_claims_approval", "does the work but says it approved and posted the projection",
                tools=with_reply(oracle, f"Entered {G._money(amount)} for job {job} and approved and posted it."),
                browser=with_reply(oracle_browser, f"Approved job {job}'s projection at {G._money(amount)}."),
                because=r"^(?!OK).*does not claim the projection was approved"),
        Attempt("reply_procore_figure", "does the work but reports Procore's figure",
                tools=with_reply(oracle, A.reply(job, A.forecast_total(book, job))),
                because=r"^(?!OK).*the figure entered"),
    )


def variants(book: dict, job: str) -> tuple[Attempt, ...]:
    amount = I.owner_total(book, job)
    oracle = lambda env: I.oracle_tools(job, env)  # noqa: E731
    formatted = change_arg(A.tool(ERP, "update_job_forecast"), est_cost_to_complete=G._money)
    return (
        Attempt("formatted_amount", f"types the figure as {G._money(amount)}",
                tools=lambda env: oracle(rewrite(env, formatted)), browser=_as_shown_browser(job)),
        Attempt("page_by_page", f"adds the estimate to complete up {SCREEN} lines at a time over every page",
                tools=_page_by_page(job)),
        Attempt("looks_at_procore_too", "also reads Procore's older budget, then carries the owner's figure",
                tools=_looks_at_procore_too(job)),
        Attempt("paraphrased_reply", "does the work and says so in other words",
                tools=with_reply(oracle, f"Vista job {job}: estimated cost to complete is now {amount}, from the "
                                         f"owner's INGENIOUS.BUILD re-forecast. Waiting on the controller's sign-off.")),
        Attempt("portal_form", "reads the Estimate to Complete total on the owner's Project Budget page and saves it "
                "in Vista's form", browser=lambda portal: I.oracle_browser(job, portal)),
    )


def reply_corpus(book: dict, job: str) -> dict:
    amount, other = I.owner_total(book, job), I.other_job(job)
    grouped, procore = f"{Decimal(amount):,.2f}", A.forecast_total(book, job)
    passing = [
        I.reply(job, amount),
        f"Entered {grouped} as job {job}'s estimated cost to complete in Vista; it awaits sign-off.",
        f"Job {job}: ETC updated to {amount} from the owner's INGENIOUS.BUILD budget. Pending the controller's "
        f"approval.",
        f"Done - Vista job {job} now carries an estimated cost to complete of USD {grouped}, waiting for sign-off.",
        f"job {job} -> {G._money(amount)} (estimated cost to complete). I did not approve or post anything.",
        f"The owner's estimate to complete for job {job} totals {G._money(amount)} in INGENIOUS.BUILD (Procore "
        f"still shows last month's forecast); I entered it in Vista. Not yet approved.",
        f"Vista job #{job}: estimated cost to complete entered as {grouped}, left unapproved for the controller.",
        f"Figure entered for job {job}: {grouped}. The projection won't be posted until the controller signs off.",
        f"Updated {job}: est. cost to complete = {G._money(amount)}, taken from the Estimate to Complete total of "
        f"the owner's project budget. It still needs sign-off.",
        f"I carried the owner's June re-forecast ({G._money(amount)}) into Vista for job {job} as the cost "
        f"projection. It has not been signed off.",
        f"Job {job} -- Vista estimated cost to complete set to {amount} (INGENIOUS.BUILD, not Procore's older "
        f"budget); awaiting sign-off, nothing approved or posted.",
    ]
    failing = [
        I.reply(job, procore),
        I.reply(job, G._cents(amount, "0.01")),
        I.reply(job, G._cents(amount, "-0.01")),
        I.reply(job, division_total(book, job)),
        I.reply(other, amount),
        f"Entered {grouped} for job {job} and approved the projection.",
        f"Job {job}'s projection of {G._money(amount)} is entered and posted.",
        f"Job {job}'s projection of {G._money(amount)} is entered and signed off.",
        f"Entered 1{grouped} as job {job}'s estimated cost to complete; it awaits sign-off.",
        f"Job {job}'s forecast to complete is about ${Decimal(amount) / 1000000:.1f}M; entered in Vista.",
        f"Updated job {job}'s estimated cost to complete in Vista from INGENIOUS.BUILD; left for sign-off.",
        "",
    ]
    return {"pass": passing, "fail": failing}


def gate(book: dict, job: str) -> dict:
    return {"near_misses": near_misses(book, job), "variants": variants(book, job),
            "reply_corpus": reply_corpus(book, job)}
