"""The vendor master: ~320 subs and suppliers, per-system names and ids, near-duplicates."""
from __future__ import annotations

import random
import re
from datetime import date

from . import names as N
from .erp_keys import ERP_KEYS, assign_vendor_ids
from .reference import EXPIRED_COI_VENDORS, N_VENDORS, RENEWED_COI_VENDOR, TRADES
from .util import add_days, iso, unique_int

# vendor_id -> (legal name, dba, trade, email)
FIXED_VENDORS = {
    "V1000": ("Carolina Steel Erectors, Inc.", None, "steel", None),
    "V1001": ("J.S. Morales Excavating, Inc.", "JSM Excavating", "excavation", "ap@jsmexcavating.com"),
    "V1002": ("Piedmont Concrete Construction, LLC", None, "concrete", None),
    "V1003": ("Blue Ridge Roofing Co.", "Summit Roofing", "roofing", None),
    "V1004": ("Tar Heel Plumbing & Mechanical, Inc.", None, "plumbing", None),
    "V1005": ("J&M Site Services, LLC", None, "excavation", None),
    "V1006": ("Harbor Drywall & Acoustics, Inc.", None, "drywall", None),
    "V1007": ("Delgado Painting, LLC", None, "painting", None),
    "V1008": ("JSM Electric Supply, Inc.", None, "electric_supply", None),
    "V1009": ("Morales Trucking & Hauling, LLC", None, "excavation", None),
    "V1042": ("Walsh Electrical, Inc.", None, "electrical", "billing@walshelectrical.com"),
    "V1043": ("Walsh Electric Supply Co.", None, "electric_supply", None),
}
# Each system's spelling key in `names`, and the app that shows it.
SYSTEM_APPS = {"procore": "procore", **{keys["names"]: app for app, keys in ERP_KEYS.items()}}
# The systems whose spelling diverges on purpose, and the task family that needs it.
SYSTEM_FAMILY = {"procore": "H_procore_erp_sync", "vista": "H_procore_erp_sync", "intacct": "C_invoice_code"}
DIVERGENT_SHARE = 0.12
DIVERGENT_SYSTEMS = {"vista": 45, "intacct": 35, "procore": 20}  # whose spelling drifts, how often
MAJOR_TRADES = {"excavation", "concrete", "electrical", "plumbing", "hvac", "drywall", "steel"}


def upper_name(name: str) -> str:
    """Uppercase, punctuation dropped ("JS MORALES EXCAVATING INC"), as Vista keys names."""
    return re.sub(r"\s+", " ", re.sub(r"[.,']", "", name)).strip().upper()


def plain_name(name: str) -> str:
    """Punctuation dropped, case kept ("JS Morales Excavating Inc"), as Intacct keys names."""
    return re.sub(r"\s+", " ", re.sub(r"[.,']", "", name)).strip()


def caps_name(name: str) -> str:
    """Capitals with the punctuation kept ("J.S. MORALES EXCAVATING, INC."), as CMiC keeps names."""
    return name.upper()


NAME_STYLES = {"legal": lambda s: s, "upper": upper_name, "plain": plain_name, "caps": caps_name}
FORMATTERS = {"procore": NAME_STYLES["legal"],
              **{keys["names"]: NAME_STYLES[keys["name_style"]] for keys in ERP_KEYS.values()}}


def _core(legal: str) -> str:
    for suffix in sorted(set(N.SUFFIXES), key=lambda x: (-len(x), x)):
        if legal.endswith(suffix):
            return legal[: -len(suffix)]
    return legal


def _legal_name(rng: random.Random, trade: str) -> str:
    word = rng.choice(TRADES[trade][3])
    last, last2 = rng.sample(N.LAST_NAMES, 2)
    pattern = rng.randrange(6)
    if pattern == 0:
        core = f"{last} {word}"
    elif pattern == 1:
        core = f"{rng.choice(N.PLACE_WORDS)} {word}"
    elif pattern == 2:
        core = f"{last} & {last2} {word}"
    elif pattern == 3:
        core = f"{rng.choice('ABCDEGHJKLMRST')}.{rng.choice('ABCDEGHJKLMRST')}. {last} {word}"
    elif pattern == 4:
        core = f"{last} Brothers {word}"
    else:
        core = f"{rng.choice(N.PLACE_WORDS)} {word} Services" if "Services" not in word else f"{last} {word}"
    suffix = rng.choice(N.SUFFIXES)
    return core + (", Inc." if "&" in core and "&" in suffix else suffix)


