"""Company-level reads: projects, the Directory, cost codes, the ERP code map and daily logs."""
from __future__ import annotations

from datetime import date
from typing import Literal

from sqlalchemy import func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.tools import READ, service

from .models import (Commitment, CostCode, ErpCostCodeMap, ErpIntegration, ManpowerEntry, Project,
                     Requisition, Vendor)
from .queries import contains, paged, project_by_number


def _project_row(p: Project) -> dict:
    return {"project_id": p.project_id, "project_number": p.project_number, "name": p.name,
            "customer": p.customer, "address": p.address, "city": p.city, "state": p.state,
            "status": p.status, "project_type": p.project_type, "contract_amount": p.contract_amount,
            "pm_name": p.pm_name, "pm_email": p.pm_email, "start_date": p.start_date,
            "est_completion": p.est_completion, **({"stage": p.stage} if p.stage else {})}


@service(READ)
def list_projects(ctx: ServiceContext, search: str | None = None,
                  status: Literal["active", "inactive"] | None = None,
                  page: int = 1, per_page: int = 25) -> dict:
    """List the company's projects (one per job), with number, name, owner, PM and status.

    Args:
        search: Text to find in the project number, name, customer or city.
        status: Only projects in this status: "active" or "inactive" (closed jobs).
        page: Page number, starting at 1.
        per_page: Projects per page, 1 to 100.
    """
    stmt = select(Project).order_by(Project.project_number)
    if search:
        stmt = stmt.where(or_(contains(Project.project_number, search), contains(Project.name, search),
                              contains(Project.customer, search), contains(Project.city, search)))
    if status:
        stmt = stmt.where(Project.status == status)
    return paged(ctx.session, stmt, page, per_page, lambda r: _project_row(r[0]))


@service(READ)
def get_project(ctx: ServiceContext, project_number: str) -> dict:
    """One project's home: its header and counts of its commitments and subcontractor invoices.

    Args:
        project_number: The project (job) number, e.g. "9999".
    """
    project = project_by_number(ctx.session, project_number)
    commitments = ctx.session.scalar(select(func.count()).where(
        Commitment.project_id == project.project_id))
    invoices = dict(ctx.session.execute(
        select(Requisition.status, func.count()).where(Requisition.project_id == project.project_id)
        .group_by(Requisition.status)).all())
    return {**_project_row(project), "commitment_count": commitments,
            "invoice_counts": dict(sorted(invoices.items()))}


