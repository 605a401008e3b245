"""Avalara AvaTax's services (the compliance archetype's sales-tax line): the company and its
nexus, address resolution and tax rates by address, tax codes, and transactions: a SalesOrder is
a quote (calculated, never saved), a SalesInvoice or PurchaseInvoice is saved Uncommitted and can
be voided; committing one (it then feeds the liability a return reports) is a person's step."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from sqlalchemy import func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.money import CENT, parse_amount
from portals.core.paging import paged
from portals.core.sorting import MONEY, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, service

from .salestax_models import Company, Jurisdiction, Nexus, TaxCode, Transaction, TransactionLine, TransactionTax

DOC_TYPES = ("SalesOrder", "SalesInvoice", "PurchaseInvoice")
STATUSES = ("Uncommitted", "Committed", "Voided")
DocType = Literal["SalesOrder", "SalesInvoice", "PurchaseInvoice"]
SavedType = Literal["SalesInvoice", "PurchaseInvoice"]
Status = Literal["Uncommitted", "Committed", "Voided"]
LINE_FORMAT = "amount|tax code|description"
MAX_LINES = 50
TX_SORT = {"date": (Transaction.doc_date, TEXT), "code": (Transaction.code, TEXT),
           "amount": (Transaction.total_amount, MONEY), "tax": (Transaction.total_tax, MONEY),
           "status": (Transaction.status, TEXT), "region": (Transaction.ship_to_region, TEXT)}


def _clean(value: str | None, field: str, limit: int, required: bool = False) -> str | None:
    text = " ".join((value or "").split())
    if required and not text:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} is required.", field)
    if len(text) > limit:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} is at most {limit} characters.", field)
    return text or None


def pct(rate: str | Decimal) -> str:
    return f"{Decimal(rate) * 100:.4f}".rstrip("0").rstrip(".") + "%"


# -- company, nexus, tax codes ----------------------------------------------------------------------

@service(READ)
def get_company(ctx: ServiceContext) -> dict:
    """Get the company set up in AvaTax: its code, tax id, default (origin) address and the states
    where it has nexus."""
    c = ctx.session.scalars(select(Company).order_by(Company.company_id)).first()
    nexus = ctx.session.scalars(select(Nexus).order_by(Nexus.region)).all()
    return {"company_id": c.company_id, "company_code": c.company_code, "name": c.name, "tax_id": c.tax_id,
            "line1": c.line1, "city": c.city, "region": c.region, "postal_code": c.postal_code,
            "nexus": [{"region": n.region, "name": n.name, "nexus_type": n.nexus_type,
                       "effective_date": n.effective_date} for n in nexus]}


@service(READ)
def list_tax_codes(ctx: ServiceContext) -> dict:
    """List the tax codes a transaction line can carry, and whether each is taxable."""
    rows = ctx.session.scalars(select(TaxCode).order_by(TaxCode.tax_code)).all()
    return {"items": [{"tax_code": t.tax_code, "description": t.description, "taxable": bool(t.taxable)}
                      for t in rows]}


# -- addresses and rates ----------------------------------------------------------------------------

def _resolve(ctx: ServiceContext, line1: str | None, city: str | None, region: str | None,
             postal_code: str | None) -> tuple[dict, list[Jurisdiction]]:
    line = _clean(line1, "line1", 100, required=True)
    town = _clean(city, "city", 50, required=True)
    state = (_clean(region, "region", 2, required=True) or "").upper()
    postal = _clean(postal_code, "postal_code", 10)
    rows = ctx.session.scalars(select(Jurisdiction).where(func.lower(Jurisdiction.city) == town.lower(),
                                                          Jurisdiction.region == state)
                               .order_by(Jurisdiction.sort_order)).all()
    if not rows:
        raise ToolError(f"The address {line}, {town}, {state} could not be resolved to a taxing jurisdiction.",
                        "city")
    address = {"line1": line, "city": rows[0].city, "region": state, "postal_code": postal}
    return address, rows


@service(READ)
def resolve_address(ctx: ServiceContext, line1: str, city: str, region: str, postal_code: str | None = None) -> dict:
    """Resolve an address to the jurisdictions that tax deliveries there.

    Args:
        line1: The street address.
        city: The city.
        region: The state's two-letter code.
        postal_code: The ZIP code, if known.
    """
    address, rows = _resolve(ctx, line1, city, region, postal_code)
    return {"address": address, "resolution_quality": "Intersection" if not address["postal_code"] else "Rooftop",
            "jurisdictions": [{"type": j.jur_type, "name": j.jur_name, "code": j.jur_code} for j in rows]}


@service(READ)
def rates_by_address(ctx: ServiceContext, line1: str, city: str, region: str, postal_code: str | None = None) -> dict:
    """The sales and use tax rates at an address: the total rate and each jurisdiction's.

    Args:
        line1: The street address.
        city: The city.
        region: The state's two-letter code.
        postal_code: The ZIP code, if known.
    """
    address, rows = _resolve(ctx, line1, city, region, postal_code)
    total = sum((Decimal(j.rate) for j in rows), Decimal(0))
    return {"address": address, "total_rate": f"{total:.6f}", "total_rate_pct": pct(total),
            "rates": [{"type": j.jur_type, "name": j.jur_name, "rate": j.rate, "rate_pct": pct(j.rate)} for j in rows]}


# -- transactions -----------------------------------------------------------------------------------

def tx_row(t: Transaction) -> dict:
    return {"transaction_id": t.transaction_id, "code": t.code, "type": t.doc_type, "date": t.doc_date,
            "customer_vendor_code": t.customer_vendor_code, "description": t.description,
            "ship_to": {"line1": t.ship_to_line1, "city": t.ship_to_city, "region": t.ship_to_region,
                        "postal_code": t.ship_to_postal_code},
            "total_amount": t.total_amount, "total_taxable": t.total_taxable, "total_tax": t.total_tax,
            "vendor_charged_tax": t.vendor_charged_tax, "use_tax": t.use_tax, "status": t.status,
            "created_at": t.created_at, "modified_at": t.modified_at}


@service(READ)
def list_transactions(ctx: ServiceContext, doc_type: SavedType | None = None, status: Status | None = None,
                      region: str | None = None, date_from: str | None = None, date_to: str | None = None,
                      query: str | None = None, page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List saved transactions, newest first.

    Args:
        doc_type: Only SalesInvoice or only PurchaseInvoice transactions.
        status: Only Uncommitted, Committed or Voided transactions.
        region: Only transactions shipped to this state (two-letter code).
        date_from: Only documents dated on or after this day, YYYY-MM-DD.
        date_to: Only documents dated on or before this day, YYYY-MM-DD.
        query: Words to find in the document code, customer or vendor code, description or ship-to city.
        page: Page number, starting at 1.
        per_page: Transactions per page, 1 to 100.
        sort: Sort by date, code, amount, tax, status or region; a leading "-" sorts descending.
    """
    stmt = select(Transaction)
    if doc_type:
        stmt = stmt.where(Transaction.doc_type == doc_type)
    if status:
        stmt = stmt.where(Transaction.status == status)
    if region:
        stmt = stmt.where(Transaction.ship_to_region == region.strip().upper()[:2])
    if date_from:
        stmt = stmt.where(Transaction.doc_date >= _day(date_from, "date_from"))
    if date_to:
        stmt = stmt.where(Transaction.doc_date <= _day(date_to, "date_to"))
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Transaction.code.ilike(like), Transaction.customer_vendor_code.ilike(like),
                              Transaction.description.ilike(like), Transaction.ship_to_city.ilike(like)))
    stmt = stmt.order_by(*sort_order(sort, TX_SORT, (Transaction.doc_date.desc(), Transaction.code,
                                                      Transaction.transaction_id)))
    return paged(ctx.session, stmt, page, per_page, tx_row)


