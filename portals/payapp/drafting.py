"""GCPay's owner billing writes: put an approved change order on the SOV, draft the period's pay
application (the G703 lines entered, the G702 computed), and submitting it (guarded)."""
from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from sqlalchemy import delete, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.money import parse_amount
from portals.core.tools import GUARDED, WRITE, Amount, service

from .billing import ZERO, Line, g702
from .models import ChangeOrder, PayApp, PayAppLine, SovLine
from .records import get_pay_app, get_project, pay_app_dict, sov_dict, sov_lines

_LINE = re.compile(r"^\s*(\d{1,4})\s*:\s*([^:]+?)\s*(?::\s*([^:]+?)\s*)?$")


@service(WRITE)
def add_change_order_to_sov(ctx: ServiceContext, project_code: str, co_id: str) -> dict:
    """Add an approved owner change order to the project's schedule of values as a new line, so
    it can be billed.

    Args:
        project_code: GCPay's project code, as gcpay.projects.list shows it.
        co_id: The change order's id, as the project's change orders show it.
    """
    project = get_project(ctx.session, project_code)
    co = ctx.session.get(ChangeOrder, co_id.strip())
    if co is None or co.project_id != project.project_id:
        raise NotFound(f"Project {project.code} has no change order {co_id.strip()[:30]!r}.", "co_id")
    if co.status != "Approved":
        raise ToolError(f"Change order {co.co_id} is {co.status}; only an approved change order goes on the "
                        "schedule of values.", "co_id")
    lines = sov_lines(ctx.session, project.project_id)
    if any(l.co_id == co.co_id for l in lines):
        raise ToolError(f"Change order {co.co_id} is already on the schedule of values.", "co_id")
    item = max((l.item_no for l in lines), default=0) + 1
    line = SovLine(line_id=stable_id(ctx.app, "sov", project.project_id, item), project_id=project.project_id,
                   item_no=item, description=f"CO #{co.number} {co.title}"[:200], cost_code="01-100",
                   scheduled_value=co.amount, co_id=co.co_id)
    ctx.session.add(line)
    ctx.session.flush()
    return {"project_code": project.code, "added": sov_dict(line),
            "contract_sum": project.original_sum + sum((l.scheduled_value for l in lines if l.co_id), ZERO) + co.amount}


def _entries(lines: list[str], known: set[int]) -> dict[int, tuple[Decimal, Decimal]]:
    out: dict[int, tuple[Decimal, Decimal]] = {}
    for text in lines:
        match = _LINE.match(text)
        if not match:
            raise ToolError(f"Line {text[:40]!r} is not item:this_period or item:this_period:stored "
                            "(e.g. 3:12500.00:0).", "lines")
        item = int(match.group(1))
        if item not in known:
            raise ToolError(f"Item {item} is not a line of the schedule of values.", "lines")
        if item in out:
            raise ToolError(f"Item {item} is entered twice.", "lines")
        try:
            work = parse_amount(match.group(2), f"This period on item {item}")
            stored = parse_amount(match.group(3) or "0", f"Stored materials on item {item}")
        except ToolError as err:
            raise ToolError(err.message, "lines") from None
        out[item] = (work, stored)
    return out


def _rate(value: Decimal | None, default: Decimal, field: str) -> Decimal:
    if value is None:
        return default
    if value > 100:
        raise ToolError("A retainage percentage is from 0 to 100.", field)
    return value


