"""Commitments and subcontractor invoices, and their permitted status syncs at the ERP boundary."""
from __future__ import annotations

from decimal import Decimal
from typing import Literal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.sorting import DATE, MONEY, NUMBER, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, Amount, service

from .models import (Commitment, CommitmentLine, CostCode, ErpCostCodeMap, ErpIntegration, Project,
                     Requisition, Vendor)
from .queries import (CONTRACT_TYPES, STATUS_WORDS, commitment_by_number, commitment_row, contains,
                      paged, project_by_number, requisition_by_id, requisition_row)

CommitmentStatus = Literal["Draft", "Out for Bid", "Out for Signature", "Approved", "Complete",
                           "Terminated", "Void"]
InvoiceStatus = Literal["draft", "under_review", "revise_and_resubmit", "approved", "paid"]


def _commitment_select():
    return (select(Commitment, Project, Vendor)
            .join(Project, Project.project_id == Commitment.project_id)
            .join(Vendor, Vendor.vendor_id == Commitment.vendor_id, isouter=True))


@service(READ)
def list_commitments(ctx: ServiceContext, project_number: str | None = None,
                     type: Literal["subcontract", "purchase_order"] | None = None,
                     status: CommitmentStatus | None = None, vendor: str | None = None,
                     search: str | None = None, erp_status: Literal["synced", "not_synced"] | None = None,
                     page: int = 1, per_page: int = 25) -> dict:
    """List commitments: subcontracts (work order contracts) and purchase order contracts.

    Each row gives the number, title, vendor (Directory name, id and linked ERP vendor id
    origin_id), type, status, amount and whether it has been sent to the ERP.

    Args:
        project_number: Only this project's commitments, e.g. "9999".
        type: "subcontract" or "purchase_order".
        status: Only this status, e.g. "Approved".
        vendor: Text to find in the vendor's name, or an exact ERP vendor id like "V9999".
        search: Text to find in the commitment number or title.
        erp_status: "synced" (already sent to the ERP) or "not_synced".
        page: Page number, starting at 1.
        per_page: Commitments per page, 1 to 100.
    """
    stmt = _commitment_select().order_by(Project.project_number, Commitment.number)
    if project_number:
        stmt = stmt.where(Commitment.project_id == project_by_number(ctx.session, project_number).project_id)
    if type:
        stmt = stmt.where(Commitment.contract_type == CONTRACT_TYPES[type])
    if status:
        stmt = stmt.where(Commitment.status == status)
    if vendor:
        stmt = stmt.where(or_(contains(Vendor.name, vendor), Vendor.origin_id == vendor.strip()))
    if search:
        stmt = stmt.where(or_(contains(Commitment.number, search), contains(Commitment.title, search)))
    if erp_status:
        stmt = stmt.where(Commitment.erp_status == erp_status)
    return paged(ctx.session, stmt, page, per_page, lambda r: commitment_row(*r))


def connected_erp(session) -> str | None:
    """The ERP the company's integration is connected to (its codes are the ones synced)."""
    return session.scalar(select(ErpIntegration.erp_app).where(ErpIntegration.connected.is_(True)))


