"""The Company-A book: generate_book(seed) builds it; load_book() reads the frozen snapshot.

    python -m seeds.book --write   regenerate seeds/companyA_snapshot.json
    python -m seeds.book --check   exit 1 if the frozen file differs from a fresh generation
"""
from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

from .apbills import attorney_bills, build_ap_bills
from .boq import boq_entries, build_boq
from .commitments import build_commitments
from .contracts import build_change_orders, build_prime_contracts
from .costcodes import build_cost_codes, build_erp_map
from .costs import build_budget_lines, build_job_cost, job_cost_for
from .divergences import (avalara_entries, change_order_entries, coi_entries, corpay_entries, finalize, gcpay_entries,
                          identity_entries, field_time_entries, jsm_dba_entry, levelset_entries, payroll_entries, pm_entries,
                          tax_entries, treasury_entries)
from .documents import build_coi_renewals, build_documents
from .eapps import build_eapps, eapp_entries
from .funding import build_funding, build_owner_forecasts, forecast_entries, funding_entries
from .ressio_change_orders import client_change_order_entries
from .ressio_sub_bills import held_entries
from . import estimating
from .erp_keys import assign_job_numbers
from .fieldtime import build_field_time_exceptions
from .jobs import build_jobs
from .mail import build_mail
from .payroll import build_assisted_wage_determinations, build_timecards, build_wage_determinations, build_workers
from .reference import COST_TYPES, GL_ACCOUNTS, JSM_COMMITMENT, JSM_VENDOR, META, SHARED_COMMITMENT
from .reestimate import build_reestimates, pending_changes, reestimate_entries
from .requisitions import build_requisitions
from .util import section_rng
from . import tax1099
from .tax1099 import add_w9_fields
from .vendors import attorney_vendor, build_vendors
from .work_in_place import build_work_in_place
from .workbooks import build_workbooks

SNAPSHOT = Path(__file__).with_name("companyA_snapshot.json")
NORMAL = {"asset": "debit", "expense": "debit", "liability": "credit", "equity": "credit", "revenue": "credit"}


