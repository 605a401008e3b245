"""Build one ERP vendor's rows from the Company-A book, deterministically.

The manifest's [erp] table says which of the book's keys this product uses: its vendor key and
spelling, its cost codes and its job numbers. The archetype never asks which product it is.
"""
from __future__ import annotations

import re
from collections import defaultdict
from decimal import Decimal

from .models import (APBill, BudgetLine, Commitment, ContractItem, CostCode, CostType, GLAccount,
                     Job, JobCost, Vendor)
from .seed_extra import seed_extra
from .settings import erp_settings


def _d(value) -> Decimal:
    return Decimal(str(value if value not in (None, "") else "0"))


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _cost_codes(book: dict, field: str) -> tuple[list[CostCode], dict[str, str]]:
    """The product's code dictionary and the company-code -> product-code map."""
    descriptions = {c["code"]: c for c in book.get("cost_codes", [])}
    to_app, groups = {}, defaultdict(list)
    for row in book.get("erp_cost_code_map", []):
        company = row.get("procore_code") or row.get("code")
        app_code = row.get(field) or company
        to_app[company] = app_code
        groups[app_code].append(company)
    rows = []
    for app_code in sorted(groups):
        members = sorted(groups[app_code])
        # A consolidated phase takes the description of the code whose digits it carries.
        own = next((c for c in members if _digits(app_code).startswith(_digits(c))), members[0])
        info = descriptions.get(own, {})
        rows.append(CostCode(code=app_code, description=info.get("description", own),
                             division=str(info.get("division", own[:2])),
                             company_codes=", ".join(members)))
    return rows, to_app


