"""Sales and use tax facts from the book, shared by Avalara's seed, the ERPs' bill lines and the
C_use_tax_accrual family.

A contractor is the end user of the materials it builds into a job (FAMILIES.md C06): it pays
sales tax to the vendor, or, when a vendor charges none (an out-of-state vendor with no nexus in
the jobsite's state), owes use tax itself at the rate of the place the material is delivered to:
the jobsite, not the office. This module says, for each 2026 material invoice of the book, what
the vendor's invoice held (material, any separately stated labor, any sales tax charged), and
the jurisdiction rates of every place the company builds.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from portals.core.ids import stable_id

from .tax1099 import PAYER

CENT = Decimal("0.01")
YEAR_FROM = "2026-01-01"  # the invoices Avalara holds (the company went live on AvaTax in January)
MONTH = "2026-06"  # the month the book's clock closes: its use tax is not yet accrued
OFFICE = {"line1": PAYER["address"], "city": PAYER["city"], "region": PAYER["state"], "postal_code": PAYER["zip"]}
MATERIAL_CODE, LABOR_CODE = "P0000000", "NT"  # Avalara's codes: tangible personal property; not taxable

STATE = {"NC": ("North Carolina", "37", "4.75"), "SC": ("South Carolina", "45", "6.00"),
         "VA": ("Virginia", "51", "4.30")}
# Each place's local jurisdictions: (type, name, code, rate %). North Carolina's counties levy
# 2.00 or 2.25% and its transit counties a half cent more; Virginia's cities and Hampton Roads
# their own; South Carolina's counties their local option and transportation taxes.
LOCAL = {
    ("Asheville", "NC"): (("County", "BUNCOMBE", "021", "2.25"),),
    ("Cary", "NC"): (("County", "WAKE", "183", "2.00"), ("Special", "WAKE COUNTY TRANSIT", "183T", "0.50")),
    ("Charlotte", "NC"): (("County", "MECKLENBURG", "119", "2.00"),
                          ("Special", "MECKLENBURG COUNTY TRANSIT", "119T", "0.50")),
    ("Concord", "NC"): (("County", "CABARRUS", "025", "2.25"),),
    ("Durham", "NC"): (("County", "DURHAM", "063", "2.25"), ("Special", "DURHAM COUNTY TRANSIT", "063T", "0.50")),
    ("Fayetteville", "NC"): (("County", "CUMBERLAND", "051", "2.25"),),
    ("Gastonia", "NC"): (("County", "GASTON", "071", "2.25"),),
    ("Greensboro", "NC"): (("County", "GUILFORD", "081", "2.25"),),
    ("Hickory", "NC"): (("County", "CATAWBA", "035", "2.25"),),
    ("Raleigh", "NC"): (("County", "WAKE", "183", "2.00"), ("Special", "WAKE COUNTY TRANSIT", "183T", "0.50")),
    ("Wilmington", "NC"): (("County", "NEW HANOVER", "129", "2.25"),),
    ("Winston-Salem", "NC"): (("County", "FORSYTH", "067", "2.25"),),
    ("Columbia", "SC"): (("County", "RICHLAND", "079", "1.00"),
                         ("Special", "RICHLAND COUNTY TRANSPORTATION", "079T", "1.00")),
    ("Greenville", "SC"): (),
    ("Norfolk", "VA"): (("City", "NORFOLK", "710", "1.00"), ("Special", "HAMPTON ROADS REGIONAL", "HR", "0.70")),
    ("Rock Hill", "SC"): (("County", "YORK", "091", "1.00"), ("Special", "YORK COUNTY CAPITAL PROJECTS", "091C", "1.00")),
    ("Spartanburg", "SC"): (("County", "SPARTANBURG", "083", "1.00"),),
    ("Richmond", "VA"): (("City", "RICHMOND", "760", "1.00"), ("Special", "CENTRAL VIRGINIA REGIONAL", "CV", "0.70")),
    ("Roanoke", "VA"): (("City", "ROANOKE", "770", "1.00"),),
    ("Danville", "VA"): (("City", "DANVILLE", "590", "1.00"),),
}  # every city seeds/names.py can place a job in


def jurisdictions(city: str, state: str) -> list[dict]:
    """The jurisdictions taxing a delivery to a place, state first; KeyError for a place the
    company does not build in."""
    local = LOCAL[(city, state)]
    name, code, rate = STATE[state]
    rows = [("State", name.upper(), code, rate), *local]
    return [{"type": t, "name": n, "code": c, "rate": Decimal(r) / 100} for t, n, c, r in rows]


def total_rate(city: str, state: str) -> Decimal:
    return sum((j["rate"] for j in jurisdictions(city, state)), Decimal(0))


def tax_by_jurisdiction(amount: Decimal, city: str, state: str) -> list[tuple[dict, Decimal]]:
    """Tax on a taxable amount, each jurisdiction's share rounded to the cent as AvaTax does."""
    return [(j, (amount * j["rate"]).quantize(CENT, ROUND_HALF_UP)) for j in jurisdictions(city, state)]


