"""Ressio's estimates and the client change orders awaiting entry to the budget
(A_ressio_change_order).

Every job Ressio knows has an estimate, locked when the job was sold (its totals are the budget's
Original column). On the family's two jobs, change orders were sent to the client (the homeowner)
and came back; none has been applied to the budget yet:

  4012  the estimate is locked. CO-01 accepted, two lines on one cost code under two cost types;
        CO-02 accepted, but its line totals more than the amount the client signed for;
        CO-03 still awaiting the client; CO-04 accepted, one line.
  7481  the estimate was unlocked again for repricing. CO-01 accepted, two lines; CO-02 declined;
        CO-03 accepted, one line.

They are Ressio's own records: the book and the ERPs have nothing of them (a change order reaches
the ERP only once it is applied and synced), so only a PM manifest asking for them seeds them
([pm] client_change_orders = true). Every figure is fixed here, nothing is drawn; a private world
adds its own cases (book["ressio_change_order_cases"]).
"""
from __future__ import annotations

from decimal import Decimal

from .util import money

SOLD_BY = "Dana Whitfield"
REPRICED_BY = "Tom Kessler"

# job -> the estimate's status, when and by whom it was set, and the change orders:
# (number, title, sent, client status, its date, signed amount or None, lines (code, type, description, amount))
CASES = {
    "4012": {
        "estimate": ("Locked", "2026-01-14", SOLD_BY),
        "orders": (
            ("CO-01", "Upgraded dock levelers at doors 4-9", "2026-06-04", "Accepted", "2026-06-12", "18640.00",
             (("22-100", "M", "Hydraulic dock leveler units", "6240.00"),
              ("22-100", "S", "Leveler pit rework and install", "12400.00"))),
            ("CO-02", "Additional site lighting at the truck court", "2026-06-09", "Accepted", "2026-06-18", "9480.00",
             (("26-210", "S", "Four pole lights with bases and conduit", "9840.00"),)),
            ("CO-03", "Epoxy floor coating in cold storage", "2026-06-24", "Awaiting Client", None, None,
             (("09-900", "S", "Two-coat epoxy system, 6,200 sf", "14275.50"),)),
            ("CO-04", "Relocate roof drain leaders at the north wall", "2026-06-11", "Accepted", "2026-06-20",
             "4312.75", (("07-600", "S", "Reroute leaders and flashing", "4312.75"),)),
        ),
    },
    "7481": {
        "estimate": ("Unlocked", "2026-06-05", REPRICED_BY),
        "orders": (
            ("CO-01", "Covered walkway canopy at the bus loop", "2026-06-08", "Accepted", "2026-06-15", "27350.00",
             (("06-100", "S", "Canopy framing and roofing", "21900.00"),
              ("06-100", "M", "Canopy lumber package", "5450.00"))),
            ("CO-02", "Upgraded classroom casework", "2026-06-10", "Declined", "2026-06-19", None,
             (("06-400", "S", "Plastic laminate to solid surface tops", "11780.00"),)),
            ("CO-03", "Extra data drops in the media center", "2026-06-16", "Accepted", "2026-06-22", "6915.40",
             (("26-210", "S", "Twelve data drops with cabling", "6915.40"),)),
        ),
    },
}
JOBS = tuple(CASES)


def cases_of(book: dict) -> dict:
    """The public cases and any a private world's salt added."""
    return {**CASES, **{c["job"]: c for c in book.get("ressio_change_order_cases", ())}}


def estimates(book: dict) -> list[dict]:
    """One estimate per job: locked when sold on the job's start date unless a case says otherwise;
    its total is the job's original budget."""
    cases = cases_of(book)
    totals: dict = {}
    for b in book.get("budget_lines", []):
        totals[b["job"]] = totals.get(b["job"], Decimal(0)) + Decimal(str(b["original_budget"]))
    out = []
    for j in book["jobs"]:
        status, day, by = cases[j["job"]]["estimate"] if j["job"] in cases else \
            ("Locked", j.get("start_date"), j.get("pm_name", ""))
        out.append({"job": j["job"], "number": f"EST-{j['job']}", "status": status, "status_date": day,
                    "status_by": by, "total": money(totals.get(j["job"], Decimal(0)))})
    return out


def orders(book: dict) -> list[dict]:
    """The change orders as rows, each with its lines, for the jobs the book has."""
    jobs = {j["job"] for j in book["jobs"]}
    out = []
    for job, case in cases_of(book).items():
        if job not in jobs:  # a book from another seed has its own jobs
            continue
        for number, title, sent, status, day, signed, lines in case["orders"]:
            out.append({"job": job, "number": number, "title": title, "sent_date": sent, "client_status": status,
                        "client_status_date": day, "signed_amount": signed,
                        "lines": [{"line_no": i, "cost_code": code, "cost_type": ctype, "description": desc,
                                   "amount": amount} for i, (code, ctype, desc, amount) in enumerate(lines, 1)]})
    return out


def client_change_order_entries(book: dict) -> list[dict]:
    """Each client change order is Ressio's alone (the divergence registry)."""
    return [{"entity": "client_change_order", "key": f"{o['job']}/{o['number']}", "field": "ressio.presence",
             "systems": ["ressio"], "family": "A_ressio_change_order",
             "why": (f"Change order {o['number']} on job {o['job']} ({o['title']}) was sent to the client from "
                     f"Ressio on {o['sent_date']} and is {o['client_status']}; it is not applied to the budget, "
                     f"so no ERP has it.")}
            for o in orders({"jobs": [{"job": j} for j in CASES]})]