def generate_book(seed: int = 7) -> dict:
    """Build the whole Company-A book deterministically from `seed` (no clock, no global RNG)."""
    divergences: list[dict] = []
    jobs = build_jobs(section_rng(seed, "jobs"))
    assign_job_numbers(jobs)
    job_map = {j["job"]: j for j in jobs}
    cost_codes = build_cost_codes()
    code_desc = {c["code"]: c["description"] for c in cost_codes}
    erp_map = build_erp_map(divergences)
    vendors = build_vendors(section_rng(seed, "vendors"), divergences)
    add_w9_fields(vendors)
    vendor_map = {v["vendor_id"]: v for v in vendors}
    divergences.append(jsm_dba_entry(vendor_map[JSM_VENDOR]))
    commitments = build_commitments(section_rng(seed, "commitments"), jobs, vendors, code_desc)
    jsm = next(c for c in commitments if c["number"] == JSM_COMMITMENT)
    wage_determinations = (build_wage_determinations(section_rng(seed, "wage_determinations"), jobs)
                           + build_assisted_wage_determinations(section_rng(seed, "wage_determinations_assisted"), jobs))
    divergences += identity_entries(job_map[jsm["job"]], next(m for m in erp_map if m["code"] == jsm["lines"][0]["cost_code"]),
                                    vendor_map[jsm["vendor_id"]], wage_determinations[0],
                                    job_map[wage_determinations[0]["job"]])
    requisitions = build_requisitions(section_rng(seed, "requisitions"), commitments, job_map, vendor_map)
    bills = build_ap_bills(section_rng(seed, "ap_bills"), requisitions, commitments, job_map, vendors)
    job_cost = build_job_cost(section_rng(seed, "job_cost"), jobs, bills)
    build_work_in_place(section_rng(seed, "work_in_place"), commitments, job_map, requisitions, bills)
    budget = build_budget_lines(section_rng(seed, "budget"), jobs, commitments, job_cost)
    change_orders = build_change_orders(section_rng(seed, "change_orders"), jobs)
    prime = build_prime_contracts(section_rng(seed, "prime"), jobs, commitments)
    documents = build_documents(section_rng(seed, "documents"), job_map, vendor_map, commitments,
                                requisitions, bills, change_orders)
    mail = build_mail(section_rng(seed, "mail"), job_map, vendor_map, requisitions, documents)
    documents = sorted(documents + build_coi_renewals(section_rng(seed, "coi_renewals"), documents, vendor_map),
                       key=lambda d: d["doc_id"])
    divergences += coi_entries(vendor_map, documents)
    divergences += gcpay_entries(jobs, prime, change_orders)
    divergences += change_order_entries(change_orders)
    shared = next(c for c in commitments if c["number"] == SHARED_COMMITMENT)
    divergences += pm_entries(shared, vendor_map[shared["vendor_id"]])
    workers = build_workers(section_rng(seed, "workers"))
    timecards = build_timecards(seed, workers, wage_determinations)
    divergences += payroll_entries(wage_determinations, workers)
    field_time_exceptions = build_field_time_exceptions(timecards, workers)
    divergences += field_time_entries(field_time_exceptions, workers)
    for c in commitments:
        del c["_trade"], c["_fixed"]
    # The construction-law firm retained in 2025, added last with its own seed section so that
    # nothing built above moves: its vendor record, its paid invoices and their job cost.
    attorney = attorney_vendor(section_rng(seed, "attorney"), vendors)
    attorney.update({k: v for k, v in tax1099.tax_profile(attorney).items() if k in tax1099.W9_FIELDS})
    vendors.append(attorney)
    vendor_map[attorney["vendor_id"]] = attorney
    legal = attorney_bills(section_rng(seed, "attorney_bills"), attorney, bills)
    job_cost += job_cost_for(legal, job_cost)
    bills += legal
    divergences += treasury_entries({"meta": {**META, "seed": seed}, "jobs": jobs, "vendors": vendors,
                                     "commitments": commitments, "requisitions": requisitions, "ap_bills": bills})
    divergences += tax_entries({"vendors": vendors})
    divergences += corpay_entries({"vendors": vendors, "ap_bills": bills})
    divergences += levelset_entries({"vendors": vendors, "jobs": jobs, "commitments": commitments})
    divergences += avalara_entries({"vendors": vendors, "jobs": jobs, "ap_bills": bills})
    eapps = build_eapps(section_rng(seed, "eapps"), commitments, requisitions, change_orders, vendor_map)
    divergences += eapp_entries(eapps)
    divergences += held_entries({"commitments": commitments, "requisitions": requisitions})
    divergences += client_change_order_entries({})
    # the PMs' Excel forecasts, last with their own seed section so that nothing above moves
    workbooks = build_workbooks(section_rng(seed, "workbooks"), jobs, budget, job_cost, cost_codes)
    # SmarteBuild's bills of quantities, last with their own seed section so that nothing above moves
    boq = build_boq(section_rng(seed, "boq"), jobs, prime, change_orders)
    divergences += boq_entries(boq)
    # INGENIOUS.BUILD's owner funding and June draw packages, with their own seed section
    funding = build_funding(section_rng(seed, "funding"), job_map, bills, vendor_map, budget, code_desc)
    divergences += funding_entries(funding)
    # the owner's June re-forecast of two jobs' budgets, kept in INGENIOUS.BUILD (its own seed section)
    funding["forecasts"] = build_owner_forecasts(section_rng(seed, "owner_forecasts"), job_map, budget)
    divergences += forecast_entries(funding["forecasts"], budget)
    # HeavyBid's bids and hh2's sync map, last with their own seed section so that nothing above moves
    estimates = estimating.build_estimates(section_rng(seed, "estimates"))
    basis = {"jobs": jobs, "cost_codes": cost_codes, "cost_types": COST_TYPES, "erp_cost_code_map": erp_map,
             "workers": workers, "vendors": vendors, "estimates": estimates}
    hh2_sync = estimating.build_sync_map(basis)
    divergences += estimating.entries(basis)
    # SmarteBuild's cost re-estimates beside its BOQ, last with their own seed section
    boq["reestimates"] = build_reestimates(section_rng(seed, "reestimate"), jobs, budget, cost_codes, erp_map)
    divergences += reestimate_entries(boq["reestimates"], erp_map)
    # the change orders Vista already holds Pending for part of a re-estimated move
    erp_pending_changes = pending_changes(boq["reestimates"])
    return {
        "meta": {**META, "seed": seed},
        "jobs": jobs,
        "cost_types": COST_TYPES,
        "cost_codes": cost_codes,
        "erp_cost_code_map": erp_map,
        "vendors": vendors,
        "commitments": commitments,
        "requisitions": requisitions,
        "eapps": eapps,
        "funding": funding,
        "budget_lines": sorted(budget, key=lambda b: (b["job"], b["cost_code"], b["cost_type"])),
        "job_cost": job_cost,
        "ap_bills": bills,
        "gl_accounts": [{"account": a, "title": t, "type": k, "normal_balance": NORMAL[k]}
                        for a, t, k in GL_ACCOUNTS],
        "change_orders": change_orders,
        "erp_pending_changes": erp_pending_changes,
        "prime_contracts": prime,
        "documents": documents,
        "mail": mail,
        "wage_determinations": wage_determinations,
        "workers": workers,
        "timecards": timecards,
        "field_time_exceptions": field_time_exceptions,
        "workbooks": workbooks,
        "boq": boq,
        "estimates": estimates,
        "hh2_sync": hh2_sync,
        "divergences": finalize(divergences),
    }


def dumps(book: dict) -> str:
    return json.dumps(book, indent=1, sort_keys=True) + "\n"


@functools.lru_cache(maxsize=1)
def load_book() -> dict:
    """The frozen Company-A book (seed 7). Callers must not mutate it; deep-copy if needed."""
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def main(argv: list[str]) -> int:
    fresh = dumps(generate_book(7))
    if "--write" in argv:
        SNAPSHOT.write_text(fresh, encoding="utf-8")
        print(f"wrote {SNAPSHOT} ({len(fresh.encode()) / 1e6:.2f} MB)")
        return 0
    if "--check" in argv:
        same = SNAPSHOT.exists() and SNAPSHOT.read_text(encoding="utf-8") == fresh
        print("snapshot up to date" if same else "snapshot differs from generate_book(7); run --write")
        return 0 if same else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
