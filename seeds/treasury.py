"""Company A's treasury, derived from the book: the AP disbursement register (the weekly check runs
and ACH payments that pay the book's paid bills, net of retainage), and what the company's bank
sees of it: the accounts, a year of bank transactions, the positive-pay issue files uploaded from
the check register and the checks presented on the clock's day, with the exceptions among them.

Everything is a pure function of the book, the seed and the day, so the ERP's payment history
(portals/erp/seed_payables.py) and every bank portal (portals/bank/) read the same register and
tie out: a check's number, date, amount and payee are the same on both sides. What the bank shows
differently (its payee text, one ACH debit for a batch of payments, the posting date, the planted
positive-pay exceptions) is registered in seeds/divergences.py (treasury_entries).
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache

from .util import CENT, section_rng

FRIDAY = 4
FIRST_CHECK = 40001
STALE_DAYS = 180  # a check older than this is stale-dated: the bank returns it unless told to pay
YEAR_DAYS = 365  # the bank keeps a year of transactions online
CARD_VENDOR_PCT = 30  # of the vendors paid by ACH, this share also takes the company card ...
CARD_PAYMENT_PCT = 35  # ... for about this share of their payments
CARD_VENDORS = ("V1158",)  # and so does this 1099 subcontractor
CARD_LIMIT = Decimal("25000.00")  # the card's limit for one payment
FIRST_MANUAL_CHECK = 9001  # the manual-check stock the law firm's fees are paid from (Vista AP Manual Payment Entry)


def _h(*parts) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")


def friday_on_or_before(day: date) -> date:
    return day - timedelta(days=(day.weekday() - FRIDAY) % 7)


def business_day(day: date) -> date:
    """The day, or the next weekday (the bank posts on business days)."""
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def add_business_days(day: date, n: int) -> date:
    while n > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            n -= 1
    return day


def previous_business_day(day: date) -> date:
    day -= timedelta(days=1)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


# -- the AP disbursement register ---------------------------------------------------------------

def retainage_held(book: dict, today: date) -> dict[str, dict]:
    """Retainage withheld on each subcontract bill (the pay application's own figure when the book
    has it) and, for a complete subcontract's paid bills, the day it was released."""
    commitments = {c["number"]: c for c in book.get("commitments", [])}
    figures = {(r.get("commitment"), r.get("invoice_number")): r.get("retainage") for r in book.get("requisitions", [])}
    last_bill: dict[str, str] = defaultdict(str)
    for b in book.get("ap_bills", []):
        if b.get("commitment"):
            last_bill[b["commitment"]] = max(last_bill[b["commitment"]], b["invoice_date"])
    yesterday = today - timedelta(days=1)
    out = {}
    for b in sorted(book.get("ap_bills", []), key=lambda b: b["bill_id"]):
        c = commitments.get(b.get("commitment") or "")
        pct = Decimal(str(c.get("retainage_pct") or "0")) if c else Decimal(0)
        if c is None or c.get("type", "subcontract") != "subcontract" or pct <= 0:
            continue
        figure = figures.get((c["number"], b["invoice_number"]))
        amount = Decimal(str(figure)) if figure else (Decimal(b["amount"]) * pct / 100).quantize(CENT)
        released = c.get("status") == "Complete" and b.get("status") == "paid"
        when = min(date.fromisoformat(last_bill[c["number"]]) + timedelta(days=45), yesterday) if released else None
        out[b["bill_id"]] = {"held": amount, "released": when.isoformat() if when else None}
    return out


def plan(book: dict) -> dict:
    """The private split's salted plan of the bank's day (tasks/families/t_positive_pay.py puts it
    in a private book's meta); the public book has none, and then nothing below changes."""
    return book.get("meta", {}).get("positive_pay") or {}


def card_vendors(book: dict) -> tuple:
    """The 1099 subcontractors that also take the card: the book's, and in a private world the
    ones its salt added (tasks/families/r_1099nec.py)."""
    return CARD_VENDORS + tuple(book.get("meta", {}).get("card_vendors", ()))


