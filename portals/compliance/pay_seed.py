"""Build Corpay from the book: every vendor the company has paid as a supplier under Corpay's own
number and remit-to name (the DBA where the vendor trades under one), paid by ACH to a verified
account or by check; each Friday's payment file of the quarter, paid; this week's file, uploaded
from Vista and waiting in Pending Approval; and the bank-detail change requests awaiting review."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from portals.core.ids import stable_id
from seeds import corpay

from .pay_models import BankChange, Payment, PaymentFile, Supplier

QUARTER_START = "2026-04-01"
UPLOADER = "Dana Whitfield"


def supplier_number(vendor_id: str) -> str:
    """Corpay numbers a supplier itself (CP- and six digits); the ERP id travels beside it."""
    return f"CP-{stable_id('corpay', 'supplier', vendor_id, digits=6)}"


def remit_name(v: dict) -> str:
    """Corpay pays the name on the remittance: the DBA where a vendor trades under one."""
    return v["dba"] or v["legal_name"]


def friday(d: date) -> date:
    return d + timedelta(days=(4 - d.weekday()) % 7)


def seed_pay(session, book, rng, clock, spec) -> None:
    app = spec.name
    today = clock.today()
    billed = {b["vendor_id"] for b in book.get("ap_bills", [])}
    ids, methods = {}, {}
    for v in book.get("vendors", []):
        if v["vendor_id"] not in billed:
            continue
        sid = ids[v["vendor_id"]] = stable_id(app, "supplier", v["vendor_id"])
        pay = corpay.enrollment(v["vendor_id"])
        methods[v["vendor_id"]] = pay["payment_method"]
        session.add(Supplier(
            supplier_id=sid, supplier_number=supplier_number(v["vendor_id"]), erp_vendor=str(v["vista_vendor"]),
            name=remit_name(v), tin=v["tin"], address=v["address"], city=v["city"], state=v["state"], zip=v["zip"],
            phone=v["phone"], email=v["email"], **pay,
            account_verified=(v.get("w9_signed") or "2022-03-01") if pay["account_number"] else None,
            hold=None, hold_reason=None, hold_at=None, status="Active" if v["status"] == "active" else "Inactive"))
    files: dict[str, list] = {}
    for b in book.get("ap_bills", []):
        if b["vendor_id"] in ids and b["status"] == "paid" and b["due_date"] >= QUARTER_START:
            files.setdefault(friday(date.fromisoformat(b["due_date"])).isoformat(), []).append(b)
    files["pending"] = [b for b in corpay.pending_bills(book, today) if b["vendor_id"] in ids]
    for key in sorted(files):
        bills = files[key]
        pending = key == "pending"
        run = friday(today) if pending else date.fromisoformat(key)
        uploaded = today if pending else run - timedelta(days=1)
        fid = stable_id(app, "file", key)
        total = sum((Decimal(b["amount"]) for b in bills), Decimal("0"))
        session.add(PaymentFile(file_id=fid, file_name=f"VISTA_AP_{run:%Y%m%d}.csv", uploaded_at=f"{uploaded}T15:00:00Z",
                                uploaded_by=UPLOADER, payments=len(bills), total=total))
        for b in bills:
            session.add(Payment(payment_id=stable_id(app, "payment", b["bill_id"]), file_id=fid,
                                supplier_id=ids[b["vendor_id"]], reference=b["invoice_number"],
                                amount=Decimal(b["amount"]), method=methods[b["vendor_id"]], pay_date=run.isoformat(),
                                status="Pending Approval" if pending else "Paid"))
    for c in corpay.bank_changes(book, today):
        cb = c["callback"] or {}
        session.add(BankChange(
            change_id=stable_id(app, "bank-change", c["vendor_id"], c["submitted_at"]), supplier_id=ids[c["vendor_id"]],
            submitted_at=c["submitted_at"], submitted_by=c["submitted_by"], channel=c["channel"],
            bank_name=c["bank_name"], routing_number=c["routing_number"], account_number=c["account_number"],
            contact_phone=c["contact_phone"], callback_phone=cb.get("phone"), callback_at=cb.get("at"),
            callback_by=cb.get("by"), callback_result=cb.get("result"), status="Pending review", review_note=None))
    session.flush()
