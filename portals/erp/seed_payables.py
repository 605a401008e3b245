"""Seed bill line items, retainage held and released, and the payment history of paid bills."""
from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from portals.core.money import CENT

from .bill_lines import default_account
from .models import APBill, BillLine, Commitment, EntityProject, GLAccount, Payment, PaymentDetail, Retainage
from .seed_extra import offers

SALES_TAX = Decimal("0.0675")  # state and county rate on material invoices
FRIDAY = 4


def seed(session, book, streams, clock, spec, keys) -> None:
    bills = session.scalars(select(APBill).order_by(APBill.bill_id)).all()
    if offers(spec, "create_bill"):
        _bill_lines(session, bills, streams("bill_lines"))
    held = {}
    if offers(spec, "query_retainage", "release_retainage"):
        held = _retainage(session, book, bills, clock)
    if offers(spec, "query_payments", "create_payment"):
        _payments(session, bills, held, streams("payments"), clock)


def _bill_lines(session, bills, rng) -> None:
    """Material invoices carry freight and sales tax lines; equipment rentals delivery and fuel."""
    for bill in bills:
        if bill.cost_type not in ("M", "E") or bill.amount < 1500 or rng.random() > 0.7:
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
        account = default_account(session, bill.cost_type) or ""
        for n, (amount, memo) in enumerate(parts, start=1):
            session.add(BillLine(line_key=f"{bill.bill_id}-{n}", bill_id=bill.bill_id, line_no=n, gl_account=account,
                                 job=bill.job, cost_code=bill.cost_code, cost_type=bill.cost_type, amount=amount,
                                 memo=memo[:200]))


def _retainage(session, book, bills, clock) -> dict:
    """Retainage withheld on each subcontract bill (the pay application's own figure when the book
    has it); a complete subcontract's retainage was released after its last bill."""
    commitments = {c.number: c for c in session.scalars(select(Commitment))}
    from_requisitions = {(r.get("commitment"), r.get("invoice_number")): r.get("retainage")
                         for r in book.get("requisitions", [])}
    last_bill = defaultdict(str)
    for bill in bills:
        if bill.commitment:
            last_bill[bill.commitment] = max(last_bill[bill.commitment], bill.bill_date)
    yesterday = clock.today() - timedelta(days=1)
    held, n = {}, 0
    for bill in bills:
        c = commitments.get(bill.commitment or "")
        pct = Decimal(c.retainage_pct or "0") if c else Decimal(0)
        if c is None or c.type != "subcontract" or pct <= 0 or bill.state != "posted":
            continue
        figure = from_requisitions.get((c.number, bill.bill_number))
        amount = Decimal(str(figure)) if figure else (bill.amount * pct / 100).quantize(CENT)
        released = c.status == "Complete" and bill.status == "paid"
        when = min(date.fromisoformat(last_bill[c.number]) + timedelta(days=45), yesterday) if released else None
        n += 1
        row = Retainage(retainage_id=f"RET-{n:05d}", bill_id=bill.bill_id, vendor_key=bill.vendor_key, job=bill.job,
                        commitment=c.number, retainage_pct=c.retainage_pct, held=amount,
                        state="released" if released else "held",
                        released_date=when.isoformat() if when else None, release_payment_id=None)
        session.add(row)
        held[bill.bill_id] = row
    return held


def _friday_on_or_before(day: date) -> date:
    return day - timedelta(days=(day.weekday() - FRIDAY) % 7)


def _payments(session, bills, held, rng, clock) -> None:
    """Weekly check runs: each paid bill is paid net of its retainage on the Friday before it is
    due; released retainage is paid by its own payment. A few checks were voided and reissued."""
    today = clock.today()
    cap = _friday_on_or_before(today - timedelta(days=1))
    entity = {e.job: e.entity_id for e in session.scalars(select(EntityProject))}
    cash = session.scalar(select(GLAccount).where(GLAccount.title.ilike("%operating cash%")))
    bank = f"{cash.account} {cash.title}" if cash else "Operating"
    groups = defaultdict(list)  # (date, vendor, entity, kind) -> [(bill, amount)]
    for bill in bills:
        if bill.status != "paid" or bill.state != "posted":
            continue
        due = date.fromisoformat(bill.due_date)
        earliest = date.fromisoformat(bill.bill_date) + timedelta(days=7)
        when = min(max(_friday_on_or_before(due - timedelta(days=3)), _friday_on_or_before(earliest + timedelta(days=6))),
                   cap)
        retained = held.get(bill.bill_id)
        net = bill.amount - (retained.held if retained else Decimal(0))
        groups[(when.isoformat(), bill.vendor_key, entity.get(bill.job, ""), "bills")].append((bill, net))
        if retained is not None and retained.state == "released":
            release = _friday_on_or_before(date.fromisoformat(retained.released_date) + timedelta(days=6))
            release = min(release, cap)
            groups[(release.isoformat(), bill.vendor_key, entity.get(bill.job, ""), "retainage")].append(
                (bill, retained.held))
    methods = {}
    check, ach_on = 40001, defaultdict(int)
    n = 0
    for (when, vendor, ent, kind), paid in sorted(groups.items()):
        method = methods.setdefault(vendor, "ACH" if rng.random() < 0.35 else "Check")
        voided = method == "Check" and rng.random() < 0.01
        for attempt in (("voided", when), ("reissued", _reissue(when, cap))) if voided else (("paid", when),):
            n += 1
            state, day = attempt
            if method == "Check":
                document, check = str(check), check + 1
            else:
                ach_on[day] += 1
                document = f"ACH-{day.replace('-', '')}-{ach_on[day]:03d}"
            payment_id = f"PYMT-{n:05d}"
            final = state if state == "voided" else ("cleared" if date.fromisoformat(day) <= today - timedelta(days=21)
                                                     else "paid")
            session.add(Payment(payment_id=payment_id, vendor_key=vendor, entity_id=ent, payment_date=day,
                                method=method, document_number=document, bank_account=bank, kind=kind,
                                amount=sum((a for _b, a in paid), start=Decimal("0.00")), state=final))
            for bill, amount in paid:
                session.add(PaymentDetail(detail_key=f"{payment_id}|{bill.bill_id}", payment_id=payment_id,
                                          bill_id=bill.bill_id, amount=amount,
                                          state="voided" if state == "voided" else "applied"))
                if kind == "retainage" and state != "voided":
                    held[bill.bill_id].release_payment_id = payment_id


def _reissue(when: str, cap: date) -> str:
    return min(date.fromisoformat(when) + timedelta(days=7), cap).isoformat()
