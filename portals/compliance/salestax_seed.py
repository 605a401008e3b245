"""Build Avalara AvaTax from the book: the company (its office the default origin) with nexus in
each state it builds in, the jurisdictions and rates of every place it builds (seeds/avalara.py),
the tax codes its invoices use, every untaxed material invoice of the year before the open month
as a committed PurchaseInvoice shipped to its jobsite (the use tax accrued), and each nexus
state's monthly returns: filed through May, June's open."""
from __future__ import annotations

from decimal import Decimal

from portals.core.ids import stable_id
from seeds import avalara
from seeds.tax1099 import PAYER, payer_tin

from .salestax_models import Company, Jurisdiction, Nexus, TaxCode, TaxReturn, Transaction, TransactionLine, TransactionTax

COMPANY_CODE = "COMPANYA"
LIVE_ON = "2026-01-01"
TAX_CODES = ((avalara.MATERIAL_CODE, "Tangible personal property", 1),
             (avalara.LABOR_CODE, "Not taxable (services, labor)", 0),
             ("FR020100", "Shipping only, common carrier, FOB destination", 1))
FORMS = {"NC": "E-500 Sales and Use Tax Return", "SC": "ST-3 State Sales and Use Tax Return",
         "VA": "ST-9 Retail Sales and Use Tax Return"}


def seed_salestax(session, book, rng, clock, spec) -> None:
    app = spec.name
    session.add(Company(company_id=stable_id(app, "company", COMPANY_CODE), company_code=COMPANY_CODE,
                        name=PAYER["name"], tax_id=payer_tin(book), line1=avalara.OFFICE["line1"],
                        city=avalara.OFFICE["city"], region=avalara.OFFICE["region"],
                        postal_code=avalara.OFFICE["postal_code"]))
    regions = sorted({j["state"] for j in book["jobs"]})
    for region in regions:
        session.add(Nexus(nexus_id=stable_id(app, "nexus", region), region=region, name=avalara.STATE[region][0],
                          nexus_type="SalesAndUseTax", effective_date=LIVE_ON))
    for city, region in sorted(avalara.LOCAL):
        for n, j in enumerate(avalara.jurisdictions(city, region)):
            session.add(Jurisdiction(jurisdiction_id=stable_id(app, "jurisdiction", city, region, j["type"], j["code"]),
                                     city=city, region=region, jur_type=j["type"], jur_name=j["name"],
                                     jur_code=j["code"], rate=f"{j['rate']:.6f}", sort_order=n))
    for code, text, taxable in TAX_CODES:
        session.add(TaxCode(tax_code=code, description=text, taxable=taxable))
    _accrued(session, book, app)
    today = clock.today()
    for region in regions:
        for month in range(1, today.month + 1):
            period = f"{today.year}-{month:02d}"
            due_month = month % 12 + 1
            due = f"{today.year + (month == 12)}-{due_month:02d}-20"
            filed = period < avalara.MONTH
            session.add(TaxReturn(return_id=stable_id(app, "return", region, period), region=region,
                                  form=FORMS[region], period=period, due_date=due,
                                  status="Filed" if filed else "Open",
                                  filed_at=f"{today.year + (month == 12)}-{due_month:02d}-15T15:00:00Z" if filed else None))


def _accrued(session, book, app: str) -> None:
    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    jobs = {j["job"]: j for j in book["jobs"]}
    for b in avalara.accrued_bills(book):
        job, vendor = jobs[b["job"]], vendors[b["vendor_id"]]
        inv = avalara.invoice(book, b)
        tid = stable_id(app, "transaction", b["bill_id"])
        stamp = f"{b['invoice_date']}T16:00:00Z"
        lines, tax_total, taxable_total = [], Decimal(0), Decimal(0)
        for n, (text, code, amount) in enumerate(inv["lines"], start=1):
            taxable = amount if code == avalara.MATERIAL_CODE else Decimal(0)
            taxes = avalara.tax_by_jurisdiction(taxable, job["city"], job["state"]) if taxable else []
            tax = sum((t for _, t in taxes), Decimal(0))
            tax_total, taxable_total = tax_total + tax, taxable_total + taxable
            session.add(TransactionLine(line_key=f"{tid}-{n}", transaction_id=tid, line_no=n, description=text,
                                        tax_code=code, amount=amount, taxable=taxable, tax=tax))
            for k, (j, t) in enumerate(taxes, start=1):
                session.add(TransactionTax(detail_key=f"{tid}-{n}-{k}", transaction_id=tid, line_no=n,
                                           jur_type=j["type"], jur_name=j["name"], rate=f"{j['rate']:.6f}",
                                           taxable=taxable, tax=t))
        session.add(Transaction(
            transaction_id=tid, code=b["invoice_number"], doc_type="PurchaseInvoice", doc_date=b["invoice_date"],
            customer_vendor_code=str(vendor["vista_vendor"]), description=f"Job {job['job']} - {b['description']}",
            ship_to_line1=job["address"], ship_to_city=job["city"], ship_to_region=job["state"],
            ship_to_postal_code=None, total_amount=Decimal(b["amount"]), total_taxable=taxable_total,
            total_tax=tax_total, vendor_charged_tax=Decimal(0), use_tax=tax_total, status="Committed",
            created_at=stamp, modified_at=stamp))
