"""Project finance beyond the commitment boundary: the project pipeline by lifecycle stage, the
financial overview, the cost budget (Budget, Actuals, Open, At Risk, Cost at Complete), the
commitment SOV billed to date, customer invoices (applications for payment), vendor invoices
and bid packages (RFQs). Sending an invoice to the customer and an RFQ to vendors are guarded.
"""
from __future__ import annotations

import re
from collections import defaultdict
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Literal

from sqlalchemy import func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.sorting import DATE, MONEY, NUMBER, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, Amount, MaxLen, service

from .models import (BidPackage, BudgetLine, ChangeOrder, Commitment, CommitmentLine, CostCode,
                     CustomerInvoice, CustomerInvoiceLine, DirectCost, PrimeContract, PrimeContractLine,
                     Project, Requisition, Vendor)
from .vendor_keys import PmKeys
from .queries import check_paging, commitment_by_number, commitment_row, contains, paged, project_by_number

ZERO = Decimal("0")
CENT = Decimal("0.01")
COMMITTED = ("Approved", "Complete")
AT_RISK = ("Out for Signature", "Draft")
CustomerInvoiceStatus = Literal["Draft", "Sent", "Paid"]
BidPackageStatus = Literal["Draft", "RFQ Sent", "Awarded"]
CostType = Literal["L", "M", "S", "E", "O"]
_LINE = re.compile(r"^\s*(\d+)\s*\|\s*([0-9,]+(?:\.\d{1,2})?)\s*$")


def _project_row(p: Project) -> dict:
    return {"project_id": p.project_id, "project_number": p.project_number, "name": p.name,
            "stage": p.stage, "customer": p.customer, "city": p.city, "state": p.state,
            "project_type": p.project_type, "contract_amount": p.contract_amount, "pm_name": p.pm_name,
            "start_date": p.start_date, "est_completion": p.est_completion}


PROJECT_SORT = {"number": (Project.project_number, TEXT), "name": (Project.name, TEXT),
                "stage": (Project.stage, TEXT), "customer": (Project.customer, TEXT),
                "amount": (Project.contract_amount, MONEY), "pm": (Project.pm_name, TEXT)}


@service(READ)
def list_project_pipeline(ctx: ServiceContext, stage: Annotated[str, MaxLen(40)] | None = None,
                          search: str | None = None, sort: str | None = None,
                          page: int = 1, per_page: int = 25) -> dict:
    """List projects with their lifecycle stage; `stage_counts` counts the projects in each.

    Args:
        stage: Only projects in this stage, one of the product's lifecycle stages (the keys of
            `stage_counts`).
        search: Text to find in the project number, name, customer or city.
        sort: A column to sort by: number, name, stage, customer, amount or pm; a leading "-"
            sorts descending. Left out, by project number.
        page: Page number, starting at 1.
        per_page: Projects per page, 1 to 100.
    """
    stages = PmKeys(ctx.spec).stages  # each product has its own lifecycle
    if stage and stage not in stages:
        raise ToolError(f"There is no stage {stage!r}; the stages are {', '.join(stages)}.", "stage")
    stmt = select(Project).order_by(*sort_order(sort, PROJECT_SORT, (Project.project_number,)))
    if stage:
        stmt = stmt.where(Project.stage == stage)
    if search:
        stmt = stmt.where(or_(contains(Project.project_number, search), contains(Project.name, search),
                              contains(Project.customer, search), contains(Project.city, search)))
    result = paged(ctx.session, stmt, page, per_page, lambda r: _project_row(r[0]))
    result["stage_counts"] = dict(ctx.session.execute(
        select(Project.stage, func.count()).group_by(Project.stage)).all())
    return result


def _sums(rows) -> dict:
    out: dict = defaultdict(lambda: ZERO)
    for code, ctype, amount in rows:
        out[(code, ctype)] += amount
    return out


def _spread(total: Decimal, parts: list[Decimal]) -> list[Decimal]:
    """`total` shared over `parts` in proportion, to the cent, the remainder on the last part."""
    whole = sum(parts, start=ZERO)
    if not parts or not whole:
        return [ZERO for _ in parts]
    out = [(total * p / whole).quantize(CENT, rounding=ROUND_HALF_UP) for p in parts[:-1]]
    return [*out, total - sum(out, start=ZERO)]


