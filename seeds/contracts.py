"""Owner prime contracts (SOV) and change orders."""
from __future__ import annotations

import random
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from .reference import CHANGE_ORDER_CASES, CO_3100_AMOUNT
from .util import add_days, dec, iso, money, parse, round_to, stable_int

DIVISIONS = {
    "01": "General Requirements", "02": "Existing Conditions", "03": "Concrete", "04": "Masonry",
    "05": "Metals", "06": "Wood, Plastics and Composites", "07": "Thermal and Moisture Protection",
    "08": "Openings", "09": "Finishes", "10": "Specialties", "14": "Conveying Equipment",
    "21": "Fire Suppression", "22": "Plumbing", "23": "HVAC", "26": "Electrical", "27": "Communications",
    "28": "Electronic Safety and Security", "31": "Earthwork", "32": "Exterior Improvements", "33": "Utilities",
}
CO_TITLES = {
    "owner": ["Owner-requested finish upgrades", "Added site lighting", "Revised storefront per ASI",
              "Unforeseen rock excavation", "Additional data drops", "Revised canopy framing"],
    "commitment": ["Added scope per RFI", "Backcharge credit", "Additional mobilization", "Extra cleanup days",
                   "Revised fixture package"],
    "budget_transfer": ["Contingency to concrete", "Buyout savings to contingency", "General conditions reallocation"],
}


def build_prime_contracts(rng: random.Random, jobs: list[dict], commitments: list[dict]) -> list[dict]:
    out = []
    for job in (j for j in jobs if j["status"] == "active"):
        by_div: dict[str, Decimal] = defaultdict(Decimal)
        first_code: dict[str, str] = {}
        for c in commitments:
            if c["job"] == job["job"] and c["status"] != "Void":
                for l in c["lines"]:
                    by_div[l["cost_code"][:2]] += dec(l["amount"])
                    first_code[l["cost_code"][:2]] = min(first_code.get(l["cost_code"][:2], "99"), l["cost_code"])
        total = dec(job["contract_amount"])
        items = [("General Conditions", "01-100", float(total) * rng.uniform(0.06, 0.09))]
        items += [(DIVISIONS[d], first_code[d], float(v) * rng.uniform(1.05, 1.15)) for d, v in sorted(by_div.items())]
        items.append(("Overhead and Fee", "01-100", float(total) * rng.uniform(0.04, 0.06)))
        scale = float(total) / sum(w for _, _, w in items)
        values = [round_to(w * scale, 100) for _, _, w in items]
        values[values.index(max(values))] += total - sum(values)
        out.append({"job": job["job"], "number": f"PC-{job['job']}", "owner": job["customer"],
                    "original_amount": job["contract_amount"],
                    "lines": [{"line_no": i + 1, "description": d, "cost_code": code, "scheduled_value": money(v)}
                              for i, ((d, code, _), v) in enumerate(zip(items, values))]})
    return out


def build_change_orders(rng: random.Random, jobs: list[dict]) -> list[dict]:
    out = []
    for job in (j for j in jobs if j["status"] == "active"):
        start = parse(job["start_date"])
        span = (parse("2026-06-29") - start).days
        specs = []
        for _ in range(rng.randint(0, 6)):
            kind = rng.choices(["owner", "commitment", "budget_transfer"], weights=[5, 3, 2])[0]
            status = rng.choices(["approved", "pending", "void"], weights=[7, 2, 1])[0]
            if kind == "budget_transfer":
                amount = Decimal(0) if rng.random() < 0.3 else round_to(rng.uniform(5000, 60000), 50)
            else:
                amount = round_to(rng.uniform(-15000, 240000), 50)
            specs.append((add_days(start, rng.randint(30, max(31, span))), kind, rng.choice(CO_TITLES[kind]),
                          amount, status))
        if job["job"] == "3100":
            specs.append((parse("2026-06-22"), "owner", "Scope change \u2014 added retaining wall and storm re-route",
                          dec(CO_3100_AMOUNT), "pending"))
        for n, (d, kind, title, amount, status) in enumerate(sorted(specs, key=lambda s: s[0]), start=1):
            out.append({"co_id": f"CO-{job['job']}-{n:03d}", "job": job["job"], "number": n, "title": title,
                        "amount": money(amount), "kind": kind, "status": status, "created_date": iso(d)})
            proceeding = CHANGE_ORDER_CASES.get(out[-1]["co_id"], {}).get("procore_status")
            if proceeding and status == "pending":  # A_change_order: the owner let the work proceed before signing
                out[-1]["procore_status"] = proceeding
    return sorted(out, key=lambda c: c["co_id"])


def owner_co_approved(co: dict, today: date) -> date | None:
    """When the owner signed an approved change order: 3 to 21 days after it was written (hashed
    from its id, so every system that keeps the date agrees), never after `today`; None unless
    it is approved. GCPay keeps this date; Procore and the ERPs keep only the status."""
    if co["status"] != "approved":
        return None
    return min(add_days(parse(co["created_date"]), 3 + stable_int(f"co-approved:{co['co_id']}", 6) % 19), today)


def last_pay_app_period(job: dict, today: date) -> date | None:
    """The period end of a job's last owner pay application before `today`'s month: the month
    ends from 20 days after the start through the month before (GCPay bills monthly)."""
    this_month = date(today.year, today.month, 1)
    last = this_month - timedelta(days=1)
    return last if add_days(parse(job["start_date"]), 20) <= last else None


def unbilled_owner_cos(job: dict, change_orders: list[dict], today: date) -> list[dict]:
    """The job's owner change orders approved after its last pay application (or before any):
    approved in Procore and the ERPs, but not yet lines of GCPay's schedule of values."""
    last = last_pay_app_period(job, today)
    out = []
    for co in change_orders:
        approved = owner_co_approved(co, today) if co["job"] == job["job"] and co["kind"] == "owner" else None
        if approved is not None and (last is None or approved > last):
            out.append(co)
    return sorted(out, key=lambda c: c["co_id"])
