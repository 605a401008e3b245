"""HeavyBid's estimates and hh2's sync map, derived from the book.

The estimating department's HeavyBid holds the bids of the last year: biditems (the owner's pay
items, quantities and the unit prices bid), activities under each biditem (HeavyBid's activity
codes, which become cost codes only on export), and the resources each activity spends (labor,
equipment, material, subcontract). One estimate was won and is not a job in the ERP yet:
RIVERSIDE, Riverside Lift Station, job 6031 once it is set up. Its notes carry the Notice of
Award (alternate 2 was not awarded).

hh2 syncs Vista with the field systems (Procore, HeavyJob). Its sync map keys each job, cost
code, employee and vendor of the book to Vista's; its HeavyJob cost-code map is the company
codebook: each HeavyBid activity code's Vista phase, and each resource type's Vista cost type,
with one resource overridden (trucking is an equipment resource in HeavyBid but is hired out, so
it maps to cost type S). A few rows differ from the book on purpose (see `planted`).
"""
from __future__ import annotations

import random
from decimal import ROUND_HALF_UP, Decimal

from .util import CENT

WON = "RIVERSIDE"
WON_JOB = "6031"  # the Vista job number the award assigns (no job of the book uses it)
PROFIT_PCT, BOND_PCT = Decimal("8.0"), Decimal("1.2")
TRUCKING = "TRKHAUL"  # the equipment resource the codebook maps to subcontract
RESOURCE_TYPES = {"Labor": "L", "Equipment": "E", "Material": "M", "Subcontract": "S"}

# HeavyBid activity code -> (description, company cost code; None = not in the codebook)
ACTIVITIES = {
    "1010": ("Mobilize crew and equipment", "01-200"),
    "1020": ("Project supervision", "01-100"),
    "2010": ("Clear and grub", "31-100"),
    "2020": ("Silt fence and inlet protection", "31-250"),
    "3010": ("Excavate wet well", "31-200"),
    "3020": ("Sheet and shore excavation", "31-500"),
    "3030": ("Dewatering", None),  # the bypass/dewatering code was never added to the codebook
    "4010": ("Form wet well walls", "03-100"),
    "4020": ("Place reinforcing", "03-200"),
    "4030": ("Place wet well concrete", "03-300"),
    "5010": ("Lay 12 in. DIP force main", "33-300"),
    "5020": ("Trench and backfill force main", "31-210"),
    "6010": ("Gravity sewer tie-in", "33-300"),
    "7010": ("Electrical service and controls", "26-200"),
    "8010": ("Asphalt patch and restoration", "32-100"),
    "8020": ("Seed and stabilize", "32-900"),
    "9010": ("Standby generator", "26-100"),
    "9020": ("Odor control unit", "22-100"),
}

