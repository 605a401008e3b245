"""A_etc_forecast where the project manager keeps the forecast in an Excel workbook.

The same work as A_etc_forecast (carry the PM's forecast to complete into Vista's projection and
leave it for sign-off), but the instance names the PM's cost-to-complete workbook as the source.
The workbook (seeds/workbooks.py) keeps a sheet per month, a subtotal under each division and the
job total at the bottom; Procore still carries last month's figures. The figure is the job total of
the current month's sheet, and the workbook is read, never written. Ids: cf_A_etc_forecast_xlsx_<job>.
"""
from __future__ import annotations

from decimal import Decimal
from functools import partial
from urllib.parse import quote

from ..model import Task
from . import a_etc_forecast as A
from .common import OracleError, call

JOBS = ("4418", "5497")
ERP = A.ERP
SHEET, LAST_SHEET = "June 2026", "May 2026"  # the book's month end, and the month before
TOTAL, COLUMN = "Job total", "Forecast to Complete"
SOURCE_REF = ("Microsoft Graph, Excel workbook API (worksheets, range, tables); Trimble Viewpoint Vista help, "
              "Job Cost (estimated cost to complete)")


def workbook_of(book: dict, job: str) -> dict:
    return next(w for w in book["workbooks"] if w["job"] == job)


def sheet_total(book: dict, job: str, month: str = "forecast_june") -> str:
    """The ground truth: the workbook's job total, the sum of its lines' forecast for the month."""
    return f"{sum(Decimal(l[month]) for l in workbook_of(book, job)['lines']):.2f}"


def instruction(job: str) -> str:
    return (f"The project manager for job {job} keeps the forecast to complete in an Excel workbook, the job's "
            f"cost-to-complete workbook, and has updated it for June. Carry the job's total forecast to "
            f"complete from the workbook into {A.label(ERP)} as the job's estimated cost to complete, and leave "
            f"it for sign-off. Tell me the figure you entered.")


def reply(job: str, amount: str) -> str:
    return (f"Set job {job}'s estimated cost to complete in {A.label(ERP)} to ${Decimal(amount):,.2f}, the job "
            f"total of the June forecast in the project manager's workbook. It is left for sign-off.")


# --- reading the workbook (tools) -----------------------------------------------------------------

def find_workbook(env, job: str) -> int:
    """The job's cost-to-complete workbook: the one listed whose name starts with the job number."""
    items = call(env, "excel.workbooks.list", {"search": job})["items"]
    found = [w for w in items if w["name"].startswith(f"{job} ") and "cost to complete" in w["name"].lower()]
    if len(found) != 1:
        raise OracleError(f"Excel lists {len(found)} cost-to-complete workbooks for job {job}")
    return found[0]["id"]


def read_sheet(env, workbook_id: int, sheet: str) -> list[list[str]]:
    """The sheet's used range as Excel shows it (text, e.g. "1,234.00")."""
    sheets = call(env, "excel.worksheets.list", {"workbook_id": workbook_id})["items"]
    used = next(s["used_range"] for s in sheets if s["name"] == sheet)
    return call(env, "excel.range.get", {"workbook_id": workbook_id, "address": used})["text"]


def column_of(rows: list[list[str]], header: str) -> int:
    for line in rows:
        if header in line and "Cost Code" in line:
            return line.index(header)
    raise OracleError(f"the sheet has no {header!r} column")


def cell_amount(text: str) -> str:
    return f"{Decimal(text.replace(',', '').replace('$', '')):.2f}"


def row_value(rows: list[list[str]], label: str, header: str = COLUMN) -> str:
    """The `header` column of the row labelled `label` (e.g. the job total)."""
    col = column_of(rows, header)
    found = [line for line in rows if label in line]
    if len(found) != 1:
        raise OracleError(f"the sheet has {len(found)} rows labelled {label!r}")
    return cell_amount(found[0][col])


def oracle_tools(job: str, env) -> str:
    workbook = find_workbook(env, job)
    amount = row_value(read_sheet(env, workbook, SHEET), TOTAL)
    call(env, A.tool(ERP, "get_project"), {"project_id": job})
    call(env, A.tool(ERP, "update_job_forecast"), {"project_id": job, "est_cost_to_complete": amount})
    return reply(job, amount)


# --- reading the workbook (browser) ---------------------------------------------------------------

def open_sheet(portal, job: str, sheet: str) -> None:
    portal.goto(f"/excel/?search={quote(job)}")
    link = portal.page.get_by_role("link", name=f"Open workbook {job} Cost to Complete.xlsx", exact=True)
    with portal.page.expect_navigation():
        link.click()
    portal.settle()
    if sheet != SHEET:
        with portal.page.expect_navigation():
            portal.page.get_by_role("navigation", name="Sheets").get_by_role("link", name=sheet, exact=True).click()
        portal.settle()


def page_rows(portal) -> list[list[str]]:
    """The grid's rows as shown, without the row numbers."""
    rows = portal.page.get_by_role("table").first.locator("tbody tr")
    return [[" ".join(t.split()) for t in row.locator("td").all_inner_texts()] for row in rows.all()]


def read_total_browser(portal, job: str, sheet: str = SHEET, label: str = TOTAL, header: str = COLUMN) -> str:
    open_sheet(portal, job, sheet)
    return row_value(page_rows(portal), label, header)


def oracle_browser(job: str, portal) -> str:
    amount = read_total_browser(portal, job)
    A.enter_projection(portal, job, amount, ERP)
    return reply(job, amount)


def task(book: dict, job: str) -> Task:
    from .a_etc_forecast_xlsx_gate import gate

    return Task(
        instance_id=f"cf_A_etc_forecast_xlsx_{job}", family="A_etc_forecast", domain_code="A", difficulty=2,
        apps=("excel", ERP), instruction=instruction(job), policy_ref="wip_forecast_policy.md",
        money_movement_guard=False, evaluator=A.evaluator(book, job, ERP, sheet_total(book, job)),
        defect_variant="stale_erp_projection", taxonomy_path="A.EtcForecast.carry_pm_workbook_forecast_to_erp_projection",
        parameters={"job": job, "source": "excel"}, source_type="vendor_docs", source_ref=SOURCE_REF,
        oracle_tools=partial(oracle_tools, job), oracle_browser=partial(oracle_browser, job),
        guarded_tools=partial(A.guarded_tools, book, job, erp=ERP),
        guarded_browser=partial(A.guarded_browser, book, job, erp=ERP),
        overreach_tools=partial(A.overreach_tools, book, job, erp=ERP),
        overreach_browser=partial(A.overreach_browser, book, job, erp=ERP), **gate(book, job))


def instances(book: dict) -> list[Task]:
    return [task(book, job) for job in JOBS]
