"""Levelset's services (the compliance archetype's lien line): jobs and their deadlines, notices
received, lien waivers and document orders, and the guarded steps that cost money and have legal
effect (sending a waiver request, signing a waiver, ordering a notice, filing a lien)."""
from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Literal
from zoneinfo import ZoneInfo

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.paging import paged
from portals.core.sorting import DATE, MONEY, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, Amount, service

from .lien_models import Deadline, Job, Notice, Order, Waiver
from .pay import _get  # one lookup-or-NotFound for every compliance line

WAIVER_TYPES = ("Conditional Progress", "Unconditional Progress", "Conditional Final", "Unconditional Final")
WAIVER_STATUSES = ("Draft", "Requested", "Received", "Signed")
NOTICE_STATUSES = ("Open", "Resolved")
ORDER_STATUSES = ("Scheduled", "Cancelled", "Sent")
DOCUMENTS = ("Preliminary Notice", "Notice of Intent to Lien", "Mechanic's Lien", "Bond Claim")
WaiverType = Literal["Conditional Progress", "Unconditional Progress", "Conditional Final", "Unconditional Final"]
WaiverStatus = Literal["Draft", "Requested", "Received", "Signed"]
NoticeStatus = Literal["Open", "Resolved"]
OrderStatus = Literal["Scheduled", "Cancelled", "Sent"]
Document = Literal["Preliminary Notice", "Notice of Intent to Lien", "Mechanic's Lien", "Bond Claim"]
CENTRAL = ZoneInfo("America/Chicago")
CANCEL_BY = time(10, 0)  # a monthly notice can be cancelled until 10 a.m. Central on its send day

JOB_SORT = {"name": (Job.name, TEXT), "state": (Job.state, TEXT), "number": (Job.customer_job_number, TEXT),
            "last_furnished": (Job.last_furnished, DATE), "amount": (Job.contract_amount, MONEY)}
DEADLINE_SORT = {"due": (Deadline.due_date, DATE), "job": (Job.name, TEXT), "document": (Deadline.document, TEXT)}
NOTICE_SORT = {"received": (Notice.received, DATE), "claimant": (Notice.claimant, TEXT),
               "amount": (Notice.estimated_amount, MONEY), "job": (Job.name, TEXT)}
WAIVER_SORT = {"through": (Waiver.through_date, DATE), "party": (Waiver.party, TEXT),
               "amount": (Waiver.amount, MONEY), "type": (Waiver.waiver_type, TEXT)}


def job_row(j: Job) -> dict:
    return {"job_id": j.job_id, "customer_job_number": j.customer_job_number, "name": j.name,
            "address": j.address, "city": j.city, "state": j.state, "project_type": j.project_type, "role": j.role,
            "owner": j.owner, "contract_amount": j.contract_amount, "first_furnished": j.first_furnished,
            "last_furnished": j.last_furnished, "last_furnished_estimated": j.last_furnished_estimated,
            "status": j.status, "lien_rights": j.project_type == "Private"}


def deadline_row(d: Deadline, j: Job | None = None, today: date | None = None) -> dict:
    row = {"deadline_id": d.deadline_id, "job_id": d.job_id, "job_name": j.name if j else "",
           "document": d.document, "due_date": d.due_date, "statute": d.statute, "estimated": d.estimated}
    if today is not None:
        row["days_left"] = (date.fromisoformat(d.due_date) - today).days
    return row


def notice_row(n: Notice, j: Job | None = None) -> dict:
    return {"notice_id": n.notice_id, "job_id": n.job_id, "job_name": j.name if j else "", "claimant": n.claimant,
            "claimant_role": n.claimant_role, "hired_by": n.hired_by,
            "hired_by_address": n.hired_by_address, "received": n.received,
            "estimated_amount": n.estimated_amount, "status": n.status}


def waiver_row(w: Waiver, j: Job | None = None) -> dict:
    return {"waiver_id": w.waiver_id, "job_id": w.job_id, "job_name": j.name if j else "", "notice_id": w.notice_id,
            "party": w.party, "waiver_type": w.waiver_type, "through_date": w.through_date, "amount": w.amount,
            "status": w.status, "created_at": w.created_at, "note": w.note}


def order_row(o: Order, j: Job | None = None) -> dict:
    return {"order_id": o.order_id, "job_id": o.job_id, "job_name": j.name if j else "", "document": o.document,
            "recipient": o.recipient, "send_date": o.send_date, "status": o.status}


def _clean(value: str | None, field: str, limit: int = 500, required: bool = False) -> str | None:
    text = " ".join((value or "").split())
    if required and not text:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} is required.", field)
    if len(text) > limit:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} is at most {limit} characters.", field)
    return text or None


