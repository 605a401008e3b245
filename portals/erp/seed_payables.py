"""Seed bill line items, retainage held and released, and the payment history of paid bills."""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from portals.core.money import CENT
from seeds import avalara, treasury

from .bill_lines import default_account
from .models import APBill, BillLine, Commitment, EntityProject, GLAccount, Payment, PaymentDetail, Retainage
from .seed_extra import offers

SALES_TAX = Decimal("0.0675")  # state and county rate on material invoices


def seed(session, book, streams, clock, spec, keys) -> None:
    bills = session.scalars(select(APBill).order_by(APBill.bill_id)).all()
    if offers(spec, "create_bill"):
        _bill_lines(session, bills, streams("bill_lines"), _vendor_invoices(book))
    held = {}
    if offers(spec, "query_retainage", "release_retainage"):
        held = _retainage(session, book, bills, clock)
    if offers(spec, "query_payments", "create_payment"):
        _payments(session, book, bills, held, clock)


def _vendor_invoices(book: dict) -> dict:
    """The year's material invoices as their vendors wrote them (seeds/avalara.py): the sales tax
    charged, or none, and any labor on its own line; use tax turns on these lines."""
    return {b["bill_id"]: avalara.invoice(book, b)["lines"] for b in avalara.material_bills(book)}


def _bill_lines(session, bills, rng, invoices: dict) -> None:
    """Material invoices carry freight and sales tax lines; equipment rentals delivery and fuel.
    The year's material invoices carry their vendors' own lines (drawn the same, so the stream
    of every other bill is unchanged)."""
    for bill in bills:
        own = invoices.get(bill.bill_id)
        if bill.cost_type not in ("M", "E") or bill.amount < 1500 or rng.random() > 0.7:
            if own:
                _write_lines(session, bill, [(amount, memo) for memo, _, amount in own])
            continue
        total = bill.amount
        if bill.cost_type == "M":
            before_tax = (total / (1 + SALES_TAX)).quantize(CENT)
            freight = (before_tax * Decimal(str(rng.uniform(0.02, 0.05)))).quantize(CENT)
            parts = [(before_tax - freight, bill.description or "Material"), (freight, "Freight"),
                     (total - before_tax, f"Sales tax {SALES_TAX * 100:.2f}%")]
        else:
            delivery = Decimal(rng.choice((150, 225, 300, 375, 450))).quantize(CENT)
            fuel = (total * Decimal(str(rng.uniform(0.01, 0.03)))).quantize(CENT) if rng.random() < 0.5 else None
            parts = [(total - delivery - (fuel or 0), bill.description or "Equipment rental"),
                     (delivery, "Delivery and pickup")] + ([(fuel, "Fuel surcharge")] if fuel else [])
        if own:
            parts = [(amount, memo) for memo, _, amount in own]
        _write_lines(session, bill, parts)


def _write_lines(session, bill, parts) -> None:
    account = default_account(session, bill.cost_type) or ""
    for n, (amount, memo) in enumerate(parts, start=1):
        session.add(BillLine(line_key=f"{bill.bill_id}-{n}", bill_id=bill.bill_id, line_no=n, gl_account=account,
                             job=bill.job, cost_code=bill.cost_code, cost_type=bill.cost_type, amount=amount,
                             memo=memo[:200]))


def _retainage(session, book, bills, clock) -> dict:
    """Retainage withheld on each subcontract bill (the pay application's own figure when the book
    has it); a complete subcontract's retainage was released after its last bill. The figures are
    the company's own (seeds/treasury.py), so the bank's payments tie to them."""
    commitments = {c.number: c for c in session.scalars(select(Commitment))}
    figures = treasury.retainage_held(book, clock.today())
    held, n = {}, 0
    for bill in bills:
        c = commitments.get(bill.commitment or "")
        figure = figures.get(bill.bill_id)
        if c is None or figure is None or bill.state != "posted":
            continue
        when = figure["released"]
        n += 1
        row = Retainage(retainage_id=f"RET-{n:05d}", bill_id=bill.bill_id, vendor_key=bill.vendor_key, job=bill.job,
                        commitment=c.number, retainage_pct=c.retainage_pct, held=figure["held"],
                        state="released" if when else "held", released_date=when, release_payment_id=None)
        session.add(row)
        held[bill.bill_id] = row
    return held


CARD_ACCOUNT = "Company card (corporate Visa)"


def _payments(session, book, bills, held, clock) -> None:
    """The company's AP payments (seeds/treasury.py: weekly check runs and ACH, a few checks voided
    and reissued, two old checks never cashed) in this product's keys: its vendor key, the entity
    of the paid bills' job, the operating cash account."""
    entity = {e.job: e.entity_id for e in session.scalars(select(EntityProject))}
    by_id = {b.bill_id: b for b in bills}
    cash = session.scalar(select(GLAccount).where(GLAccount.title.ilike("%operating cash%")))
    bank = f"{cash.account} {cash.title}" if cash else "Operating"
    for p in treasury.disbursements(book, clock.today()):
        paid = [(by_id[bill_id], amount) for bill_id, amount in p["bills"] if bill_id in by_id]
        if not paid:
            continue
        first = paid[0][0]
        session.add(Payment(payment_id=p["payment_id"], vendor_key=first.vendor_key, entity_id=entity.get(first.job, ""),
                            payment_date=p["date"], method=p["method"], document_number=p["number"],
                            bank_account=CARD_ACCOUNT if p["method"] == "Card" else bank,
                            kind=p["kind"], amount=p["amount"], state=p["status"]))
        for bill, amount in paid:
            session.add(PaymentDetail(detail_key=f"{p['payment_id']}|{bill.bill_id}", payment_id=p["payment_id"],
                                      bill_id=bill.bill_id, amount=amount,
                                      state="voided" if p["status"] == "voided" else "applied"))
            if p["kind"] == "retainage" and p["status"] != "voided" and bill.bill_id in held:
                held[bill.bill_id].release_payment_id = p["payment_id"]
