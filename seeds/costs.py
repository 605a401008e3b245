"""ERP job cost transactions (AP, payroll, equipment, journal entries) and the job budgets."""
from __future__ import annotations

import random
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from .jobs import progress
from .reference import ETC_1042_TARGET
from .util import add_days, dec, iso, money, parse, round_to

SELF_PERFORM = ["03-300", "03-350", "06-100", "06-200", "01-500", "01-600", "31-100", "02-410"]
EQUIPMENT = ["31-200", "01-200", "03-300", "05-100"]


def build_job_cost(rng: random.Random, jobs: list[dict], bills: list[dict]) -> list[dict]:
    txns = [{"job": b["job"], "cost_code": b["cost_code"], "cost_type": b["cost_type"], "date": b["invoice_date"],
             "source": "AP", "amount": b["amount"], "description": b["description"][:60],
             "vendor_id": b["vendor_id"], "ref": f"{b['bill_id']} {b['invoice_number']}"} for b in bills]
    for job in jobs:
        start = parse(job["start_date"])
        end = min(date(2026, 6, 26), parse(job["est_completion"]))
        crew = ["01-100"] + sorted(rng.sample(SELF_PERFORM, rng.randint(1, 2)))
        scale = float(dec(job["contract_amount"])) / 12e6
        week = add_days(start, (4 - start.weekday()) % 7 + 7)
        while week <= end:
            for code in crew:
                base = 5200 if code == "01-100" else 9000
                amount = round_to(base * rng.uniform(0.6, 1.4) * max(0.4, min(2.5, scale)), 1) + \
                    Decimal(rng.randint(0, 99)) / 100
                txns.append(_txn(job, code, "L", week, "PR", amount, f"Payroll w/e {week:%m/%d/%Y}",
                                 f"PR{week:%Y%m%d}"))
            week += timedelta(days=14)
        month = date(start.year, start.month, 28)
        eq_codes = sorted(rng.sample(EQUIPMENT, rng.randint(1, 2)))
        while month <= end:
            for code in eq_codes:
                amount = round_to(rng.uniform(1800, 16000) * max(0.5, min(2.0, scale)), 1)
                txns.append(_txn(job, code, "E", month, "EQ", amount, f"Equipment usage {month:%b %Y}",
                                 f"EQ{month:%Y%m}"))
            if rng.random() < 0.3:
                amount = round_to(rng.uniform(-4000, 6000), 1) + Decimal(rng.randint(1, 99)) / 100
                txns.append(_txn(job, rng.choice(["01-200", "01-300", "01-400"]), "O", month, "JE", amount,
                                 rng.choice(["Reclass per PM", "Insurance allocation", "Permit fees",
                                             "Small tools allocation"]), f"JE{month:%y%m}-{rng.randint(1, 40):02d}"))
            month = date(month.year + (month.month == 12), month.month % 12 + 1, 28)
    txns.sort(key=lambda t: (t["date"], t["job"], t["source"], t["cost_code"], t["cost_type"], t["ref"],
                             t["amount"]))
    for i, t in enumerate(txns, start=1):
        t["txn_id"] = f"JC-{i:06d}"
    return txns


def _txn(job, code, ctype, d, source, amount, desc, ref):
    return {"job": job["job"], "cost_code": code, "cost_type": ctype, "date": iso(d), "source": source,
            "amount": money(amount), "description": desc, "vendor_id": None, "ref": ref}


def build_budget_lines(rng: random.Random, jobs: list[dict], commitments: list[dict], txns: list[dict]) -> list[dict]:
    committed, cost = defaultdict(Decimal), defaultdict(Decimal)
    for c in commitments:
        if c["status"] != "Void":
            for l in c["lines"]:
                committed[(c["job"], l["cost_code"], l["cost_type"])] += dec(l["amount"])
    for t in txns:
        cost[(t["job"], t["cost_code"], t["cost_type"])] += dec(t["amount"])
    out = []
    for job in (j for j in jobs if j["status"] == "active"):
        keys = sorted({k for k in list(committed) + list(cost) if k[0] == job["job"]})
        p = progress(job)
        lines = []
        for key in keys:
            c, spent = committed.get(key, Decimal(0)), cost.get(key, Decimal(0))
            if c:
                original = round_to(float(max(c, spent)) * rng.uniform(1.02, 1.12), 100)
                etc = max(Decimal(0), c - spent) * Decimal(str(rng.uniform(0.98, 1.08)))
            else:
                original = round_to(float(spent) / max(p, 0.1) * rng.uniform(0.95, 1.15) + 500, 100)
                etc = max(Decimal(0), original - spent) * Decimal(str(rng.uniform(0.85, 1.2)))
            changes = round_to(float(original) * rng.uniform(-0.05, 0.12), 50) if rng.random() < 0.25 else Decimal(0)
            lines.append({"job": job["job"], "cost_code": key[1], "cost_type": key[2],
                          "original_budget": original, "approved_changes": changes,
                          "forecast_to_complete": etc.quantize(Decimal(1))})
        if job["job"] == "1042":
            _scale_etc(lines, dec(ETC_1042_TARGET))
        for l in lines:
            for f in ("original_budget", "approved_changes", "forecast_to_complete"):
                l[f] = money(l[f])
        out += lines
    return out


def _scale_etc(lines: list[dict], target: Decimal) -> None:
    """Job 1042's forecast to complete totals the paper's figure exactly."""
    total = sum(l["forecast_to_complete"] for l in lines)
    for l in lines:
        l["forecast_to_complete"] = (l["forecast_to_complete"] * target / total).quantize(Decimal(1))
    biggest = max(lines, key=lambda l: l["forecast_to_complete"])
    biggest["forecast_to_complete"] += target - sum(l["forecast_to_complete"] for l in lines)


def job_cost_for(bills: list[dict], job_cost: list[dict]) -> list[dict]:
    """Job-cost rows for bills added after the ledger was built, numbered after its last row."""
    return [{"job": b["job"], "cost_code": b["cost_code"], "cost_type": b["cost_type"], "date": b["invoice_date"],
             "source": "AP", "amount": b["amount"], "description": b["description"][:60],
             "vendor_id": b["vendor_id"], "ref": f"{b['bill_id']} {b['invoice_number']}",
             "txn_id": f"JC-{len(job_cost) + i:06d}"} for i, b in enumerate(bills, start=1)]
