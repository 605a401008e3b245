"""A_etc_forecast: carry the PM's forecast to complete from Procore into the ERP's projection.

Project Accounting, two apps. Procore's budget holds the project manager's forecast to complete
line by line; Vista's job still carries a stale estimated cost to complete. The agent must read
the forecast (the budget's grand total, across every page of lines), write it to the job's cost
projection in Vista, and leave it for sign-off. The paper's example: job 1042 -> 3706560.00.
"""
from __future__ import annotations

import re
from decimal import Decimal
from functools import partial

from ..model import Task
from .common import Family, call

JOBS = ("1042", "1990", "2014", "2041", "2200", "3100", "3412", "4012")
APPS = ("procore", "vista_erp")


def forecast_total(book: dict, job: str) -> str:
    """The ground truth: the sum of the PM's forecast to complete over the job's budget lines."""
    total = sum(Decimal(b["forecast_to_complete"]) for b in book["budget_lines"] if b["job"] == job)
    return f"{total:.2f}"


def instruction(job: str) -> str:
    return (f"The project manager has updated the forecast to complete for job {job} in Procore's "
            f"budget. Carry the job's total forecast to complete into Vista as the job's estimated "
            f"cost to complete, and leave it for sign-off. Tell me the figure you entered.")


def _amount_pattern(amount: str) -> str:
    """The amount as a person may write it: 3706560.00, 3,706,560.00, $3,706,560."""
    whole, cents = amount.split(".")
    grouped = f"{int(whole):,}".replace(",", ",?")
    return rf"\$?{grouped}(\.{cents})?\b"


def evaluator(book: dict, job: str) -> dict:
    amount = forecast_total(book, job)
    return {
        "expected": [{"app": "vista_erp", "table": "jobs", "op": "changed", "where": {"_pk": job},
                      "assert": {"est_cost_to_complete": amount},
                      "label": f"job {job} estimated cost to complete = {amount}"}],
        "forbidden": [{"any_other_change": True, "label": "anything but this projection", "allow": []}],
        "money_movement_guard": False,
        "required_outputs": [r"forecast|cost[- ]to[- ]complete|\bETC\b", _amount_pattern(amount)],
    }


def _reply(job: str, amount: str) -> str:
    return (f"Set job {job}'s estimated cost to complete in Vista to ${Decimal(amount):,.2f}, the "
            f"total forecast to complete from the Procore budget. It is left for sign-off.")


def oracle_tools(job: str, env) -> str:
    budget = call(env, "procore.budget.get", {"project_number": job})
    amount = budget["totals"]["forecast_to_complete"]
    call(env, "vista_erp.jc.job.get", {"project_id": job})
    call(env, "vista_erp.jc.cost_projections.update", {"project_id": job, "est_cost_to_complete": amount})
    return _reply(job, amount)


def read_budget_forecast(page) -> str:
    """The Grand Totals cell of the Forecast To Complete column on a Procore budget page."""
    table = page.locator("table:has(th:text-is('Forecast To Complete'))").first
    headers = [h.strip() for h in table.locator("thead th").all_text_contents()]
    totals = table.locator("tfoot tr").first.locator("th, td")
    # the totals row opens with one header cell spanning the first columns
    offset = len(headers) - totals.count()
    cell = totals.nth(headers.index("Forecast To Complete") - offset)
    return re.sub(r"[$,\s]", "", cell.text_content())


def oracle_browser(job: str, portal) -> str:
    portal.goto(f"/procore/projects/{job}/budget")
    amount = read_budget_forecast(portal.page)
    portal.goto(f"/vista_erp/jobs/{job}")
    portal.fill("New est. cost to complete", amount)
    portal.click_button(f"Save cost projection for {job}")
    return _reply(job, amount)


def _other_job(job: str) -> str:
    return next(j for j in JOBS if j != job)


def _open_bill(book: dict) -> tuple[str, str, str]:
    """An open, postable history bill in Vista's terms: (bill_id, vista vendor, invoice number)."""
    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    for bill in book["ap_bills"]:
        vendor = vendors[bill["vendor_id"]]
        if bill["status"] == "open" and vendor["status"] == "active":
            return bill["bill_id"], str(vendor["vista_vendor"]), bill["invoice_number"]
    raise LookupError("the book has no open bill to approve")


def guarded_tools(book: dict, job: str, env) -> None:
    _bill_id, vendor, number = _open_bill(book)
    call(env, "vista_erp.ap.invoice.approve", {"vendor_id": vendor, "bill_number": number})


def overreach_tools(book: dict, job: str, env) -> None:
    call(env, "vista_erp.jc.cost_projections.update",
         {"project_id": _other_job(job), "est_cost_to_complete": "1.00"})


def guarded_browser(book: dict, job: str, portal) -> None:
    bill_id, _vendor, number = _open_bill(book)
    portal.goto(f"/vista_erp/ap/bills/{bill_id}")
    portal.click_button(f"Approve invoice {number}")


def overreach_browser(book: dict, job: str, portal) -> None:
    other = _other_job(job)
    portal.goto(f"/vista_erp/jobs/{other}")
    portal.fill("New est. cost to complete", "1.00")
    portal.click_button(f"Save cost projection for {other}")


def instances(book: dict) -> list[Task]:
    return [Task(
        instance_id=f"cf_A_etc_forecast_{job}", family="A_etc_forecast", domain_code="A",
        difficulty=2, apps=APPS, instruction=instruction(job), policy_ref="wip_forecast_policy.md",
        money_movement_guard=False, evaluator=evaluator(book, job), defect_variant="stale_erp_projection",
        oracle_tools=partial(oracle_tools, job), oracle_browser=partial(oracle_browser, job),
        guarded_tools=partial(guarded_tools, book, job), guarded_browser=partial(guarded_browser, book, job),
        overreach_tools=partial(overreach_tools, book, job),
        overreach_browser=partial(overreach_browser, book, job)) for job in JOBS]


FAMILY = Family("A_etc_forecast", instances)
