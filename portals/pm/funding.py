"""An owner's project funding (INGENIOUS.BUILD): funding sources and what remains on each, vendor
invoices with their path to approval and their Funding tab, and invoicing and application
packages. Submitting a package to the client or lender is guarded: it is checked and staged.

A vendor invoice entered as already approved or paid skips the internal approvals workflow; the
product takes it as entered (the reviewer flags it and returns it to approval). Funding an
invoice charges shares of it to the project's sources; which source pays for what is the owner's
policy, not the product's rule, so any split that adds up to the invoice is taken.
"""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Literal

from sqlalchemy import func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.sorting import DATE, MONEY, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, MaxLen, service

from .funding_models import ApplicationPackage, FundingAllocation, FundingSource, InvoiceApproval, PackageInvoice
from .models import DirectCost, Project, Vendor
from .queries import check_paging, contains, paged, project_by_number

ZERO = Decimal("0")
APPROVER = "Company A Accounts Payable"  # the signed-in reviewer; the mock has one user
InvoiceStatus = Literal["Pending Approval", "Approved", "Paid"]
EnteredAs = Literal["new", "approved", "paid"]
PackageStatus = Literal["Draft", "Submitted"]
ENTERED = {"new": "Approvals workflow", "approved": "Entered as approved", "paid": "Entered as paid"}
_SHARE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*\|\s*([0-9,]+(?:\.\d{1,2})?)\s*$")


# -- funding sources ------------------------------------------------------------------------------

def _allocated(session, source_ids: list[int]) -> dict[int, Decimal]:
    rows = session.execute(select(FundingAllocation.source_id, func.sum(FundingAllocation.amount))
                           .where(FundingAllocation.source_id.in_(source_ids))
                           .group_by(FundingAllocation.source_id)).all()
    return {sid: Decimal(str(total)) for sid, total in rows}


def _source_row(s: FundingSource, allocated: Decimal) -> dict:
    return {"source_id": s.source_id, "code": s.code, "name": s.name, "kind": s.kind, "funder": s.funder,
            "amount": s.amount, "funded_to_date": s.funded_to_date, "allocated_pending": allocated,
            "remaining": s.amount - s.funded_to_date - allocated,
            "eligible_cost_codes": [c for c in s.eligible_cost_codes.split(",") if c]}


@service(READ)
def list_funding_sources(ctx: ServiceContext, project_number: str) -> dict:
    """A project's funding sources: each one's total, what it funded in packages already
    submitted (funded_to_date), what vendor invoices' Funding tabs charge to it and no package has
    submitted yet (allocated_pending), what remains (amount - funded_to_date - allocated_pending),
    and the cost codes it may pay for (an empty list: any code).

    Args:
        project_number: The project number, e.g. "9999".
    """
    project = project_by_number(ctx.session, project_number)
    sources = ctx.session.scalars(select(FundingSource).where(FundingSource.project_id == project.project_id)
                                  .order_by(FundingSource.code)).all()
    allocated = _allocated(ctx.session, [s.source_id for s in sources])
    items = [_source_row(s, allocated.get(s.source_id, ZERO)) for s in sources]
    return {"project_number": project.project_number, "project_name": project.name, "items": items,
            "totals": {k: sum((r[k] for r in items), start=ZERO)
                       for k in ("amount", "funded_to_date", "allocated_pending", "remaining")}}


# -- vendor invoices ------------------------------------------------------------------------------

def _invoice_row(d: DirectCost, project: Project, vendor: Vendor | None, a: InvoiceApproval | None) -> dict:
    entered = a.entered_as if a else "new"
    return {"vendor_invoice_id": d.direct_cost_id, "project_number": project.project_number,
            "vendor": vendor.name if vendor else "", "vendor_id": vendor.vendor_id if vendor else None,
            "invoice_number": d.invoice_number, "invoice_date": d.cost_date, "cost_code": d.cost_code,
            "cost_type": d.cost_type, "description": d.description, "amount": d.amount, "status": d.status,
            "entered_as": entered, "approval_path": ENTERED.get(entered, entered),
            "approved_by": a.approved_by if a else "", "approved_date": a.approved_date if a else None,
            "flagged": bool(a and a.flagged), "flag_note": a.flag_note if a else ""}