# biditem client code -> (description, unit, quantity, alternate, [(activity, [(resource, type, desc, unit, qty, unit cost)])])
BIDITEMS = [
    ("100", "Mobilization", "LS", "1", None, [
        ("1010", [("LABGEN", "Labor", "Laborer crew", "MH", 120, "48.50"),
                  ("LOWBOY", "Equipment", "Lowboy transport", "HR", 24, "165.00")]),
        ("1020", [("SUPT", "Labor", "Superintendent", "MH", 640, "72.00"),
                  ("PICKUP", "Equipment", "Pickup truck", "HR", 640, "18.00")])]),
    ("200", "Clearing and erosion control", "LS", "1", None, [
        ("2010", [("LABGEN", "Labor", "Laborer crew", "MH", 80, "48.50"),
                  ("DOZER", "Equipment", "D6 dozer", "HR", 40, "145.00")]),
        ("2020", [("SILTFN", "Material", "Silt fence", "LF", 1800, "2.15"),
                  ("LABGEN", "Labor", "Laborer crew", "MH", 60, "48.50")])]),
    ("300", "Wet well excavation", "CY", "1850", None, [
        ("3010", [("OPER", "Labor", "Operator", "MH", 220, "58.00"),
                  ("EXC350", "Equipment", "350 excavator", "HR", 180, "185.00"),
                  (TRUCKING, "Equipment", "Tri-axle trucking, haul-off", "HR", 210, "95.00")]),
        ("3020", [("SHORING", "Subcontract", "Sheet pile shoring", "LS", 1, "148500.00")]),
        ("3030", [("PUMPS", "Equipment", "Dewatering pumps", "DAY", 45, "310.00")])]),
    ("400", "Cast-in-place wet well", "CY", "420", None, [
        ("4010", [("CARP", "Labor", "Carpenter crew", "MH", 760, "54.00"),
                  ("FORMS", "Material", "Wall forms rental", "SF", 6400, "3.10")]),
        ("4020", [("REBAR", "Subcontract", "Reinforcing furnish and install", "TN", 38, "2150.00")]),
        ("4030", [("CONC4K", "Material", "4000 psi concrete", "CY", 441, "168.00"),
                  ("FINISH", "Labor", "Cement mason", "MH", 260, "52.00"),
                  ("PUMPTRK", "Equipment", "Concrete pump", "HR", 36, "240.00")])]),
    ("500", "12 in. DIP force main", "LF", "2400", None, [
        ("5010", [("DIP12", "Material", "12 in. DIP and fittings", "LF", 2400, "68.40"),
                  ("PIPELAY", "Labor", "Pipe crew", "MH", 960, "56.00")]),
        ("5020", [("EXC350", "Equipment", "350 excavator", "HR", 240, "185.00"),
                  (TRUCKING, "Equipment", "Tri-axle trucking, stone", "HR", 160, "95.00"),
                  ("STONE57", "Material", "No. 57 stone bedding", "TN", 1450, "31.50")])]),
    ("600", "Gravity sewer tie-in", "LF", "380", None, [
        ("6010", [("PVC8", "Material", "8 in. SDR-35 pipe", "LF", 380, "24.60"),
                  ("PIPELAY", "Labor", "Pipe crew", "MH", 210, "56.00"),
                  ("MANHOLE", "Subcontract", "Precast manholes set", "EA", 3, "7800.00")])]),
    ("700", "Electrical and controls", "LS", "1", None, [
        ("7010", [("ELECSUB", "Subcontract", "Electrical and SCADA subcontract", "LS", 1, "286400.00")])]),
    ("800", "Site restoration and paving", "SY", "1600", None, [
        ("8010", [("ASPHALT", "Subcontract", "Asphalt patch", "SY", 1100, "38.50")]),
        ("8020", [("SEEDMIX", "Material", "Seed, mulch and matting", "SY", 500, "4.20"),
                  ("LABGEN", "Labor", "Laborer crew", "MH", 40, "48.50")])]),
    ("ALT1", "Alternate 1: standby generator", "LS", "1", "1", [
        ("9010", [("GENSUB", "Subcontract", "Generator furnish and install", "LS", 1, "118600.00")])]),
    ("ALT2", "Alternate 2: odor control unit", "LS", "1", "2", [
        ("9020", [("ODORSUB", "Subcontract", "Odor control furnish and install", "LS", 1, "64200.00")])]),
]

OTHER_BIDS = [  # the department's other bids this year: (code, name, owner, city, status, scale)
    ("MILLCRK", "Mill Creek Pump Station Rehabilitation", "Town of Cary", "Cary", "Lost", "0.82"),
    ("HWY54SW", "NC 54 Sewer Extension", "City of Durham", "Durham", "Lost", "1.35"),
    ("OAKGRV", "Oak Grove Lift Station Replacement", "Town of Apex", "Apex", "Submitted", "0.94"),
    ("CRABTR", "Crabtree Interceptor Phase 2", "City of Raleigh", "Raleigh", "Lost", "2.10"),
    ("FUQUAY", "Fuquay Booster Pump Station", "Town of Fuquay-Varina", "Fuquay-Varina", "Pending", "1.12"),
    ("GARNER", "Garner Road Force Main", "Town of Garner", "Garner", "Lost", "0.71"),
    ("WAKEFST", "Wake Forest Wet Well Upgrade", "Town of Wake Forest", "Wake Forest", "Submitted", "0.88"),
]

AWARD_NOTE = ("Notice of Award dated 2026-06-22 from the Town of Holly Springs: the Base Bid (biditems 100-800) "
              "and Alternate 1 (standby generator) are awarded; Alternate 2 (odor control unit) is not accepted.")


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def build_estimates(rng: random.Random) -> list[dict]:
    """The won estimate exactly as priced, then the other bids scaled from the same takeoff."""
    out = [_estimate(WON, "Riverside Lift Station", "Town of Holly Springs", "Holly Springs", "Won",
                     "2026-06-09", Decimal("1"), AWARD_NOTE)]
    for i, (code, name, owner, city, status, scale) in enumerate(OTHER_BIDS):
        day = f"2026-{1 + i % 6:02d}-{10 + rng.randrange(15):02d}"
        out.append(_estimate(code, name, owner, city, status, day, Decimal(scale), ""))
    return out