def seed(session, book: dict, rng, clock, spec) -> None:
    cfg = erp_settings(spec)
    codes, to_app = _cost_codes(book, cfg.cost_code_field)
    session.add_all(codes)
    code = lambda c: to_app.get(c, c)  # noqa: E731 - a one-line lookup
    job_numbers = {j["job"]: str(j.get(cfg.job_key_field) or j["job"]) if cfg.job_key_field else j["job"]
                   for j in book.get("jobs", [])}  # the company's job number -> this product's
    job_of = lambda j: job_numbers.get(j, j)  # noqa: E731

    session.add_all(CostType(code=t["code"], name=t["name"]) for t in book.get("cost_types", []))
    session.add_all(GLAccount(account=str(a["account"]), title=a["title"], type=a.get("type", ""),
                              normal_balance=a.get("normal_balance", "")) for a in book.get("gl_accounts", []))

    vendor_key = {}
    for v in book.get("vendors", []):
        key = str(v.get(cfg.vendor_key_field) or v["vendor_id"])
        vendor_key[v["vendor_id"]] = key
        # The vendor master holds the vendor's legal name in this product's spelling; the trade
        # name (DBA) an invoice may print is not on it, so a DBA search finds no one here.
        session.add(Vendor(vendor_key=key, canonical_id=v["vendor_id"],
                           name=(v.get("names") or {}).get(cfg.names_key) or v["legal_name"],
                           dba=None, trade=v.get("trade", ""), tin=v.get("tin", ""),
                           address=v.get("address", ""), city=v.get("city", ""), state=v.get("state", ""),
                           zip=str(v.get("zip", "")), email=v.get("email", ""), phone=v.get("phone", ""),
                           is_1099=bool(v.get("is_1099")), form_1099="NEC" if v.get("is_1099") else None,
                           entity_type=v.get("entity_type") if v.get("w9_on_file") else None,
                           w9_on_file=bool(v.get("w9_on_file")),
                           status=v.get("status", "active"),
                           coi_expires=v.get("coi_expires")))

    budgets = defaultdict(lambda: [Decimal(0)] * 3)
    for b in book.get("budget_lines", []):
        acc = budgets[(job_of(b["job"]), code(b["cost_code"]), b["cost_type"])]
        for i, name in enumerate(("original_budget", "approved_changes", "forecast_to_complete")):
            acc[i] += _d(b.get(name))
    per_job = defaultdict(lambda: [Decimal(0)] * 3)
    for (job, cc, ct), (orig, chg, ftc) in sorted(budgets.items()):
        session.add(BudgetLine(line_key=f"{job}|{cc}|{ct}", job=job, cost_code=cc, cost_type=ct,
                               original_budget=orig, approved_changes=chg, forecast_to_complete=ftc))
        for i, value in enumerate((orig, chg, ftc)):
            per_job[job][i] += value

    cost_to_date = defaultdict(Decimal)
    for t in book.get("job_cost", []):
        cost_to_date[job_of(t["job"])] += _d(t["amount"])
    for j in book.get("jobs", []):
        number = job_of(j["job"])
        orig, chg, _ftc = per_job[number]
        # The ERP's projection is last month's: revised budget less cost to date. The PM's newer
        # forecast lives in the PM platform until someone carries it over.
        etc = j.get("erp_est_cost_to_complete") or max(orig + chg - cost_to_date[number], Decimal(0))
        session.add(Job(job=number, name=j["name"], customer=j.get("customer", ""), city=j.get("city", ""),
                        state=j.get("state", ""), status=j.get("status", "active"),
                        job_type=j.get("job_type", ""), pm_name=j.get("pm_name", ""),
                        start_date=j.get("start_date", ""), est_completion=j.get("est_completion", ""),
                        retainage_pct=str(j.get("retainage_pct", "10.00")),
                        contract_amount=_d(j.get("contract_amount")), original_budget=orig,
                        approved_changes=chg, est_cost_to_complete=_d(etc)))

    for pc in book.get("prime_contracts", []):
        for line in pc.get("lines", []):
            session.add(ContractItem(item_key=f"{job_of(pc['job'])}|{line['line_no']}", job=job_of(pc["job"]),
                                     contract_number=str(pc.get("number", "")), owner=pc.get("owner", ""),
                                     line_no=int(line["line_no"]), description=line.get("description", ""),
                                     cost_code=code(line.get("cost_code", "")),
                                     scheduled_value=_d(line.get("scheduled_value"))))

    for c in book.get("commitments", []):
        if not c.get("erp_synced"):
            continue  # the ERP only knows commitments that were interfaced
        session.add(Commitment(number=c["number"], job=job_of(c["job"]), vendor_key=vendor_key.get(c["vendor_id"], c["vendor_id"]),
                               type=c.get("type", "subcontract"), title=c.get("title", ""),
                               status=c.get("status", "Approved"), retainage_pct=str(c.get("retainage_pct", "")),
                               executed_date=c.get("executed_date"), amount=_d(c.get("amount"))))

    for b in book.get("ap_bills", []):
        session.add(APBill(bill_id=b["bill_id"], vendor_key=vendor_key.get(b["vendor_id"], b["vendor_id"]),
                           bill_number=b["invoice_number"], bill_date=b["invoice_date"],
                           due_date=b.get("due_date") or b["invoice_date"], job=job_of(b["job"]),
                           cost_code=code(b["cost_code"]), cost_type=b.get("cost_type", "S"),
                           commitment=b.get("commitment"), amount=_d(b["amount"]),
                           description=b.get("description", "") or "", status=b.get("status", "open"),
                           state="posted", entered_at=f"{b['invoice_date']}T00:00:00Z"))

    for t in book.get("job_cost", []):
        session.add(JobCost(txn_id=str(t["txn_id"]), job=job_of(t["job"]), cost_code=code(t["cost_code"]),
                            cost_type=t.get("cost_type", ""), date=t["date"], source=t.get("source", ""),
                            amount=_d(t["amount"]), description=t.get("description", "") or "",
                            vendor_key=vendor_key.get(t.get("vendor_id")) if t.get("vendor_id") else None,
                            ref=t.get("ref"), batch_state="posted"))

    seed_extra(session, book, rng, clock, spec)  # what this product keeps beyond the shared core
