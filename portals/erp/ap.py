"""Accounts payable: bills (AP invoices), the guarded approval/post and payment run, vendor holds."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Annotated, Literal

from sqlalchemy import func, or_, select

from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.keys import fold
from portals.core.tools import GUARDED, READ, WRITE, Amount, MaxLen, service

from portals.core.sorting import DATE, MONEY, TEXT, sort_order

from . import batches as B
from . import bill_lines as BL
from . import entities as E
from . import lookups as L
from .models import APBill, Commitment, Vendor

NET_DAYS = 30  # company terms: a bill without a due date is due 30 days after its date


# sort key -> (column, kind); the same keys as the bill screens' column headers
BILL_SORT = {"number": (APBill.bill_number, TEXT),
             "vendor": (select(Vendor.name).where(Vendor.vendor_key == APBill.vendor_key).scalar_subquery(), TEXT),
             "date": (APBill.bill_date, DATE), "due": (APBill.due_date, DATE), "job": (APBill.job, TEXT),
             "cost_code": (APBill.cost_code, TEXT), "cost_type": (APBill.cost_type, TEXT),
             "amount": (APBill.amount, MONEY), "state": (APBill.state, TEXT), "status": (APBill.status, TEXT)}
NEWEST_FIRST = (APBill.bill_date.desc(), APBill.bill_id)


def _bills(ctx, query, sort, page, per_page):
    query = query.order_by(*sort_order(sort, BILL_SORT, NEWEST_FIRST))
    shape = lambda b: {**L.bill_row(b, ctx.session.get(Vendor, b.vendor_key).name), **B.bill_batch(ctx, b)}  # noqa: E731
    return L.page_of(ctx, query, page, per_page, shape, links={Vendor: "vendor_key"})


def _filtered(ctx, vendor_id, bill_number, project_id, status, search):
    query = select(APBill)
    if vendor_id:
        query = query.where(APBill.vendor_key == L.vendor(ctx, vendor_id).vendor_key)
    if bill_number:
        query = query.where(APBill.bill_number.ilike(L.like(bill_number.strip()), escape="\\"))
    if project_id:
        query = query.where(APBill.job == project_id.strip())
    if status:
        query = query.where(APBill.status == status)
    if search:
        names = select(Vendor.vendor_key).where(L.name_match(Vendor.name, search))
        query = query.where(or_(L.name_match(APBill.description, search),
                                L.name_match(APBill.bill_number, search), APBill.vendor_key.in_(names)))
    return query


@service(READ)
def query_bills(ctx, vendor_id: str | None = None, bill_number: str | None = None,
                project_id: str | None = None, state: Literal["draft", "posted"] | None = None,
                status: Literal["open", "on_hold", "paid"] | None = None, search: str | None = None,
                entity_id: str | None = None, sort: str | None = None, page: int = 1,
                per_page: int = 25) -> dict:
    """Search AP bills (invoices from vendors), newest first.

    Args:
        vendor_id: Only this vendor's bills ({vendor_id_format}).
        bill_number: The vendor's invoice number, or part of it.
        project_id: Only bills coded to this {job_word} ({job_format}).
        state: "draft" for bills entered but not yet approved, "posted" for bills in the ledger.
        status: Payment status: open, on_hold or paid.
        search: Words to find in the vendor name, bill number or description.
        entity_id: Only bills of this {entity_word}'s {job_word}s ({entity_format}); left out, all.
        sort: A column to sort by: number, vendor, date, due, job (the {job_word}), cost_code,
            cost_type, amount, state or status; a leading "-" sorts descending. Left out, newest first.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = E.only_entity(ctx, _filtered(ctx, vendor_id, bill_number, project_id, status, search),
                          APBill.job, entity_id)
    if state:
        query = query.where(APBill.state == state)
    return _bills(ctx, query, sort, page, per_page)