def tax_on(amount: Decimal, city: str, state: str) -> Decimal:
    return sum((t for _, t in tax_by_jurisdiction(amount, city, state)), Decimal(0))


def _h(*parts) -> int:
    return stable_id("avalara", *parts, digits=9)


def material_bills(book: dict) -> list[dict]:
    """The 2026 material invoices (cost type M) Avalara's consumer-use review covers."""
    return [b for b in book["ap_bills"] if b["cost_type"] == "M" and b["invoice_date"] >= YEAR_FROM]


def invoice(book: dict, bill: dict) -> dict:
    """What the vendor's invoice held. A vendor in the jobsite's state charged sales tax at the
    jobsite's rate (the bill's total includes it); a vendor from another state charged none, and
    about one in three of those invoices also bills its field technician's labor on its own line
    (not taxable). `lines` are (description, tax code, amount); `untaxed` says use tax is owed."""
    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    job = next(j for j in book["jobs"] if j["job"] == bill["job"])
    total = Decimal(bill["amount"])
    material_name = bill["description"] or "Material"
    if vendors[bill["vendor_id"]]["state"] == job["state"]:
        rate = total_rate(job["city"], job["state"])
        material = (total / (1 + rate)).quantize(CENT, ROUND_HALF_UP)
        return {"lines": [(material_name, MATERIAL_CODE, material),
                          (f"Sales tax {rate * 100:.2f}%", None, total - material)],
                "material": material, "labor": Decimal(0), "vendor_tax": total - material, "untaxed": False}
    labor = Decimal(0)
    if _h("labor", bill["bill_id"]) % 3 == 0:
        labor = (total * Decimal(6 + _h("labor-share", bill["bill_id"]) % 7) / 100).quantize(CENT, ROUND_HALF_UP)
    lines = [(material_name, MATERIAL_CODE, total - labor)]
    if labor:
        lines.append(("Field technician services (labor)", LABOR_CODE, labor))
    return {"lines": lines, "material": total - labor, "labor": labor, "vendor_tax": Decimal(0), "untaxed": True}


def use_tax(book: dict, bill: dict) -> Decimal:
    """The use tax owed on a bill: the jobsite's rate on the untaxed material; none where the
    vendor charged the tax."""
    inv = invoice(book, bill)
    if not inv["untaxed"]:
        return Decimal(0)
    job = next(j for j in book["jobs"] if j["job"] == bill["job"])
    return tax_on(inv["material"], job["city"], job["state"])


def accrued_bills(book: dict) -> list[dict]:
    """Untaxed invoices before the open month: their use tax is in Avalara, committed."""
    return [b for b in material_bills(book) if b["invoice_date"][:7] < MONTH and invoice(book, b)["untaxed"]]


def open_bills(book: dict) -> list[dict]:
    """The open month's untaxed invoices: use tax owed and not yet accrued anywhere."""
    return [b for b in material_bills(book) if b["invoice_date"][:7] == MONTH and invoice(book, b)["untaxed"]]
