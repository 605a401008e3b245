"""Build GCPay from the book: a pure function of book, rng and clock.

Every active job with an owner prime contract becomes a project whose SOV is the contract's
lines plus a line for each owner change order approved by the last pay application. Its
history is one approved owner pay application a month to the last month end before the clock
(the latest one "Approved", earlier ones "Paid"), each computed by portals/payapp/billing.py
from a progress curve per line; the PM's progress for the clock's month is in `progress`,
including work on change orders approved since the last application. The book's subcontractor
invoices become AFPs with approval routes and waivers; its vendors' insurance dates become
compliance items.
"""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

from portals.core.clock import Clock
from portals.core.ids import stable_id
from portals.core.registry import AppSpec

from seeds.contracts import owner_co_approved
from seeds.divergences import gcpay_project_code
from seeds.reference import RETAINAGE_REDUCTION_JOBS

from .billing import ZERO, Line, contract_rate, g702
from .models import (Afp, ApprovalStep, ChangeOrder, ComplianceItem, EpaymentBatch, PayApp, PayAppLine,
                     ProgressEntry, Project, SovLine, Waiver)

ROLES = ("Project Accountant", "Compliance Officer", "Lien Officer", "Treasury Assistant")
AFP_STATUS = {"paid": "Paid", "approved": "Approved", "under_review": "In Review",
              "draft": "In Review", "revise_and_resubmit": "Returned"}
REPORTERS = ("Project Manager", "Superintendent")


def _day(text) -> date:
    return date.fromisoformat(str(text)[:10])


