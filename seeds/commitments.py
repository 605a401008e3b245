"""Commitments: subcontracts (SC-<job>-<n>) and purchase orders (<job>-<nn>) with SOV lines."""
from __future__ import annotations

import random
from decimal import Decimal

from .jobs import progress
from .reference import EXPIRED_COI_VENDORS, JSM_COMMITMENT, JSM_VENDOR, SYNC_JOBS, TRADES, WALSH_VENDOR
from .util import add_days, dec, iso, money, parse, split_total

SUB_TRADES = [t for t, spec in TRADES.items() if spec[0] == "sub"]
SUPPLY_TRADES = [t for t, spec in TRADES.items() if spec[0] == "supplier"]
HEAVY = {"concrete": 3.0, "steel": 2.5, "hvac": 3.0, "electrical": 3.0, "plumbing": 2.0,
         "excavation": 1.8, "drywall": 2.0, "glazing": 1.6, "elevator": 1.2, "fire_protection": 1.0}

# fixed commitments: job -> list of specs
FIXED = {
    "1042": [dict(trade="electrical", type="subcontract", vendor=WALSH_VENDOR, number="SC-1042-0",
                  title="Electrical", lines=[("26-100", "S", "120000"), ("26-200", "S", "210000"),
                                              ("26-210", "S", "182000"), ("26-500", "S", "120000")])],
    "9140": [dict(trade="excavation", type="purchase_order", vendor=JSM_VENDOR, number=JSM_COMMITMENT,
                  title="Site excavation and haul-off", lines=[("31-200", "S", "86100")],
                  executed="2026-03-16"),
             dict(trade="excavation", type="subcontract", vendor="V1005", title="Mass grading and erosion control",
                  lines=[("31-200", "S", "148600"), ("31-250", "S", "22750")])],
    "2200": [dict(trade="excavation", type="subcontract", vendor=JSM_VENDOR, title="Trenching and backfill",
                  lines=[("31-210", "S", "96400"), ("31-200", "S", "61250")])],
}


def _lines(rng: random.Random, trade: str, total: Decimal, code_desc: dict) -> list[tuple]:
    codes = TRADES[trade][1]
    k = min(len(codes), rng.choice([1, 1, 2, 2, 3, 4]))
    picked = sorted(rng.sample(codes, k))
    return [(c, TRADES[trade][2], str(a)) for c, a in zip(picked, split_total(rng, total, k))]


def _status(rng: random.Random, job: dict) -> str:
    if job["status"] == "closed":
        return "Complete"
    r = rng.random()
    if r < 0.04:
        return "Draft"
    if r < 0.08:
        return "Out for Signature"
    if r < 0.11:
        return "Void"
    if r < 0.17 and progress(job) > 0.5:
        return "Complete"
    return "Approved"


def _job_specs(rng: random.Random, job: dict, fixed_map: dict) -> list[dict]:
    fixed = [dict(s, fixed=True) for s in fixed_map.get(job["job"], [])]
    if job["status"] == "closed":
        n = rng.randint(4, 7)
    else:
        n = max(rng.randint(8, 20), 13 if job["job"] in SYNC_JOBS else 8)
    n_sub = max(1, round(n * rng.uniform(0.62, 0.78)))
    taken = {s["trade"] for s in fixed}
    subs = [t for t in rng.sample(SUB_TRADES, len(SUB_TRADES)) if t not in taken]
    specs = fixed + [dict(trade=t, type="subcontract") for t in subs[: max(0, n_sub - len(fixed))]]
    supplies = rng.sample(SUPPLY_TRADES, len(SUPPLY_TRADES))
    specs += [dict(trade=supplies[i % len(supplies)], type="purchase_order") for i in range(n - len(specs))]
    for s in specs:  # a few small sub scopes are written as POs
        if not s.get("fixed") and s["type"] == "subcontract" and rng.random() < 0.08:
            s["type"] = "purchase_order"
    return specs