INVOICE_SORT = {"date": (DirectCost.cost_date, DATE), "vendor": (Vendor.name, TEXT),
                "invoice": (DirectCost.invoice_number, TEXT), "cost_code": (DirectCost.cost_code, TEXT),
                "status": (DirectCost.status, TEXT), "amount": (DirectCost.amount, MONEY)}


@service(READ)
def list_vendor_invoices(ctx: ServiceContext, project_number: str | None = None,
                         status: InvoiceStatus | None = None, entered_as: EnteredAs | None = None,
                         search: str | None = None, sort: str | None = None,
                         page: int = 1, per_page: int = 25) -> dict:
    """List vendor invoices with their status and how each reached it (approval_path): through the
    internal approvals workflow (entered_as "new") or entered as already approved or paid.

    Args:
        project_number: Only this project's invoices, e.g. "9999".
        status: Pending Approval, Approved or Paid.
        entered_as: new (started from scratch, through approvals), approved or paid.
        search: Text to find in the invoice number, vendor or description.
        sort: A column to sort by: date, vendor, invoice, cost_code, status or amount; a leading
            "-" sorts descending. Left out, newest first.
        page: Page number, starting at 1.
        per_page: Invoices per page, 1 to 100.
    """
    check_paging(page, per_page)
    stmt = (select(DirectCost, Project, Vendor, InvoiceApproval)
            .join(Project, Project.project_id == DirectCost.project_id)
            .join(Vendor, Vendor.vendor_id == DirectCost.vendor_id, isouter=True)
            .join(InvoiceApproval, InvoiceApproval.direct_cost_id == DirectCost.direct_cost_id, isouter=True)
            .order_by(*sort_order(sort, INVOICE_SORT, (DirectCost.cost_date.desc(), DirectCost.direct_cost_id))))
    if project_number:
        stmt = stmt.where(DirectCost.project_id == project_by_number(ctx.session, project_number).project_id)
    if status:
        stmt = stmt.where(DirectCost.status == status)
    if entered_as == "new":
        stmt = stmt.where(or_(InvoiceApproval.entered_as.is_(None), InvoiceApproval.entered_as == "new"))
    elif entered_as:
        stmt = stmt.where(InvoiceApproval.entered_as == entered_as)
    if search:
        stmt = stmt.where(or_(contains(DirectCost.invoice_number, search), contains(Vendor.name, search),
                              contains(DirectCost.description, search)))
    return paged(ctx.session, stmt, page, per_page, lambda r: _invoice_row(*r))


def _invoice(session, vendor_invoice_id: int) -> DirectCost:
    found = session.get(DirectCost, vendor_invoice_id)
    if found is None:
        raise NotFound(f"There is no vendor invoice {vendor_invoice_id}; list vendor invoices to find its id.",
                       "vendor_invoice_id")
    return found


@service(READ)
def get_vendor_invoice(ctx: ServiceContext, vendor_invoice_id: int) -> dict:
    """Show one vendor invoice: its approval path, its Funding tab (the share charged to each
    funding source) and the application package it is on.

    Args:
        vendor_invoice_id: The invoice's id, from vendor_invoices.list.
    """
    d = _invoice(ctx.session, vendor_invoice_id)
    row = _invoice_row(d, ctx.session.get(Project, d.project_id),
                       ctx.session.get(Vendor, d.vendor_id) if d.vendor_id else None,
                       ctx.session.get(InvoiceApproval, d.direct_cost_id))
    funding = ctx.session.execute(select(FundingAllocation, FundingSource)
                                  .join(FundingSource, FundingSource.source_id == FundingAllocation.source_id)
                                  .where(FundingAllocation.direct_cost_id == d.direct_cost_id)
                                  .order_by(FundingSource.code)).all()
    on = ctx.session.execute(select(ApplicationPackage, PackageInvoice.line_no)
                             .join(PackageInvoice, PackageInvoice.package_id == ApplicationPackage.package_id)
                             .where(PackageInvoice.direct_cost_id == d.direct_cost_id)).first()
    return {**row, "funding": [{"source": s.code, "name": s.name, "amount": a.amount} for a, s in funding],
            "funded": sum((a.amount for a, _s in funding), start=ZERO),
            "package": on[0].number if on else "", "package_line": on[1] if on else None}


def _approval(session, d: DirectCost) -> InvoiceApproval:
    a = session.get(InvoiceApproval, d.direct_cost_id)
    if a is None:
        a = InvoiceApproval(direct_cost_id=d.direct_cost_id, entered_as="new")
        session.add(a)
    return a


