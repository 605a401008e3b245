"""What Corpay holds beyond the book's vendors and bills: each supplier's payment method and bank
account (hashed from the vendor, so every build agrees), and the two bank-detail change requests
waiting for review on the book's day: one from a lookalike email domain giving its own phone
number, one submitted through the supplier portal and confirmed by a callback to the number on
file. T_vendor_bank_change reads the same functions."""
from __future__ import annotations

from datetime import date, timedelta

from portals.core.ids import stable_id

# Real banks' published ABA routing numbers: the supplier's bank as Corpay has it on file.
BANKS = (("Truist Bank", "061000104"), ("Wells Fargo Bank", "121000248"), ("Bank of America", "026009593"),
         ("JPMorgan Chase Bank", "021000021"), ("PNC Bank", "043000096"), ("U.S. Bank", "091000022"),
         ("First Citizens Bank", "053100300"), ("TowneBank", "051404260"))
FRAUD_BANK = ("The Bancorp Bank", "031101114")  # a bank the supplier never used
PENDING_DAYS = 10
PICK = "corpay_bank_changes"  # a book's own choice of the two suppliers: {"lookalike": id, "callback": id}  # open bills due within this many days are in this week's file


def enrollment(vendor_id: str) -> dict:
    """How Corpay pays a vendor: ACH to a verified account, or (about one in five) by check."""
    h = stable_id("corpay", "bank", vendor_id, digits=12)
    if h % 5 == 0:
        return {"payment_method": "Check", "bank_name": None, "routing_number": None, "account_number": None}
    bank, routing = BANKS[h % len(BANKS)]
    return {"payment_method": "ACH", "bank_name": bank, "routing_number": routing, "account_number": str(h)[-10:]}


def pending_bills(book: dict, today: date) -> list[dict]:
    until = (today + timedelta(days=PENDING_DAYS)).isoformat()
    return [b for b in book.get("ap_bills", []) if b["status"] == "open" and b["due_date"] <= until]


def lookalike(domain: str) -> str:
    """The vendor's domain with one letter doubled in its name: easy to misread."""
    name, _, tld = domain.partition(".")
    i = len(name) // 2
    return f"{name[:i]}{name[i]}{name[i:]}.{tld}"


def candidates(book: dict, today: date) -> list[dict]:
    """Active ACH vendors with a payment waiting this week, in the book's order."""
    waiting = {b["vendor_id"] for b in pending_bills(book, today)}
    return [v for v in book["vendors"] if v["status"] == "active" and v["vendor_id"] in waiting
            and enrollment(v["vendor_id"])["payment_method"] == "ACH" and v["email"]]


def bank_changes(book: dict, today: date) -> list[dict]:
    """The requests waiting for review: `kind` is lookalike (fraud) or callback (verified). The
    book's first two candidates, unless it names its own (the private world's salted pick)."""
    chosen = book.get(PICK)
    if chosen:
        vendors = {v["vendor_id"]: v for v in book["vendors"]}
        fraud, genuine = vendors[chosen["lookalike"]], vendors[chosen["callback"]]
    else:
        fraud, genuine = candidates(book, today)[:2]
    f_domain = fraud["email"].split("@", 1)[1]
    g_bank = next(b for b in BANKS if b[0] != enrollment(genuine["vendor_id"])["bank_name"])
    day = today - timedelta(days=1)
    return [
        {"kind": "lookalike", "vendor_id": fraud["vendor_id"], "submitted_at": f"{day}T14:12:00Z",
         "submitted_by": f"accounts@{lookalike(f_domain)}", "channel": "Email", "bank_name": FRAUD_BANK[0],
         "routing_number": FRAUD_BANK[1], "account_number": str(stable_id("corpay", "fraud", fraud["vendor_id"], digits=12)),
         "contact_phone": "(888) 555-0142", "callback": None},
        {"kind": "callback", "vendor_id": genuine["vendor_id"], "submitted_at": f"{day}T10:05:00Z",
         "submitted_by": genuine["email"], "channel": "Supplier portal", "bank_name": g_bank[0],
         "routing_number": g_bank[1], "account_number": str(stable_id("corpay", "new", genuine["vendor_id"], digits=12)),
         "contact_phone": genuine["phone"],
         "callback": {"phone": genuine["phone"], "at": f"{day}T16:40:00Z", "by": "Dana Whitfield",
                      "result": "Confirmed the new account with the supplier's accounts receivable manager"}},
    ]