def build_commitments(rng: random.Random, jobs: list[dict], vendors: list[dict],
                      code_desc: dict) -> list[dict]:
    by_trade: dict[str, list[str]] = {}
    for v in vendors:
        if v["status"] == "active" and v["vendor_id"] != JSM_VENDOR:
            by_trade.setdefault(v["trade"], []).append(v["vendor_id"])
    fixed_map = dict(FIXED)
    first_closed = next(j["job"] for j in jobs if j["status"] == "closed")
    fixed_map[first_closed] = [dict(trade="excavation", type="subcontract", vendor=JSM_VENDOR,
                                    title="Mass excavation and grading",
                                    lines=[("31-200", "S", "212400"), ("31-220", "S", "38900")])]
    out = []
    for job in jobs:
        specs = _job_specs(rng, job, fixed_map)
        committed = dec(job["contract_amount"]) * Decimal(str(rng.uniform(0.55, 0.72)))
        free = [s for s in specs if not s.get("fixed")]
        fixed_total = sum(dec(a) for s in specs if s.get("fixed") for _, _, a in s["lines"])
        weights = [HEAVY.get(s["trade"], 0.6) * rng.uniform(0.6, 1.4) for s in free]
        budget = max(committed - fixed_total, Decimal(len(free) * 20000))
        po_numbers = sorted(rng.sample([n for n in range(10, 100) if n != 75], len(specs)))
        sc_n = 0
        for s in specs:
            if not s.get("fixed"):
                share = budget * Decimal(weights[free.index(s)] / sum(weights))
                total = max(Decimal(4800), share.quantize(Decimal(100)))
                s["lines"] = _lines(rng, s["trade"], total, code_desc)
                s["vendor"] = rng.choice(by_trade[s["trade"]])
            if "number" not in s:
                if s["type"] == "subcontract":
                    while f"SC-{job['job']}-{sc_n}" in {x.get("number") for x in specs}:
                        sc_n += 1
                    s["number"], sc_n = f"SC-{job['job']}-{sc_n}", sc_n + 1
                else:
                    s["number"] = f"{job['job']}-{po_numbers.pop(0)}"
            out.append(_record(rng, job, s, code_desc))
    _anchor_expired_coi_vendors(rng, out, jobs)
    return sorted(out, key=lambda c: c["number"])


def _record(rng: random.Random, job: dict, s: dict, code_desc: dict) -> dict:
    status = "Approved" if s.get("fixed") and job["status"] == "active" else _status(rng, job)
    start = parse(job["start_date"])
    latest = min(parse("2026-06-12"), parse(job["est_completion"]))
    executed = s.get("executed") or iso(add_days(start, rng.randint(0, max(1, min(240, (latest - start).days)))))
    subcontract = s["type"] == "subcontract"
    lines = [{"line_no": i + 1, "cost_code": c, "cost_type": t, "amount": money(a),
              "description": f"{code_desc[c]} \u2014 {'labor and material' if subcontract else 'furnish'}"}
             for i, (c, t, a) in enumerate(s["lines"])]
    return {
        "number": s["number"], "job": job["job"], "vendor_id": s["vendor"], "type": s["type"],
        "title": s.get("title") or rng.choice(TRADES[s["trade"]][4]), "status": status,
        "retainage_pct": "10.00" if subcontract else "0.00",
        "executed_date": None if status in ("Draft", "Out for Signature") else executed,
        "erp_synced": status in ("Approved", "Complete"),
        "amount": money(sum(dec(l["amount"]) for l in lines)), "lines": lines,
        "_trade": s["trade"], "_fixed": bool(s.get("fixed")),
    }


def _anchor_expired_coi_vendors(rng: random.Random, out: list[dict], jobs: list[dict]) -> None:
    """Each expired-COI vendor holds at least two approved subcontracts on active jobs."""
    trade_of = {"V1000": "steel", "V1002": "concrete", "V1003": "roofing", "V1006": "drywall",
                "V1007": "painting"}
    active = {j["job"] for j in jobs if j["status"] == "active"}
    for vid in EXPIRED_COI_VENDORS:
        held = [c for c in out if c["vendor_id"] == vid and c["job"] in active and c["status"] == "Approved"]
        pool = [c for c in out if c["_trade"] == trade_of[vid] and c["job"] in active and not c["_fixed"]
                and c["status"] == "Approved" and c["type"] == "subcontract" and c["vendor_id"] != vid
                and c["vendor_id"] not in EXPIRED_COI_VENDORS]
        for c in rng.sample(pool, max(0, min(len(pool), 2 - len(held)))):
            c["vendor_id"] = vid
