"""Ressio sub bills awaiting entry in the ERP that a clerk must hold (C_ressio_bill_vista).

Ressio keeps a job's sub bills against its purchase orders and subcontracts ("Purchase Orders" in
Ressio's words). The book's June sub bills that were approved and not yet sent to the ERP are the
ones awaiting entry; this module adds, for the family's two jobs, one more approved sub bill each
that the bill-entry policy holds:

  over_po     the next bill of a subcontract its earlier bills have already billed in full, so the
              purchase order's remaining to bill goes below zero with it (job 2041, SC-2041-1)
  draft_po    a supplier's bill against a purchase order that is still a Draft in Ressio, never
              issued and never sent to the ERP (job 1632, PO 1632-28)

They are Ressio's own records: the book and the ERPs have nothing of them (the ERP would learn of a
bill only when a clerk enters it), so only a PM manifest asking for them seeds them
([pm] planted_sub_bills = true). Every figure is fixed here, nothing is drawn.
"""
from __future__ import annotations

import hashlib
from decimal import Decimal

from .util import money

PERIOD_START, PERIOD_END = "2026-05-26", "2026-06-25"  # the book's open pay period
APPROVED = "2026-06-29"

# (job, book commitment, case, invoice number, amount)
HELD_CASES = (("2041", "SC-2041-1", "over_po", "LSG2-2606-07", "21318.46"),
              ("1632", "1632-28", "draft_po", "DPS-2606-01", "48215.70"))
HELD_JOBS = tuple(job for job, *_ in HELD_CASES)


def _id(*parts: str) -> int:
    """A seven-digit requisition id hashed from the commitment and invoice number."""
    number = int.from_bytes(hashlib.sha256("\x1f".join(("ressio", "held_sub_bill", *parts)).encode()).digest()[:8], "big")
    return 1_000_000 + number % 9_000_000


def cases_of(book: dict) -> tuple:
    """The public cases and any a private world's salt added (book["ressio_held_cases"])."""
    return HELD_CASES + tuple(tuple(c) for c in book.get("ressio_held_cases", ()))


def planted(book: dict, cases=None) -> list[dict]:
    """The held sub bills as requisition rows (the shape of the book's `requisitions`)."""
    cases = cases_of(book) if cases is None else cases
    commitments = {c["number"]: c for c in book["commitments"]}
    out = []
    for job, number, _kind, invoice, amount in cases:
        c = commitments.get(number)
        if c is None or c["job"] != job:  # a book from another seed has its own commitments
            continue
        earlier = [r for r in book["requisitions"] if r["commitment"] == number]
        retainage = money(Decimal(amount) * Decimal(c.get("retainage_pct") or 0) / 100)
        out.append({"requisition_id": _id(number, invoice),
                    "job": job, "commitment": number, "vendor_id": c["vendor_id"], "number": len(earlier) + 1,
                    "invoice_number": invoice, "period_start": PERIOD_START, "period_end": PERIOD_END,
                    "amount": amount, "retainage": retainage, "status": "approved", "approved_date": APPROVED,
                    "erp_sync": "not_synced"})
    return out


def held_entries(book: dict) -> list[dict]:
    """Each held sub bill is Ressio's alone (the divergence registry)."""
    return [{"entity": "requisition", "key": r["invoice_number"], "field": "ressio.presence", "systems": ["ressio"],
             "family": "C_ressio_bill_vista",
             "why": (f"Sub bill {r['invoice_number']} against {r['commitment']} (job {r['job']}) for {r['amount']} "
                     f"was approved in Ressio on {r['approved_date']} and is not synced; the other systems have no "
                     f"record of it until it is entered.")}
            for r in planted(book, HELD_CASES)]
