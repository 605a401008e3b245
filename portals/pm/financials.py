"""Project financials: prime contract and its SOV, budget, change events and orders, direct costs."""
from __future__ import annotations

from collections import defaultdict
from datetime import date
from decimal import Decimal
from typing import Literal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.tools import READ, service

from .models import (BudgetLine, ChangeEvent, ChangeOrder, Commitment, CommitmentLine, CostCode,
                     DirectCost, PrimeContract, PrimeContractLine, Project, Vendor)
from .queries import check_paging, contains, paged, project_by_number

ZERO = Decimal("0")
COMMITTED = ("Approved", "Complete")
PENDING = ("Out for Signature",)
ChangeOrderStatus = Literal["Draft", "Pending - In Review", "Pending - Proceeding", "Approved", "Rejected", "Void"]


def _approved_owner_changes(ctx: ServiceContext, project_id: int) -> Decimal:
    return sum((co.amount for co in ctx.session.scalars(select(ChangeOrder).where(
        ChangeOrder.project_id == project_id, ChangeOrder.kind == "owner",
        ChangeOrder.status == "Approved"))), start=ZERO)


@service(READ)
def list_prime_contracts(ctx: ServiceContext, project_number: str | None = None,
                         search: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List prime contracts (owner contracts): owner, original amount, approved change orders.

    Args:
        project_number: Only this project's prime contract, e.g. "9999".
        search: Text to find in the contract number or owner name.
        page: Page number, starting at 1.
        per_page: Contracts per page, 1 to 100.
    """
    stmt = (select(PrimeContract, Project).join(Project, Project.project_id == PrimeContract.project_id)
            .order_by(Project.project_number, PrimeContract.number))
    if project_number:
        stmt = stmt.where(PrimeContract.project_id == project_by_number(ctx.session, project_number).project_id)
    if search:
        stmt = stmt.where(or_(contains(PrimeContract.number, search), contains(PrimeContract.owner, search)))

    def shape(row):
        pc, project = row
        changes = _approved_owner_changes(ctx, project.project_id)
        return {"number": pc.number, "project_number": project.project_number, "project_name": project.name,
                "owner": pc.owner, "original_amount": pc.original_amount, "approved_changes": changes,
                "revised_amount": pc.original_amount + changes}
    return paged(ctx.session, stmt, page, per_page, shape)


@service(READ)
def get_prime_contract_sov(ctx: ServiceContext, project_number: str) -> dict:
    """Show a project's prime contract with its schedule of values (line, cost code, value).

    Args:
        project_number: The project (job) number, e.g. "9999".
    """
    project = project_by_number(ctx.session, project_number)
    pc = ctx.session.scalar(select(PrimeContract).where(PrimeContract.project_id == project.project_id)
                            .order_by(PrimeContract.number).limit(1))
    if pc is None:
        raise NotFound(f"Project {project.project_number} has no prime contract.", "project_number")
    lines = ctx.session.scalars(select(PrimeContractLine).where(
        PrimeContractLine.prime_contract_id == pc.prime_contract_id).order_by(PrimeContractLine.line_no)).all()
    changes = _approved_owner_changes(ctx, project.project_id)
    return {"number": pc.number, "project_number": project.project_number, "owner": pc.owner,
            "original_amount": pc.original_amount, "approved_changes": changes,
            "revised_amount": pc.original_amount + changes,
            "lines": [{"line_no": line.line_no, "cost_code": line.cost_code, "description": line.description,
                       "scheduled_value": line.scheduled_value} for line in lines]}


def _sums(rows) -> dict:
    out: dict = defaultdict(lambda: ZERO)
    for code, ctype, amount in rows:
        out[(code, ctype)] += amount
    return out


@service(READ)
def get_budget(ctx: ServiceContext, project_number: str, search: str | None = None,
               cost_type: Literal["L", "M", "S", "E", "O"] | None = None,
               page: int = 1, per_page: int = 100) -> dict:
    """Show a project's budget in Procore's standard view, one line per cost code and cost type.

    Columns: original budget, approved changes, revised budget, committed costs, direct costs,
    pending cost changes, projected costs, forecast to complete, estimated cost at completion
    (projected costs + forecast to complete) and projected over/under (revised - EAC).
    `totals` covers every line that matches the filters, not just this page.

    Args:
        project_number: The project (job) number, e.g. "9999".
        search: Text to find in the cost code or its description.
        cost_type: Only this cost type: L labor, M material, S subcontract, E equipment, O other.
        page: Page number, starting at 1.
        per_page: Lines per page, 1 to 100.
    """
    check_paging(page, per_page)
    project = project_by_number(ctx.session, project_number)
    pid = project.project_id
    commitment_lines = (select(CommitmentLine.cost_code, CommitmentLine.cost_type, CommitmentLine.amount)
                        .join(Commitment, Commitment.commitment_id == CommitmentLine.commitment_id)
                        .where(Commitment.project_id == pid))
    committed = _sums(ctx.session.execute(commitment_lines.where(Commitment.status.in_(COMMITTED))).all())
    pending = _sums(ctx.session.execute(commitment_lines.where(Commitment.status.in_(PENDING))).all())
    direct = _sums(ctx.session.execute(select(DirectCost.cost_code, DirectCost.cost_type, DirectCost.amount)
                                       .where(DirectCost.project_id == pid)).all())
    stmt = (select(BudgetLine, CostCode.description)
            .join(CostCode, CostCode.code == BudgetLine.cost_code, isouter=True)
            .where(BudgetLine.project_id == pid).order_by(BudgetLine.cost_code, BudgetLine.cost_type))
    if search:
        stmt = stmt.where(or_(contains(BudgetLine.cost_code, search), contains(CostCode.description, search)))
    if cost_type:
        stmt = stmt.where(BudgetLine.cost_type == cost_type)

    def shape(row) -> dict:
        line, desc = row
        key = (line.cost_code, line.cost_type)
        revised = line.original_budget + line.approved_changes
        projected = committed[key] + direct[key] + pending[key]
        eac = projected + line.forecast_to_complete
        return {"cost_code": line.cost_code, "description": desc or "", "cost_type": line.cost_type,
                "original_budget": line.original_budget, "approved_changes": line.approved_changes,
                "revised_budget": revised, "committed_costs": committed[key], "direct_costs": direct[key],
                "pending_cost_changes": pending[key], "projected_costs": projected,
                "forecast_to_complete": line.forecast_to_complete, "estimated_cost_at_completion": eac,
                "projected_over_under": revised - eac}

    all_rows = [shape(r) for r in ctx.session.execute(stmt).all()]
    money_cols = [k for k in (all_rows[0] if all_rows else {}) if k not in ("cost_code", "description",
                                                                          "cost_type")]
    totals = {k: sum((r[k] for r in all_rows), start=ZERO) for k in money_cols}
    start = (page - 1) * per_page
    total = len(all_rows)
    return {"project_number": project.project_number, "project_name": project.name,
            "items": all_rows[start:start + per_page], "totals": totals, "page": page,
            "per_page": per_page, "total": total, "pages": -(-total // per_page)}


@service(READ)
def list_change_events(ctx: ServiceContext, project_number: str | None = None,
                       status: Literal["Open", "Closed"] | None = None, search: str | None = None,
                       page: int = 1, per_page: int = 25) -> dict:
    """List change events: scope changes tracked before (and while) they become change orders.

    Args:
        project_number: Only this project's change events, e.g. "9999".
        status: "Open" (its change order is not approved yet) or "Closed".
        search: Text to find in the title or number.
        page: Page number, starting at 1.
        per_page: Change events per page, 1 to 100.
    """
    stmt = (select(ChangeEvent, Project).join(Project, Project.project_id == ChangeEvent.project_id)
            .order_by(Project.project_number, ChangeEvent.number))
    if project_number:
        stmt = stmt.where(ChangeEvent.project_id == project_by_number(ctx.session, project_number).project_id)
    if status:
        stmt = stmt.where(ChangeEvent.status == status)
    if search:
        stmt = stmt.where(or_(contains(ChangeEvent.title, search), contains(ChangeEvent.number, search)))
    return paged(ctx.session, stmt, page, per_page, lambda r: {
        "change_event_id": r[0].change_event_id, "project_number": r[1].project_number,
        "number": r[0].number, "title": r[0].title, "status": r[0].status,
        "change_reason": r[0].change_reason, "estimated_amount": r[0].estimated_amount,
        "created_date": r[0].created_date})


@service(READ)
def list_change_orders(ctx: ServiceContext, project_number: str | None = None,
                       kind: Literal["owner", "commitment", "budget_transfer"] | None = None,
                       status: ChangeOrderStatus | None = None, search: str | None = None,
                       page: int = 1, per_page: int = 25) -> dict:
    """List change orders: prime contract (owner) COs, commitment COs and budget transfers.

    Only Approved change orders move the revised contract and revised budget.

    Args:
        project_number: Only this project's change orders, e.g. "9999".
        kind: "owner" (prime contract CO), "commitment" or "budget_transfer".
        status: Only this status, e.g. "Approved" or "Pending - In Review".
        search: Text to find in the title or change order id.
        page: Page number, starting at 1.
        per_page: Change orders per page, 1 to 100.
    """
    stmt = (select(ChangeOrder, Project, ChangeEvent.number)
            .join(Project, Project.project_id == ChangeOrder.project_id)
            .join(ChangeEvent, ChangeEvent.change_event_id == ChangeOrder.change_event_id, isouter=True)
            .order_by(Project.project_number, ChangeOrder.change_order_id))
    if project_number:
        stmt = stmt.where(ChangeOrder.project_id == project_by_number(ctx.session, project_number).project_id)
    if kind:
        stmt = stmt.where(ChangeOrder.kind == kind)
    if status:
        stmt = stmt.where(ChangeOrder.status == status)
    if search:
        stmt = stmt.where(or_(contains(ChangeOrder.title, search), contains(ChangeOrder.change_order_id, search)))
    return paged(ctx.session, stmt, page, per_page, lambda r: {
        "change_order_id": r[0].change_order_id, "project_number": r[1].project_number,
        "number": r[0].number, "title": r[0].title, "kind": r[0].kind, "status": r[0].status,
        "amount": r[0].amount, "created_date": r[0].created_date, "change_event": r[2] or ""})


@service(READ)
def list_direct_costs(ctx: ServiceContext, project_number: str | None = None, vendor: str | None = None,
                      cost_code: str | None = None, date_from: date | None = None,
                      date_to: date | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List direct costs: invoices and expenses charged to a project without a commitment.

    Args:
        project_number: Only this project's direct costs, e.g. "9999".
        vendor: Text to find in the vendor's name, or an exact ERP vendor id like "V9999".
        cost_code: Only this cost code, e.g. "99-999".
        date_from: Only costs dated on or after this date (YYYY-MM-DD).
        date_to: Only costs dated on or before this date (YYYY-MM-DD).
        page: Page number, starting at 1.
        per_page: Costs per page, 1 to 100.
    """
    if date_from and date_to and date_from > date_to:
        raise ToolError("Date from must be on or before date to.", "date_from")
    stmt = (select(DirectCost, Project, Vendor).join(Project, Project.project_id == DirectCost.project_id)
            .join(Vendor, Vendor.vendor_id == DirectCost.vendor_id, isouter=True)
            .order_by(Project.project_number, DirectCost.cost_date.desc(), DirectCost.direct_cost_id))
    if project_number:
        stmt = stmt.where(DirectCost.project_id == project_by_number(ctx.session, project_number).project_id)
    if vendor:
        stmt = stmt.where(or_(contains(Vendor.name, vendor), Vendor.origin_id == vendor.strip()))
    if cost_code:
        stmt = stmt.where(DirectCost.cost_code == cost_code.strip())
    if date_from:
        stmt = stmt.where(DirectCost.cost_date >= date_from)
    if date_to:
        stmt = stmt.where(DirectCost.cost_date <= date_to)
    return paged(ctx.session, stmt, page, per_page, lambda r: {
        "direct_cost_id": r[0].direct_cost_id, "project_number": r[1].project_number,
        "date": r[0].cost_date, "vendor": r[2].name if r[2] else "",
        "origin_id": r[2].origin_id if r[2] else "", "invoice_number": r[0].invoice_number,
        "cost_code": r[0].cost_code, "cost_type": r[0].cost_type, "description": r[0].description,
        "amount": r[0].amount, "erp_ref": r[0].source_ref})
