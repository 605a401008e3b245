"""Procore subcontractor invoices (requisitions) against subcontracts, monthly pay periods."""
from __future__ import annotations

import random
import re
from datetime import date
from decimal import Decimal

from .reference import SYNC_JOBS
from .util import CENT, add_days, add_months, dec, iso, money, parse, pct_of, split_total, unique_int

CURRENT_END = date(2026, 6, 25)     # the open pay period: 2026-05-26 .. 2026-06-25
PREVIOUS_END = date(2026, 5, 25)
CURRENT_MIX = [("approved", "not_synced", 22), ("approved", "synced", 20), ("under_review", "not_synced", 26),
               ("draft", "not_synced", 14), ("revise_and_resubmit", "not_synced", 10), ("paid", "synced", 8)]


def initials(legal: str) -> str:
    words = [w for w in re.sub(r"[^A-Za-z ]", " ", legal).split()
             if w[0].isupper() and w not in ("Inc", "LLC", "Co", "Corp")]
    return "".join(w[0] for w in words[:3]).upper() or "INV"


def _periods(rng: random.Random, c: dict, job: dict) -> list[tuple[date, date]]:
    first = add_days(parse(c["executed_date"]), rng.randint(20, 60))
    months = rng.randint(2, 8)
    if job["status"] == "active" and c["status"] == "Approved" and (
            job["job"] in SYNC_JOBS or rng.random() < 0.6):
        first = max(first, add_months(CURRENT_END, -rng.randint(1, 8)))
        first_end = date(first.year, first.month, 25)
        months = (CURRENT_END.year - first_end.year) * 12 + CURRENT_END.month - first_end.month + 1
    first_end = date(first.year, first.month, 25)
    ends = [add_months(first_end, i) for i in range(months)]
    if job["status"] == "closed":
        ends = [e for e in ends if e <= parse(job["est_completion"])] or ends[:1]
    ends = [e for e in ends if e <= CURRENT_END]
    return [(add_days(add_months(e, -1), 1), e) for e in ends]


def build_requisitions(rng: random.Random, commitments: list[dict], jobs: dict, vendors: dict) -> list[dict]:
    used: set[int] = set()
    out = []
    per_vendor: dict[str, int] = {}
    for c in commitments:
        if c["type"] != "subcontract" or c["status"] not in ("Approved", "Complete") or not c["executed_date"]:
            continue
        job = jobs[c["job"]]
        periods = _periods(rng, c, job)
        if not periods:
            continue
        amount = dec(c["amount"])
        done = c["status"] == "Complete" or job["status"] == "closed"
        billed = amount if done else (amount * Decimal(str(rng.uniform(0.35, 0.93)))).quantize(CENT)
        parts = split_total(rng, billed, len(periods), unit=CENT)
        k = per_vendor[c["vendor_id"]] = per_vendor.get(c["vendor_id"], 0) + 1
        prefix = initials(vendors[c["vendor_id"]]["legal_name"]) + ("" if k == 1 else str(k))
        for n, ((start, end), part) in enumerate(zip(periods, parts), start=1):
            out.append({
                "requisition_id": unique_int(f"req:{c['number']}:{n}", 7, used),
                "commitment": c["number"], "job": c["job"], "vendor_id": c["vendor_id"], "number": n,
                "invoice_number": f"{prefix}-{end:%y%m}-{n:02d}",
                "period_start": iso(start), "period_end": iso(end), "amount": money(part),
                "retainage": money(pct_of(part, c["retainage_pct"])),
                "status": "paid", "erp_sync": "synced", "approved_date": None,
            })
            status, sync = "paid", "synced"
            if end == CURRENT_END and not done:
                status, sync = rng.choices([(s, y) for s, y, _ in CURRENT_MIX],
                                           weights=[w for _, _, w in CURRENT_MIX])[0]
            elif end == PREVIOUS_END and not done and rng.random() < 0.35:
                status = "approved"
            _set(rng, out[-1], status, sync)
    for job in SYNC_JOBS:
        _guarantee_sync_work(rng, [r for r in out if r["job"] == job])
    return sorted(out, key=lambda r: r["requisition_id"])


def _set(rng: random.Random, r: dict, status: str, sync: str) -> None:
    r["status"], r["erp_sync"] = status, sync
    end = parse(r["period_end"])
    if status in ("approved", "paid"):
        r["approved_date"] = iso(min(add_days(end, rng.randint(1, 12)), date(2026, 6, 30)))
    else:
        r["approved_date"] = None


def _guarantee_sync_work(rng: random.Random, reqs: list[dict]) -> None:
    """Per sync job: 2-5 approved+not_synced on >= 2 commitments, >= 2 approved+synced, >= 1 under_review."""
    current = sorted((r for r in reqs if r["period_end"] == iso(CURRENT_END)), key=lambda r: r["commitment"])
    if len(current) < 4:
        raise ValueError(f"job {reqs[0]['job']}: only {len(current)} open-period requisitions")
    rng.shuffle(current)
    work = min(rng.randint(2, 5), len(current) - 2)
    for r in current[:work]:
        _set(rng, r, "approved", "not_synced")
    _set(rng, current[work], "under_review", "not_synced")
    for r in current[work + 1:]:
        if r["status"] == "approved" and r["erp_sync"] == "not_synced":
            _set(rng, r, rng.choice(["approved", "under_review", "draft"]), "synced")
            if r["status"] != "approved":
                r["erp_sync"] = "not_synced"
    previous = sorted((r for r in reqs if r["period_end"] == iso(PREVIOUS_END)), key=lambda r: r["commitment"])
    synced = [r for r in reqs if r["status"] == "approved" and r["erp_sync"] == "synced"]
    for r in previous[: max(0, 2 - len(synced))]:
        _set(rng, r, "approved", "synced")
