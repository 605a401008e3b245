"""Build a PM platform's rows from the Company-A book: a pure function of book, rng and clock."""
from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

from portals.core.clock import Clock
from portals.core.ids import stable_id
from portals.core.registry import AppSpec, load_apps

from .models import (BidPackage, BudgetLine, ChangeEvent, ChangeOrder, Commitment, CommitmentLine, CostCode,
                     CustomerInvoice, CustomerInvoiceLine, DirectCost, ErpCostCodeMap, ErpIntegration,
                     ManpowerEntry, PrimeContract, PrimeContractLine, Project, Requisition, Vendor)
from .boq import seed_boq, seed_reestimates
from .funding_seed import seed_funding
from .queries import CONTRACT_TYPES
from .vendor_keys import PmKeys

CO_STATUS = {"approved": "Approved", "pending": "Pending - In Review", "void": "Void",
             "draft": "Draft", "rejected": "Rejected"}
CHANGE_REASON = {"owner": "Client Request", "commitment": "Design Development"}
DIRECT_COSTS_PER_PROJECT = 40
MANPOWER_WEEKS = 6


def _day(text) -> date | None:
    return date.fromisoformat(str(text)[:10]) if text else None


def _money(value) -> Decimal:
    return Decimal(str(value if value not in (None, "") else "0"))


def _unique(ids: list[int], what: str) -> None:
    if len(set(ids)) != len(ids):
        raise ValueError(f"two {what} hashed to the same id; widen the id")


def seed(session, book: dict, rng: random.Random, clock: Clock, spec: AppSpec) -> None:
    app = spec.name
    keys = PmKeys(spec)
    projects = {j["job"]: Project(
        project_id=stable_id(app, "project", j["job"], digits=6), project_number=j["job"], name=j["name"],
        customer=j.get("customer", ""), address=j.get("address", ""), city=j.get("city", ""),
        state=j.get("state", ""), status="active" if j.get("status") == "active" else "inactive",
        stage=keys.stage(j), project_type=j.get("job_type", ""), contract_amount=_money(j.get("contract_amount")),
        pm_name=j.get("pm_name", ""), pm_email=j.get("pm_email", ""), start_date=_day(j.get("start_date")),
        est_completion=_day(j.get("est_completion"))) for j in book["jobs"]}
    _unique([p.project_id for p in projects.values()], "projects")
    origin = _origin_field(book)
    vendors = {v["vendor_id"]: _vendor(app, v, origin, keys) for v in book["vendors"]}
    _unique([v.vendor_id for v in vendors.values()], "vendors")
    session.add_all(projects.values())
    session.add_all(vendors.values())
    session.add_all(CostCode(code=c["code"], csi=c.get("csi", ""), division=c.get("division", c["code"][:2]),
                             description=c["description"]) for c in book["cost_codes"])
    _erp_map(session, book)
    commitments = _commitments(session, app, book, projects, vendors, keys)
    _requisitions(session, book.get("requisitions", []), projects, vendors, commitments)
    planted = book.get("eapps", {}) if keys.eapps else {}
    _requisitions(session, planted.get("requisitions", []), projects, vendors, commitments)
    if keys.rules.get("planted_sub_bills"):  # Ressio's held sub bills (seeds/ressio_sub_bills.py)
        from seeds.ressio_sub_bills import planted as held_sub_bills
        _requisitions(session, held_sub_bills(book), projects, vendors, commitments)
    _prime_contracts(session, app, book, projects)
    # an owner-side product keeps the owner's own re-forecast where the owner made one (seeds/funding.py)
    owner = {(f["job"], f["cost_code"], f["cost_type"]): f["forecast_to_complete"]
             for f in book.get("funding", {}).get("forecasts", [])} if keys.funding else {}
    session.add_all(BudgetLine(
        budget_line_id=stable_id(app, "budget", b["job"], b["cost_code"], b["cost_type"]),
        project_id=projects[b["job"]].project_id, cost_code=b["cost_code"], cost_type=b["cost_type"],
        original_budget=_money(b["original_budget"]), approved_changes=_money(b.get("approved_changes")),
        forecast_to_complete=_money(owner.get((b["job"], b["cost_code"], b["cost_type"]),
                                              b.get("forecast_to_complete")))) for b in book.get("budget_lines", []))
    _changes(session, app, book.get("change_orders", []) + planted.get("change_orders", []), projects, commitments)
    _direct_costs(session, app, book, projects, vendors)
    _manpower(session, app, book, rng, clock, projects, vendors)
    if keys.customer_invoices:
        _customer_invoices(session, app, book, clock, projects, keys)
    if keys.bid_packages:
        _bid_packages(session, app, book, clock, projects, vendors, commitments, keys)
    if keys.boq:
        seed_boq(session, app, book, projects)
        seed_reestimates(session, app, book, projects)
    _prospects(session, app, keys)
    if keys.funding:
        seed_funding(session, app, book, projects, vendors)
    if keys.rules.get("client_change_orders"):  # Ressio's estimates and client change orders
        _client_change_orders(session, app, book, projects)