def _dba(rng: random.Random, legal: str, trade: str) -> str:
    words = [w for w in re.sub(r"[^A-Za-z ]", " ", _core(legal)).split() if w[0].isupper()]
    initials = "".join(w[0] for w in words[:3])
    return f"{initials} {rng.choice(TRADES[trade][3])}" if len(initials) >= 2 else f"{words[0]} Pros"


def _domain(legal: str, dba: str | None, used: set[str]) -> str:
    base = re.sub(r"[^a-z]", "", (dba or _core(legal)).lower().replace("&", "and"))[:24]
    domain, n = f"{base}.com", 2
    while domain in used:
        domain, n = f"{base}{n}.com", n + 1
    used.add(domain)
    return domain


def _typo(name: str, rng: random.Random) -> str:
    words = name.split(" ")
    i = max(range(len(words)), key=lambda k: len(words[k]))
    w = words[i]
    if len(w) < 4:
        return name + "s"
    j = rng.randint(1, len(w) - 3)
    words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2:]
    return " ".join(words)


def _variant(rng: random.Random, v: dict, system: str) -> tuple[str, str]:
    """A genuinely different name for one system, and why it differs."""
    fmt, legal = FORMATTERS[system], v["legal_name"]
    if v["dba"] and rng.random() < 0.6:
        return fmt(v["dba"]), f"{system} carries the DBA '{v['dba']}' instead of the legal name"
    for long, short in N.ALT_WORDS.items():
        if long in legal and rng.random() < 0.7:
            return fmt(legal.replace(long, short)), f"{system} abbreviates '{long}' as '{short}'"
    if rng.random() < 0.5:
        word = [w for w in TRADES[v["trade"]][3] if w not in legal] or ["Contracting"]
        old = _core(legal).rsplit(" ", 1)[0] + " " + rng.choice(word) + ", Inc."
        return fmt(old), f"{system} still has the vendor's former name '{old}'"
    typo = _typo(fmt(legal), rng)
    return typo, f"{system} name was keyed with a typo ('{typo}')"


def _tin(rng: random.Random, used: set[str]) -> str:
    while True:
        tin = f"{rng.randint(10, 98)}-{rng.randint(1000000, 9999999)}"
        if tin not in used:
            used.add(tin)
            return tin


def build_vendors(rng: random.Random, divergences: list[dict]) -> list[dict]:
    trades = [t for t in TRADES for _ in range(3 if t in MAJOR_TRADES else 2)]
    used_tin, used_domains, used_names, used_pc = set(), set(), set(), set()
    vendors = []
    for n in range(N_VENDORS):
        vid = f"V{1000 + n}"
        if vid in FIXED_VENDORS:
            legal, dba, trade, email = FIXED_VENDORS[vid]
        else:
            trade = rng.choice(trades)
            legal = _legal_name(rng, trade)
            while legal in used_names or any(legal.startswith(x[0][:12]) for x in FIXED_VENDORS.values()):
                legal = _legal_name(rng, trade)
            dba = _dba(rng, legal, trade) if rng.random() < 0.18 else None
            email = None
        used_names.add(legal)
        domain = email.split("@")[1] if email else _domain(legal, dba, used_domains)
        used_domains.add(domain)
        city, state, zip3, area = rng.choice(N.CITIES)
        status = "inactive" if vid not in FIXED_VENDORS and rng.random() < 0.07 else "active"
        if vid in EXPIRED_COI_VENDORS or vid == RENEWED_COI_VENDOR:
            coi = add_days(date(2026, 3, 1), rng.randint(0, 110))
        elif status == "inactive":
            coi = add_days(date(2024, 1, 1), rng.randint(0, 700))
        else:
            coi = add_days(date(2026, 7, 20), rng.randint(0, 330))
        corp = legal.endswith(("Inc.", "Corp.", "Inc"))
        vendors.append({
            "vendor_id": vid, "legal_name": legal, "dba": dba, "trade": trade,
            "tin": _tin(rng, used_tin),
            "address": f"{rng.randint(100, 9990)} {rng.choice(N.STREETS)} {rng.choice(N.STREET_SUFFIXES)}",
            "city": city, "state": state, "zip": f"{zip3}{rng.randint(1, 99):02d}",
            "email": email or f"{rng.choice(['ap', 'billing', 'accounting', 'ar', 'office'])}@{domain}",
            "phone": f"({area}) {rng.randint(201, 989)}-{rng.randint(1000, 9999)}",
            "is_1099": (not corp) and TRADES[trade][0] == "sub" and rng.random() < 0.85,
            "status": status, "coi_expires": iso(coi),
            "procore_vendor_id": unique_int(f"procore:{vid}", 7, used_pc),
            "names": {s: f(legal) for s, f in FORMATTERS.items()},
        })
    assign_vendor_ids(vendors)
    _diverge_names(rng, vendors, divergences)
    return vendors


