"""What Levelset holds beyond the book: the lien-deadline rules of the book's states, the sub-tier
suppliers who served preliminary notices on the company's jobs, and the waivers they gave.

Company A is the prime contractor hired by each owner, so its own rights are the prime's: no
preliminary notice is owed to itself, a lien is recorded within the state's days of last
furnishing, and a public job carries no lien rights at all (the public owner's payment bond
protects the subs instead). Notices come the other way: a supplier to one of our first-tier subs
serves a preliminary notice on us, and until that supplier's unconditional waiver through the
last closed month is on file, paying the sub risks paying twice (DOMAIN.md §4, "Lien waivers" and
"Compliance holds"). H_levelset_notice_holds reads the same functions.
"""
from __future__ import annotations

import calendar
from datetime import date, timedelta

from portals.core.ids import stable_id

# Per state, the prime contractor's deadlines: (document, days after last furnishing, the statute).
# VA counts its 90 days from the end of the month of last furnishing, capped at 150 days.
RULES = {
    "NC": (("Claim of Lien on Real Property", 120, "N.C. Gen. Stat. §44A-12(b)"),
           ("Lien Enforcement Suit", 180, "N.C. Gen. Stat. §44A-13(a)")),
    "SC": (("Mechanic's Lien", 90, "S.C. Code §29-5-90"),
           ("Lien Enforcement Suit", 270, "S.C. Code §29-5-120 (six months after the lien is recorded)")),
    "VA": (("Memorandum of Mechanic's Lien", 90, "Va. Code §43-4 (90 days after the month of last furnishing, "
                                                  "at most 150 days)"),
           ("Lien Enforcement Suit", 270, "Va. Code §43-17 (six months after the memorandum is recorded)")),
}
PUBLIC_TYPES = {"public_works"}
WAIVER_TYPES = ("Conditional Progress", "Unconditional Progress", "Conditional Final", "Unconditional Final")
NOTICE_DAYS = 7  # notices received within this many days of the book's day are new (Open)
PICK = "levelset_notices"  # a book's own choice of the planted notices: [{"kind", "job", "vendor_id"}]
KINDS = ("dba", "conditional", "short", "covered")  # the planted notices' waiver situations

PLACES = ("Piedmont", "Catawba", "Tarheel", "Sandhills", "Yadkin", "Pamlico", "Lowcountry", "Tidewater",
          "Uwharrie", "Haw River", "Neuse", "Santee")
GOODS = {"concrete": "Ready-Mix", "masonry": "Masonry Supply", "electrical": "Electrical Supply",
         "plumbing": "Pipe & Valve", "hvac": "Sheet Metal Supply", "steel": "Rebar Supply",
         "roofing": "Roofing Supply", "drywall": "Gypsum Supply", "painting": "Coatings Supply",
         "carpentry": "Lumber & Millwork", "fire_protection": "Sprinkler Supply", "glazing": "Glass Supply",
         "excavation": "Aggregates", "paving": "Asphalt Supply", "flooring": "Flooring Distributors",
         "elevator": "Elevator Parts", "low_voltage": "Cable Supply", "landscaping": "Nursery Supply"}
SUFFIXES = (", LLC", ", Inc.", " Co.", " Corp.")


def is_public(job: dict) -> bool:
    return job["job_type"] in PUBLIC_TYPES


def month_end(d: date) -> date:
    return d.replace(day=calendar.monthrange(d.year, d.month)[1])


def last_furnished(job: dict, today: date) -> tuple[date, bool]:
    """The last day of furnishing and whether it is only estimated: a closed job's completion, an
    active job's estimated completion (never before the book's day)."""
    end = date.fromisoformat(job["est_completion"])
    if job["status"] == "closed":
        return end, False
    return max(end, today), True


def deadlines(job: dict, today: date) -> list[dict]:
    """The prime contractor's lien deadlines on a private job in a state the rules know."""
    if is_public(job) or job["state"] not in RULES:
        return []
    last, estimated = last_furnished(job, today)
    out = []
    for document, days, statute in RULES[job["state"]]:
        due = last + timedelta(days=days)
        if job["state"] == "VA" and document.startswith("Memorandum"):
            due = min(month_end(last) + timedelta(days=90), last + timedelta(days=150))
        elif job["state"] == "VA":
            lien = min(month_end(last) + timedelta(days=90), last + timedelta(days=150))
            due = lien + timedelta(days=183)
        out.append({"document": document, "due": due.isoformat(), "statute": statute, "estimated": estimated,
                    "status": "Upcoming" if due >= today else "Passed"})
    return out


def supplier_name(vendor: dict, salt: str) -> str:
    """A sub-tier supplier of the vendor's trade (not one of our vendors), named from its hash."""
    h = stable_id("levelset", "supplier", vendor["vendor_id"], salt, digits=12)
    goods = GOODS.get(vendor["trade"], "Building Supply")
    return f"{PLACES[h % len(PLACES)]} {goods}{SUFFIXES[(h // 7) % len(SUFFIXES)]}"


