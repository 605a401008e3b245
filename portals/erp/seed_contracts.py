"""Seed subcontract and PO items, subcontract change orders, PM firms, progress bills and batches."""
from __future__ import annotations

import re
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from portals.core.money import CENT

from .batches import OPEN_SOURCES, SOURCES
from .models import (APBill, Batch, Commitment, CommitmentItem, ContractItem, Job, JobCost, PMFirm,
                     ProgressBill, SLChangeOrder, Vendor)
from .seed_extra import offers

BATCH_USERS = {"AP Entry": "APCLERK", "JC CostAdj": "JCACCT", "PR Entry": "PRADMIN", "EM Usage": "EMADMIN",
               "GL Jrnl": "GLACCT", "SL Change": "PMADMIN"}


def seed(session, book, streams, clock, spec, keys) -> None:
    if offers(spec, "get_subcontract", "get_purchase_order", "create_sl_change_order"):
        _items(session, book, keys)
    if offers(spec, "list_sl_change_orders", "create_sl_change_order"):
        _sl_change_orders(session, book, streams("sl_change_orders"), keys)
    if offers(spec, "list_firms"):
        _firms(session, streams("firms"), keys)
    if offers(spec, "list_progress_bills"):
        _progress_bills(session, clock)
    if offers(spec, "list_batches"):
        session.flush()
        _batches(session, clock)


def _items(session, book, keys) -> None:
    known = {c.number for c in session.scalars(select(Commitment))}
    for c in book.get("commitments", []):
        if c["number"] not in known:
            continue
        for line in c.get("lines", []):
            session.add(CommitmentItem(item_key=f"{c['number']}|{line['line_no']}", number=c["number"],
                                       item=int(line["line_no"]), job=keys.jobs.get(c["job"], c["job"]),
                                       cost_code=keys.codes.get(line["cost_code"], line["cost_code"]),
                                       cost_type=line.get("cost_type", "S"), description=line.get("description", ""),
                                       um="LS", orig_cost=Decimal(str(line["amount"]))))


def _sl_change_orders(session, book, rng, keys) -> None:
    """The book's commitment change orders, each on a subcontract of its job executed by then."""
    subs = defaultdict(list)
    for c in session.scalars(select(Commitment).where(Commitment.type == "subcontract").order_by(Commitment.number)):
        if c.executed_date and c.status in ("Approved", "Complete"):
            subs[c.job].append(c)
    numbers = defaultdict(int)
    orders = sorted((co for co in book.get("change_orders", []) if co.get("kind") == "commitment"
                     and co.get("status") in ("approved", "pending")), key=lambda co: (co["created_date"], co["co_id"]))
    for co in orders:
        job = keys.jobs.get(co["job"])
        choices = [c for c in subs.get(job, []) if c.executed_date <= co["created_date"]]
        if not choices:
            continue
        sub = rng.choice(choices)
        numbers[sub.number] += 1
        session.add(SLChangeOrder(co_key=f"{sub.number}|{numbers[sub.number]}", subcontract=sub.number, item=1,
                                  change_order=numbers[sub.number], act_date=co["created_date"],
                                  description=co.get("title", ""), amount=Decimal(str(co["amount"])),
                                  status="posted" if co["status"] == "approved" else "open",
                                  entered_at=f"{co['created_date']}T00:00:00Z"))