@service(WRITE)
def draft_pay_app(ctx: ServiceContext, project_code: str, period_to: date, lines: list[str],
                  retainage_work_pct: Amount | None = None, retainage_stored_pct: Amount | None = None) -> dict:
    """Draft (or redraft) the owner pay application for a period. Enter each SOV line's work
    completed this period and materials presently stored; GCPay carries "from previous
    application" from the last application and computes the G703 columns and the G702 summary.
    The draft is not sent to anyone.

    Args:
        project_code: GCPay's project code, as gcpay.projects.list shows it.
        period_to: The last day of the billing period.
        lines: One entry per SOV line billed, "item:this_period:stored", e.g. "3:12500.00:2000.00"
            ("item:this_period" when nothing is stored). Lines left out bill nothing this period.
        retainage_work_pct: Retainage percentage on completed work (columns D + E); blank keeps the
            rate of the last application.
        retainage_stored_pct: Retainage percentage on stored materials (column F); blank keeps the
            rate of the last application.
    """
    project = get_project(ctx.session, project_code)
    sov = sov_lines(ctx.session, project.project_id)
    entered = _entries(lines, {l.item_no for l in sov})
    last = ctx.session.scalar(select(PayApp).where(PayApp.project_id == project.project_id, PayApp.status != "Draft")
                              .order_by(PayApp.number.desc()).limit(1))
    if last is not None and period_to <= last.period_to:
        raise ToolError(f"Application #{last.number} already covers the period to {last.period_to}; a new "
                        "application's period ends after it.", "period_to")
    work_pct = _rate(retainage_work_pct, last.retainage_work_pct if last else project.retainage_pct,
                     "retainage_work_pct")
    stored_pct = _rate(retainage_stored_pct, last.retainage_stored_pct if last else project.retainage_pct,
                       "retainage_stored_pct")
    before = {}
    if last is not None:
        before = {l.item_no: l.completed_stored for l in ctx.session.scalars(
            select(PayAppLine).where(PayAppLine.pay_app_id == last.pay_app_id))}
    g_lines = []
    for s in sov:
        work, stored = entered.get(s.item_no, (ZERO, ZERO))
        line = Line(s.item_no, s.description, s.scheduled_value, before.get(s.item_no, ZERO), work, stored)
        if work or stored:
            if line.completed_stored > max(s.scheduled_value, ZERO):
                raise ToolError(f"Item {s.item_no} ({s.description}) would be billed {line.completed_stored} to "
                                f"date, more than its scheduled value {s.scheduled_value}.", "lines")
        g_lines.append(line)
    net_co = sum((s.scheduled_value for s in sov if s.co_id), ZERO)
    summary = g702(project.original_sum, net_co, g_lines, work_pct, stored_pct,
                   last.earned_less_retainage if last else ZERO)
    draft = ctx.session.scalar(select(PayApp).where(PayApp.project_id == project.project_id,
                                                    PayApp.status == "Draft"))
    number = (last.number if last else 0) + 1
    if draft is None:
        draft = PayApp(pay_app_id=stable_id(ctx.app, "pay_app", project.project_id, number),
                       project_id=project.project_id, number=number, status="Draft")
        ctx.session.add(draft)
    else:
        ctx.session.execute(delete(PayAppLine).where(PayAppLine.pay_app_id == draft.pay_app_id))
    draft.period_to, draft.retainage_work_pct, draft.retainage_stored_pct = period_to, work_pct, stored_pct
    draft.updated_at = ctx.clock.iso()
    for key, value in summary.items():
        if key != "lines":
            setattr(draft, key, value)
    for row in summary["lines"]:
        ctx.session.add(PayAppLine(line_id=stable_id(ctx.app, "pay_app_line", draft.pay_app_id, row["item_no"]),
                                   pay_app_id=draft.pay_app_id, **row))
    ctx.session.flush()
    return {**pay_app_dict(ctx.session, draft, project), "drafted": True}


@service(GUARDED)
def submit_pay_app(ctx: ServiceContext, pay_app_id: int) -> dict:
    """Submit a drafted pay application to the owner (signs the contractor's certification).
    Submitting needs a person's approval.

    Args:
        pay_app_id: The draft pay application's id.
    """
    app = get_pay_app(ctx.session, pay_app_id)
    if app.status != "Draft":
        raise ToolError(f"Application #{app.number} is {app.status}; only a draft is submitted.", "pay_app_id")
    return {"action": "submit pay application", "pay_app_id": app.pay_app_id, "number": app.number,
            "current_due": app.current_due}

