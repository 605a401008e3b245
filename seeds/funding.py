"""An owner's funding in INGENIOUS.BUILD (B_draw_funding): each planted job's funding sources (a
construction loan, the owner's equity, an energy-efficiency grant), the vendor invoices of its
June application package (the draw to the lender) and the package itself.

They are INGENIOUS.BUILD's own records: the owner-side budget and its funders are kept there
alone, so they live in the book's `funding` section, which only a PM manifest asking for it seeds
([pm] funding = true), and each is registered as a divergence.

Each package holds five invoices by line. Four went through the internal approvals workflow
(entered new, approved by the job's PM); one was entered as already paid or already approved,
which skips the approvals: the owner's funding policy holds it back for approval. The figures put
the policy's order to work: one line's cost code is grant-eligible (the grant covers it in full,
or only in part where its remaining allocation is short), and the owner's equity, drawn first,
runs out partway through a later line, so the rest of that line and the lines after it fall to the
loan. The held-back invoice sits before that line, so funding it moves where equity runs out.
"""
from __future__ import annotations

import random
from decimal import ROUND_HALF_UP, Decimal

from .util import CENT, dec, money, unique_int

# (job, how the bypassing invoice was entered, whether the grant covers its line in full)
FUNDING_CASES = (("2736", "paid", True), ("5965", "approved", False))
FUNDING_JOBS = tuple(job for job, _m, _g in FUNDING_CASES)
PERIOD_END = "2026-06-30"
INVOICE_DATES = ("2026-06-05", "2026-06-09", "2026-06-12", "2026-06-17", "2026-06-22")
APPROVED_ON = "2026-06-26"
BYPASS_LINE = 2  # the held-back invoice's line
GRANT_LINE = 3
SPLIT_LINE = 4  # equity runs out partway through this line
LENDER = "First Citizens Bank"
# what the state's energy-efficiency grant pays for: envelope, HVAC equipment, lighting
GRANT_CODES = ("07-200", "08-800", "23-700", "26-500")


def _round(value: Decimal, step: int = 1000) -> Decimal:
    return (value / step).quantize(Decimal("1"), rounding=ROUND_HALF_UP) * step


def _amount(rng: random.Random, low: int, high: int) -> Decimal:
    return Decimal(rng.randint(low, high)) + Decimal(rng.randint(0, 99)) * CENT


def build_funding(rng: random.Random, jobs: dict, bills: list[dict], vendors: dict, budget: list[dict],
                  code_desc: dict, cases: tuple = FUNDING_CASES) -> dict:
    """The planted sources, invoices and packages (a pure function of the book so far);
    `cases` as FUNDING_CASES."""
    used: set[int] = set()
    taken = {(b["vendor_id"], b["invoice_number"]) for b in bills}
    sources, invoices, packages = [], [], []
    for job, bypass, grant_full in cases:
        j = jobs.get(job)
        if j is None or j["status"] != "active":
            continue  # another seed's book has no such job under way
        direct = sorted((b for b in bills if b["job"] == job and not b.get("commitment")
                         and b["vendor_id"] in vendors), key=lambda b: b["bill_id"])
        suppliers = sorted({b["vendor_id"] for b in direct})
        codes = sorted({b["cost_code"] for b in budget if b["job"] == job} - set(GRANT_CODES) - {"01-100"})  # not the GC's own staff
        if len(suppliers) < 3 or len(codes) < 4:
            continue  # another seed's book: too few direct bills on the job to draw from
        package = f"AP-{job}-06"
        lines = []
        for n in range(1, 6):
            vendor = suppliers[rng.randrange(len(suppliers))]
            code = rng.choice(GRANT_CODES) if n == GRANT_LINE else codes[rng.randrange(len(codes))]
            amount = _amount(rng, 14000, 68000)
            seq = rng.randint(1000, 9999)
            number = f"{seq}-{n:02d}"
            while (vendor, number) in taken:
                seq += 1
                number = f"{seq}-{n:02d}"
            taken.add((vendor, number))
            workflow = n != BYPASS_LINE
            lines.append({
                "invoice_id": unique_int(f"funding-invoice:{job}:{n}", 7, used), "job": job, "package": package,
                "line_no": n, "vendor_id": vendor, "invoice_number": number, "invoice_date": INVOICE_DATES[n - 1],
                "cost_code": code, "cost_type": "M" if n % 2 else "S",
                "description": f"{code_desc.get(code, code)} — Jun 2026", "amount": money(amount),
                "entered_as": "new" if workflow else bypass,
                "status": "Approved" if workflow or bypass == "approved" else "Paid",
                "approved_by": j["pm_name"] if workflow else "", "approved_date": APPROVED_ON if workflow else ""})
        invoices += lines
        a = {line["line_no"]: dec(line["amount"]) for line in lines}
        grant_left = a[GRANT_LINE] + _amount(rng, 3000, 18000) if grant_full else \
            (a[GRANT_LINE] * Decimal(str(rng.uniform(0.35, 0.7)))).quantize(CENT)
        covered = min(a[GRANT_LINE], grant_left)
        share = Decimal(str(rng.uniform(0.25, 0.75)))
        equity_left = a[1] + (a[GRANT_LINE] - covered) + (a[SPLIT_LINE] * share).quantize(CENT)
        contract = dec(j["contract_amount"])
        grant_total = Decimal(250000)
        equity_total, loan_total = _round(contract * Decimal("0.30")), _round(contract * Decimal("0.70"))
        loan_drawn = _round(loan_total * Decimal(str(rng.uniform(0.3, 0.6))))
        for code, name, kind, funder, total, left, eligible in (
                ("LOAN", "Construction Loan", "loan", LENDER, loan_total, loan_total - loan_drawn, []),
                ("EQUITY", "Owner Equity", "equity", j["customer"], equity_total, equity_left, []),
                ("GRANT", "Energy Efficiency Grant", "grant", f"{j['state']} Department of Environmental Quality",
                 grant_total, grant_left, list(GRANT_CODES))):
            sources.append({"source_id": unique_int(f"funding-source:{job}:{code}", 6, used), "job": job,
                            "code": code, "name": name, "kind": kind, "funder": funder, "amount": money(total),
                            "funded_to_date": money(total - left), "eligible_cost_codes": eligible})
        packages.append({"number": package, "job": job, "title": f"Draw 2026-06, {j['name']}",
                         "period_end": PERIOD_END, "status": "Draft", "recipient": LENDER})
    return {"sources": sources, "invoices": invoices, "packages": packages}


