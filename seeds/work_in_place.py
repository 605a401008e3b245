"""The PM's work in place on each subcontract at month end (Procore), for the month-end accrual.

A project manager records, on every approved subcontract of an active job, how much of the work
is in place as of the month end. What the sub has not yet invoiced in the ERP is the accrual
G_sub_accrual books; the figures are built from the ERP's own bills so the difference is exact:

- covered: the sub's pay application for the period is approved in Procore but not yet in the
  ERP, and it bills exactly the work in place beyond the ERP's invoices (nothing to accrue);
- small: unbilled work below the month-end close policy's threshold (not booked);
- none: everything in place is invoiced;
- normal: 4% to 12% of the subcontract in place beyond what is invoiced.

On the G_sub_accrual jobs every kind occurs: a subcontract with a pending approved pay app is
covered, the first other one is small and the second invoiced in full. A subcontract is coded
in the ERP to its main SOV line (seeds/apbills.py), so the work in place is the subcontract's.
A separate RNG section, so no other part of the book shifts.
"""
from __future__ import annotations

import random
from decimal import Decimal

from .reference import ACCRUAL_JOBS, ACCRUAL_THRESHOLD
from .util import CENT, dec, money

KINDS = (("normal", 0.65), ("none", 0.2), ("small", 0.15))


def _extra(rng: random.Random, kind: str, amount: Decimal) -> Decimal:
    if kind == "small":
        return Decimal(rng.randint(15000, int(ACCRUAL_THRESHOLD * 100) - 5000)) / 100
    if kind == "normal":
        cents = int(amount * 100 * Decimal(str(rng.uniform(0.04, 0.12))))
        return max(Decimal(cents) / 100, ACCRUAL_THRESHOLD + 1)
    return Decimal("0.00")


def build_work_in_place(rng: random.Random, commitments: list[dict], jobs: dict, requisitions: list[dict],
                        bills: list[dict]) -> None:
    """Set `work_in_place` (a money string) on every subcontract, in place."""
    invoiced: dict[str, Decimal] = {}
    for b in bills:
        if b["commitment"]:
            invoiced[b["commitment"]] = invoiced.get(b["commitment"], Decimal(0)) + dec(b["amount"])
    pending: dict[str, Decimal] = {}
    for r in requisitions:
        if r["status"] == "approved" and r["erp_sync"] == "not_synced":
            pending[r["commitment"]] = pending.get(r["commitment"], Decimal(0)) + dec(r["amount"])
    ordinal: dict[str, int] = {}
    for c in sorted(commitments, key=lambda c: (c["job"], c["number"])):
        if c["type"] != "subcontract":
            continue
        amount, job = dec(c["amount"]), jobs[c["job"]]
        if c["status"] == "Complete" or job["status"] == "closed":
            c["work_in_place"] = money(amount)
            continue
        if c["status"] != "Approved" or not c["executed_date"]:
            c["work_in_place"] = "0.00"
            continue
        billed, due = invoiced.get(c["number"], Decimal(0)), pending.get(c["number"], Decimal(0))
        if due:
            kind = "covered" if c["job"] in ACCRUAL_JOBS or rng.random() < 0.7 else "normal"
        elif c["job"] in ACCRUAL_JOBS and ordinal.get(c["job"], 0) < 2:
            kind = ("small", "none")[ordinal.get(c["job"], 0)]
            ordinal[c["job"]] = ordinal.get(c["job"], 0) + 1
        else:
            kind = rng.choices([k for k, _ in KINDS], weights=[w for _, w in KINDS])[0]
        extra = Decimal("0.00") if kind == "covered" else _extra(rng, kind, amount)
        # never below what is billed (nothing to accrue), never past the contract unless billed so
        c["work_in_place"] = money(min(max(amount, billed + due), billed + due + extra).quantize(CENT))
