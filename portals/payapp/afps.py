"""GCPay's subcontractor side: applications for payment (AFPs) and their approval routes, lien
waivers, compliance status and e-payment batches. Approving, sending waivers and releasing
e-payments are guarded; returning an AFP for revision is an ordinary write."""
from __future__ import annotations

from typing import Literal

from sqlalchemy import or_, select

from portals.core.db import page_total
from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.sorting import DATE, MONEY, NUMBER, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, Text, service

from .models import Afp, ApprovalStep, ComplianceItem, EpaymentBatch, Project, Waiver
from .records import check_paging, get_afp, paged

AfpStatus = Literal["In Review", "Approved", "Paid", "Returned"]
AFP_SORT = {"afp": (Afp.afp_id, NUMBER), "project": (Project.code, TEXT), "vendor": (Afp.vendor_name, TEXT),
            "subcontract": (Afp.subcontract, TEXT), "number": (Afp.number, NUMBER),
            "period": (Afp.period_to, DATE), "amount": (Afp.amount, MONEY), "net": (Afp.net_due, MONEY),
            "status": (Afp.status, TEXT)}


def _afp(a: Afp, code: str) -> dict:
    return {"afp_id": a.afp_id, "project_code": code, "number": a.number, "vendor_code": a.vendor_code,
            "vendor_name": a.vendor_name, "subcontract": a.subcontract, "invoice_number": a.invoice_number,
            "period_to": a.period_to, "amount": a.amount, "retainage": a.retainage, "net_due": a.net_due,
            "status": a.status, "return_reason": a.return_reason}


def _waiver(w: Waiver) -> dict:
    return {"waiver_id": w.waiver_id, "afp_id": w.afp_id, "kind": w.kind, "through_date": w.through_date,
            "amount": w.amount, "status": w.status}