@service(WRITE)
def approve_vendor_invoice(ctx: ServiceContext, vendor_invoice_id: int) -> dict:
    """Approve a vendor invoice pending approval (the internal approvals workflow's step).

    Args:
        vendor_invoice_id: The invoice's id, from vendor_invoices.list.
    """
    d = _invoice(ctx.session, vendor_invoice_id)
    if d.status != "Pending Approval":
        raise ToolError(f"Vendor invoice {d.invoice_number} is {d.status}; only one pending approval can be "
                        "approved.", "vendor_invoice_id", "wrong_state")
    a = _approval(ctx.session, d)
    d.status, a.approved_by, a.approved_date = "Approved", APPROVER, ctx.clock.today()
    ctx.session.flush()
    return get_vendor_invoice(ctx, vendor_invoice_id)


@service(WRITE)
def return_vendor_invoice_to_approval(ctx: ServiceContext, vendor_invoice_id: int,
                                      note: Annotated[str, MaxLen(500)]) -> dict:
    """Flag an approved or paid vendor invoice and return it to the approvals workflow: it is
    Pending Approval again, with the flag and the note on it.

    Args:
        vendor_invoice_id: The invoice's id, from vendor_invoices.list.
        note: Why it is flagged.
    """
    d = _invoice(ctx.session, vendor_invoice_id)
    if not note.strip():
        raise ToolError("Say why the invoice is flagged.", "note")
    if d.status == "Pending Approval":
        raise ToolError(f"Vendor invoice {d.invoice_number} is already pending approval.", "vendor_invoice_id",
                        "wrong_state")
    a = _approval(ctx.session, d)
    d.status, a.flagged, a.flag_note = "Pending Approval", True, note.strip()
    ctx.session.flush()
    return get_vendor_invoice(ctx, vendor_invoice_id)


@service(WRITE)
def set_invoice_funding(ctx: ServiceContext, vendor_invoice_id: int, allocations: list[str]) -> dict:
    """Set a vendor invoice's Funding tab: the share charged to each of its project's funding
    sources, replacing what was there. The shares must add up to the invoice amount; an empty
    list clears the tab.

    Args:
        vendor_invoice_id: The invoice's id, from vendor_invoices.list.
        allocations: One "SOURCE CODE|amount" per source charged, e.g. "LOAN|1234.56" (the codes
            of funding_sources.list).
    """
    d = _invoice(ctx.session, vendor_invoice_id)
    sources = {s.code: s for s in ctx.session.scalars(
        select(FundingSource).where(FundingSource.project_id == d.project_id))}
    shares: dict[str, Decimal] = {}
    for text in allocations:
        match = _SHARE.match(str(text))
        if not match:
            raise ToolError(f"Share {text!r} is not \"SOURCE|amount\", e.g. \"LOAN|1234.56\".", "allocations")
        code, amount = match.group(1).upper(), Decimal(match.group(2).replace(",", ""))
        if code not in sources:
            raise ToolError(f"The project has no funding source {code}; its sources are "
                            f"{', '.join(sorted(sources)) or 'none'}.", "allocations")
        if code in shares:
            raise ToolError(f"Source {code} is entered twice.", "allocations")
        if amount <= 0:
            raise ToolError(f"The share charged to {code} must be greater than zero.", "allocations")
        shares[code] = amount
    if shares and sum(shares.values(), start=ZERO) != d.amount:
        raise ToolError(f"The shares add up to {sum(shares.values(), start=ZERO):.2f}; they must add up to the "
                        f"invoice amount, {d.amount:.2f}.", "allocations")
    for old in ctx.session.scalars(select(FundingAllocation).where(FundingAllocation.direct_cost_id == d.direct_cost_id)):
        ctx.session.delete(old)
    ctx.session.flush()
    ctx.session.add_all(FundingAllocation(
        allocation_id=stable_id(ctx.app, "funding_allocation", d.direct_cost_id, code), direct_cost_id=d.direct_cost_id,
        source_id=sources[code].source_id, amount=amount) for code, amount in shares.items())
    ctx.session.flush()
    return get_vendor_invoice(ctx, vendor_invoice_id)


# -- application packages -------------------------------------------------------------------------

def _package_row(p: ApplicationPackage, project: Project, count: int, total: Decimal) -> dict:
    return {"package_id": p.package_id, "number": p.number, "project_number": project.project_number,
            "title": p.title, "period_end": p.period_end, "status": p.status, "recipient": p.recipient,
            "invoices": count, "amount": total}


