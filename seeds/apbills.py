"""ERP AP history: bills for synced requisitions, PO invoices and non-commitment costs."""
from __future__ import annotations

import random
from datetime import date
from decimal import Decimal

from .reference import EXPIRED_COI_VENDORS, JSM_COMMITMENT, JSM_VENDOR, TRADES
from .util import CENT, add_days, dec, iso, money, parse, split_total

TARGET_BILLS = 2000
MISC_TRADES = ["site_services", "testing", "equipment_rental", "aggregate_supply", "lumber_supply"]
JSM_9140_BILLS = [("2026-04-30", "21450.00"), ("2026-05-29", "17880.00")]


def _main_line(c: dict) -> dict:
    return max(c["lines"], key=lambda l: (dec(l["amount"]), -l["line_no"]))


def _status(rng: random.Random, invoice_date: date, vendor_id: str) -> str:
    if invoice_date < date(2026, 5, 20):
        return "paid"
    if vendor_id not in EXPIRED_COI_VENDORS and rng.random() < 0.06:
        return "on_hold"
    return "open" if invoice_date > date(2026, 6, 5) or rng.random() < 0.5 else "paid"


def _bill(vendor_id, invoice_number, invoice_date: date, job, code, ctype, commitment, amount, status, desc):
    return {"vendor_id": vendor_id, "invoice_number": invoice_number, "invoice_date": iso(invoice_date),
            "due_date": iso(add_days(invoice_date, 30)), "job": job, "cost_code": code, "cost_type": ctype,
            "commitment": commitment, "amount": money(amount), "status": status, "description": desc}


def build_ap_bills(rng: random.Random, requisitions, commitments, jobs, vendors) -> list[dict]:
    by_number = {c["number"]: c for c in commitments}
    bills = []
    for r in requisitions:
        if r["erp_sync"] != "synced":
            continue
        c = by_number[r["commitment"]]
        line = _main_line(c)
        bills.append(_bill(r["vendor_id"], r["invoice_number"], parse(r["period_end"]), r["job"],
                           line["cost_code"], line["cost_type"], c["number"], dec(r["amount"]),
                           "paid" if r["status"] == "paid" else "open",
                           f"Pay app #{r['number']} {c['number']} {c['title']}"))
    for c in commitments:
        if c["type"] != "purchase_order" or c["status"] not in ("Approved", "Complete") or not c["executed_date"]:
            continue
        if c["number"] == JSM_COMMITMENT:
            for d, amount in JSM_9140_BILLS:
                bills.append(_bill(JSM_VENDOR, "JSM-PENDING", parse(d), c["job"], "31-200", "S", c["number"],
                                   dec(amount), "paid", f"{c['title']} \u2014 progress"))
            continue
        job = jobs[c["job"]]
        start = parse(c["executed_date"])
        end = min(date(2026, 6, 29), parse(job["est_completion"]))
        span = max(1, (end - start).days)
        k = rng.randint(1, 6)
        frac = 1 if c["status"] == "Complete" or job["status"] == "closed" else rng.uniform(0.3, 0.9)
        parts = split_total(rng, (dec(c["amount"]) * Decimal(str(frac))).quantize(CENT), k, unit=CENT)
        dates = sorted(add_days(start, rng.randint(10, span)) for _ in range(k))
        for d, part in zip(dates, parts):
            line = rng.choice(c["lines"])
            bills.append(_bill(c["vendor_id"], f"{rng.choice(['', 'INV-', 'S'])}{rng.randint(100000, 999999)}", d,
                               c["job"], line["cost_code"], line["cost_type"], c["number"], part,
                               _status(rng, d, c["vendor_id"]), f"{c['title']} \u2014 delivery"))
    _misc(rng, bills, jobs, vendors)
    renumber_jsm(rng, requisitions, bills)
    seen: set[tuple] = set()
    for b in bills:  # a vendor never reuses an invoice number
        while (b["vendor_id"], b["invoice_number"]) in seen:
            b["invoice_number"] += "A"
        seen.add((b["vendor_id"], b["invoice_number"]))
    bills.sort(key=lambda b: (b["invoice_date"], b["vendor_id"], b["invoice_number"], b["amount"]))
    for i, b in enumerate(bills, start=1):
        b["bill_id"] = f"APB-{i:05d}"
    return bills


def _misc(rng: random.Random, bills: list[dict], jobs: dict, vendors: list[dict]) -> None:
    pool = [v for v in vendors if v["trade"] in MISC_TRADES and v["status"] == "active"]
    job_list = sorted(jobs.values(), key=lambda j: j["job"])
    while len(bills) < TARGET_BILLS:
        v, job = rng.choice(pool), rng.choice(job_list)
        trade = TRADES[v["trade"]]
        start = parse(job["start_date"])
        end = min(date(2026, 6, 29), parse(job["est_completion"]))
        d = add_days(start, rng.randint(0, max(1, (end - start).days)))
        code = rng.choice(trade[1])
        amount = Decimal(str(round(rng.uniform(120, 14000), 2)))
        bills.append(_bill(v["vendor_id"], f"{rng.randint(10000, 99999)}-{rng.randint(1, 9)}", d, job["job"],
                           code, trade[2], None, amount, _status(rng, d, v["vendor_id"]),
                           f"{trade[4][0]} \u2014 {d:%b %Y}"))


def renumber_jsm(rng: random.Random, requisitions: list[dict], bills: list[dict]) -> None:
    """V1001's own invoice numbers run JSM-87xxx..JSM-884xx in date order and stop short of JSM-88421."""
    events = sorted({(r["period_end"], r["commitment"], str(r["number"]))
                     for r in requisitions if r["vendor_id"] == JSM_VENDOR}
                    | {(b["invoice_date"], b["commitment"] or "", b["invoice_number"])
                       for b in bills if b["vendor_id"] == JSM_VENDOR and b["invoice_number"] == "JSM-PENDING"})
    numbers, n = {}, 88409
    for event in reversed(events):
        numbers[event] = f"JSM-{n}"
        n -= rng.randint(9, 31)
    old_to_new = {}
    for r in requisitions:
        if r["vendor_id"] == JSM_VENDOR:
            new = numbers[(r["period_end"], r["commitment"], str(r["number"]))]
            old_to_new[(r["commitment"], r["invoice_number"])] = new
            r["invoice_number"] = new
    for b in bills:
        if b["vendor_id"] == JSM_VENDOR:
            key = (b["invoice_date"], b["commitment"] or "", b["invoice_number"])
            b["invoice_number"] = numbers.get(key) or old_to_new[(b["commitment"], b["invoice_number"])]


ATTORNEY_JOB = "2816"  # the job whose subcontractor's lien and payment-bond claim the firm defended
ATTORNEY_MONTHS = (4, 5, 6, 7, 9, 10)  # 2025 months the firm billed (paid by check, net 30)


def attorney_bills(rng: random.Random, vendor: dict, bills: list[dict]) -> list[dict]:
    """The law firm's 2025 invoices for legal services, all paid; numbered after the other bills so
    no other bill's id moves."""
    out = []
    for i, month in enumerate(ATTORNEY_MONTHS, start=1):
        d = date(2025, month, rng.randint(3, 12))
        amount = Decimal(rng.randint(180000, 960000)) / 100
        b = _bill(vendor["vendor_id"], f"HL-25{month:02d}{rng.randint(10, 99)}", d, ATTORNEY_JOB, "01-100", "O",
                  None, amount, "paid", f"Legal services \u2014 lien and bond claim, {d:%b %Y}")
        b["bill_id"] = f"APB-{len(bills) + i:05d}"
        out.append(b)
    return out