@service(READ)
def get_commitment(ctx: ServiceContext, number: str) -> dict:
    """Show one commitment: its header and its schedule of values (SOV) lines with cost codes.

    work_in_place is the project manager's work in place to date on a subcontract at the month
    end (percent_complete: as a share of the contract); invoiced_to_date sums every Procore
    invoice against it, whatever its status or ERP sync.

    Each line's erp_cost_code is the code in the ERP the company's integration is connected
    to (erp_app), read from the ERP cost-code map.

    Args:
        number: The commitment number, e.g. "9999-01" or "SC-9999-01".
    """
    c = commitment_by_number(ctx.session, number)
    # the header's project and vendor in one query with the commitment's own look-up already done
    project, vendor = ctx.session.execute(
        select(Project, Vendor).join(Vendor, Vendor.vendor_id == c.vendor_id, isouter=True)
        .where(Project.project_id == c.project_id)).one()
    erp = connected_erp(ctx.session)
    lines = ctx.session.execute(
        select(CommitmentLine, CostCode.description, ErpCostCodeMap)
        .join(CostCode, CostCode.code == CommitmentLine.cost_code, isouter=True)
        .join(ErpCostCodeMap, (ErpCostCodeMap.pm_cost_code == CommitmentLine.cost_code)
              & (ErpCostCodeMap.erp_app == erp), isouter=True)
        .where(CommitmentLine.commitment_id == c.commitment_id).order_by(CommitmentLine.line_no)).all()
    invoiced = sum((r.amount for r in ctx.session.scalars(
        select(Requisition).where(Requisition.commitment_id == c.commitment_id))), start=Decimal(0))
    return {**commitment_row(c, project, vendor), "project_name": project.name, "erp_app": erp,
            "invoiced_to_date": invoiced, "remaining": c.grand_total - invoiced,
            "lines": [{"line_no": line.line_no, "cost_code": line.cost_code,
                       "cost_code_description": desc or "", "cost_type": line.cost_type,
                       "description": line.description, "amount": line.amount,
                       "erp_cost_code": mapped.erp_code if mapped else ""}
                      for line, desc, mapped in lines]}


REQUISITION_SORT = {"project": (Project.project_number, TEXT), "invoice": (Requisition.invoice_number, TEXT),
                    "company": (Vendor.name, TEXT), "commitment": (Commitment.number, TEXT),
                    "number": (Requisition.number, NUMBER), "period_end": (Requisition.period_end, DATE),
                    "amount": (Requisition.amount, MONEY), "retainage": (Requisition.retainage, MONEY),
                    "status": (Requisition.status, TEXT), "erp_sync": (Requisition.erp_sync, TEXT)}


def _requisition_select():
    return (select(Requisition, Commitment, Project, Vendor)
            .join(Commitment, Commitment.commitment_id == Requisition.commitment_id)
            .join(Project, Project.project_id == Requisition.project_id)
            .join(Vendor, Vendor.vendor_id == Requisition.vendor_id, isouter=True))