def card_key(book: dict, payment: dict) -> tuple:
    """What decides whether the card took a payment: for a card taker a private salt added, salted
    too (the public book's keys unchanged)."""
    meta = book.get("meta", {})
    if meta.get("card_salt") and payment["vendor_id"] in meta.get("card_vendors", ()):
        return "card", meta["card_salt"], payment["payment_id"]
    return "card", payment["payment_id"]


def forget() -> None:
    """Drop the cached registers: a private world's salt edits its book in place after a family
    may already have read the register."""
    _disbursements.cache_clear()


def _salted(book: dict, *parts) -> tuple:
    """A hash key, with the plan's salt in it when the book has one (the public keys unchanged)."""
    salt = plan(book).get("salt")
    return (parts[0], salt, *parts[1:]) if salt else parts


def _key(book: dict) -> tuple:
    return (book.get("meta", {}).get("seed", 7), len(book.get("ap_bills", [])), len(book.get("vendors", [])))


def disbursements(book: dict, today: date) -> list[dict]:
    """The company's AP payments: a weekly check run each Friday pays each paid bill net of its
    retainage, on the Friday before it is due; released retainage is paid by its own payment. A
    vendor is paid by check or by ACH, always the same way. A few checks were voided and reissued
    a week later under a new number; a few old checks were never cashed (stale-dated). A few ACH
    vendors were paid some of the time with the company card instead (method "Card")."""
    return [dict(p, bills=list(p["bills"])) for p in _disbursements(_Frozen(book), today)]


class _Frozen:
    """The book, hashable by identity for the register's cache (the book is never mutated)."""

    def __init__(self, book):
        self.book = book

    def __hash__(self):
        return id(self.book)

    def __eq__(self, other):
        return isinstance(other, _Frozen) and other.book is self.book


