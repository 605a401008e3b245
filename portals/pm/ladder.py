"""The budget ladder some residential PM products show instead of a cost-at-complete budget:
Original budget -> Revised (approved changes) -> Committed -> Applied actuals, per cost code.

Computed from the same budget, commitment, eApp and vendor-invoice records the Budget tab
reads, so the ladder and the Budget tab never disagree. An owner's product (INGENIOUS.BUILD's
Project Budget) shows the same ladder with the owner's forecast beside it: each line's Estimate to
Complete and the Estimate at Completion (applied plus that estimate).
"""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.tools import READ, service

from .finance import COMMITTED, ZERO, CostType, _cost_lines
from .models import BudgetLine, Commitment, CommitmentLine, CostCode
from .queries import check_paging, contains, project_by_number

LADDER_COLUMNS = ("original", "approved_changes", "revised", "committed", "applied", "committed_vs_applied",
                  "uncommitted")
PROJECT_BUDGET_COLUMNS = LADDER_COLUMNS + ("estimate_to_complete", "estimate_at_completion")


def _committed(session, project_id: int) -> dict:
    """Per (cost code, cost type): the value of executed commitments (drafts are not committed)."""
    out: dict = {}
    stmt = (select(CommitmentLine.cost_code, CommitmentLine.cost_type, CommitmentLine.amount)
            .join(Commitment, Commitment.commitment_id == CommitmentLine.commitment_id)
            .where(Commitment.project_id == project_id, Commitment.status.in_(COMMITTED)))
    for code, ctype, amount in session.execute(stmt):
        out[(code, ctype)] = out.get((code, ctype), ZERO) + amount
    return out


def _ladder(ctx: ServiceContext, project_number: str, search: str | None, cost_type: str | None,
            page: int, per_page: int) -> tuple:
    """The project and its ladder rows (each with its budget line's forecast to complete)."""
    check_paging(page, per_page)
    project = project_by_number(ctx.session, project_number)
    applied = _cost_lines(ctx.session, project)["actuals"]
    committed = _committed(ctx.session, project.project_id)
    stmt = (select(BudgetLine, CostCode.description)
            .join(CostCode, CostCode.code == BudgetLine.cost_code, isouter=True)
            .where(BudgetLine.project_id == project.project_id).order_by(BudgetLine.cost_code, BudgetLine.cost_type))
    if search:
        stmt = stmt.where(or_(contains(BudgetLine.cost_code, search), contains(CostCode.description, search)))
    if cost_type:
        stmt = stmt.where(BudgetLine.cost_type == cost_type)
    rows = []
    for line, desc in ctx.session.execute(stmt).all():
        key = (line.cost_code, line.cost_type)
        revised = line.original_budget + line.approved_changes
        done, held = applied[key], committed.get(key, ZERO)
        rows.append(({"cost_code": line.cost_code, "description": desc or "", "cost_type": line.cost_type,
                      "original": line.original_budget, "approved_changes": line.approved_changes,
                      "revised": revised, "committed": held, "applied": done,
                      "committed_vs_applied": held - done, "uncommitted": revised - held}, line.forecast_to_complete))
    return project, rows


def _page(project, rows: list[dict], columns: tuple, page: int, per_page: int) -> dict:
    totals = {k: sum((r[k] for r in rows), start=Decimal("0")) for k in columns}
    start = (page - 1) * per_page
    return {"project_number": project.project_number, "project_name": project.name,
            "items": rows[start:start + per_page], "totals": totals, "page": page, "per_page": per_page,
            "total": len(rows), "pages": -(-len(rows) // per_page)}


@service(READ)
def get_budget_ladder(ctx: ServiceContext, project_number: str, search: str | None = None,
                      cost_type: CostType | None = None, page: int = 1, per_page: int = 100) -> dict:
    """Show a job's budget ladder, one line per cost code and cost type.

    Columns: original (the budget as estimated), approved_changes, revised (original plus
    approved changes), committed (executed commitments and purchase orders), applied (bills
    and pay applications applied to the line so far, plus direct vendor bills),
    committed_vs_applied (committed less applied) and uncommitted (revised less committed).
    `totals` covers every line that matches the filters, not just this page.

    Args:
        project_number: The job number, e.g. "9999".
        search: Text to find in the cost code or its description.
        cost_type: Only this cost type: L labor, M material, S subcontract, E equipment, O other.
        page: Page number, starting at 1.
        per_page: Lines per page, 1 to 100.
    """
    project, rows = _ladder(ctx, project_number, search, cost_type, page, per_page)
    return _page(project, [r for r, _etc in rows], LADDER_COLUMNS, page, per_page)


@service(READ)
def get_project_budget(ctx: ServiceContext, project_number: str, search: str | None = None,
                       cost_type: CostType | None = None, page: int = 1, per_page: int = 100) -> dict:
    """Show a project's budget (the owner's master budget), one line per cost code and cost type.

    Columns: original (the budget as estimated), approved_changes, revised (the current budget:
    original plus approved changes), committed (executed contracts and purchase orders), applied
    (invoices applied to the line so far), committed_vs_applied (committed less applied),
    uncommitted (revised less committed), estimate_to_complete (the owner's forecast of the cost
    still to come on the line) and estimate_at_completion (applied plus estimate_to_complete).
    `totals` covers every line that matches the filters, not just this page.

    Args:
        project_number: The project number, e.g. "9999".
        search: Text to find in the cost code or its description.
        cost_type: Only this cost type: L labor, M material, S subcontract, E equipment, O other.
        page: Page number, starting at 1.
        per_page: Lines per page, 1 to 100.
    """
    project, rows = _ladder(ctx, project_number, search, cost_type, page, per_page)
    lines = [{**r, "estimate_to_complete": etc, "estimate_at_completion": r["applied"] + etc} for r, etc in rows]
    return _page(project, lines, PROJECT_BUDGET_COLUMNS, page, per_page)
