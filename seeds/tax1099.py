"""Company A's 1099 picture, derived from the book: each vendor's tax profile (the W-9 it gave, its
entity type, exempt payee code, whether it sells services or goods, the ERP's 1099 flag) and the
year's payments to it by method.

Like seeds/treasury.py this is a pure function of the book, so the ERP's vendor tax fields
(portals/erp) and Track1099's recipients (portals/compliance, the tax line) read the same W-9 and
the same payments and tie out. What Track1099 shows differently (the W-9's legal name, a person
where the ERP shows a business) is registered in seeds/divergences.py (tax_entries).
"""
from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from datetime import date
from decimal import Decimal

from . import names as N
from .reference import TRADES

# W-9 line 3: the federal tax classification, as Track1099 words it.
SOLE_PROP = "Individual/sole proprietor"
C_CORP, S_CORP, PARTNERSHIP = "C Corporation", "S Corporation", "Partnership"
LLC_C, LLC_S, LLC_P, LLC_DISREGARDED = "LLC - C", "LLC - S", "LLC - P", "LLC - Disregarded"
CORPORATE = (C_CORP, S_CORP, LLC_C, LLC_S)
EXEMPT_CORPORATION = "5"  # W-9 exempt payee code 5: a corporation
THRESHOLDS = {2024: Decimal("600.00"), 2025: Decimal("600.00"), 2026: Decimal("2000.00")}  # DOMAIN.md section 6


def _h(*parts) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def _owner(v: dict) -> str:
    """The person a sole proprietor or single-member LLC's W-9 names (a surname from the firm's name
    when it has one)."""
    first = N.FIRST_NAMES[_h("owner-first", v["vendor_id"]) % len(N.FIRST_NAMES)]
    words = re.sub(r"[^A-Za-z ]", " ", v["legal_name"]).split()
    last = next((w for w in words if w in N.LAST_NAMES), None) or N.LAST_NAMES[_h("owner-last", v["vendor_id"]) % len(N.LAST_NAMES)]
    return f"{first} {last}"


ATTORNEY_TRADES = ("legal",)  # a law firm: its fees for services are reported whatever its entity


def entity_type(v: dict) -> str:
    if v["trade"] in ATTORNEY_TRADES:
        return C_CORP  # a professional corporation taxed as a C corporation (W-9 line 3)
    legal, roll = v["legal_name"], _h("entity", v["vendor_id"]) % 100
    if legal.endswith(("Inc.", "Corp.", "Inc")):
        return S_CORP if roll < 30 else C_CORP
    if legal.endswith("LLC"):
        if v.get("is_1099"):
            return LLC_DISREGARDED if roll < 45 else LLC_P
        return LLC_C if roll < 40 else (LLC_S if roll < 55 else LLC_P)
    return SOLE_PROP if roll < 55 else PARTNERSHIP


def tax_profile(v: dict) -> dict:
    """What the vendor's W-9 says and what the ERP keeps of it."""
    kind = entity_type(v)
    attorney = v["trade"] in ATTORNEY_TRADES
    services = attorney or TRADES[v["trade"]][0] == "sub"
    person = kind in (SOLE_PROP, LLC_DISREGARDED)
    on_file = v["status"] == "active" and (attorney or _h("w9", v["vendor_id"]) % 100 < (90 if services else 70))
    # No exempt payee code for an attorney: a corporation's exemption does not reach attorneys' fees.
    exempt = EXEMPT_CORPORATION if kind in CORPORATE and not attorney and _h("exempt", v["vendor_id"]) % 100 < 60 else None
    business = v["dba"] or v["legal_name"]
    return {
        "vendor_id": v["vendor_id"], "entity_type": kind, "services": services, "attorney": attorney,
        "form_1099": "NEC" if v.get("is_1099") else None,
        "w9_on_file": on_file,
        "w9_name": _owner(v) if person else v["legal_name"],
        "w9_business_name": business if person or v["dba"] else None,
        "exempt_payee_code": exempt, "tin": v["tin"], "tin_type": "EIN",
        "w9_signed": f"{2020 + _h('w9-year', v['vendor_id']) % 5}-{1 + _h('w9-m', v['vendor_id']) % 12:02d}-"
                     f"{1 + _h('w9-d', v['vendor_id']) % 28:02d}" if on_file else None,
    }


W9_FIELDS = ("entity_type", "w9_on_file", "w9_name", "w9_business_name", "exempt_payee_code", "w9_signed")


def add_w9_fields(vendors: list[dict]) -> None:
    """Put each vendor's W-9 in the book (the vendor master's tax fields)."""
    for v in vendors:
        p = tax_profile(v)
        v.update({k: p[k] for k in W9_FIELDS})


def tax_profiles(book: dict) -> dict[str, dict]:
    return {v["vendor_id"]: tax_profile(v) for v in book.get("vendors", [])}


def payments_by_year(book: dict, today: date) -> dict[tuple[str, int], dict[str, Decimal]]:
    """(vendor, year) -> amount paid by method ("Check", "ACH", ...), voided payments left out."""
    from .treasury import disbursements

    out: dict = defaultdict(lambda: defaultdict(lambda: Decimal("0.00")))
    for p in disbursements(book, today):
        if p["status"] == "voided":
            continue
        out[(p["vendor_id"], int(p["date"][:4]))][p["method"]] += p["amount"]
    return out


PAYER = {"name": "Company A Builders, Inc.", "address": "2200 Westinghouse Blvd", "city": "Charlotte", "state": "NC",
         "zip": "28273", "phone": "(704) 555-0142", "contact": "Accounts Payable"}


def payer_tin(book: dict) -> str:
    n = _h("payer-tin", book.get("meta", {}).get("company_id", "companyA")) % 10 ** 7
    return f"56-{n:07d}"


def reportable(profile: dict) -> bool:
    """Whether payments to the vendor belong on a 1099-NEC at all (DOMAIN.md section 6): services,
    not goods; not a corporation (an attorney is reported whatever its entity)."""
    return profile["services"] and (profile["entity_type"] not in CORPORATE or profile.get("attorney", False))