def _erp_map(session, book: dict) -> None:
    """One crosswalk row per company code and ERP: each ERP manifest names the book field that
    holds its codes, so a new ERP is mapped without a line here."""
    connected = book.get("meta", {}).get("pm_erp_app")
    for erp in (s for s in load_apps().values() if s.kind == "erp"):
        field = erp.manifest.get("erp", {}).get("cost_code_field")
        rows = [m for m in book.get("erp_cost_code_map", []) if field and m.get(field)]
        if not rows:
            continue
        session.add(ErpIntegration(erp_app=erp.name, label=erp.label, connected=erp.name == connected))
        for m in rows:
            code = m.get("procore_code") or m["code"]
            session.add(ErpCostCodeMap(map_key=f"{erp.name}|{code}", erp_app=erp.name, pm_cost_code=code,
                                       erp_code=m[field]))


def _origin_field(book: dict) -> str:
    """The book's vendor field holding the connected ERP's vendor ids: a Directory company's
    origin id is the vendor's id in that ERP (its manifest names the field)."""
    connected = book.get("meta", {}).get("pm_erp_app")
    erp = next((s for s in load_apps().values() if s.kind == "erp" and s.name == connected), None)
    return (erp.manifest.get("erp", {}).get("vendor_key_field") if erp else None) or "vendor_id"


def _vendor(app: str, v: dict, origin: str, keys: PmKeys) -> Vendor:
    vid = keys.vendor_id(v) or stable_id(app, "vendor", v["vendor_id"], digits=7)
    return Vendor(vendor_id=int(vid), name=keys.vendor_name(v),
                  trade=v.get("trade", ""), email=v.get("email", ""), phone=v.get("phone", ""),
                  address=v.get("address", ""), city=v.get("city", ""), state=v.get("state", ""),
                  zip=str(v.get("zip", "")), origin_id=str(v.get(origin) or v["vendor_id"]), is_active=v.get("status", "active") == "active")


def _commitments(session, app, book, projects, vendors, keys: PmKeys) -> dict[str, Commitment]:
    out = {}
    for c in book["commitments"]:
        vendor = vendors.get(c.get("vendor_id"))
        lines = c.get("lines", [])
        row = Commitment(
            commitment_id=stable_id(app, "commitment", c["number"]), number=keys.commitment_number(c),
            book_number=c["number"],
            project_id=projects[c["job"]].project_id, vendor_id=vendor.vendor_id if vendor else None,
            contract_type=CONTRACT_TYPES.get(c["type"], c["type"]), title=c.get("title", ""), status=c["status"],
            retainage_pct=_money(c.get("retainage_pct")), executed_date=_day(c.get("executed_date")),
            grand_total=_money(c.get("amount") or sum(_money(line["amount"]) for line in lines)),
            work_in_place=_money(c["work_in_place"]) if c.get("work_in_place") is not None else None,
            erp_status="synced" if c.get("erp_synced") else "not_synced",
            erp_synced_at=f"{c['executed_date']}T17:00:00Z" if c.get("erp_synced") and c.get("executed_date") else None)
        out[c["number"]] = row
        session.add(row)
        session.add_all(CommitmentLine(
            line_id=stable_id(app, "commitment_line", c["number"], line["line_no"]),
            commitment_id=row.commitment_id, line_no=int(line["line_no"]), cost_code=line["cost_code"],
            cost_type=line.get("cost_type", "S"), description=line.get("description", ""),
            amount=_money(line["amount"])) for line in lines)
    _unique([c.commitment_id for c in out.values()], "commitments")
    return out


