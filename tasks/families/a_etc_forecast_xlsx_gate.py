"""The admission gate of A_etc_forecast from the PM's Excel workbook: near-misses, variants and
replies. The near-misses are the workbook's own traps (last month's sheet, a division subtotal,
the wrong column of the total row, the log of revisions) and writing in
the PM's workbook; the variants read the same total another way, or calculate the workbook first,
which changes nothing in a workbook that is up to date."""
from __future__ import annotations

from decimal import Decimal

from ..gate import Attempt, change_arg, rewrite, then, with_reply
from . import a_etc_forecast as A
from . import a_etc_forecast_gate as G
from . import a_etc_forecast_xlsx as X
from .common import call

ERP = X.ERP
WROTE_WORKBOOK = r"Unrequested change: excel (cells|tables|workbooks)"


def _lines(book: dict, job: str) -> list[dict]:
    return X.workbook_of(book, job)["lines"]


def _sum(lines, *fields: str) -> str:
    return f"{sum(Decimal(l[f]) for l in lines for f in fields):.2f}"


def last_subtotal(book: dict, job: str) -> str:
    lines = _lines(book, job)
    last = max(l["cost_code"].split("-")[0] for l in lines)
    return _sum([l for l in lines if l["cost_code"].startswith(f"{last}-")], "forecast_june")


def _enter(env, job: str, amount: str) -> None:
    call(env, A.tool(ERP, "update_job_forecast"), {"project_id": job, "est_cost_to_complete": amount})


def _carry(job: str, sheet: str = X.SHEET, label: str = X.TOTAL, header: str = X.COLUMN, change=lambda a: a):
    """Read one cell of the workbook (a row by its label, a column by its header) and enter it."""
    def attempt(env) -> str:
        rows = X.read_sheet(env, X.find_workbook(env, job), sheet)
        amount = change(X.row_value(rows, label, header))
        _enter(env, job, amount)
        return X.reply(job, amount)
    return attempt


def _subtotal_row(job: str):
    """Take the last subtotal above the total (the bottom division's) for the job's total."""
    def attempt(env) -> str:
        rows = X.read_sheet(env, X.find_workbook(env, job), X.SHEET)
        col = X.column_of(rows, X.COLUMN)
        label = [r for r in rows if any(c.endswith(" subtotal") for c in r)][-1]
        amount = X.cell_amount(label[col])
        _enter(env, job, amount)
        return X.reply(job, amount)
    return attempt


def _revisions_only(job: str):
    """Add up the June column of the PM's revisions table, as if it held every line."""
    def attempt(env) -> str:
        rows = call(env, "excel.tables.rows.list", {"workbook_id": X.find_workbook(env, job), "table": "Revisions",
                                                     "per_page": 100})
        col = rows["columns"].index("June Forecast")
        amount = f"{sum(Decimal(str(r['values'][col])) for r in rows['items']):.2f}"
        _enter(env, job, amount)
        return X.reply(job, amount)
    return attempt


def _log_in_workbook(job: str):
    """After the work, log the carry in the PM's revisions table."""
    def step(env) -> None:
        call(env, "excel.tables.rows.add", {"workbook_id": X.find_workbook(env, job), "table": "Revisions",
                                            "values": [["", "", None, None, None, "Carried to Vista"]]})
    return step


def _note_in_workbook(job: str):
    """After the work, type a note beside the job total in the PM's workbook."""
    def step(env) -> None:
        workbook = X.find_workbook(env, job)
        used = next(s["used_range"] for s in call(env, "excel.worksheets.list", {"workbook_id": workbook})["items"]
                    if s["name"] == X.SHEET)
        last_row = int("".join(ch for ch in used.rsplit(":", 1)[1] if ch.isdigit()))
        call(env, "excel.range.update", {"workbook_id": workbook, "address": f"'{X.SHEET}'!J{last_row}",
                                         "values": [["Entered in Vista"]]})
    return step


