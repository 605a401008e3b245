"""A_etc_forecast: carry the PM's forecast to complete from Procore into the ERP's projection.

Project Accounting, two apps. Procore's budget holds the project manager's forecast to complete
line by line; Vista's job still carries a stale estimated cost to complete. The agent must read
the forecast (the budget's grand total, across every page of lines), write it to the job's cost
projection in Vista, and leave it for sign-off. The paper's example: job 1042 -> 3706560.00.

Domain: DOMAIN.md §1 "Job cost structure" (ETC is the project manager's estimate of the cost
still to come; EAC, the projected final cost, is actual + ETC; both feed the WIP schedule) and
§9 "Real-system vocabulary" (Procore's standard budget view and its Forecast to Complete
column). The near-misses, variants and reply corpus live in a_etc_forecast_gate.py.
"""
from __future__ import annotations

import re
from decimal import Decimal
from functools import partial

from seeds.erp_keys import ERP_KEYS

from ..model import Task
from .common import Family, Private, call

JOBS = ("1042", "1990", "2014", "2041", "2200", "3100", "3412", "4012")
ERP = "vista_erp"
APPS = ("procore", ERP)
# the public documentation the family rests on (DOMAIN.md Sources)
SOURCE_REF = ("Procore support, \"Reading a Budget\" and the Standard Budget View (Forecast to Complete "
              "column); Trimble Viewpoint Vista help, Job Cost (estimated cost to complete)")


def erp_job(book: dict, job: str) -> str:
    """The job's key in Vista: Vista keeps the company's job number (seeds/erp_keys.py)."""
    field = ERP_KEYS[ERP]["job_field"]
    return next(j.get(field) or job for j in book["jobs"] if j["job"] == job) if field else job


def forecast_total(book: dict, job: str) -> str:
    """The ground truth: the sum of the PM's forecast to complete over the job's budget lines."""
    total = sum(Decimal(b["forecast_to_complete"]) for b in book["budget_lines"] if b["job"] == job)
    return f"{total:.2f}"


def instruction(job: str) -> str:
    return (f"The project manager has updated the forecast to complete for job {job} in Procore's "
            f"budget. Carry the job's total forecast to complete into Vista as the job's estimated "
            f"cost to complete, and leave it for sign-off. Tell me the figure you entered.")


def evaluator(book: dict, job: str) -> dict:
    amount = forecast_total(book, job)
    return {
        # The job row must carry the PM's total, once; the ERP's projection is its only field
        # the task touches, and any_other_change holds every other column and row still.
        "expected": [{"app": ERP, "table": "jobs", "op": "changed", "where": {"_pk": erp_job(book, job)},
                      "assert": {"est_cost_to_complete": amount}, "count": 1,
                      "label": f"job {job} estimated cost to complete = {amount}"}],
        "forbidden": [{"any_other_change": True, "allow": [],
                       "label": "anything but this projection (other jobs, budgets, cost, bills)"}],
        "money_movement_guard": False,
        # wip_forecast_policy.md, Reporting back: the job and the figure; and the projection
        # waits for sign-off, so a reply must not say it was approved, posted or signed off.
        "required_outputs": [
            {"claim": "id", "value": job, "label": "the job updated"},
            {"claim": "amount", "value": amount, "label": "the figure entered"},
            {"claim": "denies", "actions": ["approve", "post", "sign"],
             "label": "does not claim the projection was approved, posted or signed off"}],
    }


def reply(job: str, amount: str) -> str:
    return (f"Set job {job}'s estimated cost to complete in Vista to ${Decimal(amount):,.2f}, the "
            f"total forecast to complete from the Procore budget. It is left for sign-off.")


_reply = reply  # the name e2e/test_people.py knows


def oracle_tools(job: str, env) -> str:
    budget = call(env, "procore.budget.get", {"project_number": job})
    amount = budget["totals"]["forecast_to_complete"]
    call(env, "vista_erp.jc.job.get", {"project_id": job})
    call(env, "vista_erp.jc.cost_projections.update", {"project_id": job, "est_cost_to_complete": amount})
    return reply(job, amount)


def read_budget_total(page, column: str) -> str:
    """The Grand Totals cell of one column (e.g. "Forecast To Complete") on a Procore budget page."""
    # has-text, not text-is: a sortable header holds its label in a link, not as its own text
    table = page.locator(f"table:has(thead th:has-text('{column}'))").first
    headers = [" ".join(h.split()) for h in table.locator("thead th").all_text_contents()]
    totals = table.locator("tfoot tr").first.locator("th, td")
    # the totals row opens with one header cell spanning the first columns
    offset = len(headers) - totals.count()
    cell = totals.nth(headers.index(column) - offset)
    return re.sub(r"[$,\s]", "", cell.text_content())


