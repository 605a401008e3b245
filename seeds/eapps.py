"""RedTeam eApps under review for June (C_eapp_review): subcontractors' pay applications submitted
through RedTeam's subcontractor portal, and the commitment change orders pending beside them.

They are RedTeam's own records: Procore, the ERPs and GCPay have nothing of them until the eApp is
approved, so they live in the book's `eapps` section, which only a PM manifest asking for it seeds
([pm] eapps = true), and each is registered as a divergence. They are planted on jobs with
no other eApp under review, against commitments whose earlier applications are all approved or
paid, so what remains on a commitment's schedule of values is its amount less what those
applications billed.

Each planted eApp bills the commitment as a whole for the period 2026-05-26 .. 2026-06-25 (the
book's open pay period), as the next application after the commitment's last one:
  over        bills more than remains (by an overage drawn from the section's rng): the reviewer caps it
  within      bills less than remains: approved as billed
  over_co     bills more than remains, and a commitment change order for at least the overage is
              pending on the commitment: returned to revise and resubmit, not capped
  within_co   bills less than remains with a change order pending on the commitment: approved
"""
from __future__ import annotations

import random
from datetime import date
from decimal import ROUND_CEILING, Decimal

from .requisitions import CURRENT_END, initials
from .util import CENT, add_days, add_months, dec, iso, money, pct_of, unique_int

# (job, book commitment, case); none of the three jobs has another eApp under review
EAPP_CASES = (("2816", "SC-2816-3", "over"), ("2816", "SC-2816-4", "within"),
              ("3937", "SC-3937-4", "over"), ("3937", "SC-3937-5", "within_co"),
              ("6495", "SC-6495-2", "over_co"), ("6495", "SC-6495-3", "within"))
EAPP_JOBS = tuple(dict.fromkeys(job for job, _c, _k in EAPP_CASES))
SUBMITTED = date(2026, 6, 27)  # when the subs submitted them, after the period closed
CO_CREATED = date(2026, 6, 22)
CO_SCOPE = {"over_co": "Extended work area per field directive",
            "within_co": "Revised sequencing per field directive"}


def remaining(commitment: dict, requisitions: list[dict]) -> Decimal:
    """The commitment's amount less what its earlier applications billed (all approved or paid)."""
    earlier = [r for r in requisitions if r["commitment"] == commitment["number"]]
    return dec(commitment["amount"]) - sum((dec(r["amount"]) for r in earlier), start=Decimal(0))


def _open_to_bill(c: dict | None, job: str, earlier: list[dict]) -> bool:
    """An approved subcontract on the job, every earlier application approved or paid, none yet
    for the open period."""
    return (c is not None and c["job"] == job and c["type"] == "subcontract" and c["status"] == "Approved"
            and all(r["status"] in ("approved", "paid") and r["period_end"] < iso(CURRENT_END) for r in earlier))


def open_commitments(commitments: list[dict], requisitions: list[dict], job: str) -> list[str]:
    """The job's commitments an eApp could bill next (approved subcontracts, every earlier
    application approved or paid, none yet for the open period), by number."""
    return sorted(c["number"] for c in commitments if c["job"] == job and _open_to_bill(
        c, job, [r for r in requisitions if r["commitment"] == c["number"]]))


def build_eapps(rng: random.Random, commitments: list[dict], requisitions: list[dict],
                change_orders: list[dict], vendors: dict, cases: tuple = EAPP_CASES) -> dict:
    """The planted eApps and their pending change orders (a pure function of the book so far);
    `cases` as EAPP_CASES, (job, commitment, case)."""
    by_number = {c["number"]: c for c in commitments}
    used = {int(r["requisition_id"]) for r in requisitions}
    taken_invoices = {(r["vendor_id"], r["invoice_number"]) for r in requisitions}
    start = add_days(add_months(CURRENT_END, -1), 1)
    eapps, cos = [], []
    for job, number, case in cases:
        c = by_number.get(number)
        earlier = [r for r in requisitions if r["commitment"] == number]
        if not _open_to_bill(c, job, earlier):
            continue  # another seed's book: the case's commitment is not there to bill
        left = remaining(c, requisitions)
        if case.startswith("over"):
            overage = Decimal(rng.randint(25, 180) * 100) + Decimal(rng.randint(0, 99)) * CENT
            amount = left + overage
        else:
            amount = (left * Decimal(str(rng.uniform(0.3, 0.7)))).quantize(CENT)
        n = max(int(r["number"]) for r in earlier) + 1 if earlier else 1
        invoice = f"{initials(vendors[c['vendor_id']]['legal_name'])}-{CURRENT_END:%y%m}-{n:02d}"
        if (c["vendor_id"], invoice) in taken_invoices:
            raise ValueError(f"invoice number {invoice} is taken")
        taken_invoices.add((c["vendor_id"], invoice))
        eapps.append({
            "requisition_id": unique_int(f"eapp:{number}:{n}", 7, used), "commitment": number, "job": job,
            "vendor_id": c["vendor_id"], "number": n, "invoice_number": invoice, "period_start": iso(start),
            "period_end": iso(CURRENT_END), "submitted_date": iso(SUBMITTED), "amount": money(amount),
            "retainage": money(pct_of(amount, c["retainage_pct"])), "status": "under_review",
            "erp_sync": "not_synced", "approved_date": None})
        if case.endswith("_co"):
            on_job = [co for co in change_orders if co["job"] == job]
            if any(co["created_date"] >= iso(CO_CREATED) for co in on_job):
                raise ValueError(f"job {job} has a change order created on or after {CO_CREATED}")
            seq = max((int(co["number"]) for co in on_job), default=0) + 1
            floor = amount - left if case == "over_co" else Decimal(rng.randint(40, 120) * 100)
            co_amount = ((floor / 100).to_integral_value(ROUND_CEILING) + rng.randint(1, 40)) * 100
            cos.append({"co_id": f"CO-{job}-{seq:03d}", "job": job, "number": seq, "kind": "commitment",
                        "status": "pending", "commitment": number, "title": CO_SCOPE[case],
                        "amount": money(co_amount), "created_date": iso(CO_CREATED)})
    return {"requisitions": sorted(eapps, key=lambda r: r["requisition_id"]),
            "change_orders": sorted(cos, key=lambda co: co["co_id"])}


def eapp_entries(eapps: dict) -> list[dict]:
    """Each planted eApp and change order is RedTeam's alone."""
    out = [{"entity": "requisition", "key": r["invoice_number"], "field": "redteam.presence", "systems": ["redteam"],
            "family": "C_eapp_review",
            "why": (f"eApp {r['invoice_number']} was submitted through RedTeam's subcontractor portal on "
                    f"{r['submitted_date']} against {r['commitment']} (job {r['job']}) for {r['amount']}, under "
                    f"review there; Procore, the ERPs and GCPay have no record of it until it is approved.")}
           for r in eapps["requisitions"]]
    out += [{"entity": "change_order", "key": co["co_id"], "field": "redteam.presence", "systems": ["redteam"],
             "family": "C_eapp_review",
             "why": (f"Change order {co['co_id']}, on commitment {co['commitment']} for {co['amount']}, is pending "
                     f"in RedTeam since {co['created_date']}; no other system has it yet.")}
            for co in eapps["change_orders"]]
    return out
