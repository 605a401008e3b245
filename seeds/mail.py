"""The controller's Outlook mailbox: invoices, PM approvals, owners, bank notices and noise."""
from __future__ import annotations

import random
from datetime import date, datetime, timedelta

from . import names as N
from .reference import CONTROLLER, JSM_INVOICE, JSM_VENDOR
from .util import add_days, business_dt, iso_dt, parse, short_hash

ME = CONTROLLER["email"]
BANK = ("Piedmont National Bank", "alerts@piedmontnationalbank.com")
NOISE = [
    ("AGC Carolinas", "news@agccarolinas.org", "AGC Weekly: {topic}", ["Safety stand-down", "Prompt pay bill update",
     "Lien law changes", "Workforce summit"]),
    ("IT Help Desk", "helpdesk@companyA.com", "{topic}", ["Password expires in 5 days", "Scheduled maintenance tonight",
     "Phishing test results", "New VPN client"]),
    ("HR", "hr@companyA.com", "{topic}", ["Open enrollment reminder", "Holiday schedule", "Timesheet deadline",
     "Benefits webinar"]),
    ("Procore", "no-reply@procore.com", "Procore: {topic}", ["Daily log summary", "RFI response due",
     "Submittal returned", "Weekly digest"]),
    ("ENR Southeast", "newsletter@enr.com", "ENR Southeast: {topic}", ["Top contractors list", "Market outlook",
     "Project of the year nominations"]),
    ("Sage Intacct", "no-reply@intacct.com", "Sage Intacct: {topic}", ["Scheduled report ready",
     "Release notes", "Close checklist reminder"]),
    ("Viewpoint", "no-reply@viewpoint.com", "Vista: {topic}", ["Batch posting report", "Job cost nightly update",
     "License renewal notice"]),
]


class _Box:
    def __init__(self, rng: random.Random):
        self.rng, self.msgs, self.ids = rng, [], set()

    def add(self, when: datetime, folder: str | None, from_name: str, from_email: str, to: list[str],
            subject: str, body: str, cc: list[str] | None = None, attachments: list[dict] | None = None,
            is_read: bool | None = None) -> dict:
        when = min(when, datetime(2026, 6, 30, 16, 58, 0))  # nothing arrives after the clock
        mid = f"MSG-{when:%Y%m%d%H%M%S}-{short_hash(f'{when}{from_email}{subject}', 6)}"
        while mid in self.ids:
            when += timedelta(seconds=1)
            mid = f"MSG-{when:%Y%m%d%H%M%S}-{short_hash(f'{when}{from_email}{subject}', 6)}"
        self.ids.add(mid)
        if folder is None:
            recent = when.date() >= date(2026, 5, 15) or (when.year == 2026 and self.rng.random() < 0.25)
            folder = "Inbox" if recent else "Archive"
        if is_read is None:
            is_read = when.date() < date(2026, 6, 22) or self.rng.random() < 0.4
        msg = {"message_id": mid, "folder": folder, "from_name": from_name, "from_email": from_email,
               "to": to, "cc": cc or [], "subject": subject, "body": body, "received_at": iso_dt(when),
               "is_read": is_read, "attachments": attachments or []}
        self.msgs.append(msg)
        return msg


def _day(rng: random.Random, lo: date = date(2026, 1, 2), hi: date = date(2026, 6, 30)) -> date:
    d = add_days(lo, rng.randint(0, (hi - lo).days))
    return d if d.weekday() < 5 else add_days(d, 7 - d.weekday()) if add_days(d, 7 - d.weekday()) <= hi else lo


def build_mail(rng: random.Random, jobs: dict, vendors: dict, requisitions: list[dict],
               documents: list[dict]) -> list[dict]:
    box = _Box(rng)
    sign = "\n\nThanks,\n"
    for doc in documents:
        f = doc["fields"]
        if doc["kind"] != "invoice":
            continue
        v = next(x for x in (vendors.get(vid) for vid in _vendor_ids(vendors, f)) if x)
        fixed = f["invoice_number"] == JSM_INVOICE
        when = datetime(2026, 6, 29, 14, 22, 10) if fixed else business_dt(rng, parse(doc["created_at"][:10]) - timedelta(days=1))
        who = f"{v['dba'] or v['legal_name']} Accounts Receivable"
        job = jobs[f["job"]]
        subject = (f"Invoice {f['invoice_number']} - Job {f['job']} {job['name']}" if rng.random() < 0.7 or fixed
                   else f"{v['dba'] or v['legal_name']} invoice {f['invoice_number']}")
        body = (f"Hello,\n\nPlease find attached invoice {f['invoice_number']} for ${f['total']} "
                f"for work at {job['name']} (PO/Contract {f['po_number'] or 'n/a'}).{sign}{who}\n{v['phone']}")
        box.add(when, "Inbox" if fixed else None, who, v["email"], [ME], subject, body,
                attachments=[{"name": doc["name"], "doc_id": doc["doc_id"]}], is_read=False if fixed else None)
    _pm_mail(rng, box, jobs, requisitions)
    _owner_mail(rng, box, jobs)
    _bank_mail(rng, box)
    _noise(rng, box, documents, vendors)
    return sorted(box.msgs, key=lambda m: m["message_id"])