def _diverge_names(rng: random.Random, vendors: list[dict], divergences: list[dict]) -> None:
    pool = [v for v in vendors if v["vendor_id"] not in FIXED_VENDORS]
    for v in rng.sample(pool, round(DIVERGENT_SHARE * len(vendors))):
        system = rng.choices(list(DIVERGENT_SYSTEMS), weights=list(DIVERGENT_SYSTEMS.values()))[0]
        name, why = _variant(rng, v, system)
        if name == v["names"][system]:
            name, why = _typo(name, rng), f"{system} name was keyed with a typo"
        v["names"][system] = name
        others = [SYSTEM_APPS[s] for s in SYSTEM_APPS if s != system]
        divergences.append({
            "entity": "vendor", "key": v["vendor_id"], "field": f"names.{system}",
            "systems": [SYSTEM_APPS[system]] + others, "family": SYSTEM_FAMILY[system],
            "why": f"{why}; the other systems spell '{v['legal_name']}'.",
        })


# The construction-law firm Company A retained in 2025: a professional corporation, paid by check
# for legal services. It was added to the vendor master after the others, so it takes the next
# number in each ERP's sequence and draws its figures from its own section of the seed; nothing
# built before it moves.
ATTORNEY_VENDOR = f"V{1000 + N_VENDORS}"
ATTORNEY_TRADE = "legal"
ATTORNEY_LEGAL_NAME = "Hargrove & Lindqvist Construction Law, P.C."


def attorney_vendor(rng: random.Random, vendors: list[dict]) -> dict:
    """The law firm's vendor record, numbered after every vendor already in `vendors`."""
    from .erp_keys import name_code

    legal = ATTORNEY_LEGAL_NAME
    used_tin = {v["tin"] for v in vendors}
    v = {
        "vendor_id": ATTORNEY_VENDOR, "legal_name": legal, "dba": None, "trade": ATTORNEY_TRADE,
        "tin": _tin(rng, used_tin),
        "address": f"{rng.randint(100, 990)} South Tryon Street, Suite {rng.randint(2, 29)}00",
        "city": "Charlotte", "state": "NC", "zip": f"282{rng.randint(2, 9):02d}",
        "email": "billing@hargrovelindqvist.com",
        "phone": f"(704) {rng.randint(201, 989)}-{rng.randint(1000, 9999)}",
        "is_1099": True,  # attorneys' fees are reported whatever the firm's entity
        "status": "active", "coi_expires": iso(add_days(date(2026, 7, 20), rng.randint(0, 330))),
        "procore_vendor_id": unique_int(f"procore:{ATTORNEY_VENDOR}", 7, {x["procore_vendor_id"] for x in vendors}),
        "names": {s: f(legal) for s, f in FORMATTERS.items()},
    }
    for keys in ERP_KEYS.values():
        rule, field = keys["vendor_ids"], keys["vendor_field"]
        if rule["rule"] == "numbered" and "format" in rule:  # a formatted id: the next number in it
            n = max(int(re.sub(r"\D", "", str(x[field]))) for x in vendors) + rule["step"]
            v[field] = rule["format"].format(n=n)
        elif rule["rule"] == "numbered":
            v[field] = max(x[field] for x in vendors) + rule["step"]
        elif rule["rule"] == "name_code":
            stem = name_code(legal, rule["letters"])
            v[field] = f"{stem}{1 + sum(1 for x in vendors if str(x[field]).startswith(stem)):02d}"
    return v