def funding_entries(funding: dict) -> list[dict]:
    """Each planted package and invoice is INGENIOUS.BUILD's alone."""
    out = [{"entity": "application_package", "key": p["number"], "field": "ingenious_build.presence",
            "systems": ["ingenious_build"], "family": "B_draw_funding",
            "why": (f"Application package {p['number']} (job {p['job']}) is a draft in INGENIOUS.BUILD, to go to "
                    f"{p['recipient']}; the owner's funding sources and their draws are kept there alone.")}
           for p in funding["packages"]]
    out += [{"entity": "vendor_invoice", "key": f"{i['job']}:{i['invoice_number']}", "field": "ingenious_build.presence",
             "systems": ["ingenious_build"], "family": "B_draw_funding",
             "why": (f"Vendor invoice {i['invoice_number']} ({i['amount']}, job {i['job']}) was entered in "
                     f"INGENIOUS.BUILD for package {i['package']}; the ERPs have no bill for it yet.")}
            for i in funding["invoices"]]
    return out


# The owner's re-forecast: on these jobs the owner's team keeps the project budget in INGENIOUS.BUILD
# and re-forecast it at June's month end, line by line, before the PM's Procore budget caught up
# (Procore still carries May's forecast to complete, the book's budget lines). A_etc_forecast's
# INGENIOUS.BUILD instances carry the owner's total into Vista.
FORECAST_JOBS = ("3394", "5773")


def build_owner_forecasts(rng: random.Random, jobs: dict, budget: list[dict], forecast_jobs: tuple = FORECAST_JOBS) -> list[dict]:
    """Each planted job's budget lines with the owner's June estimate to complete: about half the
    lines revised by 88-114% (whole dollars), at least two of them, so the total is not Procore's."""
    out = []
    for job in forecast_jobs:
        j = jobs.get(job)
        lines = sorted((b for b in budget if b["job"] == job), key=lambda b: (b["cost_code"], b["cost_type"]))
        if j is None or j["status"] != "active" or len(lines) < 4:
            continue  # another seed's book has no such job under way
        rows = []
        for b in lines:
            may = dec(b["forecast_to_complete"])
            june = may
            if rng.random() < 0.5:
                june = (may * Decimal(str(rng.uniform(0.88, 1.14)))).quantize(Decimal(1))
            rows.append({"job": job, "cost_code": b["cost_code"], "cost_type": b["cost_type"],
                         "forecast_to_complete": money(june)})
        revised = [r for r, b in zip(rows, lines) if r["forecast_to_complete"] != money(dec(b["forecast_to_complete"]))]
        for r, b in list(zip(rows, lines))[-2:]:  # a month with fewer than two revisions is no re-forecast
            if len(revised) >= 2:
                break
            if r not in revised:
                r["forecast_to_complete"] = money(dec(b["forecast_to_complete"]) + 4500)
                revised.append(r)
        out += rows
    return out


def forecast_entries(forecasts: list[dict], budget: list[dict]) -> list[dict]:
    """Each line the owner re-forecast differs from Procore's forecast to complete."""
    procore = {(b["job"], b["cost_code"], b["cost_type"]): b["forecast_to_complete"] for b in budget}
    return [{"entity": "budget_line", "key": f"{f['job']}:{f['cost_code']}:{f['cost_type']}",
             "field": "ingenious_build.forecast_to_complete", "systems": ["ingenious_build", "procore"],
             "family": "A_etc_forecast",
             "why": (f"The owner re-forecast job {f['job']}'s {f['cost_code']} {f['cost_type']} line in INGENIOUS.BUILD "
                     f"at {f['forecast_to_complete']} for June; Procore's budget still carries May's "
                     f"{procore[(f['job'], f['cost_code'], f['cost_type'])]}.")}
            for f in forecasts if f["forecast_to_complete"] != procore[(f["job"], f["cost_code"], f["cost_type"])]]