def _estimate(code: str, name: str, owner: str, city: str, status: str, bid_date: str, scale: Decimal,
              notes: str) -> dict:
    markup = (PROFIT_PCT + BOND_PCT) / 100
    biditems = []
    for client, desc, unit, qty, alternate, activities in BIDITEMS:
        acts = []
        for act_code, resources in activities:
            rows = [{"resource": r, "type": t, "description": d, "unit": u,
                     "quantity": str(q if u in ("LS", "EA") else int(Decimal(q) * scale)),
                     "unit_cost": c} for r, t, d, u, q, c in resources]
            for row in rows:
                row["total"] = str(money(Decimal(row["quantity"]) * Decimal(row["unit_cost"])))
            acts.append({"activity": act_code, "description": ACTIVITIES[act_code][0], "resources": rows})
        cost = sum(Decimal(r["total"]) for a in acts for r in a["resources"])
        quantity = qty if unit == "LS" else str(int(Decimal(qty) * scale))
        unit_price = money(cost * (1 + markup) / Decimal(quantity))
        biditems.append({"biditem": client, "description": desc, "unit": unit, "quantity": quantity,
                         "alternate": alternate, "unit_price": str(unit_price),
                         "bid_total": str(money(unit_price * Decimal(quantity))), "activities": acts})
    return {"estimate_code": code, "name": name, "owner": owner, "city": city, "state": "NC", "status": status,
            "bid_date": bid_date, "estimator": "Walt Brennan", "master": "DEMOMAST",
            "profit_pct": str(PROFIT_PCT), "bond_pct": str(BOND_PCT), "notes": notes,
            "job": WON_JOB if status == "Won" else None, "biditems": biditems}


def won_estimate(book: dict) -> dict:
    return next(e for e in book["estimates"] if e["status"] == "Won")


# -- hh2's sync map ---------------------------------------------------------------------------------

def build_sync_map(book: dict) -> dict:
    """hh2's mappings (each system's key beside Vista's) and the sync log's open errors."""
    erp_map = {m["code"]: m for m in book["erp_cost_code_map"]}
    plant = planted(book)
    jobs = [{"entity": "Job (CV)", "system": "Procore", "source_key": j["job"], "source_name": j["name"],
             "erp_key": j["job"], "erp_name": j["name"]} for j in book["jobs"] if j["status"] == "active"]
    codes = [{"entity": "Cost Code", "system": "Procore", "source_key": c["code"], "source_name": c["description"],
              "erp_key": erp_map[c["code"]]["vista_phase"], "erp_name": c["description"]} for c in book["cost_codes"]]
    codebook = [{"entity": "Cost Code", "system": "HeavyJob", "source_key": act, "source_name": desc,
                 "erp_key": erp_map[code]["vista_phase"] if code else None, "erp_name": _desc(book, code)}
                for act, (desc, code) in sorted(ACTIVITIES.items())]
    types = [{"entity": "Cost Type", "system": "HeavyJob", "source_key": kind, "source_name": f"{kind} resources",
              "erp_key": ct, "erp_name": _ctype(book, ct)} for kind, ct in RESOURCE_TYPES.items()]
    types.append({"entity": "Cost Type", "system": "HeavyJob", "source_key": TRUCKING,
                  "source_name": "Trucking (hired haul, subcontracted)", "erp_key": "S", "erp_name": _ctype(book, "S")})
    workers = [{"entity": "Employee", "system": "Procore", "source_key": w["worker_id"],
                "source_name": f"{w['last_name']}, {w['first_name']}", "erp_key": w["foundation_employee"],
                "erp_name": f"{w['last_name']}, {w['first_name']}"} for w in book["workers"]]
    vendors = [{"entity": "Vendor", "system": "Procore", "source_key": str(v["procore_vendor_id"]),
                "source_name": v["legal_name"], "erp_key": str(v["vista_vendor"]), "erp_name": v["legal_name"]}
               for v in book["vendors"] if v["status"] == "active"]
    rows = jobs + codes + codebook + types + workers + vendors
    for row in rows:
        change = plant.get((row["entity"], row["system"], row["source_key"]))
        if change:
            row.update(change["row"])
        row["status"] = "Unmapped" if row["erp_key"] is None else "Mapped"
    return {"mappings": rows, "errors": [p["error"] for p in plant.values() if p.get("error")]}


def _desc(book: dict, code: str | None) -> str | None:
    return next((c["description"] for c in book["cost_codes"] if c["code"] == code), None)


def _ctype(book: dict, code: str) -> str:
    return next(t["name"] for t in book["cost_types"] if t["code"] == code)