@lru_cache(maxsize=4)
def _disbursements(frozen: _Frozen, today: date) -> tuple:
    book = frozen.book
    rng = section_rng(int(book.get("meta", {}).get("seed", 7)), "ap_disbursements")
    cap = friday_on_or_before(today - timedelta(days=1))
    state_of = {j["job"]: j.get("state", "") for j in book.get("jobs", [])}
    held = retainage_held(book, today)
    groups = defaultdict(list)  # (date, vendor, job state, kind) -> [(bill_id, amount)]
    for b in sorted(book.get("ap_bills", []), key=lambda b: b["bill_id"]):
        if b.get("status") != "paid":
            continue
        due = date.fromisoformat(b.get("due_date") or b["invoice_date"])
        earliest = date.fromisoformat(b["invoice_date"]) + timedelta(days=7)
        when = min(max(friday_on_or_before(due - timedelta(days=3)), friday_on_or_before(earliest + timedelta(days=6))),
                   cap)
        retained = held.get(b["bill_id"])
        net = Decimal(b["amount"]) - (retained["held"] if retained else Decimal(0))
        groups[(when.isoformat(), b["vendor_id"], state_of.get(b["job"], ""), "bills")].append((b["bill_id"], net))
        if retained is not None and retained["released"]:
            release = min(friday_on_or_before(date.fromisoformat(retained["released"]) + timedelta(days=6)), cap)
            groups[(release.isoformat(), b["vendor_id"], state_of.get(b["job"], ""), "retainage")].append(
                (b["bill_id"], retained["held"]))
    methods: dict[str, str] = {}
    check, ach_on, n = FIRST_CHECK, defaultdict(int), 0
    out = []
    from .vendors import ATTORNEY_VENDOR

    manual = [(key, paid) for key, paid in sorted(groups.items()) if key[1] == ATTORNEY_VENDOR]
    for (when, vendor, state, kind), paid in sorted(groups.items()):
        if vendor == ATTORNEY_VENDOR:
            continue  # paid by manual check, below
        method = methods.setdefault(vendor, "ACH" if rng.random() < 0.35 else "Check")
        voided = method == "Check" and rng.random() < 0.01
        attempts = (("voided", when), ("reissued", min(date.fromisoformat(when) + timedelta(days=7), cap).isoformat())) \
            if voided else (("paid", when),)
        original = None
        for state_, day in attempts:
            n += 1
            if method == "Check":
                document, check = str(check), check + 1
            else:
                ach_on[day] += 1
                document = f"ACH-{day.replace('-', '')}-{ach_on[day]:03d}"
            status = "voided" if state_ == "voided" else (
                "cleared" if date.fromisoformat(day) <= today - timedelta(days=21) else "paid")
            row = {"seq": n, "payment_id": f"PYMT-{n:05d}", "date": day, "vendor_id": vendor, "job_state": state,
                   "kind": kind, "method": method, "number": document, "status": status,
                   "amount": sum((a for _b, a in paid), start=Decimal("0.00")),
                   "bills": tuple(paid), "reissue_of": original if state_ == "reissued" else None}
            if state_ == "voided":
                original = document
            out.append(row)
    # Two old checks were never cashed: still outstanding, now stale-dated.
    old = [p for p in out if p["method"] == "Check" and p["status"] == "cleared" and p["kind"] == "bills"
           and today - timedelta(days=330) <= date.fromisoformat(p["date"]) <= today - timedelta(days=STALE_DAYS + 20)]
    for p in sorted(old, key=lambda p: _h(*_salted(book, "stale", p["number"])))[:2]:
        p["status"] = "paid"
        p["stale"] = True
    # A few vendors paid by ACH also take the company card for some invoices (the card network
    # reports those on a 1099-K, so they stay off the company's 1099-NEC).
    card_takers = card_vendors(book)
    for p in out:
        if p["method"] == "ACH" and (p["vendor_id"] in card_takers or _h("card-vendor", p["vendor_id"]) % 100 < CARD_VENDOR_PCT) \
                and p["amount"] <= CARD_LIMIT and _h(*card_key(book, p)) % 100 < CARD_PAYMENT_PCT:
            p["method"], p["number"] = "Card", f"CARD-{p['date'].replace('-', '')}-{p['seq']:05d}"
    # The law firm (added to the book last) is paid by manual check from its own stock, numbered
    # after every other payment so none of theirs moves.
    for i, ((when, vendor, state, kind), paid) in enumerate(manual):
        n += 1
        out.append({"seq": n, "payment_id": f"PYMT-{n:05d}", "date": when, "vendor_id": vendor, "job_state": state,
                    "kind": kind, "method": "Check", "number": str(FIRST_MANUAL_CHECK + i),
                    "status": "cleared" if date.fromisoformat(when) <= today - timedelta(days=21) else "paid",
                    "amount": sum((a for _b, a in paid), start=Decimal("0.00")), "bills": tuple(paid),
                    "reissue_of": None})
    return tuple(out)


# -- what the bank sees -------------------------------------------------------------------------

def bank_payee(name: str) -> str:
    """The payee line as the bank's image capture reads it: upper case, punctuation dropped."""
    text = "".join(ch if ch.isalnum() or ch in " &" else " " for ch in name.upper())
    return " ".join(text.split())


ABBREVIATIONS = {"CONSTRUCTION": "CONSTR", "ELECTRIC": "ELEC", "ELECTRICAL": "ELEC", "MECHANICAL": "MECH",
                 "CONCRETE": "CONC", "COMPANY": "CO", "CORPORATION": "CORP", "SERVICES": "SVCS",
                 "SUPPLY": "SUP", "PLUMBING": "PLBG", "ROOFING": "RFG", "EQUIPMENT": "EQUIP", "STEEL": "STL",
                 "ERECTORS": "ERECT", "INCORPORATED": "INC", "BROTHERS": "BROS", "CONTRACTORS": "CONTR",
                 "MASONRY": "MAS", "LANDSCAPING": "LNDSCP", "INTERIORS": "INTR", "ASSOCIATES": "ASSOC"}


def abbreviated(name: str) -> str:
    words = [ABBREVIATIONS.get(w, w) for w in bank_payee(name).split() if w not in ("INC", "LLC")]
    return " ".join(words)


