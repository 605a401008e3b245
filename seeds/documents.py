"""Box documents: invoices, subcontracts, COIs, lien waivers, W-9s and change orders."""
from __future__ import annotations

import random
from datetime import date

from .reference import (CHANGE_ORDER_CASES, COI_DBA_VENDOR, JSM_COMMITMENT, JSM_INVOICE, JSM_INVOICE_TOTAL, JSM_VENDOR, META,
                        RENEWED_COI_VENDOR)
from .util import add_days, business_dt, dec, iso_dt, money, parse, split_total, CENT, unique_int

BILL_TO = "Company A Builders, Inc., Attn: Accounts Payable, 2200 Westinghouse Blvd, Charlotte, NC 28273"
JSM_LINES = [("Mass excavation \u2014 Bldg A footprint, 1,640 CY @ $6.25/CY", "10250.00"),
             ("Haul-off of unsuitable material, 82 loads @ $50.00/load", "4100.00")]
INSURERS = ["Travelers Indemnity Co.", "Zurich American Insurance Co.", "Liberty Mutual Fire Insurance Co.",
            "Hartford Fire Insurance Co.", "Cincinnati Insurance Co.", "Auto-Owners Insurance Co."]


def job_folder(job: dict) -> str:
    return f"/Projects/{job['job']} - {job['name']}"


class _Box:
    def __init__(self, rng: random.Random):
        self.rng, self.docs, self.used, self.paths = rng, [], set(), set()

    def add(self, folder: str, name: str, kind: str, created: date, fields: dict) -> dict:
        stem, ext = name.rsplit(".", 1)
        n = 2
        while f"{folder}/{name}" in self.paths:
            name, n = f"{stem} ({n}).{ext}", n + 1
        self.paths.add(f"{folder}/{name}")
        doc = {"doc_id": unique_int(f"box:{folder}/{name}", 8, self.used), "folder": folder, "name": name,
               "kind": kind, "created_at": iso_dt(business_dt(self.rng, min(created, date(2026, 6, 30)))),
               "fields": fields}
        self.docs.append(doc)
        return doc


def _address(v: dict) -> str:
    return f"{v['address']}, {v['city']}, {v['state']} {v['zip']}"


def _insured(v: dict) -> str:
    """The name a certificate of insurance is issued to: the legal name, or for the vendor whose
    broker writes its trade name, the DBA (its W-9 is what ties the two together)."""
    return v["dba"] if v["vendor_id"] == COI_DBA_VENDOR else v["legal_name"]


def _invoice_fields(rng, v, number, inv_date, due, job, po, lines) -> dict:
    return {"vendor_name": v["dba"] if v["vendor_id"] == JSM_VENDOR else v["legal_name"],
            "vendor_address": _address(v), "invoice_number": number, "invoice_date": inv_date, "due_date": due,
            "bill_to": BILL_TO, "job": job, "po_number": po,
            "lines": [{"description": d, "amount": a} for d, a in lines],
            "total": money(sum(dec(a) for _, a in lines)), "remit_to": _address(v)}


