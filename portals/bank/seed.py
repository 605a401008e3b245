"""Build a bank portal from the book through seeds/treasury.py: the company's accounts at this bank,
a year of transactions, the positive-pay issue files uploaded after each check run (the ERP's
check register: serial, date, amount, payee, voids), the checks presented today with the
exceptions among them, payment templates and payments (released ACH batches that tie to the
settlement debits, a few awaiting approval), and the portal's users with their entitlements."""
from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from portals.core.ids import stable_id
from seeds import treasury

from .issue_file import file_digest, issue_lines, render_issue_file
from .models import (Account, CheckException, Entitlement, IssuedCheck, IssueFile, Payment, PaymentTemplate,
                     Transaction, User)
from .settings import bank_settings

def digits(*parts, n: int) -> str:
    value = int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")
    return str(10 ** (n - 1) + value % (9 * 10 ** (n - 1)))


def routing(*parts) -> str:
    """A routing number with a valid ABA check digit."""
    base = digits(*parts, n=8)
    weights = (3, 7, 1, 3, 7, 1, 3, 7)
    check = (10 - sum(int(d) * w for d, w in zip(base, weights)) % 10) % 10
    return base + str(check)


def seed(session, book, rng, clock, spec) -> None:
    app, cfg, today = spec.name, bank_settings(spec), clock.today()
    vendors = {v["vendor_id"]: v for v in book.get("vendors", [])}
    activity = treasury.bank_activity(book, today)
    accounts = {}
    for a in cfg.accounts:
        data = activity[a["key"]]
        row = Account(account_id=stable_id(app, "account", a["key"]), number=digits(app, "account", a["key"], n=cfg.account_digits),
                      name=a["name"], kind=a["kind"], entity=cfg.company, routing_number=cfg.routing_number,
                      currency="USD", gl_account=a["gl_account"],
                      positive_pay=cfg.payee_match if a.get("positive_pay") else "None",
                      ach_company_id=("1" + digits(app, "ach-company", n=9)) if a.get("ach_company_id") else None,
                      opening_date=data["opening_date"], opening_balance=data["opening_balance"])
        accounts[a["key"]] = row
        session.add(row)
        for n, item in enumerate(data["items"], start=1):
            session.add(Transaction(txn_id=stable_id(app, "txn", a["key"], n), account_id=row.account_id,
                                    posted_date=item["date"], type_code=item["type_code"], direction=item["direction"],
                                    amount=item["amount"], bank_reference=digits(app, "ref", a["key"], n, n=10),
                                    customer_reference=item["customer_reference"], description=item["text"],
                                    status="Intraday" if item["date"] == today.isoformat() else "Posted"))
    operating = accounts["operating"]
    _positive_pay(session, app, cfg, book, today, operating, vendors)
    _payments(session, app, cfg, book, today, accounts, vendors, clock)
    _users(session, app, cfg)
    session.flush()


