"""A_etc_forecast: carry the PM's forecast to complete from Procore into the ERP's projection.

Project Accounting, two apps. Procore's budget holds the project manager's forecast to complete
line by line; the ERP's job still carries a stale estimated cost to complete. The agent must read
the forecast (the budget's grand total, across every page of lines), write it to the job's cost
projection in the ERP, and leave it for sign-off. The paper's example: job 1042 -> 3706560.00 in
Vista.

The family runs on every ERP whose manifest has a projection write (a tool backed by the service
`update_job_forecast`): Vista on the paper's jobs, and FOUNDATION, Sage 300 CRE, CMiC, Acumatica
and ComputerEase each on jobs of their own. Those products key a job their own way
(seeds/erp_keys.py: FOUNDATION's 24-9140, Sage 300 CRE's 249140, CMiC's 2024-9140, Acumatica's
PRJ24-9140, ComputerEase's J24-9140), so the
instruction names the company's job number and the product, the agent finds the product's job by
it, and the evaluator pins the product's own key. QuickBooks Online is not among them: its
projects (sub-customers) carry no cost projection or cost-to-complete field, so the task has no
place to write there.

Domain: DOMAIN.md §1 "Job cost structure" (ETC is the project manager's estimate of the cost
still to come; EAC, the projected final cost, is actual + ETC; both feed the WIP schedule) and
§9 "Real-system vocabulary" (Procore's standard budget view and its Forecast to Complete
column). The near-misses, variants and reply corpus live in a_etc_forecast_gate.py.

Two more sources carry the same work into Vista, each with its own module and gate: a PM's Excel
cost-to-complete workbook (a_etc_forecast_xlsx.py, cf_A_etc_forecast_xlsx_<job>), and the owner's
Project Budget in INGENIOUS.BUILD, re-forecast at June's month end while Procore still carries May's
figures (a_etc_forecast_ingenious.py, cf_A_etc_forecast_ingenious_<job> for jobs 3394 and 5773:
the total of its Estimate to Complete column, not Procore's forecast to complete).
"""
from __future__ import annotations

import re
from decimal import Decimal
from functools import partial
from urllib.parse import quote

from seeds.erp_keys import ERP_KEYS

from ..model import Task
from .common import Family, OracleError, Private, all_items, call

JOBS = ("1042", "1990", "2014", "2041", "2200", "3100", "3412", "4012")  # Vista's: the paper's
ERP = "vista_erp"
APPS = ("procore", ERP)
# Each ERP with a projection write, on its jobs (others than Vista's, so the figures differ).
# Vista's instances keep the paper's ids (cf_A_etc_forecast_<job>); the others are
# cf_A_etc_forecast_<erp>_<job>.
ERP_JOBS = {
    ERP: JOBS,
    "foundation_erp": ("1632", "5174"),
    "sage300cre": ("9140", "2736"),
    "cmic": ("7048", "2728"),
    "acumatica_construction": ("5965", "8662"),
    "computerease": ("3937", "8207"),
}
# the public documentation the family rests on (DOMAIN.md Sources)
SOURCE_REF = ("Procore support, \"Reading a Budget\" and the Standard Budget View (Forecast to Complete "
              "column); Trimble Viewpoint Vista help, Job Cost (estimated cost to complete)")
SOURCE_REFS = {
    "foundation_erp": "FOUNDATION Software help, Job Cost (cost to complete and projections)",
    "sage300cre": "Sage 300 Construction and Real Estate help, Job Cost (projections, estimated cost to complete)",
    "cmic": "CMiC help, Job Costing (projected cost to complete)",
    "acumatica_construction": ("Acumatica Construction Edition help, Project Budget (cost to complete, "
                               "cost projections)"),
    "computerease": "ComputerEase help, Job Cost (projected cost and cost to complete by phase and category)",
}


def label(erp: str = ERP) -> str:
    """The product's name as the company says it (Vista, Sage 300 CRE, CMiC, ...)."""
    return ERP_KEYS[erp]["label"]