def _vendor_ids(vendors: dict, fields: dict) -> list[str]:
    """Invoice docs name the vendor as printed; find it by legal name (or V1001's DBA)."""
    if fields["vendor_name"] == vendors[JSM_VENDOR]["dba"]:
        return [JSM_VENDOR]
    return [vid for vid, v in vendors.items() if v["legal_name"] == fields["vendor_name"]]


def _pm_mail(rng, box, jobs, requisitions):
    recent = [r for r in requisitions if r["approved_date"] and r["approved_date"] >= "2026-01-05"]
    for r in sorted(rng.sample(recent, min(220, len(recent))), key=lambda r: r["requisition_id"]):
        job = jobs[r["job"]]
        when = business_dt(rng, parse(r["approved_date"]))
        box.add(when, None, job["pm_name"], job["pm_email"], [ME],
                f"Approved: {r['commitment']} Pay App #{r['number']} ({r['invoice_number']})",
                f"Renee,\n\nI reviewed {r['commitment']} pay app #{r['number']} for ${r['amount']} "
                f"(period ending {r['period_end']}). Quantities match the field. OK to process.\n\n"
                f"{job['pm_name']}\nProject Manager, Job {job['job']}")
        if rng.random() < 0.5:
            box.add(when + timedelta(hours=rng.randint(1, 20)), "Sent Items", CONTROLLER["name"], ME,
                    [job["pm_email"]], f"RE: Approved: {r['commitment']} Pay App #{r['number']}",
                    "Thanks - queued for the next AP run.\n\nRenee", is_read=True)


def _owner_mail(rng, box, jobs):
    active = [j for j in jobs.values() if j["status"] == "active"]
    for _ in range(110):
        job = rng.choice(active)
        domain = "".join(ch for ch in job["customer"].lower() if ch.isalpha())[:20] + ".org"
        first, last = rng.choice(N.FIRST_NAMES), rng.choice(N.LAST_NAMES)
        month = rng.choice(["January", "February", "March", "April", "May", "June"])
        subject = rng.choice([f"Pay Application {month} - Job {job['job']}", f"Retainage question - {job['name']}",
                              f"Lien waivers needed for {month} draw", f"Change order pricing - {job['name']}"])
        box.add(business_dt(rng, _day(rng)), None, f"{first} {last}", f"{first[0].lower()}{last.lower()}@{domain}",
                [ME], subject, f"Hi Renee,\n\nFollowing up on {subject.lower()}. Please send backup "
                f"when you can.\n\n{first} {last}\n{job['customer']}", cc=[job["pm_email"]])
        if rng.random() < 0.6:
            box.add(business_dt(rng, _day(rng)), "Sent Items", CONTROLLER["name"], ME,
                    [f"{first[0].lower()}{last.lower()}@{domain}"], f"RE: {subject}",
                    "Attached is the requested backup. Let me know if you need anything else.\n\nRenee",
                    is_read=True)


def _bank_mail(rng, box):
    d = date(2026, 1, 2)
    while d <= date(2026, 6, 30):
        if d.weekday() < 5:
            box.add(datetime(d.year, d.month, d.day, 11, 5, rng.randint(0, 59)), None, *BANK, [ME],
                    f"Daily balance report - {d:%m/%d/%Y}",
                    "Your prior-day balance report is ready in Treasury Online.")
            if rng.random() < 0.25:
                box.add(business_dt(rng, d), None, *BANK, [ME],
                        rng.choice(["Positive Pay exceptions require review", "ACH batch accepted",
                                    "Wire confirmation", "Check image statement available"]),
                        "Log in to Treasury Online to review. Decisions are due by 2:00 PM ET.")
        d += timedelta(days=1)


def _noise(rng, box, documents, vendors):
    for _ in range(430):
        name, email, subject, topics = rng.choice(NOISE)
        box.add(business_dt(rng, _day(rng)), None, name, email, [ME], subject.format(topic=rng.choice(topics)),
                "This is an automated message. Please do not reply.")
    cois = [d for d in documents if d["kind"] == "coi"]
    for doc in sorted(rng.sample(cois, min(70, len(cois))), key=lambda d: d["doc_id"]):
        broker = rng.choice(["Carolina Risk Partners", "Summit Insurance Services", "Blue Ridge Agency"])
        box.add(business_dt(rng, max(parse(doc["created_at"][:10]), date(2025, 12, 1))), None, broker,
                f"certificates@{broker.lower().replace(' ', '')}.com", [ME],
                f"Certificate of Insurance - {doc['fields']['insured']}",
                f"Attached is the updated certificate for {doc['fields']['insured']}.",
                attachments=[{"name": doc["name"], "doc_id": doc["doc_id"]}])
    vlist = sorted(vendors.values(), key=lambda v: v["vendor_id"])
    for _ in range(120):
        v = rng.choice(vlist)
        box.add(business_dt(rng, _day(rng)), "Sent Items", CONTROLLER["name"], ME, [v["email"]],
                rng.choice(["Updated W-9 request", "Statement reconciliation", "Lien waiver reminder",
                            "Certificate of insurance needed"]),
                f"Hello,\n\nPlease send the requested document for {v['legal_name']}.\n\nRenee Albright\n"
                f"Controller, Company A Builders, Inc.", is_read=True)
    for i in range(8):
        v = rng.choice(vlist)
        box.add(datetime(2026, 6, 30, 13, 10 + i, 0), "Drafts", CONTROLLER["name"], ME, [v["email"]],
                "Question on your statement", "Hi,\n\nWe show", is_read=True)