def _day(value: str, field: str) -> str:
    from datetime import date

    try:
        return date.fromisoformat(str(value).strip()).isoformat()
    except ValueError:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} must be a date like 2026-06-30.", field) from None


def _get(ctx: ServiceContext, transaction_id: int) -> Transaction:
    t = ctx.session.get(Transaction, transaction_id)
    if t is None:
        raise NotFound(f"There is no transaction with id {transaction_id}.", "transaction_id")
    return t


@service(READ)
def get_transaction(ctx: ServiceContext, transaction_id: int) -> dict:
    """Get a transaction with its lines and the tax of each line by jurisdiction.

    Args:
        transaction_id: The transaction's id, as the transaction list shows it.
    """
    t = _get(ctx, transaction_id)
    lines = ctx.session.scalars(select(TransactionLine).where(TransactionLine.transaction_id == transaction_id)
                                .order_by(TransactionLine.line_no)).all()
    details = ctx.session.scalars(select(TransactionTax).where(TransactionTax.transaction_id == transaction_id)
                                  .order_by(TransactionTax.line_no, TransactionTax.detail_key)).all()
    return {**tx_row(t), "lines": [
        {"line_no": ln.line_no, "description": ln.description, "tax_code": ln.tax_code, "amount": ln.amount,
         "taxable": ln.taxable, "tax": ln.tax,
         "details": [{"type": d.jur_type, "name": d.jur_name, "rate": d.rate, "rate_pct": pct(d.rate),
                      "taxable": d.taxable, "tax": d.tax} for d in details if d.line_no == ln.line_no]}
        for ln in lines], "summary": _summary(details)}