def _positive_pay(session, app, cfg, book, today, operating, vendors) -> None:
    start = today - timedelta(days=treasury.YEAR_DAYS)
    day = treasury.positive_pay_day(book, today)
    flagged = {e["serial"]: e for e in day["exceptions"]}
    checks = [p for p in treasury.disbursements(book, today) if p["method"] == "Check"]
    runs = defaultdict(list)  # run date -> [(action, check)]
    for p in checks:
        runs[p["date"]].append(("I", p))
        if p["status"] == "voided":  # voided when the replacement was cut, a week later
            runs[next(q["date"] for q in checks if q["reissue_of"] == p["number"])].append(("V", p))
    issued_ids, file_of, void_file = {}, {}, {}
    loaded = sorted(r for r in runs if date.fromisoformat(r) >= start)
    for run in loaded:
        file_of[run] = stable_id(app, "issue-file", run)
        for action, p in runs[run]:
            if action == "V":
                void_file[p["number"]] = file_of[run]
    for run in loaded:
        rows = issue_lines([(a, p["number"], p["date"], p["amount"], vendors[p["vendor_id"]]["legal_name"])
                            for a, p in runs[run]])
        text = render_issue_file(operating.number, rows)
        file_id = file_of[run]
        session.add(IssueFile(file_id=file_id, account_id=operating.account_id, name=f"ISSUE_{run.replace('-', '')}.csv",
                              uploaded_at=f"{run}T21:{10 + int(digits(run, n=2)) % 40:02d}:00Z", uploaded_by=cfg.uploaded_by,
                              records=len(rows), issued_total=sum((r[3] for r in rows if r[0] == "I"), start=Decimal("0.00")),
                              voided_total=sum((r[3] for r in rows if r[0] == "V"), start=Decimal("0.00")),
                              status="Processed", digest=file_digest(text)))
        for action, p in runs[run]:
            if action == "V":
                continue
            when = treasury.presented_on(p)
            if p["status"] == "voided":
                status, paid = "Void", None
            elif p.get("stale"):
                status, paid = "Stale", None
            elif when is not None and (when < today or (when == today and p["number"] not in flagged)):
                status, paid = "Paid", when.isoformat()
            else:
                status, paid = "Outstanding", None
            issued_ids[p["number"]] = stable_id(app, "issued", p["number"])
            session.add(IssuedCheck(issued_id=issued_ids[p["number"]], account_id=operating.account_id, file_id=file_id,
                                    serial=p["number"], issue_date=p["date"], amount=p["amount"],
                                    payee=vendors[p["vendor_id"]]["legal_name"], status=status,
                                    void_file_id=void_file.get(p["number"]), paid_date=paid))
    twice = day.get("loaded_twice")
    if twice and twice["run"] in file_of:
        _load_again(session, app, cfg, operating, file_of[twice["run"]], twice["run"])
    for e in day["exceptions"]:
        session.add(CheckException(
            exception_id=stable_id(app, "exception", day["day"], e["serial"]), account_id=operating.account_id,
            presented_date=day["day"], serial=e["serial"], presented_amount=e["amount"], presented_payee=e["payee"],
            reason=cfg.reasons[e["kind"]], issued_id=issued_ids.get(e["serial"]), default_decision=cfg.default_decision,
            decision=None, decision_reason=None, decided_by=None, decided_at=None, status="Open"))


def _load_again(session, app, cfg, operating, file_id: int, run: str) -> None:
    """The same issue file loaded a second time, the next morning: a second file row with the same
    contents, and a second issue record for each of its checks (one the bank has not matched a
    presented item to, so still Outstanding)."""
    session.flush()
    first = session.get(IssueFile, file_id)
    again = stable_id(app, "issue-file", run, "loaded-again")
    loaded = treasury.add_business_days(date.fromisoformat(run), 1)
    session.add(IssueFile(file_id=again, account_id=first.account_id, name=first.name,
                          uploaded_at=f"{loaded.isoformat()}T13:{5 + int(digits(run, 'again', n=2)) % 40:02d}:00Z",
                          uploaded_by=cfg.uploaded_by, records=first.records, issued_total=first.issued_total,
                          voided_total=first.voided_total, status="Processed", digest=first.digest))
    for c in session.scalars(select(IssuedCheck).where(IssuedCheck.file_id == file_id)).all():
        session.add(IssuedCheck(issued_id=stable_id(app, "issued", c.serial, "loaded-again"), account_id=c.account_id,
                                file_id=again, serial=c.serial, issue_date=c.issue_date, amount=c.amount, payee=c.payee,
                                status="Outstanding", void_file_id=None, paid_date=None))


WIRE_PAYEES = (("EQUIPFIN", "Piedmont Equipment Finance LLC", "Truist Bank", "Equipment loan payment"),
               ("SURETY", "Atlantic Surety Agency, Inc.", "Wells Fargo Bank, N.A.", "Bond premium"),
               ("INSURANCE", "Carolinas Builders Insurance Trust", "First Citizens Bank", "Insurance premium"))