@service(READ)
def list_vendors(ctx: ServiceContext, search: str | None = None, trade: str | None = None,
                 origin_id: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List companies in the company Directory, each with its linked ERP vendor id (origin_id).

    Args:
        search: Text to find in the company name, email or city.
        trade: Only companies of this trade, e.g. "excavation" or "electrical".
        origin_id: Only the company linked to this ERP vendor id, e.g. "V9999".
        page: Page number, starting at 1.
        per_page: Companies per page, 1 to 100.
    """
    stmt = select(Vendor).order_by(Vendor.name, Vendor.vendor_id)
    if search:
        stmt = stmt.where(or_(contains(Vendor.name, search), contains(Vendor.email, search),
                              contains(Vendor.city, search)))
    if trade:
        stmt = stmt.where(func.lower(Vendor.trade) == trade.strip().lower())
    if origin_id:
        stmt = stmt.where(Vendor.origin_id == origin_id.strip())

    def shape(row):
        v = row[0]
        return {"vendor_id": v.vendor_id, "name": v.name, "trade": v.trade, "email": v.email,
                "phone": v.phone, "address": v.address, "city": v.city, "state": v.state,
                "zip": v.zip, "origin_id": v.origin_id, "is_active": v.is_active}
    return paged(ctx.session, stmt, page, per_page, shape)


@service(READ)
def list_cost_codes(ctx: ServiceContext, search: str | None = None, division: str | None = None,
                    page: int = 1, per_page: int = 25) -> dict:
    """List the company's cost codes (the WBS), with CSI section and description.

    Args:
        search: Text to find in the code or description, e.g. "99-999" or "painting".
        division: Only codes of this two-digit CSI division, e.g. "31".
        page: Page number, starting at 1.
        per_page: Cost codes per page, 1 to 100.
    """
    stmt = select(CostCode).order_by(CostCode.code)
    if search:
        stmt = stmt.where(or_(contains(CostCode.code, search), contains(CostCode.description, search)))
    if division:
        stmt = stmt.where(CostCode.division == division.strip())
    return paged(ctx.session, stmt, page, per_page, lambda r: {
        "code": r[0].code, "csi": r[0].csi, "division": r[0].division, "description": r[0].description})


@service(READ)
def get_erp_cost_code_map(ctx: ServiceContext, search: str | None = None, erp_app: str | None = None,
                          page: int = 1, per_page: int = 100) -> dict:
    """Show the crosswalk from each Procore cost code to each mapped ERP's own code.

    An ERP may consolidate a code into a sibling, so its code is not always the Procore code
    written another way. Each row gives the Procore code, its description and erp_codes (the
    code in each ERP, by app name); erps lists the mapped ERPs and which one is connected.

    Args:
        search: Text to find in the Procore code, its description or an ERP's code.
        erp_app: Only this ERP's codes (an app name listed in erps).
        page: Page number, starting at 1.
        per_page: Rows per page, 1 to 100.
    """
    erps = [{"erp_app": e.erp_app, "label": e.label, "connected": e.connected}
            for e in ctx.session.scalars(select(ErpIntegration).order_by(ErpIntegration.erp_app))]
    wanted = erp_app.strip() if erp_app else None
    if wanted and wanted not in {e["erp_app"] for e in erps}:
        raise ToolError(f"No ERP named {wanted!r} is mapped; the mapped ERPs are "
                        f"{', '.join(e['erp_app'] for e in erps)}.", "erp_app")
    stmt = (select(ErpCostCodeMap.pm_cost_code, CostCode.description)
            .join(CostCode, CostCode.code == ErpCostCodeMap.pm_cost_code, isouter=True)
            .group_by(ErpCostCodeMap.pm_cost_code, CostCode.description).order_by(ErpCostCodeMap.pm_cost_code))
    if wanted:
        stmt = stmt.where(ErpCostCodeMap.erp_app == wanted)
    if search:
        stmt = stmt.where(or_(contains(ErpCostCodeMap.pm_cost_code, search), contains(ErpCostCodeMap.erp_code, search),
                              contains(CostCode.description, search)))

    def shape(r) -> dict:
        rows = ctx.session.scalars(select(ErpCostCodeMap).where(ErpCostCodeMap.pm_cost_code == r[0])
                                   .order_by(ErpCostCodeMap.erp_app))
        return {"procore_code": r[0], "description": r[1] or "",
                "erp_codes": {m.erp_app: m.erp_code for m in rows if not wanted or m.erp_app == wanted}}
    result = paged(ctx.session, stmt, page, per_page, shape)
    result["erps"] = [e for e in erps if not wanted or e["erp_app"] == wanted]
    return result


@service(READ)
def list_manpower(ctx: ServiceContext, project_number: str, date_from: date | None = None,
                  date_to: date | None = None, vendor_id: int | None = None,
                  page: int = 1, per_page: int = 25) -> dict:
    """List a project's daily log manpower entries: company, workers and hours per day.

    Args:
        project_number: The project (job) number, e.g. "9999".
        date_from: Only entries on or after this date (YYYY-MM-DD).
        date_to: Only entries on or before this date (YYYY-MM-DD).
        vendor_id: Only entries of this Directory company id.
        page: Page number, starting at 1.
        per_page: Entries per page, 1 to 100.
    """
    project = project_by_number(ctx.session, project_number)
    if date_from and date_to and date_from > date_to:
        raise ToolError("Date from must be on or before date to.", "date_from")
    stmt = (select(ManpowerEntry, Vendor).join(Vendor, Vendor.vendor_id == ManpowerEntry.vendor_id,
                                              isouter=True)
            .where(ManpowerEntry.project_id == project.project_id)
            .order_by(ManpowerEntry.log_date.desc(), Vendor.name, ManpowerEntry.entry_id))
    if date_from:
        stmt = stmt.where(ManpowerEntry.log_date >= date_from)
    if date_to:
        stmt = stmt.where(ManpowerEntry.log_date <= date_to)
    if vendor_id is not None:
        stmt = stmt.where(ManpowerEntry.vendor_id == vendor_id)
    return paged(ctx.session, stmt, page, per_page, lambda r: {
        "entry_id": r[0].entry_id, "project_number": project.project_number, "date": r[0].log_date,
        "company": r[1].name if r[1] else "", "vendor_id": r[0].vendor_id, "workers": r[0].workers,
        "hours": r[0].hours, "cost_code": r[0].cost_code, "notes": r[0].notes})