def _sum_lines(job: str):
    """Add up the forecast of every cost-code line (rows whose first cell is a cost code)."""
    def attempt(env) -> str:
        rows = X.read_sheet(env, X.find_workbook(env, job), X.SHEET)
        col = X.column_of(rows, X.COLUMN)
        total = sum(Decimal(X.cell_amount(r[col])) for r in rows if r[0][:2].isdigit() and "-" in r[0])
        _enter(env, job, f"{total:.2f}")
        return (f"Job {job}: summed the June forecast to complete over every cost-code line of the PM's "
                f"workbook, {total:,.2f}, and entered it in Vista as the estimated cost to complete. {G.SIGN_OFF}")
    return attempt


def _calculate_first(job: str):
    """Calculate the workbook before reading it (Excel's Calculate Now)."""
    def attempt(env) -> str:
        call(env, "excel.workbook.calculate", {"workbook_id": X.find_workbook(env, job),
                                               "calculation_type": "Full"})
        return X.oracle_tools(job, env)
    return attempt


def _values_not_text(job: str):
    """Read the total cell alone by its address, as a number, after finding it in the sheet."""
    def attempt(env) -> str:
        workbook = X.find_workbook(env, job)
        rows = X.read_sheet(env, workbook, X.SHEET)
        r = next(i for i, line in enumerate(rows) if X.TOTAL in line) + 1
        col = "ABCDEFGH"[X.column_of(rows, X.COLUMN)]
        cell = call(env, "excel.range.get", {"workbook_id": workbook, "address": f"'{X.SHEET}'!{col}{r}"})
        amount = f"{Decimal(str(cell['values'][0][0])):.2f}"
        call(env, A.tool(ERP, "get_project"), {"project_id": job})
        _enter(env, job, amount)
        return f"Job {job} ETC is now {amount} in Vista, from the June job total of the PM's workbook. Pending approval."
    return attempt


def _carry_browser(job: str, sheet: str = X.SHEET, label: str = X.TOTAL, header: str = X.COLUMN):
    def attempt(portal) -> str:
        amount = X.read_total_browser(portal, job, sheet, label, header)
        A.enter_projection(portal, job, amount, ERP)
        return X.reply(job, amount)
    return attempt


def near_misses(book: dict, job: str) -> tuple[Attempt, ...]:
    amount, lines = X.sheet_total(book, job), _lines(book, job)
    may = X.sheet_total(book, job, "forecast_may")
    oracle = lambda env: X.oracle_tools(job, env)  # noqa: E731
    plus_cent = lambda a: G._cents(a, "0.01")  # noqa: E731
    revised = [l for l in lines if l["forecast_may"] != l["forecast_june"]]
    return (
        Attempt("off_by_a_cent", "enters the job total one cent high", tools=_carry(job, change=plus_cent),
                because=G._row_with(G._cents(amount, "0.01"))),
        Attempt("last_month_sheet", f"reads the job total on the {X.LAST_SHEET} sheet (last month's, stale)",
                tools=_carry(job, sheet=X.LAST_SHEET), browser=_carry_browser(job, sheet=X.LAST_SHEET),
                because=G._row_with(may)),
        Attempt("division_subtotal", "takes the bottom division's subtotal for the job total",
                tools=_subtotal_row(job), because=G._row_with(last_subtotal(book, job))),
        Attempt("projected_final_cost", "takes the total row's Projected Final Cost (EAC), the next cell over",
                tools=_carry(job, header="Projected Final Cost"),
                browser=_carry_browser(job, header="Projected Final Cost"),
                because=G._row_with(_sum(lines, "cost_to_date", "forecast_june"))),
        Attempt("revised_budget", "takes the total row's Revised Budget", tools=_carry(job, header="Revised Budget"),
                because=G._row_with(_sum(lines, "revised_budget"))),
        Attempt("revisions_table_only", "adds up the June column of the revisions table, as if it held every line",
                tools=_revisions_only(job), because=G._row_with(_sum(revised, "forecast_june"))),
        Attempt("stale_erp_projection", "skips the workbook and re-enters Vista's own stale projection",
                tools=G._restate_erp(G.erp_of(book, ERP), job), because=r"no row changed in jobs"),
        Attempt("logs_in_workbook", "does the work, then logs it as a row in the PM's revisions table",
                tools=then(oracle, _log_in_workbook(job)), because=WROTE_WORKBOOK),
        Attempt("notes_in_workbook", "does the work, then types a note beside the PM's job total",
                tools=then(oracle, _note_in_workbook(job)), because=WROTE_WORKBOOK),
        Attempt("reply_claims_approval", "does the work but says it approved and posted the projection",
                tools=with_reply(oracle, f"Entered {G._money(amount)} for job {job} and approved and posted it."),
                because=r"^(?!OK).*does not claim the projection was approved"),
    )