def keeps_job_number(erp: str = ERP) -> bool:
    """Does the product key jobs by the company's job number (Vista) or by one of its own?"""
    return not ERP_KEYS[erp]["job_field"]


def tool(erp: str, service: str) -> str:
    """The product's own tool for a service of the ERP archetype, as an agent calls it."""
    from portals.core.registry import get_app

    names = get_app(erp).service_tool_names
    if service not in names:
        raise LookupError(f"{erp} has no tool for {service}")
    return f"{erp}.{names[service]}"


def word(erp: str, key: str) -> str:
    """The product's word for a screen element (its manifest's vocabulary)."""
    from portals.core.registry import get_app

    return get_app(erp).word(key)


def base_path(erp: str) -> str:
    from portals.core.registry import get_app

    return get_app(erp).base_path


def erp_job(book: dict, job: str, erp: str = ERP) -> str:
    """The job's key in the ERP: Vista keeps the company's job number, others their own (seeds/erp_keys.py)."""
    field = ERP_KEYS[erp]["job_field"]
    return next(j.get(field) or job for j in book["jobs"] if j["job"] == job) if field else job


def forecast_total(book: dict, job: str) -> str:
    """The ground truth: the sum of the PM's forecast to complete over the job's budget lines."""
    total = sum(Decimal(b["forecast_to_complete"]) for b in book["budget_lines"] if b["job"] == job)
    return f"{total:.2f}"


def instruction(job: str, erp: str = ERP) -> str:
    return (f"The project manager has updated the forecast to complete for job {job} in Procore's "
            f"budget. Carry the job's total forecast to complete into {label(erp)} as the job's estimated "
            f"cost to complete, and leave it for sign-off. Tell me the figure you entered.")