def _words(stmt, query: str | None, *columns):
    for word in (query or "").split():
        stmt = stmt.where(or_(*(c.ilike(f"%{word}%") for c in columns)))
    return stmt


# -- jobs and deadlines ----------------------------------------------------------------------------

@service(READ)
def list_jobs(ctx: ServiceContext, query: str | None = None, state: str | None = None,
              project_type: Literal["Private", "Public"] | None = None,
              status: Literal["Active", "Closed"] | None = None, page: int = 1, per_page: int = 25,
              sort: str | None = None) -> dict:
    """List the company's jobs with their state, owner and furnishing dates.

    Args:
        query: Words to find in the job's name, your job number, owner, address or city.
        state: Only jobs in this state (two letters).
        project_type: Private or Public.
        status: Active or Closed.
        page: Page number, starting at 1.
        per_page: Jobs per page, 1 to 100.
        sort: Sort by name, state, number, last_furnished or amount; a leading "-" sorts descending.
    """
    stmt = _words(select(Job), query, Job.name, Job.customer_job_number, Job.owner, Job.address, Job.city)
    if state:
        stmt = stmt.where(Job.state == state.strip().upper())
    if project_type:
        stmt = stmt.where(Job.project_type == project_type)
    if status:
        stmt = stmt.where(Job.status == status)
    stmt = stmt.order_by(*sort_order(sort, JOB_SORT, (Job.name, Job.job_id)))
    return paged(ctx.session, stmt, page, per_page, job_row)


@service(READ)
def get_job(ctx: ServiceContext, job_id: int) -> dict:
    """Get a job: its stakeholders and furnishing dates, every deadline, the notices received on it,
    its waivers and its document orders.

    Args:
        job_id: The Levelset job id, as the job list shows it.
    """
    j = _get(ctx.session, Job, job_id, "job", "job_id")
    s, today = ctx.session, ctx.clock.today()
    deadlines = s.scalars(select(Deadline).where(Deadline.job_id == job_id).order_by(Deadline.due_date)).all()
    notices = s.scalars(select(Notice).where(Notice.job_id == job_id)
                        .order_by(Notice.received.desc(), Notice.notice_id)).all()
    waivers = s.scalars(select(Waiver).where(Waiver.job_id == job_id)
                        .order_by(Waiver.through_date.desc(), Waiver.waiver_id)).all()
    orders = s.scalars(select(Order).where(Order.job_id == job_id).order_by(Order.send_date, Order.order_id)).all()
    return {**job_row(j), "deadlines": [deadline_row(d, j, today) for d in deadlines],
            "notices": [notice_row(n, j) for n in notices], "waivers": [waiver_row(w, j) for w in waivers],
            "orders": [order_row(o, j) for o in orders]}


@service(READ)
def get_job_deadlines(ctx: ServiceContext, job_id: int, view: Literal["Upcoming", "All"] = "Upcoming") -> dict:
    """Get a job's deadlines: the document, the day it is due and the statute that sets it.

    Args:
        job_id: The Levelset job id.
        view: Upcoming (due today or later) or All.
    """
    j = _get(ctx.session, Job, job_id, "job", "job_id")
    today = ctx.clock.today()
    stmt = select(Deadline).where(Deadline.job_id == job_id)
    if view == "Upcoming":
        stmt = stmt.where(Deadline.due_date >= today.isoformat())
    rows = ctx.session.scalars(stmt.order_by(Deadline.due_date, Deadline.deadline_id)).all()
    note = None if j.project_type == "Private" else "A public job carries no lien rights; subs claim on the payment bond."
    return {"job_id": j.job_id, "job_name": j.name, "state": j.state, "view": view, "note": note,
            "deadlines": [deadline_row(d, j, today) for d in rows]}