def build_documents(rng: random.Random, jobs: dict, vendors: dict, commitments: list[dict],
                    requisitions: list[dict], bills: list[dict], change_orders: list[dict]) -> list[dict]:
    box = _Box(rng)
    jsm = vendors[JSM_VENDOR]
    box.add(f"{job_folder(jobs['9140'])}/AP Invoices", f"{JSM_INVOICE}.pdf", "invoice", date(2026, 6, 29),
            _invoice_fields(rng, jsm, JSM_INVOICE, "2026-06-26", "2026-07-26", "9140", JSM_COMMITMENT, JSM_LINES))
    assert box.docs[0]["fields"]["total"] == JSM_INVOICE_TOTAL
    titles = {c["number"]: c["title"] for c in commitments}
    recent = [b for b in bills if b["invoice_date"] >= "2026-02-01" and jobs[b["job"]]["status"] == "active"]
    picked = {b["bill_id"] for b in rng.sample(recent, min(230, len(recent)))}
    picked |= {b["bill_id"] for b in bills if b["vendor_id"] == JSM_VENDOR or
               (b["job"] == "9140" and b["invoice_date"] >= "2026-04-01")}
    for b in (b for b in bills if b["bill_id"] in picked):
        total = dec(b["amount"])
        parts = split_total(rng, total, rng.choice([1, 1, 2, 3]), unit=CENT)
        what = titles.get(b["commitment"], b["description"])
        lines = [(f"{what} \u2014 {['work this period', 'materials', 'labor', 'equipment'][i]}", money(p))
                 for i, p in enumerate(parts)]
        box.add(f"{job_folder(jobs[b['job']])}/AP Invoices", f"{b['invoice_number']}.pdf", "invoice",
                add_days(parse(b["invoice_date"]), rng.randint(1, 4)),
                _invoice_fields(rng, vendors[b["vendor_id"]], b["invoice_number"], b["invoice_date"],
                                b["due_date"], b["job"], b["commitment"], lines))
    active_subs = [c for c in commitments if c["type"] == "subcontract" and c["executed_date"]
                   and jobs[c["job"]]["status"] == "active" and c["status"] in ("Approved", "Complete")]
    for c in active_subs:
        v = vendors[c["vendor_id"]]
        box.add(f"{job_folder(jobs[c['job']])}/Subcontracts", f"{c['number']} - {v['legal_name']} - Executed.pdf",
                "subcontract", parse(c["executed_date"]),
                {"number": c["number"], "vendor_name": v["legal_name"], "job": c["job"], "title": c["title"],
                 "amount": c["amount"], "retainage_pct": c["retainage_pct"], "executed_date": c["executed_date"],
                 "lines": [{"cost_code": l["cost_code"], "description": l["description"], "amount": l["amount"]}
                           for l in c["lines"]]})
    for job_no, vid in sorted({(c["job"], c["vendor_id"]) for c in active_subs}):
        v = vendors[vid]
        if rng.random() < 0.75:
            expires = parse(v["coi_expires"])
            insured = _insured(v)
            box.add(f"{job_folder(jobs[job_no])}/COIs", f"COI - {insured}.pdf", "coi",
                    add_days(expires, -365 + rng.randint(0, 20)),
                    {"insured": insured, "insured_address": _address(v), "insurer": rng.choice(INSURERS),
                     "policy_number": f"GL-{rng.randint(1000000, 9999999)}", "each_occurrence": "1000000.00",
                     "aggregate": "2000000.00", "effective": str(add_days(expires, -365)),
                     "expires": v["coi_expires"], "certificate_holder": "Company A Builders, Inc.",
                     "additional_insured": True})
    paid = [r for r in requisitions if r["status"] == "paid" and r["period_end"] >= "2026-01-01"]
    for r in sorted(rng.sample(paid, min(110, len(paid))), key=lambda r: r["requisition_id"]):
        v = vendors[r["vendor_id"]]
        box.add(f"{job_folder(jobs[r['job']])}/Lien Waivers", f"LW - {r['invoice_number']}.pdf", "lien_waiver",
                add_days(parse(r["approved_date"]), 2),
                {"claimant": v["legal_name"], "customer": META["company_name"], "job": r["job"],
                 "commitment": r["commitment"], "waiver_type": "conditional_progress",
                 "through_date": r["period_end"], "amount": r["amount"], "signed": True})
    for v in sorted(rng.sample(list(vendors.values()), 110), key=lambda v: v["vendor_id"]):
        entity = "C corporation" if v["legal_name"].endswith(("Inc.", "Corp.")) else "LLC"
        box.add("/Accounting/Vendor W-9s", f"W9 - {v['legal_name']}.pdf", "w9",
                add_days(date(2023, 1, 10), rng.randint(0, 1200)),
                {"legal_name": v["legal_name"], "dba": v["dba"], "tin": v["tin"], "entity_type": entity,
                 "address": _address(v), "exempt_payee_code": "5" if entity == "C corporation" else None})
    for co in change_orders:
        if co["kind"] == "owner" and co["status"] != "void":
            box.add(f"{job_folder(jobs[co['job']])}/Change Orders", f"{co['co_id']}.pdf", "change_order",
                    parse(co["created_date"]),
                    {"co_id": co["co_id"], "job": co["job"], "title": co["title"], "amount": co["amount"],
                     "status": co["status"], **_co_pricing(co, jobs[co["job"]])})
    return sorted(box.docs, key=lambda d: d["doc_id"])


def _co_pricing(co: dict, job: dict) -> dict:
    """A_change_order's cases: the change order as priced and signed (or not) on paper. The total
    is the owner's signed figure, which may differ from Procore's; no signature, no owner."""
    case = CHANGE_ORDER_CASES.get(co["co_id"])
    total = (case or {}).get("signed_amount") or co["amount"]
    # another seed's book has other change orders under these ids: the case is seed 7's only
    if case is None or co["status"] != "pending" or dec(case["cost_of_work"]) + dec(case["fee"]) != dec(total):
        return {}
    signed = case["owner_signed_by"]
    return {"amount": total, "owner": job["customer"], "cost_code": case["cost_code"],
            "cost_type": case["cost_type"], "cost_of_work": case["cost_of_work"], "overhead_and_fee": case["fee"],
            "owner_signature": f"Signed by {signed} for {job['customer']}" if signed else "Not signed by the owner",
            "status": "signed by owner" if signed else co["status"]}


def build_coi_renewals(rng: random.Random, documents: list[dict], vendors: dict) -> list[dict]:
    """The renewed certificate of the vendor whose broker sent a renewal that nobody entered in
    the ERP: beside each of its lapsed certificates in Box, the next year's, effective the day
    the old one expired and issued a few days before. Built after the mail (which samples the
    certificates) from a stream of its own, so nothing else in the book moves."""
    box = _Box(rng)
    box.used = {d["doc_id"] for d in documents}
    box.paths = {f"{d['folder']}/{d['name']}" for d in documents}
    v = vendors[RENEWED_COI_VENDOR]
    lapsed = [d for d in documents if d["kind"] == "coi" and d["fields"]["insured"] == _insured(v)]
    if not lapsed:
        raise ValueError(f"{RENEWED_COI_VENDOR} has no certificate in Box to renew")
    for old in sorted(lapsed, key=lambda d: d["doc_id"]):
        expired = parse(old["fields"]["expires"])
        renewed = expired.replace(year=expired.year + 1)
        box.add(old["folder"], f"COI - {old['fields']['insured']} {renewed.year - 1}-{renewed.year}.pdf", "coi",
                add_days(expired, -rng.randint(3, 12)),
                {**old["fields"], "insurer": rng.choice(INSURERS),
                 "policy_number": f"GL-{rng.randint(1000000, 9999999)}",
                 "effective": str(expired), "expires": str(renewed)})
    return box.docs