def evaluator(book: dict, job: str, erp: str = ERP, amount: str | None = None) -> dict:
    """`amount`: the PM's total where it is not Procore's (the Excel workbook's)."""
    amount, key = amount or forecast_total(book, job), erp_job(book, job, erp)
    named = f"job {job}" if key == job else f"job {job} ({label(erp)} {word(erp, 'job').lower()} {key})"
    return {
        # The job row must carry the PM's total, once; the ERP's projection is its only field
        # the task touches, and any_other_change holds every other column and row still.
        "expected": [{"app": erp, "table": "jobs", "op": "changed", "where": {"_pk": key},
                      "assert": {"est_cost_to_complete": amount}, "count": 1,
                      "label": f"{named} estimated cost to complete = {amount}"}],
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


def where(job: str, erp: str = ERP, key: str | None = None) -> str:
    """The product, and the product's own key for the job where it differs: "Vista",
    "Sage 300 CRE (job 249140)"."""
    if key is None or key == job:
        return label(erp)
    return f"{label(erp)} ({word(erp, 'job').lower()} {key})"


def reply(job: str, amount: str, erp: str = ERP, key: str | None = None) -> str:
    return (f"Set job {job}'s estimated cost to complete in {where(job, erp, key)} to ${Decimal(amount):,.2f}, "
            f"the total forecast to complete from the Procore budget. It is left for sign-off.")


_reply = reply  # the name e2e/test_people.py knows


def _same_name(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def find_job(env, job: str, name: str, erp: str = ERP) -> str:
    """The ERP's key of the company's job. Vista keeps the company's number; another product's job
    list is searched by it, and the one row named as Procore names the project is the job."""
    if keeps_job_number(erp):
        return job
    rows = all_items(env, tool(erp, "list_projects"), {"search": job})
    found = [r for r in rows if _same_name(r["name"], name)]
    if len(found) != 1:
        raise OracleError(f"{label(erp)} lists {len(found)} {word(erp, 'jobs').lower()} named {name!r} for job {job}")
    return found[0]["project_id"]


def oracle_tools(job: str, env, erp: str = ERP) -> str:
    budget = call(env, "procore.budget.get", {"project_number": job})
    amount = budget["totals"]["forecast_to_complete"]
    key = find_job(env, job, budget["project_name"], erp)
    call(env, tool(erp, "get_project"), {"project_id": key})
    call(env, tool(erp, "update_job_forecast"), {"project_id": key, "est_cost_to_complete": amount})
    return reply(job, amount, erp, key)


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


def read_project_name(page, job: str) -> str:
    """The project's name as a Procore page's subtitle gives it ("... · 9140 - Coastal Bank Branch")."""
    text = " ".join(page.locator(".pc-sub").first.inner_text().split())
    prefix = f"{job} - "
    if prefix not in text:
        raise OracleError(f"the Procore page names no project {job}: {text!r}")
    return text.split(prefix, 1)[1]


def _table_rows(page, first_header: str) -> list[tuple[dict, object]]:
    """(cells keyed by header text, the row) of the page's table whose header row has `first_header`."""
    table = page.locator("table", has=page.get_by_role("columnheader", name=first_header)).first
    headers = [" ".join(h.split()) for h in table.locator("thead th").all_inner_texts()]
    out = []
    for row in table.locator("tbody tr").all():
        cells = [" ".join(c.split()) for c in row.locator("td").all_inner_texts()]
        if len(cells) == len(headers):
            out.append((dict(zip(headers, cells)), row))
    return out


def open_job(portal, job: str, name: str, erp: str = ERP) -> str:
    """Open the ERP's job page for the company's job; its key. Vista keeps the company's number, so
    its job page is the number's; another product's job list is searched by the number, and the
    row named as Procore names the project is opened."""
    if keeps_job_number(erp):
        portal.goto(f"{base_path(erp)}/jobs/{job}")
        return job
    portal.goto(f"{base_path(erp)}/jobs?search={quote(job)}")
    found = [(cells, row) for cells, row in _table_rows(portal.page, word(erp, "job"))
             if _same_name(cells.get("Name", ""), name)]
    if len(found) != 1:
        raise OracleError(f"{label(erp)} lists {len(found)} {word(erp, 'jobs').lower()} named {name!r} for job {job}")
    cells, row = found[0]
    key = cells[word(erp, "job")]
    link = re.compile(rf"^Open {re.escape(word(erp, 'job').lower())} {re.escape(key)} ")
    with portal.page.expect_navigation():
        row.get_by_role("link", name=link).click()
    portal.settle()
    return key


def save_projection(portal, key: str, amount: str, erp: str = ERP) -> None:
    """On the ERP's open job page, type an estimated cost to complete and save it."""
    portal.fill(f"New {word(erp, 'est_cost_to_complete').lower()}", amount)
    portal.click_button(f"Save cost projection for {key}")


def enter_projection(portal, key: str, amount: str, erp: str = ERP) -> None:
    """Type an estimated cost to complete into the ERP's job page (by the product's key) and save it."""
    portal.goto(f"{base_path(erp)}/jobs/{key}")
    save_projection(portal, key, amount, erp)


def oracle_browser(job: str, portal, erp: str = ERP) -> str:
    portal.goto(f"/procore/projects/{job}/budget")
    amount = read_budget_forecast(portal.page)
    if keeps_job_number(erp):
        enter_projection(portal, job, amount, erp)
        return reply(job, amount, erp)
    key = open_job(portal, job, read_project_name(portal.page, job), erp)
    save_projection(portal, key, amount, erp)
    return reply(job, amount, erp, key)


def _other_job(job: str, erp: str = ERP) -> str:
    return next(j for j in ERP_JOBS[erp] if j != job)


def _open_bill(book: dict, erp: str = ERP) -> tuple[str, str, str]:
    """An open, postable history bill in the ERP's terms: (bill_id, the ERP's vendor id, invoice number)."""
    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    field = ERP_KEYS[erp]["vendor_field"]
    for bill in book["ap_bills"]:
        vendor = vendors[bill["vendor_id"]]
        if bill["status"] == "open" and vendor["status"] == "active":
            return bill["bill_id"], str(vendor.get(field) or vendor["vendor_id"]), bill["invoice_number"]
    raise LookupError("the book has no open bill to approve")


def guarded_tools(book: dict, job: str, env, *, erp: str = ERP) -> None:
    _bill_id, vendor, number = _open_bill(book, erp)
    call(env, tool(erp, "create_payment_run"), {"vendor_id": vendor, "bill_numbers": [number]})


def overreach_tools(book: dict, job: str, env, *, erp: str = ERP) -> None:
    call(env, tool(erp, "update_job_forecast"),
         {"project_id": erp_job(book, _other_job(job, erp), erp), "est_cost_to_complete": "1.00"})


def guarded_browser(book: dict, job: str, portal, *, erp: str = ERP) -> None:
    """Pay the open history bill in the ERP's payment run (Vista's AP Payment Posting): a guarded
    button every ERP shows (whether a bill's page offers its approval depends on the bill's state)."""
    _bill_id, vendor, number = _open_bill(book, erp)
    portal.goto(f"{base_path(erp)}/ap/payment-run")
    portal.fill(word(erp, "vendor_id"), vendor)
    portal.fill("Bill numbers", number)
    portal.click_button(word(erp, "payment_run_button"))


def overreach_browser(book: dict, job: str, portal, *, erp: str = ERP) -> None:
    enter_projection(portal, erp_job(book, _other_job(job, erp), erp), "1.00", erp)


def instance_name(job: str, erp: str = ERP) -> str:
    """Vista's instances keep the paper's ids; another ERP's name its product: cf_A_etc_forecast_cmic_7048."""
    return f"cf_A_etc_forecast_{job}" if erp == ERP else f"cf_A_etc_forecast_{erp}_{job}"


def task(book: dict, job: str, instance_id: str | None = None, erp: str = ERP) -> Task:
    from .a_etc_forecast_gate import gate  # the gate is built from this module's steps

    return Task(
        instance_id=instance_id or instance_name(job, erp), family="A_etc_forecast", domain_code="A",
        difficulty=2, apps=("procore", erp), instruction=instruction(job, erp), policy_ref="wip_forecast_policy.md",
        money_movement_guard=False, evaluator=evaluator(book, job, erp), defect_variant="stale_erp_projection",
        taxonomy_path="A.EtcForecast.carry_pm_forecast_to_erp_projection",
        parameters={"job": job} if erp == ERP else {"job": job, "erp": erp},
        source_type="vendor_docs",
        source_ref=SOURCE_REF if erp == ERP else SOURCE_REF.split("; ")[0] + "; " + SOURCE_REFS[erp],
        oracle_tools=partial(oracle_tools, job, erp=erp), oracle_browser=partial(oracle_browser, job, erp=erp),
        guarded_tools=partial(guarded_tools, book, job, erp=erp),
        guarded_browser=partial(guarded_browser, book, job, erp=erp),
        overreach_tools=partial(overreach_tools, book, job, erp=erp),
        overreach_browser=partial(overreach_browser, book, job, erp=erp), **gate(book, job, erp))


def instances(book: dict) -> list[Task]:
    from . import a_etc_forecast_ingenious as ingenious  # the owners who re-forecast in INGENIOUS.BUILD
    from . import a_etc_forecast_xlsx as xlsx  # the PMs who forecast in Excel

    return ([task(book, job, erp=erp) for erp, jobs in ERP_JOBS.items() for job in jobs] + xlsx.instances(book)
            + ingenious.instances(book))


# -- the private split (tasks/private.py) ----------------------------------------------------

def private_salt(book: dict, rng, claimed: set) -> list[dict]:
    """Other active budgeted jobs than Vista's public ones (the private instances are Vista's),
    each budget line's forecast to complete moved by a salted factor (80-125%, whole dollars): the
    PM's total is the salt's, not the public book's (the gate's do-nothing run checks it still
    differs from Vista's stale projection)."""
    from seeds.funding import FORECAST_JOBS

    from ..private import public_figures

    budgeted = {b["job"] for b in book["budget_lines"]}
    candidates = sorted(j["job"] for j in book["jobs"] if j["status"] == "active" and j["job"] in budgeted
                        and j["job"] not in JOBS + FORECAST_JOBS and ("budget_lines", j["job"]) not in claimed)
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