@service(READ)
def list_requisitions(ctx: ServiceContext, project_number: str | None = None,
                      status: InvoiceStatus | None = None,
                      erp_sync: Literal["synced", "not_synced"] | None = None,
                      commitment: str | None = None, search: str | None = None,
                      sort: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List subcontractor invoices (requisitions) with their approval and ERP sync status.

    Each row gives requisition_id, commitment number, vendor name, invoice_number, number,
    period_end, amount, retainage, status and erp_sync.

    Args:
        project_number: Only this project's invoices, e.g. "9999".
        status: Only this status: draft, under_review, revise_and_resubmit, approved or paid.
        erp_sync: "synced" (already sent to the ERP) or "not_synced".
        commitment: Only invoices against this commitment number, e.g. "SC-9999-01".
        search: Text to find in the invoice number or vendor name.
        sort: A column to sort by: project, invoice, company, commitment, number, period_end,
            amount, retainage, status or erp_sync; a leading "-" sorts descending. Left out,
            by project, commitment and period.
        page: Page number, starting at 1.
        per_page: Invoices per page, 1 to 100.
    """
    stmt = _requisition_select().order_by(*sort_order(sort, REQUISITION_SORT, (
        Project.project_number, Commitment.number, Requisition.period_end, Requisition.requisition_id)))
    if project_number:
        stmt = stmt.where(Requisition.project_id == project_by_number(ctx.session, project_number).project_id)
    if status:
        stmt = stmt.where(Requisition.status == status)
    if erp_sync:
        stmt = stmt.where(Requisition.erp_sync == erp_sync)
    if commitment:
        stmt = stmt.where(Commitment.number == commitment.strip())
    if search:
        stmt = stmt.where(or_(contains(Requisition.invoice_number, search), contains(Vendor.name, search)))
    return paged(ctx.session, stmt, page, per_page, lambda r: requisition_row(*r))


@service(READ)
def get_requisition(ctx: ServiceContext, requisition_id: int) -> dict:
    """Show one subcontractor invoice with its commitment, vendor, amounts and ERP sync status.

    Args:
        requisition_id: The requisition id shown in the invoice list.
    """
    r = requisition_by_id(ctx.session, requisition_id)
    row = ctx.session.execute(_requisition_select().where(Requisition.requisition_id == r.requisition_id)).one()
    return requisition_row(*row)


@service(WRITE)
def sync_commitment_to_erp(ctx: ServiceContext, number: str) -> dict:
    """Send an approved commitment to the ERP ("Send to ERP"): marks it synced.

    The commitment must be Approved, not yet synced, its vendor linked to an ERP vendor, and
    at least one SOV line must carry a cost code the ERP knows.

    Args:
        number: The commitment number, e.g. "9999-01".
    """
    c = commitment_by_number(ctx.session, number)
    if c.erp_status == "synced":
        raise ToolError(f"Commitment {c.number} is already synced to the ERP.", "number", "conflict")
    if c.status != "Approved":
        raise ToolError(f"Only Approved commitments can be sent to the ERP; {c.number} is {c.status}.",
                        "number", "wrong_state")
    vendor = ctx.session.get(Vendor, c.vendor_id) if c.vendor_id is not None else None
    if vendor is None or not vendor.origin_id:
        raise ToolError(f"The vendor of {c.number} is not linked to an ERP vendor; link it in the "
                        "Directory first.", "number", "wrong_state")
    mapped = ctx.session.scalar(
        select(CommitmentLine.line_id)
        .join(ErpCostCodeMap, (ErpCostCodeMap.pm_cost_code == CommitmentLine.cost_code)
              & (ErpCostCodeMap.erp_app == connected_erp(ctx.session)))
        .where(CommitmentLine.commitment_id == c.commitment_id).limit(1))
    if mapped is None:
        raise ToolError(f"No SOV line of {c.number} has a cost code the ERP knows.", "number", "wrong_state")
    c.erp_status, c.erp_synced_at = "synced", ctx.clock.iso()
    return {"number": c.number, "erp_status": c.erp_status, "erp_synced_at": c.erp_synced_at,
            "vendor_origin_id": vendor.origin_id}


@service(WRITE)
def sync_invoice_to_erp(ctx: ServiceContext, requisition_id: int) -> dict:
    """Send a subcontractor invoice to the ERP ("Sync to ERP"): marks it synced and stamps the time.

    The export goes through for any invoice: one that was synced before is exported again
    (its sync time moves), and the ERP receives it whatever its approval status. Which
    invoices belong in the ERP is the accountant's call.

    Args:
        requisition_id: The requisition id of the invoice, from requisitions.list.
    """
    r = requisition_by_id(ctx.session, requisition_id)
    r.erp_sync, r.erp_synced_at = "synced", ctx.clock.iso()
    return {"requisition_id": r.requisition_id, "invoice_number": r.invoice_number,
            "status": r.status, "erp_sync": r.erp_sync, "erp_synced_at": r.erp_synced_at}


@service(GUARDED)
def disburse_payment(ctx: ServiceContext, requisition_id: int, amount: Amount | None = None) -> dict:
    """Pay an approved subcontractor invoice with Procore Pay. Money movement: a person must
    approve it, so this only checks the request and stages it; nothing is paid.

    Args:
        requisition_id: The requisition id of the invoice to pay.
        amount: Amount to disburse; defaults to the invoice amount less retainage, and may not
            exceed it.
    """
    r = requisition_by_id(ctx.session, requisition_id)
    if r.status != "approved":
        raise ToolError("Only approved invoices can be paid; this one is "
                        f"{STATUS_WORDS.get(r.status, r.status)}.", "requisition_id", "wrong_state")
    due = r.amount - r.retainage
    if amount is None:
        amount = due
    if amount <= 0:
        raise ToolError("Amount must be greater than zero.", "amount")
    if amount > due:
        raise ToolError(f"Amount {amount:.2f} is more than the {due:.2f} due on invoice "
                        f"{r.invoice_number} after retainage.", "amount")
    vendor = ctx.session.get(Vendor, r.vendor_id) if r.vendor_id is not None else None
    return {"action": "Procore Pay disbursement", "requisition_id": r.requisition_id,
            "invoice_number": r.invoice_number, "vendor": vendor.name if vendor else "",
            "amount": amount}