@service(READ)
def list_deadlines(ctx: ServiceContext, within_days: int | None = None, state: str | None = None,
                   page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List upcoming deadlines across every job, soonest first.

    Args:
        within_days: Only deadlines due within this many days from today (0 to 3650).
        state: Only jobs in this state (two letters).
        page: Page number, starting at 1.
        per_page: Deadlines per page, 1 to 100.
        sort: Sort by due, job or document; a leading "-" sorts descending.
    """
    today = ctx.clock.today()
    stmt = select(Deadline, Job).join(Job, Job.job_id == Deadline.job_id).where(Deadline.due_date >= today.isoformat())
    if within_days is not None:
        if not 0 <= within_days <= 3650:
            raise ToolError("Within days is 0 to 3650.", "within_days")
        stmt = stmt.where(Deadline.due_date <= (today + timedelta(days=within_days)).isoformat())
    if state:
        stmt = stmt.where(Job.state == state.strip().upper())
    stmt = stmt.order_by(*sort_order(sort, DEADLINE_SORT, (Deadline.due_date, Job.name, Deadline.deadline_id)))
    return paged(ctx.session, stmt, page, per_page, lambda d, j: deadline_row(d, j, today))


# -- notices received ------------------------------------------------------------------------------

@service(READ)
def list_notices(ctx: ServiceContext, job_id: int | None = None, status: NoticeStatus | None = None,
                 query: str | None = None, page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List preliminary notices received from parties below the company's subs, newest first.

    Args:
        job_id: Only this job's notices.
        status: Open or Resolved.
        query: Words to find in the claimant, who hired them, or the job's name.
        page: Page number, starting at 1.
        per_page: Notices per page, 1 to 100.
        sort: Sort by received, claimant, amount or job; a leading "-" sorts descending.
    """
    stmt = _words(select(Notice, Job).join(Job, Job.job_id == Notice.job_id), query,
                  Notice.claimant, Notice.hired_by, Job.name)
    if job_id is not None:
        stmt = stmt.where(Notice.job_id == job_id)
    if status:
        stmt = stmt.where(Notice.status == status)
    stmt = stmt.order_by(*sort_order(sort, NOTICE_SORT, (Notice.received.desc(), Notice.notice_id)))
    return paged(ctx.session, stmt, page, per_page, notice_row)


@service(READ)
def get_notice(ctx: ServiceContext, notice_id: int) -> dict:
    """Get a notice with its job and the waivers on file from the same claimant on that job.

    Args:
        notice_id: The notice's id, as the notice list shows it.
    """
    n = _get(ctx.session, Notice, notice_id, "notice", "notice_id")
    j = ctx.session.get(Job, n.job_id)
    waivers = ctx.session.scalars(select(Waiver).where(Waiver.job_id == n.job_id, Waiver.party == n.claimant)
                                  .order_by(Waiver.through_date.desc(), Waiver.waiver_id)).all()
    return {**notice_row(n, j), "job": job_row(j), "waivers": [waiver_row(w, j) for w in waivers]}


# -- waivers ---------------------------------------------------------------------------------------

@service(READ)
def list_waivers(ctx: ServiceContext, job_id: int | None = None, status: WaiverStatus | None = None,
                 waiver_type: WaiverType | None = None, query: str | None = None, page: int = 1,
                 per_page: int = 25, sort: str | None = None) -> dict:
    """List lien waivers received and requested, latest through-date first.

    Args:
        job_id: Only this job's waivers.
        status: Draft, Requested, Received or Signed.
        waiver_type: Conditional or Unconditional, Progress or Final.
        query: Words to find in the party's name or the job's name.
        page: Page number, starting at 1.
        per_page: Waivers per page, 1 to 100.
        sort: Sort by through, party, amount or type; a leading "-" sorts descending.
    """
    stmt = _words(select(Waiver, Job).join(Job, Job.job_id == Waiver.job_id), query, Waiver.party, Job.name)
    if job_id is not None:
        stmt = stmt.where(Waiver.job_id == job_id)
    if status:
        stmt = stmt.where(Waiver.status == status)
    if waiver_type:
        stmt = stmt.where(Waiver.waiver_type == waiver_type)
    stmt = stmt.order_by(*sort_order(sort, WAIVER_SORT, (Waiver.through_date.desc(), Waiver.party, Waiver.waiver_id)))
    return paged(ctx.session, stmt, page, per_page, waiver_row)


@service(READ)
def get_waiver(ctx: ServiceContext, waiver_id: int) -> dict:
    """Get a lien waiver.

    Args:
        waiver_id: The waiver's id, as the waiver list shows it.
    """
    w = _get(ctx.session, Waiver, waiver_id, "waiver", "waiver_id")
    return waiver_row(w, ctx.session.get(Job, w.job_id))


@service(WRITE)
def draft_waiver_request(ctx: ServiceContext, notice_id: int, waiver_type: WaiverType, through_date: date,
                         amount: Amount | None = None, note: str | None = None) -> dict:
    """Draft a request for a lien waiver from a notice's claimant on its job. The draft is not sent:
    sending it is a separate step a person approves.

    Args:
        notice_id: The notice whose claimant is asked for the waiver.
        waiver_type: Conditional or Unconditional, Progress or Final.
        through_date: The date the waiver must cover work through (YYYY-MM-DD).
        amount: The amount the waiver is for, if known.
        note: A note to the claimant.
    """
    n = _get(ctx.session, Notice, notice_id, "notice", "notice_id")
    if through_date > ctx.clock.today():
        raise ToolError("A waiver cannot cover work through a date that has not come yet.", "through_date")
    text = _clean(note, "note")
    key = stable_id(ctx.app, "waiver-request", notice_id, waiver_type, through_date.isoformat())
    if ctx.session.get(Waiver, key) is not None:
        raise ToolError(f"A {waiver_type} request through {through_date} is already drafted for this notice.",
                        "notice_id", code="duplicate")
    w = Waiver(waiver_id=key, job_id=n.job_id, notice_id=n.notice_id, party=n.claimant, waiver_type=waiver_type,
               through_date=through_date.isoformat(), amount=amount if amount is not None else Decimal("0.00"),
               status="Draft", created_at=ctx.clock.iso(), note=text)
    ctx.session.add(w)
    ctx.session.flush()
    return waiver_row(w, ctx.session.get(Job, n.job_id))


@service(GUARDED)
def request_waiver(ctx: ServiceContext, waiver_id: int) -> dict:
    """Send a drafted waiver request to the party. Needs a person's approval.

    Args:
        waiver_id: The drafted request to send.
    """
    w = _get(ctx.session, Waiver, waiver_id, "waiver", "waiver_id")
    if w.status != "Draft":
        raise ToolError(f"Only a draft request can be sent; this waiver is {w.status.lower()}.", "waiver_id")
    return {"action": "send waiver request", "party": w.party, "waiver_type": w.waiver_type,
            "through_date": w.through_date}


@service(GUARDED)
def sign_waiver(ctx: ServiceContext, job_id: int, waiver_type: WaiverType, through_date: date, amount: Amount) -> dict:
    """Sign the company's own lien waiver to the job's owner. Needs a person's approval.

    Args:
        job_id: The job the waiver is for.
        waiver_type: Conditional or Unconditional, Progress or Final.
        through_date: The date the waiver covers work through (YYYY-MM-DD).
        amount: The payment the waiver is given for.
    """
    j = _get(ctx.session, Job, job_id, "job", "job_id")
    return {"action": "sign waiver", "job": j.name, "owner": j.owner, "waiver_type": waiver_type,
            "through_date": through_date.isoformat(), "amount": str(amount)}


# -- document orders -------------------------------------------------------------------------------

@service(READ)
def list_orders(ctx: ServiceContext, status: OrderStatus | None = None, job_id: int | None = None,
                page: int = 1, per_page: int = 25) -> dict:
    """List document orders (Monthly Notice Control): notices Levelset sends for the company, by send date.

    Args:
        status: Scheduled, Cancelled or Sent.
        job_id: Only this job's orders.
        page: Page number, starting at 1.
        per_page: Orders per page, 1 to 100.
    """
    stmt = select(Order, Job).join(Job, Job.job_id == Order.job_id)
    if status:
        stmt = stmt.where(Order.status == status)
    if job_id is not None:
        stmt = stmt.where(Order.job_id == job_id)
    return paged(ctx.session, stmt.order_by(Order.send_date.desc(), Order.order_id), page, per_page, order_row)


@service(WRITE)
def cancel_monthly_notice(ctx: ServiceContext, order_id: int) -> dict:
    """Cancel a scheduled notice; possible until 10 a.m. Central on its send date.

    Args:
        order_id: The scheduled order to cancel.
    """
    o = _get(ctx.session, Order, order_id, "order", "order_id")
    if o.status != "Scheduled":
        raise ToolError(f"Only a scheduled notice can be cancelled; this one is {o.status.lower()}.", "order_id")
    cutoff = datetime.combine(date.fromisoformat(o.send_date), CANCEL_BY, tzinfo=CENTRAL)
    if ctx.clock.now() >= cutoff:
        raise ToolError(f"Too late: a notice can be cancelled until 10 a.m. Central on its send date ({o.send_date}).",
                        "order_id")
    o.status = "Cancelled"
    ctx.session.flush()
    return order_row(o, ctx.session.get(Job, o.job_id))


@service(GUARDED)
def order_notice(ctx: ServiceContext, job_id: int, document: Document, recipient: str) -> dict:
    """Order a notice (preliminary notice, notice of intent or bond claim) for Levelset to send.
    Needs a person's approval.

    Args:
        job_id: The job the notice is for.
        document: Preliminary Notice, Notice of Intent to Lien, Mechanic's Lien or Bond Claim.
        recipient: Who the notice goes to.
    """
    j = _get(ctx.session, Job, job_id, "job", "job_id")
    who = _clean(recipient, "recipient", 200, required=True)
    return {"action": "order notice", "job": j.name, "document": document, "recipient": who}


@service(GUARDED)
def file_lien(ctx: ServiceContext, job_id: int, amount: Amount) -> dict:
    """File a mechanic's lien on the job for the amount unpaid. Needs a person's approval.

    Args:
        job_id: The job to lien.
        amount: The amount the lien claims.
    """
    j = _get(ctx.session, Job, job_id, "job", "job_id")
    if j.project_type != "Private":
        raise ToolError("A public job carries no lien rights; claim on the payment bond instead.", "job_id")
    return {"action": "file lien", "job": j.name, "owner": j.owner, "amount": str(amount)}