@service(READ)
def list_afps(ctx: ServiceContext, search: str | None = None, project_code: str | None = None,
              status: AfpStatus | None = None, sort: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List subcontractors' applications for payment (AFPs).

    Args:
        search: Words to find in the subcontractor's name, the subcontract or the invoice number.
        project_code: Only this project's AFPs (its GCPay project code).
        status: Only AFPs in this status: In Review, Approved, Paid or Returned.
        sort: Sort by afp, project, vendor, subcontract, number, period, amount, net or status; "-" descends.
        page: Page number, starting at 1.
        per_page: AFPs per page, 1 to 100.
    """
    check_paging(page, per_page)
    stmt = select(Afp, Project.code).join(Project, Project.project_id == Afp.project_id)
    for word in (search or "").split():
        pattern = f"%{word}%"
        stmt = stmt.where(or_(Afp.vendor_name.ilike(pattern), Afp.subcontract.ilike(pattern),
                              Afp.invoice_number.ilike(pattern)))
    if project_code:
        stmt = stmt.where(Project.code == project_code.strip())
    if status:
        stmt = stmt.where(Afp.status == status)
    rows = ctx.session.execute(stmt.order_by(*sort_order(sort, AFP_SORT, (Afp.period_to.desc(), Afp.afp_id)))
                               .offset((page - 1) * per_page).limit(per_page)).all()
    total = page_total(ctx.session, stmt, page, per_page, len(rows))
    return paged([_afp(a, code) for a, code in rows], page, per_page, total)


@service(READ)
def get_afp_detail(ctx: ServiceContext, afp_id: int) -> dict:
    """Get an AFP with its approval steps, its lien waivers and the subcontractor's compliance items.

    Args:
        afp_id: The AFP's id, as afps.list shows it.
    """
    a = get_afp(ctx.session, afp_id)
    project = ctx.session.get(Project, a.project_id)
    steps = ctx.session.scalars(select(ApprovalStep).where(ApprovalStep.afp_id == a.afp_id).order_by(ApprovalStep.seq))
    waivers = ctx.session.scalars(select(Waiver).where(Waiver.afp_id == a.afp_id).order_by(Waiver.waiver_id))
    items = ctx.session.scalars(select(ComplianceItem).where(ComplianceItem.vendor_code == a.vendor_code)
                                .order_by(ComplianceItem.kind))
    return {**_afp(a, project.code), "project_name": project.name,
            "steps": [{"seq": s.seq, "role": s.role, "status": s.status, "acted_on": s.acted_on} for s in steps],
            "waivers": [_waiver(w) for w in waivers],
            "compliance": [{"kind": c.kind, "status": c.status, "expires": c.expires,
                            "blocks_payment": c.blocks_payment} for c in items]}


@service(GUARDED)
def approve_afp_step(ctx: ServiceContext, afp_id: int) -> dict:
    """Approve the AFP's next waiting approval step (the role whose turn it is). Approval releases
    the AFP toward payment, so it needs a person's approval.

    Args:
        afp_id: The AFP's id.
    """
    a = get_afp(ctx.session, afp_id)
    step = ctx.session.scalar(select(ApprovalStep).where(ApprovalStep.afp_id == a.afp_id,
                                                         ApprovalStep.status == "Waiting").order_by(ApprovalStep.seq))
    if a.status != "In Review" or step is None:
        raise ToolError(f"AFP {a.afp_id} is {a.status}; it has no step waiting for approval.", "afp_id")
    return {"action": "approve AFP step", "afp_id": a.afp_id, "role": step.role, "amount": a.amount}


@service(WRITE)
def return_afp_for_revision(ctx: ServiceContext, afp_id: int, reason: Text) -> dict:
    """Return an AFP in review to the subcontractor for revision, with the reason they will read.

    Args:
        afp_id: The AFP's id.
        reason: Why it is returned, e.g. "Stored materials need a bill of sale."
    """
    a = get_afp(ctx.session, afp_id)
    if a.status != "In Review":
        raise ToolError(f"AFP {a.afp_id} is {a.status}; only an AFP in review is returned.", "afp_id")
    if not reason.strip():
        raise ToolError("Say why the AFP is returned.", "reason")
    a.status, a.return_reason = "Returned", reason.strip()[:300]
    for step in ctx.session.scalars(select(ApprovalStep).where(ApprovalStep.afp_id == a.afp_id,
                                                               ApprovalStep.status == "Waiting").limit(1)):
        step.status, step.acted_on = "Returned", ctx.clock.today()
    ctx.session.flush()
    return {"afp_id": a.afp_id, "status": a.status, "return_reason": a.return_reason}


@service(READ)
def list_waivers(ctx: ServiceContext, status: Literal["Not sent", "Sent", "Signed"] | None = None,
                 afp_id: int | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List lien waivers requested for AFPs.

    Args:
        status: Only waivers in this status: Not sent, Sent or Signed.
        afp_id: Only the waivers of this AFP.
        page: Page number, starting at 1.
        per_page: Waivers per page, 1 to 100.
    """
    check_paging(page, per_page)
    stmt = select(Waiver)
    if status:
        stmt = stmt.where(Waiver.status == status)
    if afp_id is not None:
        stmt = stmt.where(Waiver.afp_id == afp_id)
    rows = ctx.session.scalars(stmt.order_by(Waiver.through_date.desc(), Waiver.waiver_id)
                               .offset((page - 1) * per_page).limit(per_page)).all()
    total = page_total(ctx.session, stmt, page, per_page, len(rows))
    return paged([_waiver(w) for w in rows], page, per_page, total)


@service(GUARDED)
def send_waiver(ctx: ServiceContext, waiver_id: int) -> dict:
    """Send a lien waiver to the subcontractor for signature. Sending has legal effect, so it
    needs a person's approval.

    Args:
        waiver_id: The waiver's id.
    """
    w = ctx.session.get(Waiver, waiver_id)
    if w is None:
        raise NotFound(f"There is no waiver {waiver_id}.", "waiver_id")
    if w.status != "Not sent":
        raise ToolError(f"Waiver {w.waiver_id} is {w.status}; only a waiver not yet sent is sent.", "waiver_id")
    return {"action": "send waiver", "waiver_id": w.waiver_id, "afp_id": w.afp_id, "amount": w.amount}


@service(READ)
def get_compliance_status(ctx: ServiceContext, search: str | None = None,
                          status: Literal["Compliant", "Expired", "Missing"] | None = None,
                          page: int = 1, per_page: int = 25) -> dict:
    """Subcontractors' compliance items (insurance certificates, W-9s) and whether each blocks payment.

    Args:
        search: Words of the subcontractor's name or its vendor code.
        status: Only items in this status: Compliant, Expired or Missing.
        page: Page number, starting at 1.
        per_page: Items per page, 1 to 100.
    """
    check_paging(page, per_page)
    stmt = select(ComplianceItem)
    for word in (search or "").split():
        pattern = f"%{word}%"
        stmt = stmt.where(or_(ComplianceItem.vendor_name.ilike(pattern), ComplianceItem.vendor_code.ilike(pattern)))
    if status:
        stmt = stmt.where(ComplianceItem.status == status)
    rows = ctx.session.scalars(stmt.order_by(ComplianceItem.vendor_name, ComplianceItem.kind)
                               .offset((page - 1) * per_page).limit(per_page)).all()
    total = page_total(ctx.session, stmt, page, per_page, len(rows))
    return paged([{"item_id": c.item_id, "vendor_code": c.vendor_code, "vendor_name": c.vendor_name,
                   "kind": c.kind, "expires": c.expires, "status": c.status, "blocks_payment": c.blocks_payment}
                  for c in rows], page, per_page, total)


@service(READ)
def list_epayment_batches(ctx: ServiceContext) -> dict:
    """List e-payment batches of approved AFPs and whether each is released."""
    rows = ctx.session.scalars(select(EpaymentBatch).order_by(EpaymentBatch.name))
    items = [{"batch_id": b.batch_id, "name": b.name, "afp_count": b.afp_count, "total": b.total,
              "status": b.status, "created_on": b.created_on} for b in rows]
    return {"items": items, "page": 1, "per_page": max(len(items), 1), "total": len(items), "pages": 1}


@service(GUARDED)
def release_epayment_batch(ctx: ServiceContext, batch_id: int) -> dict:
    """Release an e-payment batch to the bank (money leaves the account). Needs a person's approval.

    Args:
        batch_id: The batch's id.
    """
    b = ctx.session.get(EpaymentBatch, batch_id)
    if b is None:
        raise NotFound(f"There is no e-payment batch {batch_id}.", "batch_id")
    if b.status != "Open":
        raise ToolError(f"Batch {b.name} is {b.status}.", "batch_id")
    return {"action": "release e-payment batch", "batch_id": b.batch_id, "name": b.name, "total": b.total}
