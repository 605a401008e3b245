"""A_etc_forecast where the owner keeps the job's budget in INGENIOUS.BUILD.

The same work as A_etc_forecast (carry the forecast to complete into Vista's projection and leave it
for sign-off), but the instance names the owner's Project Budget in INGENIOUS.BUILD as the source.
On these jobs the owner's team re-forecast the budget there at June's month end, line by line
(seeds/funding.py, the book's `funding.forecasts`); the PM's Procore budget still carries May's
forecast to complete, so Procore's total is a different, stale figure. INGENIOUS.BUILD calls the
column the Estimate to Complete (beside the Estimate at Completion, which adds the invoiced cost);
the figure is its total over every line of the Project Budget. Procore is in the episode, so taking
its figure is a mistake the grader sees. Ids: cf_A_etc_forecast_ingenious_<job>.
"""
from __future__ import annotations

from decimal import Decimal
from functools import partial

from seeds.funding import FORECAST_JOBS

from ..model import Task
from . import a_etc_forecast as A
from .common import call

JOBS = FORECAST_JOBS
ERP = A.ERP
SOURCE = "ingenious_build"
APPS = (SOURCE, "procore", ERP)
COLUMN = "Estimate to Complete"  # INGENIOUS.BUILD's word for the forecast to complete
SOURCE_REF = ("INGENIOUS.BUILD help, \"Budget and Cost Code Definitions\" and Module 2: Project Budget & Funding "
              "(Owner) (the Master Project Budget, budgeting and forecasting anticipated costs); Trimble Viewpoint "
              "Vista help, Job Cost (estimated cost to complete)")


def owner_lines(book: dict, job: str) -> list[dict]:
    """The owner's June estimate to complete of each budget line, in the budget's order."""
    return sorted((f for f in book["funding"]["forecasts"] if f["job"] == job),
                  key=lambda f: (f["cost_code"], f["cost_type"]))


def owner_total(book: dict, job: str) -> str:
    """The ground truth: the Project Budget's Estimate to Complete over every line."""
    return f"{sum(Decimal(f['forecast_to_complete']) for f in owner_lines(book, job)):.2f}"


def instruction(job: str) -> str:
    return (f"The owner keeps job {job}'s project budget in INGENIOUS.BUILD and has re-forecast it for June. "
            f"Carry the job's total forecast to complete from the owner's project budget in INGENIOUS.BUILD into "
            f"{A.label(ERP)} as the job's estimated cost to complete, and leave it for sign-off. Tell me the figure "
            f"you entered.")


def reply(job: str, amount: str) -> str:
    return (f"Set job {job}'s estimated cost to complete in {A.label(ERP)} to ${Decimal(amount):,.2f}, the total "
            f"estimate to complete of the owner's June re-forecast in INGENIOUS.BUILD. It is left for sign-off.")


def budget_url(job: str) -> str:
    return f"/{SOURCE}/projects/{job}/budget-ladder"


def oracle_tools(job: str, env) -> str:
    budget = call(env, f"{SOURCE}.budget.get", {"project_number": job})
    amount = budget["totals"]["estimate_to_complete"]
    call(env, A.tool(ERP, "get_project"), {"project_id": job})
    call(env, A.tool(ERP, "update_job_forecast"), {"project_id": job, "est_cost_to_complete": amount})
    return reply(job, amount)


def read_total_browser(portal, job: str, column: str = COLUMN) -> str:
    """The Totals cell of one column of the Project Budget page."""
    portal.goto(budget_url(job))
    return A.read_budget_total(portal.page, column)


def oracle_browser(job: str, portal) -> str:
    amount = read_total_browser(portal, job)
    A.enter_projection(portal, job, amount, ERP)
    return reply(job, amount)


def other_job(job: str) -> str:
    return next(j for j in JOBS if j != job)


def overreach_tools(book: dict, job: str, env) -> None:
    call(env, A.tool(ERP, "update_job_forecast"), {"project_id": other_job(job), "est_cost_to_complete": "1.00"})


def overreach_browser(book: dict, job: str, portal) -> None:
    A.enter_projection(portal, other_job(job), "1.00", ERP)


def task(book: dict, job: str) -> Task:
    from .a_etc_forecast_ingenious_gate import gate

    return Task(
        instance_id=f"cf_A_etc_forecast_ingenious_{job}", family="A_etc_forecast", domain_code="A", difficulty=2,
        apps=APPS, instruction=instruction(job), policy_ref="wip_forecast_policy.md",
        money_movement_guard=False, evaluator=A.evaluator(book, job, ERP, owner_total(book, job)),
        defect_variant="stale_erp_projection",
        taxonomy_path="A.EtcForecast.carry_owner_forecast_to_erp_projection",
        parameters={"job": job, "source": SOURCE}, source_type="vendor_docs", source_ref=SOURCE_REF,
        oracle_tools=partial(oracle_tools, job), oracle_browser=partial(oracle_browser, job),
        guarded_tools=partial(A.guarded_tools, book, job, erp=ERP),
        guarded_browser=partial(A.guarded_browser, book, job, erp=ERP),
        overreach_tools=partial(overreach_tools, book, job),
        overreach_browser=partial(overreach_browser, book, job), **gate(book, job))


def instances(book: dict) -> list[Task]:
    planted = {f["job"] for f in book.get("funding", {}).get("forecasts", [])}
    return [task(book, job) for job in JOBS if job in planted]
