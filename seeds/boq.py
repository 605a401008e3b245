"""SmarteBuild's bills of quantities (B_progress_claim_boq): the estimate behind each client
contract's billing schedule, and the quantities the site measured in place to date.

Each SOV line of an active job's client contract is one BOQ item: a unit, the contract quantity
and a rate with quantity x rate = the line's scheduled value to the cent. The quantity measured
to date is the contract quantity times the job's share of work in place at the book's clock
(time elapsed over the job's duration, held under 95 % until the job closes: the share the PM
platforms bill their customer invoices by), so a claim drawn from the BOQ follows the invoices
already billed. Two kinds of record exist only in SmarteBuild (registered as divergences):
  over        a line the site measured past its contract quantity (a claim caps it at 100 %)
  variation   measured work on a client change order not yet authorized, billed through the SOV
              line it extends once it is (until then it is not claimed)
The public instances' jobs carry both (BOQ_CASES); tasks/families/b_progress_claim_boq.py plants
them on other jobs for the private split with the same helpers.
"""
from __future__ import annotations

import random
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from .util import CENT, money

MEASURED_ON = date(2026, 6, 30)  # the site's measurement for June, at the book's clock
QUANTITIES = (2500, 2000, 1600, 1250, 1000, 800, 500, 400, 250, 200, 125, 100, 50, 40, 25, 20, 10)
UNITS = {"02": "CY", "03": "CY", "04": "SF", "05": "TN", "06": "LF", "07": "SF", "08": "EA", "09": "SF",
         "10": "EA", "14": "EA", "21": "LF", "22": "EA", "23": "TN", "26": "EA", "31": "CY", "32": "SY"}
# (job, the pending client change order measured as a variation); both jobs also get a line over-measured
BOQ_CASES = (("7048", "CO-7048-001"), ("7951", "CO-7951-001"))
BOQ_JOBS = tuple(job for job, _co in BOQ_CASES)


def share_at(job: dict, at: date) -> Decimal:
    """The job's share of work in place at `at` (portals/pm/seed.py bills customer invoices by it)."""
    start = date.fromisoformat(job["start_date"])
    end = date.fromisoformat(job.get("est_completion") or job["start_date"])
    span = max((end - start).days, 1)
    share = Decimal(max(0, min((at - start).days, span))) / Decimal(span)
    cap = Decimal("1") if job.get("status") == "closed" else Decimal("0.95")
    return min(share, cap).quantize(Decimal("0.0001"))


def _quantity(rng: random.Random, value: Decimal, code: str) -> tuple[str, Decimal]:
    """A unit and a contract quantity that divides the line's value to the cent."""
    if code.startswith("01"):  # general conditions and fee: a lump sum
        return "LS", Decimal(1)
    cents = int(value * 100)
    fits = [q for q in QUANTITIES if cents % q == 0 and value / q >= 5]
    return UNITS.get(code[:2], "EA"), Decimal(rng.choice(fits[:6]) if fits else 1)


def build_boq(rng: random.Random, jobs: list[dict], prime_contracts: list[dict], change_orders: list[dict]) -> dict:
    """Every active job's BOQ with the June measurement, and the public cases planted."""
    book = {"items": contract_items(rng, jobs, prime_contracts)}
    cos = {co["co_id"]: co for co in change_orders}
    for job, co_id in BOQ_CASES:
        if co_id not in cos or cos[co_id]["job"] != job or not _job_items(book, job):
            continue  # another seed's book numbers its jobs otherwise
        plant_over(book, job, rng)
        plant_variation(book, cos[co_id], rng)
    return book


def contract_items(rng: random.Random, jobs: list[dict], prime_contracts: list[dict]) -> list[dict]:
    """One item per SOV line of every active job's client contract, measured at the clock."""
    job_map = {j["job"]: j for j in jobs}
    items = []
    for pc in sorted(prime_contracts, key=lambda p: p["job"]):
        job = job_map[pc["job"]]
        if job["status"] != "active":
            continue
        share = share_at(job, MEASURED_ON)
        for line in pc["lines"]:
            value = Decimal(line["scheduled_value"])
            unit, qty = _quantity(rng, value, line.get("cost_code", ""))
            items.append({"job": pc["job"], "item_code": f"{int(line['line_no']):02d}.00", "line_no": int(line["line_no"]),
                          "description": line.get("description", ""), "unit": unit, "quantity": money(qty),
                          "rate": money(value / qty), "measured_qty": money(qty * share),
                          "measured_on": MEASURED_ON.isoformat(), "change_order": ""})
    return items


def _job_items(book: dict, job: str) -> list[dict]:
    return [i for i in book["items"] if i["job"] == job and not i["change_order"]]


def plant_over(book: dict, job: str, rng: random.Random) -> dict:
    """One trade line of the job measured 102-108 % of its contract quantity."""
    trades = [i for i in _job_items(book, job) if i["unit"] != "LS"]
    item = rng.choice(trades)
    qty = Decimal(item["quantity"])
    item["measured_qty"] = money(qty * Decimal(str(round(rng.uniform(1.02, 1.08), 3))))
    item["over"] = True
    return item


def plant_variation(book: dict, co: dict, rng: random.Random) -> dict:
    """Work measured on a pending client change order, on the trade line with the most room left
    (so a claim that took it in would still fit the line's scheduled value)."""
    lines = [i for i in _job_items(book, co["job"]) if i["unit"] != "LS" and not i.get("over")]
    room = lambda i: Decimal(i["quantity"]) * Decimal(i["rate"]) - Decimal(i["measured_qty"]) * Decimal(i["rate"])  # noqa: E731
    parent = max(lines, key=room)
    amount = min(abs(Decimal(co["amount"])), room(parent) * Decimal("0.8"))
    qty = Decimal(parent["quantity"]) / 10
    rate = (amount / qty).quantize(CENT, rounding=ROUND_HALF_UP)
    share = Decimal(str(round(rng.uniform(0.35, 0.65), 2)))
    variation = {"job": co["job"], "item_code": f"{parent['line_no']:02d}.V{co['co_id'][-2:]}", "line_no": parent["line_no"],
                 "description": f"{co['title']} (variation)", "unit": parent["unit"], "quantity": money(qty),
                 "rate": money(rate), "measured_qty": money(qty * share), "measured_on": MEASURED_ON.isoformat(),
                 "change_order": co["co_id"]}
    book["items"].append(variation)
    return variation


def boq_entries(boq: dict) -> list[dict]:
    """Each over-measured line and each variation is SmarteBuild's alone: no other system keeps
    quantities or the site's measurement."""
    out = []
    for i in boq["items"]:
        if i["change_order"]:
            out.append({"entity": "boq_item", "key": f"{i['job']}/{i['item_code']}", "field": "smartbuild.variation",
                        "systems": ["smartbuild"], "family": "B_progress_claim_boq",
                        "why": (f"SmarteBuild's BOQ for job {i['job']} carries variation {i['item_code']}, "
                                f"{i['measured_qty']} {i['unit']} measured on client change order "
                                f"{i['change_order']}, which is still pending; Procore and the ERPs have the change "
                                f"order only, with no quantities.")})
        elif i.get("over"):
            out.append({"entity": "boq_item", "key": f"{i['job']}/{i['item_code']}", "field": "smartbuild.measured",
                        "systems": ["smartbuild"], "family": "B_progress_claim_boq",
                        "why": (f"SmarteBuild's site measurement for job {i['job']} item {i['item_code']} is "
                                f"{i['measured_qty']} {i['unit']}, past its contract quantity of {i['quantity']}; "
                                f"no other system keeps quantities.")})
    return out