def _requisitions(session, rows: list[dict], projects, vendors, commitments) -> None:
    for r in rows:
        commitment = commitments[r["commitment"]]
        vendor = vendors.get(r.get("vendor_id"))
        synced = r.get("erp_sync") == "synced"
        approved = _day(r.get("approved_date"))
        session.add(Requisition(
            requisition_id=int(r["requisition_id"]), commitment_id=commitment.commitment_id,
            project_id=projects[r["job"]].project_id,
            vendor_id=vendor.vendor_id if vendor else commitment.vendor_id, number=int(r.get("number") or 1),
            invoice_number=r.get("invoice_number", ""), period_start=_day(r.get("period_start")),
            period_end=_day(r.get("period_end")), amount=_money(r["amount"]), retainage=_money(r.get("retainage")),
            status=r["status"], approved_date=approved, erp_sync="synced" if synced else "not_synced",
            erp_synced_at=f"{approved.isoformat()}T17:00:00Z" if synced and approved else None))


def _prime_contracts(session, app, book, projects) -> None:
    for pc in book.get("prime_contracts", []):
        pc_id = stable_id(app, "prime_contract", pc["job"], pc["number"])
        session.add(PrimeContract(prime_contract_id=pc_id, project_id=projects[pc["job"]].project_id,
                                  number=pc["number"], owner=pc.get("owner", ""),
                                  original_amount=_money(pc.get("original_amount"))))
        session.add_all(PrimeContractLine(
            line_id=stable_id(app, "prime_contract_line", pc["job"], pc["number"], line["line_no"]),
            prime_contract_id=pc_id, line_no=int(line["line_no"]), cost_code=line.get("cost_code", ""),
            description=line.get("description", ""), scheduled_value=_money(line["scheduled_value"]))
            for line in pc.get("lines", []))


def _changes(session, app, change_orders: list[dict], projects, commitments) -> None:
    """Book change orders; owner and commitment COs each grew out of a change event. A
    commitment CO the product alone holds is recorded on its commitment."""
    per_project: dict[str, int] = {}
    for co in sorted(change_orders, key=lambda c: (c["job"], c.get("created_date") or "", c["co_id"])):
        project = projects[co["job"]]
        status = CO_STATUS.get(str(co["status"]).lower(), co["status"])
        status = co.get("procore_status") or status  # a status the book names, e.g. "Pending - Proceeding"
        event_id = None
        if co["kind"] in CHANGE_REASON:
            per_project[co["job"]] = per_project.get(co["job"], 0) + 1
            event_id = stable_id(app, "change_event", co["co_id"])
            session.add(ChangeEvent(
                change_event_id=event_id, project_id=project.project_id, number=f"{per_project[co['job']]:03d}",
                title=co["title"], status="Closed" if status in ("Approved", "Void", "Rejected") else "Open",
                change_reason=CHANGE_REASON[co["kind"]], estimated_amount=_money(co["amount"]),
                created_date=_day(co.get("created_date"))))
        session.add(ChangeOrder(
            change_order_id=str(co["co_id"]), project_id=project.project_id, change_event_id=event_id,
            number=f"{int(co['number']):03d}" if str(co["number"]).isdigit() else str(co["number"]),
            title=co["title"], kind=co["kind"], status=status, amount=_money(co["amount"]),
            created_date=_day(co.get("created_date")),
            commitment_id=commitments[co["commitment"]].commitment_id if co.get("commitment") else None))


def _direct_costs(session, app, book, projects, vendors) -> None:
    """A modest set: the ERP bills of each project that were not billed against a commitment."""
    taken: dict[str, int] = {}
    for b in sorted(book.get("ap_bills", []), key=lambda b: b["bill_id"]):
        if b.get("commitment") or b.get("job") not in projects or taken.get(b["job"], 0) >= DIRECT_COSTS_PER_PROJECT:
            continue
        taken[b["job"]] = taken.get(b["job"], 0) + 1
        vendor = vendors.get(b.get("vendor_id"))
        session.add(DirectCost(
            direct_cost_id=stable_id(app, "direct_cost", b["bill_id"]), project_id=projects[b["job"]].project_id,
            vendor_id=vendor.vendor_id if vendor else None, cost_code=b.get("cost_code", ""),
            cost_type=b.get("cost_type", "O"), cost_date=_day(b.get("invoice_date")),
            invoice_number=b.get("invoice_number", ""), description=b.get("description", ""),
            amount=_money(b["amount"]), source_ref=b["bill_id"]))