PACKAGE_SORT = {"number": (ApplicationPackage.number, TEXT), "period_end": (ApplicationPackage.period_end, DATE),
                "status": (ApplicationPackage.status, TEXT)}


@service(READ)
def list_application_packages(ctx: ServiceContext, project_number: str | None = None,
                              status: PackageStatus | None = None, sort: str | None = None,
                              page: int = 1, per_page: int = 25) -> dict:
    """List invoicing and application packages: each period's vendor invoices drawn from the
    project's funders, to be submitted to the client or lender.

    Args:
        project_number: Only this project's packages, e.g. "9999".
        status: Draft (not submitted) or Submitted.
        sort: number, period_end or status; a leading "-" sorts descending. Left out, by number.
        page: Page number, starting at 1.
        per_page: Packages per page, 1 to 100.
    """
    check_paging(page, per_page)
    stmt = (select(ApplicationPackage, Project).join(Project, Project.project_id == ApplicationPackage.project_id)
            .order_by(*sort_order(sort, PACKAGE_SORT, (ApplicationPackage.number,))))
    if project_number:
        stmt = stmt.where(ApplicationPackage.project_id == project_by_number(ctx.session, project_number).project_id)
    if status:
        stmt = stmt.where(ApplicationPackage.status == status)

    def shape(r):
        lines = _lines(ctx.session, r[0])
        return _package_row(r[0], r[1], len(lines), sum((d.amount for _i, d, _v in lines), start=ZERO))
    return paged(ctx.session, stmt, page, per_page, shape)


def _lines(session, p: ApplicationPackage) -> list:
    return session.execute(select(PackageInvoice, DirectCost, Vendor)
                           .join(DirectCost, DirectCost.direct_cost_id == PackageInvoice.direct_cost_id)
                           .join(Vendor, Vendor.vendor_id == DirectCost.vendor_id, isouter=True)
                           .where(PackageInvoice.package_id == p.package_id)
                           .order_by(PackageInvoice.line_no)).all()


def _package(session, number: str) -> ApplicationPackage:
    found = session.scalar(select(ApplicationPackage).where(ApplicationPackage.number == number.strip()))
    if found is None:
        raise NotFound(f"There is no application package {number!r}; list application packages to find it.",
                       "number")
    return found


@service(READ)
def get_application_package(ctx: ServiceContext, number: str) -> dict:
    """Show an application package: its vendor invoices by line, each with its status, approval
    path and Funding tab, and the package's totals by funding source.

    Args:
        number: The package number, from application_packages.list.
    """
    p = _package(ctx.session, number)
    project = ctx.session.get(Project, p.project_id)
    lines, by_source = [], {}
    for item, d, vendor in _lines(ctx.session, p):
        row = _invoice_row(d, project, vendor, ctx.session.get(InvoiceApproval, d.direct_cost_id))
        funding = ctx.session.execute(select(FundingAllocation, FundingSource.code)
                                      .join(FundingSource, FundingSource.source_id == FundingAllocation.source_id)
                                      .where(FundingAllocation.direct_cost_id == d.direct_cost_id)
                                      .order_by(FundingSource.code)).all()
        for a, code in funding:
            by_source[code] = by_source.get(code, ZERO) + a.amount
        lines.append({"line_no": item.line_no, **row, "funding": {code: a.amount for a, code in funding},
                      "funded": sum((a.amount for a, _c in funding), start=ZERO)})
    total = sum((r["amount"] for r in lines), start=ZERO)
    return {**_package_row(p, project, len(lines), total), "lines": lines,
            "funding_totals": dict(sorted(by_source.items())),
            "unfunded": total - sum(by_source.values(), start=ZERO)}


@service(GUARDED)
def submit_application_package(ctx: ServiceContext, number: str) -> dict:
    """Submit a draft application package to its client or lender. Sending anything outside the
    company needs a person's approval: this checks the package and stages the request; nothing
    is sent.

    Args:
        number: The package number, from application_packages.list.
    """
    p = _package(ctx.session, number)
    if p.status != "Draft":
        raise ToolError(f"Application package {p.number} is {p.status}; only a draft can be submitted.", "number",
                        "wrong_state")
    found = get_application_package(ctx, number)
    return {"action": "Submit application package", "number": p.number, "recipient": p.recipient,
            "amount": found["amount"], "funding_totals": found["funding_totals"]}
