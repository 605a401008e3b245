"""Build Levelset from the book: every job under Levelset's own id with the company's job number
beside it, the owner and furnishing dates; the deadlines the state's rules give each private job;
the preliminary notices sub-tier suppliers served (older ones resolved by their waivers, this
week's open); the waivers on file; and the document orders (the notice of intent scheduled on the
private jobs whose lien deadline is nearest)."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from portals.core.ids import stable_id
from seeds import levelset

from .lien_models import Deadline, Job, Notice, Order, Waiver

SCHEDULED_ORDERS = 3  # the private jobs whose lien deadline is soonest get a scheduled notice of intent


def levelset_job_id(app: str, job: str) -> int:
    """Levelset numbers a job itself (seven digits); the company's number is a field beside it."""
    return stable_id(app, "job", job, digits=7)


def seed_lien(session, book, rng, clock, spec) -> None:
    app = spec.name
    today = clock.today()
    ids, lien_due = {}, []
    for j in book.get("jobs", []):
        jid = ids[j["job"]] = levelset_job_id(app, j["job"])
        last, estimated = levelset.last_furnished(j, today)
        session.add(Job(job_id=jid, customer_job_number=j["job"], name=j["name"], address=j["address"], city=j["city"],
                        state=j["state"], project_type="Public" if levelset.is_public(j) else "Private",
                        role="Prime Contractor", owner=j["customer"], contract_amount=Decimal(j["contract_amount"]),
                        first_furnished=j["start_date"], last_furnished=last.isoformat(),
                        last_furnished_estimated=estimated, status=j["status"].capitalize()))
        for d in levelset.deadlines(j, today):
            session.add(Deadline(deadline_id=stable_id(app, "deadline", j["job"], d["document"]), job_id=jid,
                                 document=d["document"], due_date=d["due"], statute=d["statute"],
                                 estimated=d["estimated"]))
            if d["status"] == "Upcoming" and j["status"] == "active" and "Suit" not in d["document"]:
                lien_due.append((d["due"], j))
    for n in [*levelset.background(book, today), *levelset.planted(book)]:
        nid = stable_id(app, "notice", n["job"], n["vendor_id"])
        session.add(Notice(notice_id=nid, job_id=ids[n["job"]], claimant=n["claimant"], claimant_role="Material Supplier",
                           hired_by=n["hired_by"], hired_by_address=n["hired_by_address"],
                           received=n["received"], estimated_amount=Decimal(n["amount"]),
                           status="Resolved" if n["kind"] == "resolved" else "Open"))
        w = n["waiver"]
        if w:
            session.add(Waiver(waiver_id=stable_id(app, "waiver", n["job"], n["vendor_id"], w["type"], w["through"]),
                               job_id=ids[n["job"]], notice_id=nid, party=n["claimant"], waiver_type=w["type"],
                               through_date=w["through"], amount=Decimal(w["amount"]), status="Received",
                               created_at=f"{min(date.fromisoformat(n['received']) + timedelta(days=1), today)}T14:00:00Z",
                               note=None))
    for due, j in sorted(lien_due, key=lambda x: (x[0], x[1]["job"]))[:SCHEDULED_ORDERS]:
        send = max(today + timedelta(days=3), date.fromisoformat(due) - timedelta(days=30))
        session.add(Order(order_id=stable_id(app, "order", j["job"], "noi"), job_id=ids[j["job"]],
                          document="Notice of Intent to Lien", recipient=j["customer"], send_date=send.isoformat(),
                          status="Scheduled"))
    session.flush()
