"""GCPay read services for projects: the list, the SOV and change orders, the PM's progress,
owner pay applications and their G702/G703 document."""
from __future__ import annotations

import base64
from datetime import date
from typing import Literal

from sqlalchemy import func, or_, select

from portals.core.db import page_total
from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.sorting import DATE, MONEY, NUMBER, TEXT, sort_order
from portals.core.tools import READ, service

from .models import ChangeOrder, PayApp, ProgressEntry, Project
from .pdf import render_pay_app
from .records import (check_paging, co_dict, get_pay_app, get_project, paged, pay_app_dict, pay_app_summary,
                      project_dict, sov_dict, sov_lines)

PROJECT_SORT = {"code": (Project.code, TEXT), "name": (Project.name, TEXT), "owner": (Project.owner, TEXT),
                "contract": (Project.original_sum, MONEY), "retainage": (Project.retainage_pct, NUMBER)}
PAY_APP_SORT = {"number": (PayApp.number, NUMBER), "period": (PayApp.period_to, DATE),
                "status": (PayApp.status, TEXT), "due": (PayApp.current_due, MONEY),
                "completed": (PayApp.completed_stored, MONEY)}


@service(READ)
def list_projects(ctx: ServiceContext, search: str | None = None, owner: str | None = None,
                  sort: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List GCPay projects with their owner contract and retainage terms.

    Args:
        search: Words to find in the project code, name or ERP job number.
        owner: Only projects for this owner (words of its name).
        sort: Sort by code, name, owner, contract or retainage; a leading "-" sorts descending.
        page: Page number, starting at 1.
        per_page: Projects per page, 1 to 100.
    """
    check_paging(page, per_page)
    stmt = select(Project)
    for word in (search or "").split():
        pattern = f"%{word}%"
        stmt = stmt.where(or_(Project.code.ilike(pattern), Project.name.ilike(pattern), Project.erp_job.ilike(pattern)))
    for word in (owner or "").split():
        stmt = stmt.where(Project.owner.ilike(f"%{word}%"))
    rows = ctx.session.scalars(stmt.order_by(*sort_order(sort, PROJECT_SORT, (Project.code,)))
                               .offset((page - 1) * per_page).limit(per_page)).all()
    total = page_total(ctx.session, stmt, page, per_page, len(rows))
    return paged([project_dict(p) for p in rows], page, per_page, total)


@service(READ)
def get_project_sov(ctx: ServiceContext, project_code: str) -> dict:
    """Get a project's owner contract, its schedule of values (SOV lines) and its owner change orders.

    Args:
        project_code: GCPay's project code, as gcpay.projects.list shows it.
    """
    project = get_project(ctx.session, project_code)
    lines = sov_lines(ctx.session, project.project_id)
    on_sov = {l.co_id for l in lines if l.co_id}
    cos = ctx.session.scalars(select(ChangeOrder).where(ChangeOrder.project_id == project.project_id)
                              .order_by(ChangeOrder.number))
    return {**project_dict(project), "sov": [sov_dict(l) for l in lines],
            "scheduled_total": sum((l.scheduled_value for l in lines), 0),
            "change_orders": [co_dict(c, c.co_id in on_sov) for c in cos]}


@service(READ)
def list_progress(ctx: ServiceContext, project_code: str, period_to: date | None = None) -> dict:
    """The project manager's progress report for a billing period: work completed this period and
    materials stored, by SOV line (or by change order for work not yet on the SOV), with notes.

    Args:
        project_code: GCPay's project code, as gcpay.projects.list shows it.
        period_to: The period's end date; blank gives the latest period reported.
    """
    project = get_project(ctx.session, project_code)
    if period_to is None:
        period_to = ctx.session.scalar(select(func.max(ProgressEntry.period_to))
                                       .where(ProgressEntry.project_id == project.project_id))
    rows = ctx.session.scalars(select(ProgressEntry).where(ProgressEntry.project_id == project.project_id,
                                                           ProgressEntry.period_to == period_to)
                               .order_by(ProgressEntry.item_no.is_(None), ProgressEntry.item_no, ProgressEntry.co_id))
    items = [{"item_no": r.item_no, "change_order": r.co_id, "description": r.description,
              "work_this_period": r.work_this_period, "stored_materials": r.stored_materials,
              "stored_status": r.stored_status, "reported_by": r.reported_by, "note": r.note} for r in rows]
    return {"project_code": project.code, "period_to": period_to, "items": items}


@service(READ)
def list_pay_apps(ctx: ServiceContext, project_code: str, status: Literal["Draft", "Submitted", "Approved", "Paid"] | None = None,
                  sort: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List a project's owner pay applications (G702 totals), newest first.

    Args:
        project_code: GCPay's project code, as gcpay.projects.list shows it.
        status: Only applications in this status: Draft, Submitted, Approved or Paid.
        sort: Sort by number, period, status, due or completed; a leading "-" sorts descending.
        page: Page number, starting at 1.
        per_page: Applications per page, 1 to 100.
    """
    check_paging(page, per_page)
    project = get_project(ctx.session, project_code)
    stmt = select(PayApp).where(PayApp.project_id == project.project_id)
    if status:
        stmt = stmt.where(PayApp.status == status)
    rows = ctx.session.scalars(stmt.order_by(*sort_order(sort, PAY_APP_SORT, (PayApp.number.desc(),)))
                               .offset((page - 1) * per_page).limit(per_page)).all()
    total = page_total(ctx.session, stmt, page, per_page, len(rows))
    return paged([pay_app_summary(a, project.code) for a in rows], page, per_page, total)


@service(READ)
def get_pay_app_detail(ctx: ServiceContext, pay_app_id: int) -> dict:
    """Get an owner pay application: its G702 summary and every G703 line.

    Args:
        pay_app_id: The pay application's id, as pay_apps.list shows it.
    """
    app = get_pay_app(ctx.session, pay_app_id)
    project = ctx.session.get(Project, app.project_id)
    return pay_app_dict(ctx.session, app, project)


@service(READ)
def download_pay_app(ctx: ServiceContext, pay_app_id: int, form: Literal["G702", "G703"] = "G702") -> dict:
    """Download a pay application as a PDF: the G702 summary page or the G703 continuation sheet.

    Args:
        pay_app_id: The pay application's id.
        form: G702 (the application and certificate) or G703 (the continuation sheet).
    """
    detail = get_pay_app_detail(ctx, pay_app_id)
    blob = render_pay_app(detail, form)
    if len(blob) > 4 * 1024 * 1024:
        raise ToolError("That document is too large to download.", "pay_app_id")
    name = f"{detail['project_code']} Pay App {detail['number']} {form}.pdf"
    return {"name": name, "content_type": "application/pdf", "size": len(blob),
            "content_base64": base64.b64encode(blob).decode()}