def _sort_name(name: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", name.upper())[:15]


def _firms(session, rng, keys) -> None:
    """Subcontractors and suppliers with commitments, and owners. A firm is spelled as the PM typed
    it, and a few firms were never linked to their AP vendor."""
    kinds = defaultdict(set)
    for c in session.scalars(select(Commitment)):
        kinds[c.vendor_key].add("SUB" if c.type == "subcontract" else "SUPPLIER")
    firms = []
    for key in sorted(kinds):
        vendor, book = session.get(Vendor, key), keys.book_vendors.get(key, {})
        if vendor is None:
            continue
        name = (book.get("names") or {}).get("procore") or book.get("legal_name") or vendor.name
        linked = rng.random() >= 0.07
        firms.append(dict(firm_name=name, firm_type="SUB" if "SUB" in kinds[key] else "SUPPLIER",
                          vendor_key=key if linked else None, contact="", phone=vendor.phone, email=vendor.email,
                          address=vendor.address, city=vendor.city, state=vendor.state, zip=vendor.zip))
    owners = {}
    for j in session.scalars(select(Job).order_by(Job.job)):
        owners.setdefault(j.customer, j)
    for customer, j in sorted(owners.items()):
        if customer:
            firms.append(dict(firm_name=customer, firm_type="OWNER", vendor_key=None, contact="", phone="", email="",
                              address="", city=j.city, state=j.state, zip=""))
    for n, firm in enumerate(sorted(firms, key=lambda f: (_sort_name(f["firm_name"]), f["firm_type"])), start=1):
        session.add(PMFirm(firm_key=f"1|{n}", vendor_group=1, firm_number=n,
                           sort_name=_sort_name(firm["firm_name"]), **firm))


def _month_end(mth: str) -> date:
    first = date.fromisoformat(f"{mth}-01")
    return (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)


def _progress_bills(session, clock) -> None:
    """A bill per contract and month: billed to date follows cost to date over the revised budget
    (all of it once the job is closed); retainage at the job's rate."""
    contracts = {i.job for i in session.scalars(select(ContractItem))}
    costs = defaultdict(lambda: defaultdict(Decimal))
    for job, day, amount in session.execute(select(JobCost.job, JobCost.date, JobCost.amount)):
        costs[job][day[:7]] += amount
    current = clock.today().strftime("%Y-%m")
    rows = []
    for job in session.scalars(select(Job).order_by(Job.job)):
        if job.job not in contracts or not costs.get(job.job):
            continue
        budget = job.original_budget + job.approved_changes
        months = sorted(m for m in costs[job.job] if m <= current)
        spent, billed = Decimal(0), Decimal("0.00")
        for i, mth in enumerate(months):
            spent += costs[job.job][mth]
            share = Decimal(1) if (job.status == "closed" and i == len(months) - 1) else \
                min(Decimal(1), spent / budget if budget else Decimal(0))
            to_date = (job.contract_amount * share).quantize(CENT)
            if to_date <= billed:
                continue
            rows.append((mth, job, billed, to_date - billed))
            billed = to_date
    applications = defaultdict(int)
    for number, (mth, job, previous, this) in enumerate(sorted(rows, key=lambda r: (r[0], r[1].job)), start=1):
        applications[job.job] += 1
        end = _month_end(mth)
        retainage = (this * Decimal(job.retainage_pct or "0") / 100).quantize(CENT)
        session.add(ProgressBill(bill_key=f"{job.job}|{applications[job.job]}", job=job.job, bill_number=number,
                                 application=applications[job.job], bill_month=mth, from_date=f"{mth}-01",
                                 to_date=end.isoformat(), invoice_date=end.isoformat(),
                                 due_date=(end + timedelta(days=30)).isoformat(), previous_billed=previous,
                                 this_period=this, retainage=retainage, amount_due=this - retainage,
                                 status="draft" if mth == current else "interfaced"))


def _batches(session, clock) -> None:
    """A posted batch for every source and month that has posted entries, then this month's open
    batches where new entries wait; BatchIds run from 1 within each month."""
    months = defaultdict(set)
    for day in session.scalars(select(APBill.bill_date).where(APBill.state == "posted")):
        months[day[:7]].add("AP Entry")
    by_cost = {cost: source for source, (_t, cost) in SOURCES.items() if cost}
    for source, day in session.execute(select(JobCost.source, JobCost.date).where(JobCost.batch_state == "posted")):
        if source in by_cost and by_cost[source] != "AP Entry":  # AP cost comes with its AP batch
            months[day[:7]].add(by_cost[source])
    for day in session.scalars(select(SLChangeOrder.act_date).where(SLChangeOrder.status == "posted")):
        months[day[:7]].add("SL Change")
    current = clock.today().strftime("%Y-%m")
    order = list(SOURCES)
    for mth in sorted(set(months) | {current}):
        sources = sorted(months.get(mth, ()), key=order.index)
        end = min(_month_end(mth) + timedelta(days=3), clock.today() - timedelta(days=1))
        for n, source in enumerate(sources, start=1):
            session.add(Batch(batch_key=f"{mth}|{n}", co=1, mth=mth, batch_id=n, source=source,
                              table_name=SOURCES[source][0], status="posted", created_by=BATCH_USERS[source],
                              date_created=f"{mth}-01", date_posted=end.isoformat()))
        if mth == current:
            for n, source in enumerate(OPEN_SOURCES, start=len(sources) + 1):
                session.add(Batch(batch_key=f"{mth}|{n}", co=1, mth=mth, batch_id=n, source=source,
                                  table_name=SOURCES[source][0], status="open", created_by=BATCH_USERS[source],
                                  date_created=f"{mth}-01", date_posted=None))