def findable(v: dict, vendors: list[dict]) -> bool:
    """Whether AP finds the sub in the ERP by the name a notice gives: the only vendor spelled like
    its legal name (and its DBA, if any), and Vista's spelling holds the name's first two words
    (Vista abbreviates some names past a search)."""
    from seeds.consistency import same_company

    first = " ".join(w.strip(".,") for w in v["legal_name"].split()[:2]).lower()
    alike = sum(same_company(x["legal_name"], v["legal_name"]) for x in vendors)
    dba_alike = v["dba"] and sum(same_company(x["dba"] or "", v["dba"]) or same_company(x["legal_name"], v["dba"])
                                 for x in vendors)
    return (alike == 1 and dba_alike in (None, 1) and first in v["names"]["vista"].lower()
            and same_company(v["names"]["vista"], v["legal_name"]))


def address(v: dict) -> str:
    """The hiring sub's address as a notice gives it (and as the vendor master keeps it)."""
    return f"{v['address']}, {v['city']}, {v['state']} {v['zip']}"


def _candidates(book: dict) -> list[tuple[dict, dict]]:
    """(job, sub) pairs for a notice: an active private job and a first-tier sub with an approved
    subcontract on it, an active vendor AP finds by name, in the book's order."""
    jobs = {j["job"]: j for j in book["jobs"]}
    vendors = {v["vendor_id"]: v for v in book["vendors"] if findable(v, book["vendors"])}
    out, seen = [], set()
    for c in book["commitments"]:
        job, v = jobs.get(c["job"]), vendors.get(c["vendor_id"])
        if (c["type"] == "subcontract" and c["status"] == "Approved" and job and v and job["status"] == "active"
                and not is_public(job) and job["state"] in RULES and v["status"] == "active"
                and (c["job"], c["vendor_id"]) not in seen):
            seen.add((c["job"], c["vendor_id"]))
            out.append((job, v))
    return out


def planted(book: dict) -> list[dict]:
    """The four new notices, one per kind, each on its own job and from a different sub's supplier:
    the book's own choice (the private world's salted pick) or the first fitting candidates."""
    from seeds.reference import EXPIRED_COI_VENDORS, RENEWED_COI_VENDOR

    jobs = {j["job"]: j for j in book["jobs"]}
    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    chosen = book.get(PICK)
    if chosen:
        picks = [(c["kind"], jobs[c["job"]], vendors[c["vendor_id"]]) for c in chosen]
    else:
        taken_jobs, taken = set(), set(EXPIRED_COI_VENDORS) | {RENEWED_COI_VENDOR}
        picks = []
        for kind in KINDS:
            pair = next((job, v) for job, v in _candidates(book)
                        if job["job"] not in taken_jobs and v["vendor_id"] not in taken
                        and (kind != "dba" or v["dba"]))
            taken_jobs.add(pair[0]["job"])
            taken.add(pair[1]["vendor_id"])
            picks.append((kind, *pair))
    return [notice(kind, job, v) for kind, job, v in picks]


def notice(kind: str, job: dict, v: dict, today: date | None = None) -> dict:
    """One planted notice: who served it, whom it says hired them, and the waiver on file."""
    from seeds.util import TODAY

    today = today or TODAY
    received = today - timedelta(days=2 + KINDS.index(kind))
    period = month_end(received.replace(day=1) - timedelta(days=1))  # the last closed month
    h = stable_id("levelset", "notice", job["job"], v["vendor_id"], digits=6)
    waiver = {"dba": None,
              "conditional": ("Conditional Progress", period),
              "short": ("Unconditional Progress", month_end(period.replace(day=1) - timedelta(days=1))),
              "covered": ("Unconditional Progress", period)}[kind]
    return {"kind": kind, "job": job["job"], "vendor_id": v["vendor_id"],
            "claimant": supplier_name(v, "planted"), "hired_by": v["dba"] if kind == "dba" else v["legal_name"],
            "hired_by_address": address(v),
            "received": received.isoformat(), "period_end": period.isoformat(),
            "amount": f"{25000 + h % 90 * 1000}.00",
            "waiver": None if waiver is None else {"type": waiver[0], "through": waiver[1].isoformat(),
                                                   "amount": f"{8000 + h % 40 * 500}.00"}}


def background(book: dict, today: date) -> list[dict]:
    """Older notices on the same kind of job, each resolved by the supplier's unconditional waiver:
    the rows a new notice sits among (one per fitting job and sub, for every second pair)."""
    new = planted(book)
    pairs = {(n["job"], n["vendor_id"]) for n in new}
    names = {n["claimant"] for n in new}  # every claimant's name is its own: a waiver matches by name
    out = []
    for i, (job, v) in enumerate(_candidates(book)):
        if i % 2 or (job["job"], v["vendor_id"]) in pairs:
            continue
        name = next(n for n in (supplier_name(v, f"background{k}") for k in range(50)) if n not in names)
        names.add(name)
        h = stable_id("levelset", "old-notice", job["job"], v["vendor_id"], digits=6)
        received = max(date.fromisoformat(job["start_date"]), today - timedelta(days=400)) + timedelta(days=20 + h % 60)
        through = month_end(today.replace(day=1) - timedelta(days=1))
        out.append({"kind": "resolved", "job": job["job"], "vendor_id": v["vendor_id"],
                    "claimant": name, "hired_by": v["legal_name"], "hired_by_address": address(v),
                    "received": min(received, today - timedelta(days=30)).isoformat(),
                    "period_end": through.isoformat(), "amount": f"{12000 + h % 80 * 1000}.00",
                    "waiver": {"type": "Unconditional Progress", "through": through.isoformat(),
                               "amount": f"{4000 + h % 50 * 500}.00"}})
    return out