def _billed_by_line(session, commitment: Commitment) -> tuple[list, list[Decimal]]:
    """A commitment's SOV lines and each line's share of what has been billed against it (eApps
    bill the commitment as a whole; each line carries its share of the contract)."""
    lines = session.scalars(select(CommitmentLine).where(CommitmentLine.commitment_id == commitment.commitment_id)
                            .order_by(CommitmentLine.line_no)).all()
    billed = sum((r.amount for r in session.scalars(
        select(Requisition).where(Requisition.commitment_id == commitment.commitment_id))), start=ZERO)
    return lines, _spread(billed, [line.amount for line in lines])


def _cost_lines(session, project: Project) -> dict:
    """Per (cost code, cost type): actuals, open commitment and at-risk amounts."""
    actual: dict = defaultdict(lambda: ZERO)
    open_: dict = defaultdict(lambda: ZERO)
    risk: dict = defaultdict(lambda: ZERO)
    for c in session.scalars(select(Commitment).where(Commitment.project_id == project.project_id)):
        if c.status in AT_RISK:
            for line in session.scalars(select(CommitmentLine).where(CommitmentLine.commitment_id == c.commitment_id)):
                risk[(line.cost_code, line.cost_type)] += line.amount
        elif c.status in COMMITTED:
            lines, billed = _billed_by_line(session, c)
            for line, done in zip(lines, billed):
                actual[(line.cost_code, line.cost_type)] += done
                open_[(line.cost_code, line.cost_type)] += line.amount - done
    for code, ctype, amount in session.execute(select(DirectCost.cost_code, DirectCost.cost_type, DirectCost.amount)
                                               .where(DirectCost.project_id == project.project_id)):
        actual[(code, ctype)] += amount
    return {"actuals": actual, "open": open_, "at_risk": risk}


BUDGET_COLUMNS = ("budget", "actuals", "open", "at_risk", "cost_at_complete", "variance")