def _manpower(session, app, book, rng, clock, projects, vendors) -> None:
    """Daily log manpower for the last weeks: a few approved subcontractors on site per week."""
    subs: dict[str, list[str]] = {}
    for c in book["commitments"]:
        if c["type"] == "subcontract" and c["status"] == "Approved" and c.get("vendor_id") in vendors:
            code = c["lines"][0]["cost_code"] if c.get("lines") else ""
            subs.setdefault(c["job"], []).append((c["vendor_id"], code))
    today = clock.today()
    last_monday = today - timedelta(days=today.weekday() + 7)
    for job in sorted(projects):
        pool = sorted(set(subs.get(job, [])))
        if projects[job].status != "active" or not pool:
            continue
        for week in range(MANPOWER_WEEKS):
            monday = last_monday - timedelta(weeks=week)
            for vendor_key, code in rng.sample(pool, min(len(pool), rng.randint(1, 3))):
                day = monday + timedelta(days=rng.randint(0, 4))
                workers = rng.randint(2, 14)
                session.add(ManpowerEntry(
                    entry_id=stable_id(app, "manpower", job, day.isoformat(), vendor_key, code),
                    project_id=projects[job].project_id, vendor_id=vendors[vendor_key].vendor_id,
                    log_date=day, workers=workers, hours=workers * 8, cost_code=code,
                    notes=f"{workers} workers on site"))


def _month_ends(first: date, last: date) -> list[date]:
    out, year, month = [], first.year, first.month
    while True:
        end = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
        if end > last:
            return out
        if end >= first:
            out.append(end)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def _complete_at(job: dict, at: date) -> Decimal:
    """The share of the work in place at a month end: time elapsed over the job's duration,
    held under 95% until the job is closed (no contract is billed out before it is done)."""
    start, end = _day(job["start_date"]), _day(job.get("est_completion")) or _day(job["start_date"])
    span = max((end - start).days, 1)
    share = Decimal(max(0, min((at - start).days, span))) / Decimal(span)
    cap = Decimal("1") if job.get("status") == "closed" else Decimal("0.95")
    return min(share, cap).quantize(Decimal("0.0001"))


def _customer_invoices(session, app, book, clock, projects, keys: PmKeys) -> None:
    """Monthly applications for payment against each customer contract's SOV, the last few
    months of them: the newest Sent (awaiting the customer's payment), the earlier ones Paid."""
    today = clock.today()
    jobs = {j["job"]: j for j in book["jobs"]}
    for pc in sorted(book.get("prime_contracts", []), key=lambda p: p["job"]):
        job = jobs[pc["job"]]
        first = _day(job["start_date"]) + timedelta(days=20)
        periods = _month_ends(first, date(today.year, today.month, 1) - timedelta(days=1))
        kept = periods[-keys.customer_invoice_months:]
        retainage_pct = _money(job.get("retainage_pct"))
        lines = [(int(line["line_no"]), line.get("cost_code", ""), line.get("description", ""),
                  _money(line["scheduled_value"])) for line in pc.get("lines", [])]
        for period in kept:
            n = periods.index(period) + 1
            prev_period = periods[n - 2] if n > 1 else None
            share, prev_share = _complete_at(job, period), _complete_at(job, prev_period) if prev_period else Decimal(0)
            number = keys.format("customer_invoice_number", job=pc["job"], seq=n)
            iid = stable_id(app, "customer_invoice", pc["job"], n)
            rows, to_date, before = [], Decimal(0), Decimal(0)
            for line_no, code, desc, sv in lines:
                done = (sv * share).quantize(Decimal("0.01"))
                prev = (sv * prev_share).quantize(Decimal("0.01"))
                to_date, before = to_date + done, before + prev
                rows.append(CustomerInvoiceLine(
                    line_id=stable_id(app, "customer_invoice_line", iid, line_no), invoice_id=iid, line_no=line_no,
                    cost_code=code, description=desc, scheduled_value=sv, previous=prev, this_period=done - prev))
            this = to_date - before
            retainage = (this * retainage_pct / 100).quantize(Decimal("0.01"))
            session.add(CustomerInvoice(
                invoice_id=iid, project_id=projects[pc["job"]].project_id, number=number, application_no=n,
                period_end=period, invoice_date=period + timedelta(days=3),
                status="Sent" if period == periods[-1] else "Paid", retainage_pct=retainage_pct,
                completed_to_date=to_date, previous_billed=before, this_period=this, retainage=retainage,
                amount_due=this - retainage))
            session.add_all(rows)