def _summary(details) -> list[dict]:
    """Tax by jurisdiction over all lines (AvaTax's transaction summary)."""
    out: dict[tuple, dict] = {}
    for d in details:
        row = out.setdefault((d.jur_type, d.jur_name, d.rate), {"type": d.jur_type, "name": d.jur_name,
                                                                 "rate": d.rate, "rate_pct": pct(d.rate),
                                                                 "taxable": Decimal(0), "tax": Decimal(0)})
        row["taxable"] += Decimal(d.taxable)
        row["tax"] += Decimal(d.tax)
    return list(out.values())


def _parse_lines(ctx: ServiceContext, lines: list[str]) -> list[tuple[str, str, Decimal, bool]]:
    if not lines:
        raise ToolError(f"A transaction needs at least one line, each {LINE_FORMAT}.", "lines")
    if len(lines) > MAX_LINES:
        raise ToolError(f"A transaction has at most {MAX_LINES} lines.", "lines")
    codes = {t.tax_code: bool(t.taxable) for t in ctx.session.scalars(select(TaxCode))}
    out = []
    for n, text in enumerate(lines, start=1):
        parts = [p.strip() for p in str(text).split("|")]
        if len(parts) != 3:
            raise ToolError(f"Line {n} '{str(text)[:60]}' must read {LINE_FORMAT}.", "lines")
        amount_text, code, description = parts
        amount = parse_amount(amount_text, f"Line {n} amount", allow_zero=False)
        code = code.upper()
        if code not in codes:
            raise ToolError(f"Line {n}: {code[:25]!r} is not a tax code; the codes are {', '.join(sorted(codes))}.",
                            "lines")
        if not description or len(description) > 200:
            raise ToolError(f"Line {n}: a description of 1 to 200 characters is required.", "lines")
        out.append((description, code, amount, codes[code]))
    return out


def calculate(ctx: ServiceContext, address: dict, jurs: list[Jurisdiction], parsed: list) -> tuple[list, list]:
    """Each line's taxable amount and tax, and its tax in each jurisdiction rounded to the cent."""
    lines, details = [], []
    for n, (description, code, amount, taxable) in enumerate(parsed, start=1):
        base = amount if taxable else Decimal(0)
        taxes = [(j, (base * Decimal(j.rate)).quantize(CENT, ROUND_HALF_UP)) for j in jurs] if taxable else []
        lines.append({"line_no": n, "description": description, "tax_code": code, "amount": amount,
                      "taxable": base, "tax": sum((t for _, t in taxes), Decimal(0))})
        details += [{"line_no": n, "jur_type": j.jur_type, "jur_name": j.jur_name, "rate": j.rate, "taxable": base,
                     "tax": t} for j, t in taxes]
    return lines, details