def _payments(session, app, cfg, book, today, accounts, vendors, clock) -> None:
    operating = accounts["operating"]
    register = treasury.disbursements(book, today)
    ach_vendors = sorted({p["vendor_id"] for p in register if p["method"] == "ACH"})
    for vid in ach_vendors[:24]:
        v = vendors[vid]
        session.add(PaymentTemplate(template_id=stable_id(app, "template", "ach", vid), code=f"ACH-{v['vendor_id']}",
                                    name=v["legal_name"][:60], kind="ACH", from_account_id=operating.account_id,
                                    beneficiary=v["legal_name"], beneficiary_bank="Receiving bank",
                                    routing_number=routing(app, "rt", vid), account_mask="****" + digits(app, "acct", vid, n=4),
                                    sec_code="CCD", status="Approved"))
    for code, name, bank, _memo in WIRE_PAYEES:
        session.add(PaymentTemplate(template_id=stable_id(app, "template", "wire", code), code=f"WIRE-{code}",
                                    name=name, kind="Wire", from_account_id=operating.account_id, beneficiary=name,
                                    beneficiary_bank=bank, routing_number=routing(app, "rt", code),
                                    account_mask="****" + digits(app, "acct", code, n=4), sec_code=None, status="Approved"))
    session.add(PaymentTemplate(template_id=stable_id(app, "template", "wire", "MM"), code="BOOK-MM",
                                name="Transfer to Money Market", kind="Wire", from_account_id=operating.account_id,
                                beneficiary=cfg.company, beneficiary_bank=cfg.bank_name, routing_number=cfg.routing_number,
                                account_mask="****" + accounts["money_market"].number[-4:], sec_code=None, status="Approved"))
    start = today - timedelta(days=treasury.YEAR_DAYS)
    ap, payroll, cfo = (cfg.login_of(r) for r in ("AP Specialist", "Payroll Manager", "Chief Financial Officer"))
    batches = defaultdict(list)
    for p in register:
        if p["method"] == "ACH" and p["status"] != "voided" and start <= date.fromisoformat(p["date"]) < today:
            batches[p["date"]].append(p)
    for day, rows in sorted(batches.items()):
        total = sum((r["amount"] for r in rows), start=Decimal("0.00"))
        session.add(Payment(payment_id=stable_id(app, "payment", "ach", day), reference=f"ACH{day.replace('-', '')}",
                            kind="ACH", template_id=None, from_account_id=operating.account_id,
                            beneficiary=f"AP vendor payments ({len(rows)} payees)", amount=total, value_date=day,
                            memo=f"AP ACH run {day}", status="Released", created_by=ap,
                            created_at=f"{(date.fromisoformat(day) - timedelta(days=1)).isoformat()}T19:30:00Z",
                            approved_by=cfo))
    pending = [("EQUIPFIN", "Wire", Decimal("48615.22"), "Equipment loan payment July", "Pending Approval", payroll),
               ("SURETY", "Wire", Decimal("23750.00"), "Performance bond premium", "Pending Approval", ap),
               ("INSURANCE", "Wire", Decimal("61280.40"), "Builders risk premium Q3", "Draft", ap),
               ("EQUIPFIN", "Wire", Decimal("12500.00"), "Equipment loan principal prepayment", "Approved", payroll)]
    for n, (code, kind, amount, memo, status, who) in enumerate(pending, start=1):
        template_id = stable_id(app, "template", "wire", code)
        name = next(w[1] for w in WIRE_PAYEES if w[0] == code)
        session.add(Payment(payment_id=stable_id(app, "payment", "pending", n), reference=f"WR{today:%y%m%d}{n:03d}",
                            kind=kind, template_id=template_id, from_account_id=operating.account_id, beneficiary=name,
                            amount=amount, value_date=(today + timedelta(days=1)).isoformat(), memo=memo,
                            status=status, created_by=who, created_at=f"{today.isoformat()}T13:{10 + n * 7:02d}:00Z",
                            approved_by=cfo if status == "Approved" else None))
    if ach_vendors:
        v = vendors[ach_vendors[0]]
        session.add(Payment(payment_id=stable_id(app, "payment", "pending", "ach"), reference=f"AC{today:%y%m%d}001",
                            kind="ACH", template_id=stable_id(app, "template", "ach", v["vendor_id"]),
                            from_account_id=operating.account_id, beneficiary=v["legal_name"], amount=Decimal("8420.00"),
                            value_date=(today + timedelta(days=2)).isoformat(), memo="Deposit refund per agreement",
                            status="Pending Approval", created_by=ap, created_at=f"{today.isoformat()}T14:05:00Z",
                            approved_by=None))


def _users(session, app, cfg) -> None:
    for u in cfg.users:
        user_id = stable_id(app, "user", u["login"])
        session.add(User(user_id=user_id, login=u["login"], name=u["name"], role=u["role"],
                         email=f"{u['name'].split()[0][0].lower()}{u['name'].split()[-1].lower()}@companyA.com",
                         status="Active"))
        for ent in u["entitlements"]:
            service, permission = ent.split(":")
            session.add(Entitlement(entitlement_id=stable_id(app, "entitlement", u["login"], service, permission),
                                    user_id=user_id, service=service, permission=permission,
                                    daily_limit=Decimal("250000.00") if permission in ("Approve", "Release") else None))