@service(READ)
def list_unapproved_bills(ctx, vendor_id: str | None = None, project_id: str | None = None,
                          search: str | None = None, sort: str | None = None, page: int = 1,
                          per_page: int = 25) -> dict:
    """List the unapproved invoice queue: invoices entered and waiting for a reviewer's approval.

    Args:
        vendor_id: Only this vendor's invoices ({vendor_id_format}).
        project_id: Only invoices coded to this {job_word} ({job_format}).
        search: Words to find in the vendor name, invoice number or description.
        sort: A column to sort by: number, vendor, date, due, job (the {job_word}), cost_code,
            cost_type, amount, state or status; a leading "-" sorts descending. Left out, newest first.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = _filtered(ctx, vendor_id, None, project_id, None, search).where(APBill.state == "draft")
    return _bills(ctx, query, sort, page, per_page)


@service(READ)
def list_posted_bills(ctx, vendor_id: str | None = None, bill_number: str | None = None,
                      project_id: str | None = None,
                      status: Literal["open", "on_hold", "paid"] | None = None,
                      search: str | None = None, sort: str | None = None, page: int = 1,
                      per_page: int = 25) -> dict:
    """List posted AP transactions (the AP history), newest first, with their pay status.

    Args:
        vendor_id: Only this vendor's transactions ({vendor_id_format}).
        bill_number: The vendor's invoice number (APRef), or part of it.
        project_id: Only transactions coded to this {job_word} ({job_format}).
        status: Pay status: open, on_hold or paid.
        search: Words to find in the vendor name, invoice number or description.
        sort: A column to sort by: number, vendor, date, due, job (the {job_word}), cost_code,
            cost_type, amount, state or status; a leading "-" sorts descending. Left out, newest first.
        page: Page number, from 1.
        per_page: Rows per page, 1 to 100.
    """
    query = _filtered(ctx, vendor_id, bill_number, project_id, status, search).where(APBill.state == "posted")
    return _bills(ctx, query, sort, page, per_page)


@service(READ)
def get_bill(ctx, bill_id: str) -> dict:
    """Get one AP bill by its record id (as returned by the bill search), e.g. APB-99999.

    Args:
        bill_id: The bill's record id.
    """
    bill = ctx.session.get(APBill, bill_id.strip())
    if bill is None:
        raise NotFound(f"There is no bill with record id {bill_id.strip()!r}.", "bill_id")
    out = L.bill_row(bill, ctx.session.get(Vendor, bill.vendor_key).name)
    out["entered_at"] = bill.entered_at
    out.update(B.bill_batch(ctx, bill))
    out["lines"] = BL.lines_of(ctx, bill)
    return out


def _find_bill(ctx, vendor: Vendor, bill_number: str) -> APBill | None:
    return ctx.session.scalar(select(APBill).where(
        APBill.vendor_key == vendor.vendor_key,
        func.cfab_fold(APBill.bill_number) == fold(bill_number.strip())))  # one key normalization


@service(WRITE)
def create_bill(ctx, vendor_id: str, bill_number: Annotated[str, MaxLen(40)], bill_date: date,
                project_id: str | None = None, task_id: str | None = None, amount: Amount | None = None,
                due_date: date | None = None, cost_type_id: str = "S", commitment: str | None = None,
                description: Annotated[str, MaxLen(500)] = "", lines: list[str] | None = None) -> dict:
    """Enter a vendor's invoice as a DRAFT bill (an unapproved AP invoice waiting for review).

    Nothing is paid or posted: approval and payment are separate steps done by a person.
    A bill number may be used only once per vendor. A bill is coded either on itself (project_id,
    task_id, cost_type_id, amount: one line) or in `lines`, when it splits across accounts or codes.

    Args:
        vendor_id: The vendor in this product's own id ({vendor_id_format}).
        bill_number: The vendor's invoice number, e.g. ACME-0001.
        bill_date: The invoice date, YYYY-MM-DD.
        project_id: The {job_word} the cost belongs to ({job_format}); leave out when giving lines.
        task_id: The cost code in this product's format ({cost_code_format}); leave out when giving lines.
        amount: The invoice total, greater than zero, e.g. 12345.67; with lines, optional, and then
            it must equal the sum of the lines.
        due_date: When payment is due, YYYY-MM-DD; left out, it is 30 days after the bill date.
        cost_type_id: Cost type: L labor, M material, S subcontract, E equipment, O other. Default S.
        commitment: The subcontract or purchase order the invoice bills against, if any, e.g. 9999-01.
        description: A short description of what was invoiced.
        lines: Line items instead of the one-line coding, each "GL account|{job_word}|cost code|cost type|amount|memo", e.g. ["{line_example}"]; a blank GL account takes the cost type's job-cost account.
    """
    split = BL.parse(ctx, lines, project_id, task_id, amount) if lines else None
    if split:  # the bill is filed under its first line, and totals its lines
        project_id, task_id, cost_type_id, amount = split.header
    for name, value in (("project_id", project_id), ("task_id", task_id), ("amount", amount)):
        if value is None or (isinstance(value, str) and not value.strip()):
            raise ToolError(f"{name.replace('_', ' ').capitalize()} is required (or give lines).", name)
    vendor = L.vendor(ctx, vendor_id)
    if vendor.status != "active":
        raise ToolError(f"Vendor {vendor.vendor_key} ({vendor.name}) is {vendor.status}; bills cannot be "
                        "entered for it.", "vendor_id")
    number = bill_number.strip()
    if not number:
        raise ToolError("Bill number is required.", "bill_number")
    job = L.job(ctx, project_id)
    if job.status != "active":
        raise ToolError(f"{ctx.spec.word('job')} {job.job} is {job.status}; it takes no new costs.", "project_id")
    code = L.cost_code(ctx, task_id, project=job.job)
    ctype = L.cost_type(ctx, cost_type_id)
    if amount <= 0:
        raise ToolError("Amount must be greater than zero.", "amount")
    due = due_date or bill_date + timedelta(days=NET_DAYS)
    if due < bill_date:
        raise ToolError("Due date cannot be before the bill date.", "due_date")
    if commitment:
        found = ctx.session.get(Commitment, commitment.strip())
        if found is None:
            raise NotFound(f"There is no commitment {commitment.strip()!r}.", "commitment")
        if found.vendor_key != vendor.vendor_key or found.job != job.job:
            # The product's own rule; it does not say whose the commitment is: finding the
            # right vendor is the clerk's work.
            raise ToolError(f"Commitment {found.number} does not belong to vendor {vendor.vendor_key} on "
                            f"{ctx.spec.word('job').lower()} {job.job}; a bill against a commitment "
                            "takes the commitment's vendor and job.", "commitment")
        commitment = found.number
    existing = _find_bill(ctx, vendor, number)
    if existing is not None:
        raise ToolError(f"Vendor {vendor.vendor_key} already has bill {existing.bill_number} "
                        f"(record {existing.bill_id}, {existing.state}, {existing.status}, amount "
                        f"{existing.amount}); a bill number is entered only once.", "bill_number", code="duplicate")
    bill = APBill(bill_id=f"APB-{stable_id(ctx.app, 'bill', vendor.vendor_key, fold(number))}",
                  vendor_key=vendor.vendor_key, bill_number=number, bill_date=bill_date.isoformat(),
                  due_date=due.isoformat(), job=job.job, cost_code=code.code, cost_type=ctype.code,
                  commitment=commitment or None, amount=amount, description=description.strip(),
                  status="open", state="draft", entered_at=ctx.clock.iso())
    ctx.session.add(bill)
    BL.add_lines(ctx, bill, split)
    ctx.session.flush()
    return {**L.bill_row(bill, vendor.name), "lines": BL.lines_of(ctx, bill)}


def _payable_problem(ctx, bill: APBill) -> str | None:
    if bill.status == "paid":
        return f"bill {bill.bill_number} is already paid"
    if bill.status == "on_hold":
        return f"bill {bill.bill_number} is on hold"
    if L.active_hold(ctx, bill.vendor_key):
        return f"vendor {bill.vendor_key} has a payment hold"
    vendor = ctx.session.get(Vendor, bill.vendor_key)
    if vendor.status != "active":
        return f"vendor {bill.vendor_key} is {vendor.status}"
    return None


@service(GUARDED)
def post_bill(ctx, vendor_id: str, bill_number: str) -> dict:
    """Approve / post a bill for payment. GUARDED: it is staged for a person's approval and nothing is executed.

    Args:
        vendor_id: The vendor in this product's own id ({vendor_id_format}).
        bill_number: The vendor's invoice number of the bill to post.
    """
    vendor = L.vendor(ctx, vendor_id)
    bill = _find_bill(ctx, vendor, bill_number)
    if bill is None:
        raise NotFound(f"Vendor {vendor.vendor_key} has no bill {bill_number.strip()!r}.", "bill_number")
    problem = (f"bill {bill.bill_number} is already posted (an open posted bill is paid through a "
               "payment run)") if bill.state == "posted" else _payable_problem(ctx, bill)
    if problem:
        raise ToolError(f"This bill cannot be posted for payment: {problem}.", "bill_number")
    return {"action": "post bill for payment", "bill": L.bill_row(bill, vendor.name)}


@service(GUARDED)
def create_payment_run(ctx, payment_date: date | None = None, vendor_id: str | None = None,
                       bill_numbers: list[str] | None = None) -> dict:
    """Pay open posted bills (a check run / AP payment batch). GUARDED: staged for a person, nothing is paid.

    Args:
        payment_date: The check date, YYYY-MM-DD; left out, today.
        vendor_id: Pay only this vendor ({vendor_id_format}).
        bill_numbers: Pay only these invoice numbers (with vendor_id, or unique across vendors).
    """
    vendor_key = L.vendor(ctx, vendor_id).vendor_key if vendor_id else None
    query = select(APBill).where(APBill.state == "posted", APBill.status == "open")
    if vendor_key:
        query = query.where(APBill.vendor_key == vendor_key)
    if bill_numbers:
        wanted = {fold(n) for n in bill_numbers}
        bills = [b for b in ctx.session.scalars(select(APBill).where(
            func.cfab_fold(APBill.bill_number).in_(wanted)).order_by(APBill.bill_id))
            if not vendor_key or b.vendor_key == vendor_key]
        missing = sorted(wanted - {fold(b.bill_number) for b in bills})
        if missing:
            raise NotFound(f"No bill numbered {missing[0]!r} was found.", "bill_numbers")
        for b in bills:
            problem = "it is a draft awaiting approval" if b.state != "posted" else _payable_problem(ctx, b)
            if problem:
                raise ToolError(f"Bill {b.bill_number} cannot be paid: {problem}.", "bill_numbers")
    else:
        bills = [b for b in ctx.session.scalars(query.order_by(APBill.bill_id)) if not _payable_problem(ctx, b)]
    if not bills:
        raise ToolError("No open, posted bills match; there is nothing to pay.", "vendor_id")
    total = sum((b.amount for b in bills), start=Decimal("0.00"))
    return {"action": "payment run", "payment_date": payment_date or ctx.clock.today(),
            "bill_count": len(bills), "total": total,
            "bills": [L.bill_row(b) for b in bills[:100]]}