@service(WRITE)
def create_transaction(ctx: ServiceContext, doc_type: DocType, code: str, date: str, customer_vendor_code: str,
                       lines: list[str], ship_to_line1: str | None = None, ship_to_city: str | None = None,
                       ship_to_region: str | None = None, ship_to_postal_code: str | None = None,
                       vendor_charged_tax: str | None = None, description: str | None = None) -> dict:
    """Calculate tax on a document. A SalesOrder is a quote and is not saved; a SalesInvoice or a
    PurchaseInvoice (a purchase whose consumer use tax is owed) is saved Uncommitted. Left without a
    ship-to, the document ships to the company's default address.

    Args:
        doc_type: SalesOrder, SalesInvoice or PurchaseInvoice.
        code: The document code, e.g. the invoice number; unique among saved transactions of the type.
        date: The document date, YYYY-MM-DD.
        customer_vendor_code: The customer's code, or for a PurchaseInvoice the vendor's code.
        lines: One or more lines, each "amount|tax code|description", e.g. ["1200.00|P0000000|Copper wire"].
        ship_to_line1: Where the goods are delivered or used: the street address.
        ship_to_city: The ship-to city.
        ship_to_region: The ship-to state's two-letter code.
        ship_to_postal_code: The ship-to ZIP code.
        vendor_charged_tax: For a PurchaseInvoice, the sales tax the vendor charged on its invoice (0 if none).
        description: A note kept with the transaction.
    """
    doc_code = _clean(code, "code", 50, required=True)
    day = _day(date, "date")
    party = _clean(customer_vendor_code, "customer_vendor_code", 50, required=True)
    note = _clean(description, "description", 200)
    parsed = _parse_lines(ctx, lines)
    company = ctx.session.scalars(select(Company).order_by(Company.company_id)).first()
    given = [ship_to_line1, ship_to_city, ship_to_region]
    if any((v or "").strip() for v in given) and not all((v or "").strip() for v in given):
        raise ToolError("A ship-to address needs its street, city and state.", "ship_to_city")
    if not any((v or "").strip() for v in given):
        ship_to_line1, ship_to_city, ship_to_region = company.line1, company.city, company.region
        ship_to_postal_code = ship_to_postal_code or company.postal_code
    address, jurs = _resolve(ctx, ship_to_line1, ship_to_city, ship_to_region, ship_to_postal_code)
    charged = Decimal(0)
    if vendor_charged_tax not in (None, ""):
        if doc_type != "PurchaseInvoice":
            raise ToolError("Only a PurchaseInvoice carries the tax a vendor charged.", "vendor_charged_tax")
        charged = parse_amount(vendor_charged_tax, "vendor_charged_tax")
    line_rows, details = calculate(ctx, address, jurs, parsed)
    total = sum((ln["amount"] for ln in line_rows), Decimal(0))
    taxable = sum((ln["taxable"] for ln in line_rows), Decimal(0))
    tax = sum((ln["tax"] for ln in line_rows), Decimal(0))
    use = max(tax - charged, Decimal(0)) if doc_type == "PurchaseInvoice" else Decimal(0)
    result = {"code": doc_code, "type": doc_type, "date": day, "customer_vendor_code": party, "description": note,
              "ship_to": address, "total_amount": total, "total_taxable": taxable, "total_tax": tax,
              "vendor_charged_tax": charged, "use_tax": use,
              "lines": [{**ln, "details": [d for d in details if d["line_no"] == ln["line_no"]]} for ln in line_rows]}
    if doc_type == "SalesOrder":
        return {**result, "transaction_id": None, "status": "Temporary (not saved)"}
    clash = ctx.session.scalar(select(Transaction).where(Transaction.code == doc_code, Transaction.doc_type == doc_type,
                                                         Transaction.status != "Voided"))
    if clash is not None:
        raise ToolError(f"A {doc_type} with code {doc_code} is already saved (transaction {clash.transaction_id}, "
                        f"{clash.status}); void it first to replace it.", "code")
    # keyed by the document and how many of it were voided before: the same work in any order
    # makes the same ids, and a document saved again after a void gets a new one
    voided = ctx.session.scalar(select(func.count()).select_from(Transaction).where(
        Transaction.code == doc_code, Transaction.doc_type == doc_type))
    tid = stable_id(ctx.app, "transaction", doc_type, doc_code, ctx.clock.iso(), voided)
    now = ctx.clock.iso()
    ctx.session.add(Transaction(
        transaction_id=tid, code=doc_code, doc_type=doc_type, doc_date=day, customer_vendor_code=party,
        description=note, ship_to_line1=address["line1"], ship_to_city=address["city"],
        ship_to_region=address["region"], ship_to_postal_code=address["postal_code"], total_amount=total,
        total_taxable=taxable, total_tax=tax, vendor_charged_tax=charged, use_tax=use, status="Uncommitted",
        created_at=now, modified_at=now))
    for ln in line_rows:
        ctx.session.add(TransactionLine(line_key=f"{tid}-{ln['line_no']}", transaction_id=tid, **ln))
    for n, d in enumerate(details, start=1):
        ctx.session.add(TransactionTax(detail_key=f"{tid}-{d['line_no']}-{n}", transaction_id=tid, **d))
    ctx.session.flush()
    return get_transaction(ctx, tid)


@service(WRITE)
def void_transaction(ctx: ServiceContext, transaction_id: int) -> dict:
    """Void an uncommitted transaction (DocVoided): it stays on record, with no tax.

    Args:
        transaction_id: The transaction to void.
    """
    t = _get(ctx, transaction_id)
    if t.status != "Uncommitted":
        raise ToolError(f"Transaction {t.code} is {t.status.lower()}; only an uncommitted one can be voided here.",
                        "transaction_id")
    t.status, t.modified_at = "Voided", ctx.clock.iso()
    ctx.session.flush()
    return tx_row(t)


@service(GUARDED)
def commit_transaction(ctx: ServiceContext, transaction_id: int) -> dict:
    """Commit an uncommitted transaction so its tax is reported on the state's return. Needs a
    person's approval.

    Args:
        transaction_id: The transaction to commit.
    """
    t = _get(ctx, transaction_id)
    if t.status != "Uncommitted":
        raise ToolError(f"Transaction {t.code} is {t.status.lower()}, not uncommitted.", "transaction_id")
    return {"action": "commit transaction", "code": t.code, "type": t.doc_type, "total_tax": str(t.total_tax),
            "use_tax": str(t.use_tax)}