def presented_on(check: dict) -> date | None:
    """The business day a check reached the bank, 2 to 10 business days after its date; None for a
    voided or stale (never cashed) check."""
    if check["status"] == "voided" or check.get("stale"):
        return None
    return add_business_days(date.fromisoformat(check["date"]), 2 + _h("present", check["number"]) % 9)


def _transposed(amount: Decimal, pick: int = 0) -> Decimal:
    """The amount with two neighbouring unequal digits swapped (a keying error): the `pick`-th such
    pair from the dollars' last digit leftwards (the public day's is the first)."""
    digits = list(f"{amount:.2f}".replace(".", ""))
    pairs = [i for i in range(len(digits) - 3, 0, -1) if digits[i] != digits[i - 1]]
    if pairs:
        i = pairs[pick % len(pairs)]
        digits[i], digits[i - 1] = digits[i - 1], digits[i]
    return Decimal("".join(digits)) / 100


def positive_pay_day(book: dict, today: date) -> dict:
    """The checks presented on `today` against the operating account, and which of them are
    exceptions: each exception with what the bank read off the item (serial, amount, payee) and
    what the issue file holds, the reason the bank flagged it, and the decision a controller who
    checked the register would make (the planted answer, never shown to an agent)."""
    vendors = {v["vendor_id"]: v for v in book.get("vendors", [])}
    checks = [p for p in disbursements(book, today) if p["method"] == "Check"]
    by_number = {p["number"]: p for p in checks}
    presented = [p for p in checks if presented_on(p) == today]
    salted = plan(book)
    fresh = sorted((p for p in checks if p["status"] == "paid" and not p.get("stale") and presented_on(p)
                    and presented_on(p) >= today), key=lambda p: (_h(*_salted(book, "pp", today, p["number"]))))
    used: set[str] = set()

    def take(pred) -> dict | None:
        for p in fresh:
            if p["number"] not in used and pred(p):
                used.add(p["number"])
                return p
        return None

    def payee(p):
        return vendors[p["vendor_id"]]["legal_name"]

    exceptions = []

    def add(kind, p, serial, amount, presented_payee, decision, why):
        exceptions.append({"kind": kind, "serial": serial, "amount": amount, "payee": presented_payee,
                           "issued": p, "decision": decision, "why": why})

    long_name = take(lambda p: len(bank_payee(payee(p))) > 24)
    if long_name:
        add("payee_truncated", long_name, long_name["number"], long_name["amount"], bank_payee(payee(long_name))[:20].strip(),
            "Pay", "the bank's payee line is the issued payee cut off at 20 characters")
    short = take(lambda p: abbreviated(payee(p)) != bank_payee(payee(p)).replace(" INC", "").replace(" LLC", ""))
    if short:
        add("payee_abbreviated", short, short["number"], short["amount"], abbreviated(payee(short)), "Pay",
            "the payee is the issued payee with its words abbreviated")
    other = take(lambda p: True)
    if other:
        add("payee_different", other, other["number"], other["amount"], salted.get("payee", "MARCUS T WHITFIELD"), "Return",
            "the payee is a person the check was never written to")
    swap = salted.get("transpose", 0)
    keyed = take(lambda p: _transposed(p["amount"], swap) != p["amount"])
    if keyed:
        add("amount_transposed", keyed, keyed["number"], _transposed(keyed["amount"], swap), bank_payee(payee(keyed)),
            "Return", "the presented amount swaps two digits of the issued amount")
    # The issue file of the latest check run was loaded twice (before the bank checked a file's
    # contents against the files already loaded): each check it issued is on two issue records, so
    # the bank flags the run's check presented today though it matches. The run issues no check
    # since voided or stale; its void of an earlier check found that check void already.
    latest = max((p["date"] for p in checks), default=None)

    def clean_run(p) -> bool:
        run = [q for q in checks if q["date"] == p["date"]]
        return p["date"] == latest and not p["reissue_of"] and all(
            q["status"] in ("paid", "cleared") and not q.get("stale") for q in run)
    twice = take(clean_run)
    loaded_twice = None
    if twice:
        add("issue_loaded_twice", twice, twice["number"], twice["amount"], bank_payee(payee(twice)), "Pay",
            f"the issue file of the {twice['date']} check run was loaded twice, so the serial is on two issue "
            f"records; the check itself matches the issued check")
        loaded_twice = {"run": twice["date"], "serials": sorted(q["number"] for q in checks if q["date"] == twice["date"]),
                        "serial": twice["number"]}
    cleared = sorted((p for p in checks if p["status"] == "cleared" and date.fromisoformat(p["date"]) >= today - timedelta(days=60)),
                     key=lambda p: _h(*_salted(book, "dup", today, p["number"])))
    if cleared:
        d = cleared[0]
        add("duplicate", d, d["number"], d["amount"], bank_payee(payee(d)), "Return",
            f"check {d['number']} was already paid on {presented_on(d).isoformat()}")
    stale = next((p for p in sorted(checks, key=lambda p: _h(*_salted(book, "stale-pick", p["number"])) if salted else 0)
                  if p.get("stale")), None)
    if stale:
        add("stale_dated", stale, stale["number"], stale["amount"], bank_payee(payee(stale)), "Return",
            f"the check is dated {stale['date']}, more than {STALE_DAYS} days ago")
    if salted:  # a salted void of the bank's year, not the latest
        voids = sorted((p for p in checks if p["status"] == "voided"
                        and date.fromisoformat(p["date"]) >= today - timedelta(days=YEAR_DAYS)),
                       key=lambda p: _h(*_salted(book, "void", p["number"])))
    else:
        voids = sorted(checks, key=lambda p: p["date"], reverse=True)
    void = next((p for p in voids if p["status"] == "voided"), None)
    if void:
        add("voided", void, void["number"], void["amount"], bank_payee(payee(void)), "Return",
            "the check was voided and reissued under a new number")
    top = max(int(p["number"]) for p in checks) if checks else FIRST_CHECK
    forged = {"number": str(top + salted.get("forged_gap", 37 + _h("forged", today) % 40)), "date": None,
              "amount": None, "vendor_id": None}
    forged_amount = Decimal(salted["forged_amount"]) if "forged_amount" in salted else \
        Decimal("4870.00") + Decimal(_h("forged-amount", today) % 900)
    add("not_issued", forged, forged["number"], forged_amount, salted.get("forged_payee", "DELTA SUPPLY PARTNERS"),
        "Return", "no check with this serial was ever issued")
    flagged = {e["serial"] for e in exceptions}
    matched = [p for p in presented if p["number"] not in flagged]
    return {"day": today.isoformat(), "presented": matched, "exceptions": exceptions, "by_number": by_number,
            "loaded_twice": loaded_twice}