def planted(book: dict) -> dict:
    """The rows hh2 has wrong, keyed by (entity, system, source key): a rehired worker still on his
    old employee number, a closed job's Procore project mapped to an active job's number, and a
    Procore cost code pointed at its division's sibling phase. Each has a sync error in the log."""
    erp_map = {m["code"]: m for m in book["erp_cost_code_map"]}
    worker = book["workers"][7]
    old_no = str(int(worker["foundation_employee"]) - 7)
    code = "22-400"  # Plumbing Fixtures, synced to Plumbing Piping's phase
    sibling = erp_map["22-100"]["vista_phase"]
    job = next(j for j in book["jobs"] if j["status"] == "active" and j["job"] > "5000")
    at = "2026-06-30T06:05:00Z"
    return {
        ("Employee", "Procore", worker["worker_id"]): {
            "row": {"erp_key": old_no}, "field": "employee",
            "why": (f"{worker['first_name']} {worker['last_name']} ({worker['worker_id']}) was rehired under payroll "
                    f"number {worker['foundation_employee']}; hh2 still maps the worker to the old number {old_no}, "
                    "so the worker's time fails to sync."),
            "error": {"at": at, "entity": "Employee", "system": "Procore", "source_key": worker["worker_id"],
                      "message": f"PR Employee {old_no} is terminated in Vista; timecard rejected."}},
        ("Cost Code", "Procore", code): {
            "row": {"erp_key": sibling}, "field": "cost_code",
            "why": (f"hh2 maps Procore cost code {code} to Vista phase {sibling} (its sibling 22-100's), not "
                    f"{erp_map[code]['vista_phase']}: costs coded {code} in the field land on the wrong phase."),
            "error": {"at": at, "entity": "Cost Code", "system": "Procore", "source_key": code,
                      "message": f"Phase {sibling} description does not match Procore cost code {code}."}},
        ("Job (CV)", "Procore", job["job"]): {
            "row": {"erp_key": None, "erp_name": None}, "field": "job",
            "why": (f"hh2 lost the mapping of Procore project {job['job']} ({job['name']}) to its Vista job; "
                    "the project's commitments and cost do not sync until it is mapped again."),
            "error": {"at": at, "entity": "Job (CV)", "system": "Procore", "source_key": job["job"],
                      "message": f"No Vista job mapped for Procore project {job['job']}; 4 records skipped."}},
    }


def entries(book: dict) -> list[dict]:
    """The divergences HeavyBid and hh2 bring (APPS.md identity facts 3 and 4)."""
    won = won_estimate(book)
    out = [{"entity": "identity", "key": "estimate", "field": "format", "systems": ["hcss_heavybid"],
            "family": "A_job_setup_from_estimate",
            "why": (f"HeavyBid keys the won bid by its estimate code {won['estimate_code']}; Vista will key it as job "
                    f"{WON_JOB}. HeavyBid's activity codes become cost codes only on export, through hh2's HeavyJob "
                    "codebook map; its resource types become cost types there, and trucking (an equipment "
                    "resource) maps to subcontract.")},
           {"entity": "codebook", "key": "3030", "field": "phase", "systems": ["hcss_heavybid", "hh2"],
            "family": "A_job_setup_from_estimate",
            "why": "HeavyBid activity 3030 (Dewatering) has no Vista phase in hh2's codebook map: it cannot be mapped."}]
    for (entity, system, key), p in sorted(planted(book).items()):
        out.append({"entity": "hh2_mapping", "key": key, "field": p["field"], "systems": ["hh2", "vista_erp"],
                    "family": "H_hh2_timesheet_sync", "why": p["why"]})
    return out


# -- the job setup the won estimate calls for (A_job_setup_from_estimate's ground truth) ------------

def awarded(estimate: dict) -> list[dict]:
    """The biditems the Notice of Award accepts: the base bid and alternate 1, not alternate 2."""
    return [b for b in estimate["biditems"] if b["alternate"] in (None, "1")]


def expected_setup(book: dict) -> dict:
    """The won job's original estimate by Vista phase and cost type (each awarded resource mapped
    through hh2's codebook: its activity's phase; its type's cost type, or the resource's own
    override), the resources no phase exists for, and the contract items (awarded biditems at the
    unit prices bid). Markups (profit, bond) are never cost."""
    erp = {m["code"]: m["vista_phase"] for m in book["erp_cost_code_map"]}
    budget: dict[tuple[str, str], Decimal] = {}
    unmapped = []
    for b in awarded(won_estimate(book)):
        for a in b["activities"]:
            code = ACTIVITIES[a["activity"]][1]
            for r in a["resources"]:
                if code is None:
                    unmapped.append({"biditem": b["biditem"], "activity": a["activity"], "resource": r["resource"],
                                     "amount": r["total"]})
                    continue
                ctype = "S" if r["resource"] == TRUCKING else RESOURCE_TYPES[r["type"]]
                key = (erp[code], ctype)
                budget[key] = budget.get(key, Decimal("0")) + Decimal(r["total"])
    items = [{"item": b["biditem"], "description": b["description"], "amount": b["bid_total"]}
             for b in awarded(won_estimate(book))]
    return {"job": WON_JOB, "budget": {k: f"{v:.2f}" for k, v in sorted(budget.items())}, "unmapped": unmapped,
            "items": items, "cost_total": f"{sum(budget.values(), Decimal('0')):.2f}",
            "contract_total": f"{sum((Decimal(i['amount']) for i in items), Decimal('0')):.2f}"}