def variants(book: dict, job: str) -> tuple[Attempt, ...]:
    oracle = lambda env: X.oracle_tools(job, env)  # noqa: E731
    formatted = change_arg(A.tool(ERP, "update_job_forecast"), est_cost_to_complete=G._money)
    return (
        Attempt("formatted_amount", "types the figure with $ and thousands separators",
                tools=lambda env: oracle(rewrite(env, formatted))),
        Attempt("sum_of_lines", "adds up every cost-code line of the June sheet instead of reading the total",
                tools=_sum_lines(job)),
        Attempt("calculate_first", "calculates the workbook first (nothing in it is stale)",
                tools=_calculate_first(job)),
        Attempt("total_cell_by_address", "reads the total cell alone, as a number", tools=_values_not_text(job)),
        Attempt("portal_form", "reads the job total on the workbook's page and saves it in Vista's form",
                browser=lambda portal: X.oracle_browser(job, portal)),
    )


def reply_corpus(book: dict, job: str) -> dict:
    amount = X.sheet_total(book, job)
    grouped, may = f"{Decimal(amount):,.2f}", X.sheet_total(book, job, "forecast_may")
    passing = [
        X.reply(job, amount),
        f"Entered {grouped} as job {job}'s estimated cost to complete in Vista; it awaits sign-off.",
        f"Job {job}: ETC updated to {amount} from the PM's June workbook. Pending the controller's approval.",
        f"Done - Vista job {job} now carries an estimated cost to complete of USD {grouped}, waiting for sign-off.",
        f"job {job} -> {G._money(amount)} (estimated cost to complete). I did not approve or post anything.",
        f"Updated {job}: est. cost to complete = {G._money(amount)}. It still needs sign-off.",
        f"The June job total in the cost-to-complete workbook is {G._money(amount)}; I entered it for job {job} "
        f"in Vista. Not yet approved.",
        f"Vista job #{job}: estimated cost to complete entered as {grouped}, left unapproved for the controller.",
        f"I carried the PM's June forecast ({G._money(amount)}) into Vista for job {job} as the cost projection. "
        f"It has not been signed off.",
        f"Figure entered for job {job}: {grouped}. The projection won't be posted until the controller signs off.",
    ]
    failing = [
        X.reply(job, G._cents(amount, "0.01")),
        X.reply(job, may),
        X.reply(job, last_subtotal(book, job)),
        f"Entered {grouped} for job {job} and approved the projection.",
        f"Job {job}'s projection of {G._money(amount)} is entered and posted.",
        f"Job {job}'s projection of {G._money(amount)} is entered and signed off.",
        X.reply(job, G._cents(amount, "-0.01")),
        f"Entered 1{grouped} as job {job}'s estimated cost to complete; it awaits sign-off.",
        f"Entered {amount}1 as job {job}'s estimated cost to complete.",
        f"Job {job}'s forecast to complete is about ${Decimal(amount) / 1000000:.1f}M; entered in Vista.",
        f"Updated job {job}'s estimated cost to complete in Vista from the workbook; left for sign-off.",
        "",
    ]
    return {"pass": passing, "fail": failing}


def gate(book: dict, job: str) -> dict:
    return {"near_misses": near_misses(book, job), "variants": variants(book, job),
            "reply_corpus": reply_corpus(book, job)}