def _month_ends(first: date, last: date) -> list[date]:
    out, year, month = [], first.year, first.month
    while True:
        nxt = date(year + month // 12, month % 12 + 1, 1)
        end = nxt - timedelta(days=1)
        if end > last:
            return out
        if end >= first:
            out.append(end)
        year, month = nxt.year, nxt.month


def project_code(job: str) -> str:
    """GCPay's own project code for a job (registered in seeds/divergences.py)."""
    return gcpay_project_code(job)


def _fraction(at: date, start: date, end: date) -> float:
    span = max((end - start).days, 1)
    return min(max((at - start).days / span, 0.0), 1.0)


def _curve(rng: random.Random, n_lines: int) -> list[tuple[float, float]]:
    """When each line's work runs, as fractions of the schedule: general conditions and fee all
    along, the trades staggered through it."""
    out = []
    for i in range(n_lines):
        if i == 0 or i == n_lines - 1:
            out.append((0.0, 1.0))
            continue
        a = rng.uniform(0.0, 0.55) * (i / n_lines) + rng.uniform(0, 0.15)
        out.append((a, min(1.0, a + rng.uniform(0.3, 0.6))))
    return out


def _to_date(value: Decimal, window: tuple[float, float], s: float) -> Decimal:
    a, b = window
    share = min(max((s - a) / max(b - a, 0.01), 0.0), 1.0)
    return Decimal(int(float(value) * share))  # whole dollars, as a PM reports them


def seed(session, book: dict, rng: random.Random, clock: Clock, spec: AppSpec) -> None:
    app = spec.name
    today = _day(clock.iso())
    period = _month_ends(today.replace(day=1), date(today.year + 1, 1, 31))[0]  # this month's end
    jobs = {j["job"]: j for j in book["jobs"]}
    owner_cos: dict[str, list[dict]] = {}
    for co in book["change_orders"]:
        if co["kind"] == "owner":
            owner_cos.setdefault(co["job"], []).append(co)
    projects = {}
    for pc in sorted(book["prime_contracts"], key=lambda p: p["job"]):
        job = jobs[pc["job"]]
        projects[pc["job"]] = _seed_project(session, app, rng, job, pc, owner_cos.get(pc["job"], []), today, period,
                                            (book.get("gcpay_progress") or {}).get(pc["job"]))
    _seed_afps(session, app, rng, book, projects, today)
    session.flush()


def _seed_project(session, app, rng, job, pc, cos, today, period, planted: dict | None = None) -> int:
    """`planted`: what a book sets for the project beyond its own draws (the private split's
    salted world does: tasks/families/b_aia_g702.py), a reduction clause and stored materials
    reported this period; the public book sets none."""
    pid = stable_id(app, "project", job["job"], digits=7)
    base = Decimal(job["retainage_pct"])
    drawn = rng.random() < 0.5
    clause = drawn or job["job"] in RETAINAGE_REDUCTION_JOBS or bool((planted or {}).get("reduction_clause"))
    reduced = Decimal("5.00") if base > 5 and clause else None
    start, end = _day(job["start_date"]), _day(job["est_completion"])
    session.add(Project(project_id=pid, code=project_code(job["job"]), erp_job=job["job"], name=job["name"],
                        owner=pc["owner"], city=job.get("city", ""), contract_number=pc["number"],
                        contract_date=start, original_sum=Decimal(pc["original_amount"]), retainage_pct=base,
                        reduced_retainage_pct=reduced, reduce_at_pct=Decimal("50.00") if reduced else None,
                        status="Active"))
    periods = _month_ends(start + timedelta(days=20), period - timedelta(days=1))
    last = periods[-1] if periods else None
    lines = [dict(item_no=l["line_no"], description=l["description"], cost_code=l["cost_code"],
                  value=Decimal(l["scheduled_value"]), co_id=None) for l in pc["lines"]]
    windows = _curve(rng, len(lines))
    new_cos = []
    for co in sorted(cos, key=lambda c: c["co_id"]):
        created = _day(co["created_date"])
        status = {"approved": "Approved", "pending": "Pending", "void": "Void"}[co["status"]]
        approved = owner_co_approved(co, today)
        session.add(ChangeOrder(co_id=co["co_id"], project_id=pid, number=co["number"], title=co["title"],
                                amount=Decimal(co["amount"]), status=status, created_date=created,
                                approved_date=approved))
        if approved is None:
            continue
        at = _fraction(approved, start, end)
        if last is not None and approved <= last:
            lines.append(dict(item_no=len(lines) + 1, description=f"CO #{co['number']} {co['title']}",
                              cost_code="01-100", value=Decimal(co["amount"]), co_id=co["co_id"]))
            windows.append((at, min(1.0, at + 0.25)))
        else:
            new_cos.append((co, (at, min(1.0, at + 0.25))))
    for line in lines:
        session.add(SovLine(line_id=stable_id(app, "sov", pid, line["item_no"]), project_id=pid,
                            item_no=line["item_no"], description=line["description"], cost_code=line["cost_code"],
                            scheduled_value=line["value"], co_id=line["co_id"]))
    approved_on = {c.co_id: c.approved_date for c in session.new if isinstance(c, ChangeOrder) and c.project_id == pid}
    previous = {l["item_no"]: ZERO for l in lines}
    prior_earned = ZERO
    for n, period_to in enumerate(periods, start=1):
        s = _fraction(period_to, start, end)
        on = [(l, w) for l, w in zip(lines, windows) if l["co_id"] is None or approved_on[l["co_id"]] <= period_to]
        g_lines = []
        for line, window in on:
            done = previous[line["item_no"]]
            to_date = max(_to_date(line["value"], window, s), done) if line["value"] > 0 else ZERO
            g_lines.append(Line(line["item_no"], line["description"], line["value"], done, to_date - done, ZERO))
        net_co = sum((l["value"] for l, _ in on if l["co_id"]), ZERO)
        completed = sum((l.completed_stored for l in g_lines), ZERO)
        original = Decimal(pc["original_amount"])
        rate = contract_rate(base, reduced, Decimal("50") if reduced else None, completed, original + net_co)
        summary = g702(original, net_co, g_lines, rate, rate, prior_earned)
        _add_pay_app(session, app, pid, n, period_to, "Approved" if period_to == last else "Paid",
                     rate, summary, f"{period_to + timedelta(days=5)}T15:00:00Z")
        prior_earned = summary["earned_less_retainage"]
        previous.update({l.item_no: l.completed_stored for l in g_lines})
    _seed_progress(session, app, rng, pid, lines, windows, previous, new_cos, start, end, period,
                   (planted or {}).get("stored") or {})
    return pid


def _add_pay_app(session, app, pid, number, period_to, status, rate, summary, at) -> None:
    aid = stable_id(app, "pay_app", pid, number)
    session.add(PayApp(pay_app_id=aid, project_id=pid, number=number, period_to=period_to, status=status,
                       retainage_work_pct=rate, retainage_stored_pct=rate, updated_at=at,
                       **{k: v for k, v in summary.items() if k != "lines"}))
    for row in summary["lines"]:
        session.add(PayAppLine(line_id=stable_id(app, "pay_app_line", aid, row["item_no"]), pay_app_id=aid, **row))


def _seed_progress(session, app, rng, pid, lines, windows, previous, new_cos, start, end, period,
                   planted: dict | None = None) -> None:
    s = _fraction(period, start, end)
    reporter = rng.choice(REPORTERS)
    for i, (line, window) in enumerate(zip(lines, windows)):
        done = previous[line["item_no"]]
        work = max(_to_date(line["value"], window, s) - done, ZERO)
        room = line["value"] - done - work
        stored, status = ZERO, ""
        trade = 0 < i < len(windows) - 1 and line["co_id"] is None and line["description"] != "Overhead and Fee"
        if trade and room > 20000 and rng.random() < 0.25:
            stored = Decimal(int(float(room) * rng.uniform(0.05, 0.25)) // 100 * 100)
            status = "Not delivered" if rng.random() < 0.3 else "On site"
        plant = (planted or {}).get(str(line["item_no"]))
        if plant and room > 0:  # after the draws, so no other project's draws move
            stored = Decimal(int(float(room) * float(plant["share"])) // 100 * 100)
            status = plant["status"]
        session.add(ProgressEntry(entry_id=stable_id(app, "progress", pid, period, line["item_no"]), project_id=pid,
                                  period_to=period, item_no=line["item_no"], co_id=None,
                                  description=line["description"], work_this_period=work, stored_materials=stored,
                                  stored_status=status if stored else "", reported_by=reporter,
                                  note=_note(status)))
    for co, window in new_cos:
        work = max(_to_date(Decimal(co["amount"]), window, s), ZERO)
        session.add(ProgressEntry(entry_id=stable_id(app, "progress", pid, period, co["co_id"]), project_id=pid,
                                  period_to=period, item_no=None, co_id=co["co_id"],
                                  description=f"CO #{co['number']} {co['title']}", work_this_period=work,
                                  stored_materials=ZERO, stored_status="", reported_by=reporter,
                                  note="Change order work; not yet on the schedule of values."))


def _note(status: str) -> str:
    return {"Not delivered": "Supplier invoiced the materials; they have not been delivered to the site.",
            "On site": "Materials delivered, stored on site and insured."}.get(status, "")


def _seed_afps(session, app, rng, book, projects, today) -> None:
    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    used = set()
    for req in sorted(book["requisitions"], key=lambda r: r["requisition_id"]):
        pid = projects.get(req["job"])
        if pid is None:
            continue
        vendor = vendors[req["vendor_id"]]
        used.add(vendor["vendor_id"])
        amount, retainage = Decimal(req["amount"]), Decimal(req["retainage"])
        status = AFP_STATUS[req["status"]]
        afp_id = stable_id(app, "afp", req["requisition_id"])
        session.add(Afp(afp_id=afp_id, project_id=pid, number=req["number"], vendor_code=vendor["vendor_id"],
                        vendor_name=vendor["legal_name"], subcontract=req["commitment"],
                        invoice_number=req["invoice_number"],
                        period_to=_day(req["period_end"]) if req.get("period_end") else None,
                        amount=amount, retainage=retainage, net_due=amount - retainage, status=status,
                        return_reason="Quantities do not match the field report." if status == "Returned" else ""))
        done = {"Paid": 4, "Approved": 3, "In Review": rng.randint(0, 2), "Returned": 0}[status]
        acted = _day(req["approved_date"]) if req.get("approved_date") else None
        for seq, role in enumerate(ROLES, start=1):
            state = "Approved" if seq <= done else ("Returned" if status == "Returned" and seq == 1 else "Waiting")
            session.add(ApprovalStep(step_id=stable_id(app, "step", afp_id, seq), afp_id=afp_id, seq=seq, role=role,
                                     status=state, acted_on=acted if state != "Waiting" else None))
        kind = "Unconditional progress" if status == "Paid" else "Conditional progress"
        session.add(Waiver(waiver_id=stable_id(app, "waiver", afp_id), afp_id=afp_id, kind=kind,
                           through_date=_day(req["period_end"]) if req.get("period_end") else None,
                           amount=amount - retainage,
                           status="Signed" if status == "Paid" else ("Not sent" if status != "Approved" else "Sent")))
    for code in sorted(used):
        v = vendors[code]
        expires = _day(v["coi_expires"]) if v.get("coi_expires") else None
        state = "Missing" if expires is None else ("Expired" if expires < today else "Compliant")
        session.add(ComplianceItem(item_id=stable_id(app, "compliance", code, "coi"), vendor_code=code,
                                   vendor_name=v["legal_name"], kind="Certificate of insurance", expires=expires,
                                   status=state, blocks_payment=state != "Compliant"))
        session.add(ComplianceItem(item_id=stable_id(app, "compliance", code, "w9"), vendor_code=code,
                                   vendor_name=v["legal_name"], kind="W-9", expires=None, status="Compliant",
                                   blocks_payment=False))
    approved = [a for a in session.new if isinstance(a, Afp) and a.status == "Approved"]
    for n in range(3):
        chunk = sorted(approved, key=lambda a: a.afp_id)[n::3]
        session.add(EpaymentBatch(batch_id=stable_id(app, "batch", n), name=f"ePayment batch {today:%Y-%m}-{n + 1}",
                                  afp_count=len(chunk), total=sum((a.net_due for a in chunk), ZERO),
                                  status="Open", created_on=today))