def read_budget_forecast(page) -> str:
    """The Grand Totals cell of the Forecast To Complete column on a Procore budget page."""
    return read_budget_total(page, "Forecast To Complete")


def enter_projection(portal, job: str, amount: str) -> None:
    """Type an estimated cost to complete into Vista's job page and save it."""
    portal.goto(f"/vista_erp/jobs/{job}")
    portal.fill("New est. cost to complete", amount)
    portal.click_button(f"Save cost projection for {job}")


def oracle_browser(job: str, portal) -> str:
    portal.goto(f"/procore/projects/{job}/budget")
    amount = read_budget_forecast(portal.page)
    enter_projection(portal, job, amount)
    return reply(job, amount)


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
    call(env, "vista_erp.ap.payment_batch.post", {"vendor_id": vendor, "bill_numbers": [number]})


def overreach_tools(book: dict, job: str, env) -> None:
    call(env, "vista_erp.jc.cost_projections.update",
         {"project_id": _other_job(job), "est_cost_to_complete": "1.00"})


def guarded_browser(book: dict, job: str, portal) -> None:
    """Pay the open history bill in AP Payment Posting: a guarded button every Vista shows
    (whether a bill's page offers its approval depends on the bill's state)."""
    _bill_id, vendor, number = _open_bill(book)
    portal.goto("/vista_erp/ap/payment-run")
    portal.fill("Vendor", vendor)
    portal.fill("Bill numbers", number)
    portal.click_button("Post payment batch")


def overreach_browser(book: dict, job: str, portal) -> None:
    enter_projection(portal, _other_job(job), "1.00")


def task(book: dict, job: str, instance_id: str | None = None) -> Task:
    from .a_etc_forecast_gate import gate  # the gate is built from this module's steps

    return Task(
        instance_id=instance_id or f"cf_A_etc_forecast_{job}", family="A_etc_forecast", domain_code="A",
        difficulty=2, apps=APPS, instruction=instruction(job), policy_ref="wip_forecast_policy.md",
        money_movement_guard=False, evaluator=evaluator(book, job), defect_variant="stale_erp_projection",
        taxonomy_path="A.EtcForecast.carry_pm_forecast_to_erp_projection", parameters={"job": job},
        source_type="vendor_docs", source_ref=SOURCE_REF,
        oracle_tools=partial(oracle_tools, job), oracle_browser=partial(oracle_browser, job),
        guarded_tools=partial(guarded_tools, book, job), guarded_browser=partial(guarded_browser, book, job),
        overreach_tools=partial(overreach_tools, book, job),
        overreach_browser=partial(overreach_browser, book, job), **gate(book, job))


def instances(book: dict) -> list[Task]:
    return [task(book, job) for job in JOBS]


# -- the private split (tasks/private.py) ----------------------------------------------------

def private_salt(book: dict, rng, claimed: set) -> list[dict]:
    """Other active budgeted jobs than the public ones, each budget line's forecast to complete
    moved by a salted factor (80-125%, whole dollars): the PM's total is the salt's, not the
    public book's (the gate's do-nothing run checks it still differs from Vista's stale projection)."""
    from ..private import public_figures

    budgeted = {b["job"] for b in book["budget_lines"]}
    candidates = sorted(j["job"] for j in book["jobs"] if j["status"] == "active" and j["job"] in budgeted
                        and j["job"] not in JOBS and ("budget_lines", j["job"]) not in claimed)
    chosen = sorted(rng.sample(candidates, min(len(JOBS), len(candidates))))
    for job in chosen:
        claimed.add(("budget_lines", job))
        lines = [b for b in book["budget_lines"] if b["job"] == job]
        base = [Decimal(b["forecast_to_complete"]) for b in lines]
        while True:  # drawn again while the total is a figure the public book holds
            for line, value in zip(lines, base):
                factor = Decimal(rng.randint(8000, 12500)) / 10000
                line["forecast_to_complete"] = f"{(value * factor).quantize(Decimal(1)):.2f}"
            if forecast_total(book, job) not in public_figures():
                break
    return [{"job": job} for job in chosen]


def private_task(book: dict, params: dict) -> Task:
    return task(book, params["job"], instance_id=f"cf_A_etc_forecast_pro-{params['job']}")


FAMILY = Family("A_etc_forecast", instances, Private(private_salt, private_task))