def _bid_packages(session, app, book, clock, projects, vendors, commitments, keys: PmKeys) -> None:
    """One bid package per commitment the company bought out: awarded to its vendor once the
    commitment went out for signature; a draft commitment's package is a Draft, its RFQ unsent."""
    today = clock.today()
    per_job: dict[str, int] = {}
    for c in sorted(book["commitments"], key=lambda c: (c["job"], c["number"])):
        if c["status"] == "Void":
            continue
        per_job[c["job"]] = per_job.get(c["job"], 0) + 1
        vendor = vendors.get(c.get("vendor_id"))
        awarded = c["status"] != "Draft"
        executed = _day(c.get("executed_date"))
        session.add(BidPackage(
            package_id=stable_id(app, "bid_package", c["number"]), project_id=projects[c["job"]].project_id,
            number=keys.format("bid_package_number", job=c["job"], seq=per_job[c["job"]]),
            title=c.get("title", ""), cost_code=c["lines"][0]["cost_code"] if c.get("lines") else "",
            trade=vendor.trade if vendor else "", status="Awarded" if awarded else "Draft",
            due_date=(executed - timedelta(days=21)) if executed else today + timedelta(days=14),
            estimate=_money(c.get("amount")), invited=3 + stable_id(app, "invited", c["number"], digits=2) % 4,
            awarded_vendor_id=vendor.vendor_id if vendor and awarded else None,
            commitment_id=commitments[c["number"]].commitment_id if awarded else None))


def _prospects(session, app, keys: PmKeys) -> None:
    """Opportunities the product tracks before any contract (Draft, Request, Proposal): the
    manifest lists them; the book and the ERPs have no job for them until one is awarded."""
    for p in keys.prospects:
        session.add(Project(
            project_id=stable_id(app, "project", p["number"], digits=6), project_number=p["number"],
            name=p["name"], customer=p.get("customer", ""), city=p.get("city", ""), state=p.get("state", ""),
            status="inactive", stage=p["stage"], project_type=p.get("type", ""),
            contract_amount=_money(p.get("amount")), pm_name=p.get("pm_name", ""), pm_email=p.get("pm_email", ""),
            start_date=None, est_completion=None))


def _client_change_orders(session, app: str, book: dict, projects: dict) -> None:
    """Each job's estimate and the client change orders of seeds/ressio_change_orders.py."""
    from seeds.ressio_change_orders import estimates, orders

    from .change_order_models import ClientChangeOrder, ClientChangeOrderLine, JobEstimate

    for e in estimates(book):
        session.add(JobEstimate(estimate_id=stable_id(app, "estimate", e["job"], digits=6),
                                project_id=projects[e["job"]].project_id, number=e["number"], status=e["status"],
                                status_date=_day(e["status_date"]), status_by=e["status_by"],
                                total=_money(e["total"])))
    for o in orders(book):
        co_id = stable_id(app, "client_change_order", o["job"], o["number"])
        session.add(ClientChangeOrder(
            change_order_id=co_id, project_id=projects[o["job"]].project_id, number=o["number"], title=o["title"],
            sent_date=_day(o["sent_date"]), client_status=o["client_status"],
            client_status_date=_day(o["client_status_date"]),
            signed_amount=_money(o["signed_amount"]) if o["signed_amount"] else None))
        session.add_all(ClientChangeOrderLine(
            line_id=stable_id(app, "client_change_order_line", o["job"], o["number"], str(x["line_no"])),
            change_order_id=co_id, line_no=x["line_no"], cost_code=x["cost_code"], cost_type=x["cost_type"],
            description=x["description"], amount=_money(x["amount"])) for x in o["lines"])