@service(READ)
def get_cost_budget(ctx: ServiceContext, project_number: str, search: str | None = None,
                    cost_type: CostType | None = None, page: int = 1, per_page: int = 100) -> dict:
    """Show a project's Budget tab, one line per cost code and cost type.

    Columns: budget (original plus approved budget changes), actuals (vendor invoices and
    eApps billed so far: an eApp's amount is shared over its commitment's SOV lines in
    proportion to each line's value), open (committed, not billed yet), at_risk (commitments
    not executed yet: drafts and those out for signature), cost_at_complete (actuals + open +
    at risk + the estimate to complete) and variance (budget - cost at complete). `totals`
    covers every line that matches the filters, not just this page.

    Args:
        project_number: The project number, e.g. "9999".
        search: Text to find in the cost code or its description.
        cost_type: Only this cost type: L labor, M material, S subcontract, E equipment, O other.
        page: Page number, starting at 1.
        per_page: Lines per page, 1 to 100.
    """
    check_paging(page, per_page)
    project = project_by_number(ctx.session, project_number)
    costs = _cost_lines(ctx.session, project)
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
        budget = line.original_budget + line.approved_changes
        actuals, open_, risk = costs["actuals"][key], costs["open"][key], costs["at_risk"][key]
        cac = actuals + open_ + risk + line.forecast_to_complete
        rows.append({"cost_code": line.cost_code, "description": desc or "", "cost_type": line.cost_type,
                     "budget": budget, "actuals": actuals, "open": open_, "at_risk": risk,
                     "estimate_to_complete": line.forecast_to_complete, "cost_at_complete": cac,
                     "variance": budget - cac})
    totals = {k: sum((r[k] for r in rows), start=ZERO) for k in (*BUDGET_COLUMNS, "estimate_to_complete")}
    start = (page - 1) * per_page
    return {"project_number": project.project_number, "project_name": project.name,
            "items": rows[start:start + per_page], "totals": totals, "page": page, "per_page": per_page,
            "total": len(rows), "pages": -(-len(rows) // per_page)}


def _customer_contract(session, project: Project) -> tuple[PrimeContract | None, Decimal, Decimal]:
    pc = session.scalar(select(PrimeContract).where(PrimeContract.project_id == project.project_id)
                        .order_by(PrimeContract.number).limit(1))
    approved = sum((co.amount for co in session.scalars(select(ChangeOrder).where(
        ChangeOrder.project_id == project.project_id, ChangeOrder.kind == "owner",
        ChangeOrder.status == "Approved"))), start=ZERO)
    pending = sum((co.amount for co in session.scalars(select(ChangeOrder).where(
        ChangeOrder.project_id == project.project_id, ChangeOrder.kind == "owner",
        ChangeOrder.status.like("Pending%")))), start=ZERO)
    return pc, approved, pending


@service(READ)
def get_financial_overview(ctx: ServiceContext, project_number: str) -> dict:
    """A project's Financial Overview: the customer contract (original, approved and pending
    change orders, revised), what has been invoiced to the customer and retained, and the cost
    side's Budget tab totals with the projected margin (revised contract - cost at complete).

    Args:
        project_number: The project number, e.g. "9999".
    """
    project = project_by_number(ctx.session, project_number)
    pc, approved, pending = _customer_contract(ctx.session, project)
    original = pc.original_amount if pc else ZERO
    invoices = ctx.session.scalars(select(CustomerInvoice).where(CustomerInvoice.project_id == project.project_id)
                                   .order_by(CustomerInvoice.application_no)).all()
    sent = [i for i in invoices if i.status != "Draft"]
    billed = sent[-1].completed_to_date if sent else ZERO  # each application bills the work to date
    retained = (billed * sent[-1].retainage_pct / 100).quantize(CENT, rounding=ROUND_HALF_UP) if sent else ZERO
    totals = get_cost_budget(ctx, project.project_number)["totals"]
    revised = original + approved
    cac = totals.get("cost_at_complete", ZERO)
    return {"project_number": project.project_number, "name": project.name, "stage": project.stage,
            "customer": project.customer,
            "contract": {"number": pc.number if pc else "", "original": original, "approved_changes": approved,
                         "pending_changes": pending, "revised": revised},
            "invoiced_to_date": billed, "retainage_held": retained,
            "last_application": invoices[-1].number if invoices else "",
            "budget": {k: totals.get(k, ZERO) for k in BUDGET_COLUMNS},
            "projected_margin": revised - cac,
            "projected_margin_pct": ((revised - cac) * 100 / revised).quantize(Decimal("0.1")) if revised else None}


@service(READ)
def get_commitment_sov(ctx: ServiceContext, number: str) -> dict:
    """Show one commitment with its schedule of values: each line's value, billed to date (the
    eApps against it, whatever their status, shared over the lines in proportion to their value)
    and the remaining balance, the commitment's total remaining to bill, and the commitment
    change orders recorded on it (only an Approved one has changed its amount).

    Args:
        number: The commitment number as this product shows it, e.g. "SUB-9999-000".
    """
    c = commitment_by_number(ctx.session, number)
    project, vendor = ctx.session.execute(
        select(Project, Vendor).join(Vendor, Vendor.vendor_id == c.vendor_id, isouter=True)
        .where(Project.project_id == c.project_id)).one()
    lines, billed = _billed_by_line(ctx.session, c)
    descs = dict(ctx.session.execute(select(CostCode.code, CostCode.description)).all())
    total_billed = sum(billed, start=ZERO)
    changes = ctx.session.scalars(select(ChangeOrder).where(ChangeOrder.commitment_id == c.commitment_id)
                                  .order_by(ChangeOrder.change_order_id)).all()
    return {**commitment_row(c, project, vendor), "book_number": c.book_number, "project_name": project.name,
            "billed_to_date": total_billed, "remaining": c.grand_total - total_billed,
            "change_orders": [{"change_order_id": co.change_order_id, "number": co.number, "title": co.title,
                               "status": co.status, "amount": co.amount, "created_date": co.created_date}
                              for co in changes],
            "lines": [{"line_no": line.line_no, "cost_code": line.cost_code,
                       "cost_code_description": descs.get(line.cost_code, ""), "cost_type": line.cost_type,
                       "description": line.description, "scheduled_value": line.amount,
                       "billed_to_date": done, "remaining": line.amount - done}
                      for line, done in zip(lines, billed)]}


# -- eApps ------------------------------------------------------------------------------------

@service(WRITE)
def review_eapp(ctx: ServiceContext, requisition_id: int, decision: Literal["approve", "revise_and_resubmit"],
                approved_amount: Amount | None = None, note: Annotated[str, MaxLen(500)] = "") -> dict:
    """Review an eApp that is under review: approve it (for the amount billed, or capped at less,
    with a note saying why) or return it to the subcontractor to revise and resubmit (a note is
    required). An approval may not exceed what was billed; whether it fits what remains on the
    commitment is the reviewer's call. Retainage is held at the commitment's rate on the approved
    amount. Approving pays nothing.

    Args:
        requisition_id: The eApp's id, from eapps.list.
        decision: "approve" or "revise_and_resubmit".
        approved_amount: The amount approved; left out, the amount billed.
        note: Why the amount was reduced, or what to revise.
    """
    r = ctx.session.get(Requisition, requisition_id)
    if r is None:
        raise NotFound(f"There is no eApp with id {requisition_id}.", "requisition_id")
    if r.status != "under_review":
        raise ToolError(f"eApp {r.invoice_number} is {r.status.replace('_', ' ')}; only one under review can be "
                        "reviewed.", "requisition_id", "wrong_state")
    text = note.strip()
    if decision == "revise_and_resubmit":
        if not text:
            raise ToolError("Say what the subcontractor must revise.", "note")
        r.status, r.review_note = "revise_and_resubmit", text
    else:
        c = ctx.session.get(Commitment, r.commitment_id)
        amount = r.amount if approved_amount is None else approved_amount
        if amount <= 0:
            raise ToolError("Approved amount must be greater than zero.", "approved_amount")
        if amount > r.amount:
            raise ToolError(f"Approved amount {amount:.2f} is more than the {r.amount:.2f} billed.", "approved_amount")
        if amount < r.amount and not text:
            raise ToolError("Say why less than the amount billed is approved.", "note")
        if amount < r.amount:
            r.requested_amount = r.amount
            r.amount = amount
            r.retainage = (amount * c.retainage_pct / 100).quantize(CENT, rounding=ROUND_HALF_UP)
        r.status, r.approved_date, r.review_note = "approved", ctx.clock.today(), text
    ctx.session.flush()
    return {"requisition_id": r.requisition_id, "invoice_number": r.invoice_number, "status": r.status,
            "amount": r.amount, "requested_amount": r.requested_amount, "retainage": r.retainage,
            "approved_date": r.approved_date, "note": r.review_note}


# -- customer invoices ------------------------------------------------------------------------

INVOICE_SORT = {"number": (CustomerInvoice.number, TEXT), "project": (Project.project_number, TEXT),
                "application": (CustomerInvoice.application_no, NUMBER),
                "period_end": (CustomerInvoice.period_end, DATE), "status": (CustomerInvoice.status, TEXT),
                "this_period": (CustomerInvoice.this_period, MONEY), "amount_due": (CustomerInvoice.amount_due, MONEY)}


def _invoice_row(i: CustomerInvoice, project: Project) -> dict:
    return {"invoice_id": i.invoice_id, "number": i.number, "project_number": project.project_number,
            "project_name": project.name, "customer": project.customer, "application_no": i.application_no,
            "period_end": i.period_end, "invoice_date": i.invoice_date, "status": i.status,
            "retainage_pct": i.retainage_pct, "completed_to_date": i.completed_to_date,
            "previous_billed": i.previous_billed, "this_period": i.this_period, "retainage": i.retainage,
            "amount_due": i.amount_due}


@service(READ)
def list_customer_invoices(ctx: ServiceContext, project_number: str | None = None,
                           status: CustomerInvoiceStatus | None = None, search: str | None = None,
                           sort: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List customer invoices (applications for payment against the customer contract).

    Args:
        project_number: Only this project's invoices, e.g. "9999".
        status: Draft (not sent), Sent (awaiting the customer's payment) or Paid.
        search: Text to find in the invoice number, project name or customer.
        sort: A column to sort by: number, project, application, period_end, status,
            this_period or amount_due; a leading "-" sorts descending. Left out, by project and
            application number.
        page: Page number, starting at 1.
        per_page: Invoices per page, 1 to 100.
    """
    stmt = (select(CustomerInvoice, Project).join(Project, Project.project_id == CustomerInvoice.project_id)
            .order_by(*sort_order(sort, INVOICE_SORT, (Project.project_number, CustomerInvoice.application_no))))
    if project_number:
        stmt = stmt.where(CustomerInvoice.project_id == project_by_number(ctx.session, project_number).project_id)
    if status:
        stmt = stmt.where(CustomerInvoice.status == status)
    if search:
        stmt = stmt.where(or_(contains(CustomerInvoice.number, search), contains(Project.name, search),
                              contains(Project.customer, search)))
    return paged(ctx.session, stmt, page, per_page, lambda r: _invoice_row(*r))


def _invoice_by_number(session, number: str) -> CustomerInvoice:
    found = session.scalar(select(CustomerInvoice).where(CustomerInvoice.number == number.strip()))
    if found is None:
        raise NotFound(f"There is no customer invoice numbered {number!r}; list customer invoices to find "
                       "the right number.", "number")
    return found


@service(READ)
def get_customer_invoice(ctx: ServiceContext, number: str) -> dict:
    """Show one customer invoice with its SOV lines: scheduled value, previously billed, this
    period, completed to date, percent complete and balance to finish.

    Args:
        number: The customer invoice number, from customer_invoices.list.
    """
    i = _invoice_by_number(ctx.session, number)
    project = ctx.session.get(Project, i.project_id)
    lines = ctx.session.scalars(select(CustomerInvoiceLine).where(CustomerInvoiceLine.invoice_id == i.invoice_id)
                                .order_by(CustomerInvoiceLine.line_no)).all()
    return {**_invoice_row(i, project), "lines": [
        {"line_no": line.line_no, "cost_code": line.cost_code, "description": line.description,
         "scheduled_value": line.scheduled_value, "previous": line.previous, "this_period": line.this_period,
         "completed_to_date": line.previous + line.this_period,
         "percent_complete": ((line.previous + line.this_period) * 100 / line.scheduled_value).quantize(Decimal("0.1"))
         if line.scheduled_value else None,
         "balance_to_finish": line.scheduled_value - line.previous - line.this_period} for line in lines]}


@service(WRITE)
def create_customer_invoice(ctx: ServiceContext, project_number: str, period_end: date,
                            lines: list[str]) -> dict:
    """Draft the next customer invoice (application for payment) on a project's customer
    contract: enter each SOV line's work completed this period. It stays a Draft until it is
    sent to the customer. Lines left out bill nothing this period; a line may not be billed
    past its scheduled value. Retainage is held at the contract's rate.

    Args:
        project_number: The project number, e.g. "9999".
        period_end: The last day of the billing period (YYYY-MM-DD), after the last invoice's.
        lines: One "line_no|amount this period" per SOV line billed, e.g. "9|1234.56".
    """
    project = project_by_number(ctx.session, project_number)
    pc = ctx.session.scalar(select(PrimeContract).where(PrimeContract.project_id == project.project_id)
                            .order_by(PrimeContract.number).limit(1))
    if pc is None:
        raise ToolError(f"Project {project.project_number} has no customer contract to invoice.",
                        "project_number", "wrong_state")
    invoices = ctx.session.scalars(select(CustomerInvoice).where(CustomerInvoice.project_id == project.project_id)
                                   .order_by(CustomerInvoice.application_no)).all()
    last = invoices[-1] if invoices else None
    if last is not None and last.status == "Draft":
        raise ToolError(f"Customer invoice {last.number} is still a draft; finish it before starting "
                        "another.", "project_number", "conflict")
    if last is not None and period_end <= last.period_end:
        raise ToolError(f"Period end must be after the last invoice's ({last.period_end.isoformat()}).",
                        "period_end")
    sov = ctx.session.scalars(select(PrimeContractLine).where(
        PrimeContractLine.prime_contract_id == pc.prime_contract_id).order_by(PrimeContractLine.line_no)).all()
    previous = {}
    if last is not None:
        for line in ctx.session.scalars(select(CustomerInvoiceLine).where(CustomerInvoiceLine.invoice_id == last.invoice_id)):
            previous[line.line_no] = line.previous + line.this_period
    entered: dict[int, Decimal] = {}
    for text in lines:
        match = _LINE.match(str(text))
        if not match:
            raise ToolError(f"Line {text!r} is not \"line_no|amount\", e.g. \"9|1234.56\".", "lines")
        no, amount = int(match.group(1)), Decimal(match.group(2).replace(",", ""))
        if no in entered:
            raise ToolError(f"SOV line {no} is entered twice.", "lines")
        entered[no] = amount
    known = {line.line_no for line in sov}
    unknown = sorted(set(entered) - known)
    if unknown:
        raise ToolError(f"The customer contract has no SOV line {unknown[0]}.", "lines")
    if not any(entered.values()):
        raise ToolError("Enter at least one line's work completed this period.", "lines")
    retainage_pct = last.retainage_pct if last is not None else Decimal("10.00")
    n = (last.application_no if last else 0) + 1
    number = _next_number(ctx, project, last, n)
    iid = stable_id(ctx.app, "customer_invoice", project.project_number, n, number)
    rows, this_total, to_date, before = [], ZERO, ZERO, ZERO
    for line in sov:
        prev = previous.get(line.line_no, ZERO)
        this = entered.get(line.line_no, ZERO)
        if prev + this > line.scheduled_value:
            raise ToolError(f"SOV line {line.line_no} would be billed {prev + this:.2f}, past its scheduled "
                            f"value of {line.scheduled_value:.2f}.", "lines")
        rows.append(CustomerInvoiceLine(line_id=stable_id(ctx.app, "customer_invoice_line", iid, line.line_no), invoice_id=iid,
                                        line_no=line.line_no, cost_code=line.cost_code, description=line.description,
                                        scheduled_value=line.scheduled_value, previous=prev, this_period=this))
        this_total, to_date, before = this_total + this, to_date + prev + this, before + prev
    retainage = (this_total * retainage_pct / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    invoice = CustomerInvoice(invoice_id=iid, project_id=project.project_id, number=number, application_no=n,
                              period_end=period_end, invoice_date=ctx.clock.today(), status="Draft",
                              retainage_pct=retainage_pct, completed_to_date=to_date, previous_billed=before,
                              this_period=this_total, retainage=retainage, amount_due=this_total - retainage)
    ctx.session.add(invoice)
    ctx.session.add_all(rows)
    ctx.session.flush()
    return get_customer_invoice(ctx, number)


def _next_number(ctx: ServiceContext, project: Project, last: CustomerInvoice | None, n: int) -> str:
    """The next invoice number in the project's own series (its last number's stem and n), or
    the first in the product's own format (its manifest's [pm] customer_invoice_number)."""
    if last is not None:
        stem = re.sub(r"\d+$", "", last.number)
        width = len(last.number) - len(stem)
        return f"{stem}{n:0{width}d}"
    return PmKeys(ctx.spec).format("customer_invoice_number", job=project.project_number, seq=n)


@service(GUARDED)
def submit_customer_invoice(ctx: ServiceContext, number: str) -> dict:
    """Send a draft customer invoice to the customer. Sending anything to the customer needs a
    person's approval: this checks the invoice and stages the request; nothing is sent.

    Args:
        number: The customer invoice number, from customer_invoices.list.
    """
    i = _invoice_by_number(ctx.session, number)
    if i.status != "Draft":
        raise ToolError(f"Customer invoice {i.number} is {i.status}; only a draft can be sent.", "number",
                        "wrong_state")
    project = ctx.session.get(Project, i.project_id)
    return {"action": "Send customer invoice", "number": i.number, "customer": project.customer,
            "amount_due": i.amount_due}


# -- vendor invoices ----------------------------------------------------------------------------

@service(WRITE)
def create_vendor_invoice(ctx: ServiceContext, project_number: str, vendor_id: int,
                          invoice_number: Annotated[str, MaxLen(60)], invoice_date: date, cost_code: str,
                          cost_type: CostType, amount: Amount, description: Annotated[str, MaxLen(200)] = "") -> dict:
    """Enter a vendor invoice on a project (one not billed against a commitment), pending approval.

    Args:
        project_number: The project number, e.g. "9999".
        vendor_id: The vendor's id in this product's vendor list (vendors.list).
        invoice_number: The vendor's invoice number.
        invoice_date: The invoice date (YYYY-MM-DD).
        cost_code: The budget cost code it is charged to, e.g. "99-999".
        cost_type: L labor, M material, S subcontract, E equipment or O other.
        amount: The invoice amount.
        description: What it is for.
    """
    project = project_by_number(ctx.session, project_number)
    vendor = ctx.session.get(Vendor, vendor_id)
    if vendor is None:
        raise NotFound(f"There is no vendor {vendor_id}; list vendors to find its id.", "vendor_id")
    if ctx.session.get(CostCode, cost_code.strip()) is None:
        raise ToolError(f"There is no cost code {cost_code!r}; list cost codes to find it.", "cost_code")
    if amount <= 0:
        raise ToolError("Amount must be greater than zero.", "amount")
    number = invoice_number.strip()
    if not number:
        raise ToolError("Invoice number is required.", "invoice_number")
    if ctx.session.scalar(select(DirectCost.direct_cost_id).where(DirectCost.vendor_id == vendor.vendor_id,
                                                                  DirectCost.invoice_number == number)):
        raise ToolError(f"{vendor.name} already has an invoice numbered {number}.", "invoice_number", "conflict")
    row = DirectCost(direct_cost_id=stable_id(ctx.app, "vendor_invoice", project.project_number, vendor.vendor_id, number),
                     project_id=project.project_id, vendor_id=vendor.vendor_id, cost_code=cost_code.strip(),
                     cost_type=cost_type, cost_date=invoice_date, invoice_number=number,
                     description=description.strip(), amount=amount, source_ref="", status="Pending Approval")
    ctx.session.add(row)
    ctx.session.flush()
    return {"vendor_invoice_id": row.direct_cost_id, "project_number": project.project_number,
            "vendor": vendor.name, "invoice_number": number, "invoice_date": invoice_date,
            "cost_code": row.cost_code, "cost_type": cost_type, "amount": amount, "status": row.status}


# -- bid packages -----------------------------------------------------------------------------

def _package_row(b: BidPackage, project: Project, vendor: Vendor | None, commitment: str) -> dict:
    return {"package_id": b.package_id, "number": b.number, "project_number": project.project_number,
            "title": b.title, "cost_code": b.cost_code, "trade": b.trade, "status": b.status,
            "due_date": b.due_date, "estimate": b.estimate, "invited": b.invited,
            "awarded_to": vendor.name if vendor else "", "commitment": commitment}


@service(READ)
def list_bid_packages(ctx: ServiceContext, project_number: str | None = None,
                      status: BidPackageStatus | None = None, search: str | None = None,
                      page: int = 1, per_page: int = 25) -> dict:
    """List bid packages: each trade's scope sent to vendors for quotes (RFQs), and the award.

    Args:
        project_number: Only this project's packages, e.g. "9999".
        status: Draft (RFQ not sent), RFQ Sent or Awarded.
        search: Text to find in the package number, title or trade.
        page: Page number, starting at 1.
        per_page: Packages per page, 1 to 100.
    """
    stmt = (select(BidPackage, Project, Vendor, Commitment.number)
            .join(Project, Project.project_id == BidPackage.project_id)
            .join(Vendor, Vendor.vendor_id == BidPackage.awarded_vendor_id, isouter=True)
            .join(Commitment, Commitment.commitment_id == BidPackage.commitment_id, isouter=True)
            .order_by(Project.project_number, BidPackage.number))
    if project_number:
        stmt = stmt.where(BidPackage.project_id == project_by_number(ctx.session, project_number).project_id)
    if status:
        stmt = stmt.where(BidPackage.status == status)
    if search:
        stmt = stmt.where(or_(contains(BidPackage.number, search), contains(BidPackage.title, search),
                              contains(BidPackage.trade, search)))
    return paged(ctx.session, stmt, page, per_page, lambda r: _package_row(r[0], r[1], r[2], r[3] or ""))


@service(GUARDED)
def send_rfq(ctx: ServiceContext, number: str) -> dict:
    """Send a draft bid package's request for quote (RFQ) to its invited vendors. Sending
    anything outside the company needs a person's approval: this checks the package and stages
    the request; nothing is sent.

    Args:
        number: The bid package number, from bid_packages.list.
    """
    b = ctx.session.scalar(select(BidPackage).where(BidPackage.number == number.strip()))
    if b is None:
        raise NotFound(f"There is no bid package numbered {number!r}; list bid packages to find it.", "number")
    if b.status != "Draft":
        raise ToolError(f"Bid package {b.number} is {b.status}; only a draft's RFQ can be sent.", "number",
                        "wrong_state")
    return {"action": "Send RFQ", "number": b.number, "title": b.title, "invited": b.invited}