# -- a year of bank transactions ----------------------------------------------------------------

def _item(day: date, code: str, direction: str, amount: Decimal, text: str, ref: str | None = None) -> dict:
    return {"date": day.isoformat(), "type_code": code, "direction": direction, "amount": amount.quantize(CENT),
            "text": text, "customer_reference": ref}


def bank_activity(book: dict, today: date) -> dict:
    """Each account's items over the bank's year online, oldest first, and its opening balance:
    the operating account pays the register's checks (on the day each reached the bank) and one
    ACH settlement per payment date for that day's ACH payments, receives the owners' payments,
    funds payroll and pays the monthly analysis fee; the payroll account is funded and drained
    each Friday; the money market earns monthly interest. The clock's day holds only what had
    posted by the morning (checks presented, no late items)."""
    rng = section_rng(int(book.get("meta", {}).get("seed", 7)), "bank_activity")
    start = today - timedelta(days=YEAR_DAYS)
    day_pp = positive_pay_day(book, today)
    excepted = {e["serial"] for e in day_pp["exceptions"]}
    ops, payroll, mm = [], [], []
    register = disbursements(book, today)
    for p in register:
        if p["method"] != "Check":
            continue
        when = presented_on(p)
        if when is None or not start <= when <= today or (when == today and p["number"] in excepted):
            continue
        ops.append(_item(when, "475", "debit", p["amount"], f"CHECK {p['number']}", p["number"]))
    ach = defaultdict(list)
    for p in register:
        if p["method"] == "ACH" and p["status"] != "voided":
            ach[p["date"]].append(p)
    for day, rows in sorted(ach.items()):
        when = date.fromisoformat(day)
        if start <= when < today:
            ops.append(_item(when, "469", "debit", sum((r["amount"] for r in rows), start=Decimal(0)),
                             f"ACH ORIG SETTLEMENT CCD {len(rows)} ITEMS {when:%m%d}", f"B{when:%y%m%d}"))
    day = start
    while day < today:
        if day.weekday() == FRIDAY:
            net = Decimal(rng.randint(14800000, 21500000)) / 100
            tax = (net * Decimal("0.31")).quantize(CENT)
            ops.append(_item(day, "506", "debit", net + tax, "BOOK TRANSFER DEBIT TO PAYROLL FUNDING"))
            payroll.append(_item(day, "206", "credit", net + tax, "BOOK TRANSFER CREDIT FROM OPERATING"))
            payroll.append(_item(day, "673", "debit", net, f"PAYROLL DIRECT DEP PPD {day:%m%d}"))
            payroll.append(_item(day, "455", "debit", tax, "IRS USATAXPYMT EFTPS"))
        if day.day == 1 or (day.day <= 3 and day.weekday() == 0):
            if not any(i["type_code"] == "661" and i["date"][:7] == day.isoformat()[:7] for i in ops):
                when = business_day(day)
                ops.append(_item(when, "661", "debit", Decimal(rng.randint(64000, 148000)) / 100,
                                 f"ACCOUNT ANALYSIS FEE {(when.replace(day=1) - timedelta(days=1)):%b %Y}".upper()))
        day += timedelta(days=1)
    jobs = {j["job"]: j for j in book.get("jobs", [])}
    billed = defaultdict(Decimal)
    for b in book.get("ap_bills", []):
        billed[(b["job"], b["invoice_date"][:7])] += Decimal(b["amount"])
    receipts = []
    for (job, month), total in sorted(billed.items()):
        y, m = int(month[:4]), int(month[5:])
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        when = business_day(date(y, m, 15 + _h("owner", job, month) % 14))
        if start <= when < today:
            receipts.append((when, job, month, total))
    # The owners pay what was billed them, the costs marked up so the year's cash about breaks even.
    spent = sum(i["amount"] for i in ops)
    factor = ((spent + Decimal("650000")) / sum(t for *_x, t in receipts)).quantize(Decimal("0.0001"))
    for when, job, month, total in receipts:
        owner = jobs.get(job, {}).get("customer", "OWNER")
        amount = (total * factor).quantize(CENT)
        if _h("owner-ach", job) % 3:
            ops.append(_item(when, "195", "credit", amount, f"WIRE TYPE:FED IN ORIG:{bank_payee(owner)[:30]} REF:{job}-{month}"))
        else:
            ops.append(_item(when, "165", "credit", amount, f"{bank_payee(owner)[:22]} CCD PAYMENT {job}"))
    balance = Decimal("3250000.00")
    month = start.replace(day=1)
    while month < today.replace(day=1):
        month = (month.replace(day=28) + timedelta(days=4)).replace(day=1)
        interest = (balance * Decimal("0.0385") / 12).quantize(CENT)
        when = previous_business_day(month)
        if when >= start:
            mm.append(_item(when, "354", "credit", interest, "INTEREST PAYMENT"))
            balance += interest
    out = {}
    for key, items, floor in (("operating", ops, Decimal("850000")), ("payroll", payroll, Decimal("50000")),
                              ("money_market", mm, Decimal("3250000"))):
        items.sort(key=lambda i: (i["date"], i["direction"] == "debit", i["type_code"], i["text"]))
        running, low = Decimal(0), Decimal(0)
        for i in items:
            running += i["amount"] if i["direction"] == "credit" else -i["amount"]
            low = min(low, running)
        opening = floor if key != "operating" else (floor - low + 999).quantize(Decimal("1000")) if low < 0 else floor
        out[key] = {"opening_date": start.isoformat(), "opening_balance": Decimal(opening).quantize(CENT), "items": items}
    return out
