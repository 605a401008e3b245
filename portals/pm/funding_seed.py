"""Seed an owner's funding (the book's `funding` section, seeds/funding.py) into a PM product whose
manifest asks for it: funding sources, the planted invoices with their approval paths, the draft
application packages; and every other vendor invoice's path (entered new, approved by the PM)."""
from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy import select

from portals.core.ids import stable_id

from .funding_models import ApplicationPackage, FundingSource, InvoiceApproval, PackageInvoice
from .models import DirectCost


def seed_funding(session, app: str, book: dict, projects: dict, vendors: dict) -> None:
    funding = book.get("funding", {})
    session.flush()
    pm = {j["job"]: j.get("pm_name", "") for j in book["jobs"]}
    by_project = {p.project_id: job for job, p in projects.items()}
    for d in session.scalars(select(DirectCost)):  # the bills from the ERP went through approvals
        session.add(InvoiceApproval(direct_cost_id=d.direct_cost_id, entered_as="new",
                                    approved_by=pm.get(by_project.get(d.project_id), ""),
                                    approved_date=d.cost_date + timedelta(days=5) if d.cost_date else None))
    for s in funding.get("sources", []):
        session.add(FundingSource(
            source_id=int(s["source_id"]), project_id=projects[s["job"]].project_id, code=s["code"], name=s["name"],
            kind=s["kind"], funder=s["funder"], amount=Decimal(s["amount"]),
            funded_to_date=Decimal(s["funded_to_date"]), eligible_cost_codes=",".join(s["eligible_cost_codes"])))
    packages = {}
    for p in funding.get("packages", []):
        row = ApplicationPackage(package_id=stable_id(app, "application_package", p["number"]),
                                 project_id=projects[p["job"]].project_id, number=p["number"], title=p["title"],
                                 period_end=date.fromisoformat(p["period_end"]), status=p["status"],
                                 recipient=p["recipient"])
        packages[p["number"]] = row
        session.add(row)
    for i in funding.get("invoices", []):
        vendor = vendors.get(i["vendor_id"])
        did = int(i["invoice_id"])
        session.add(DirectCost(
            direct_cost_id=did, project_id=projects[i["job"]].project_id,
            vendor_id=vendor.vendor_id if vendor else None, cost_code=i["cost_code"], cost_type=i["cost_type"],
            cost_date=date.fromisoformat(i["invoice_date"]), invoice_number=i["invoice_number"],
            description=i["description"], amount=Decimal(i["amount"]), source_ref="", status=i["status"]))
        session.add(InvoiceApproval(direct_cost_id=did, entered_as=i["entered_as"], approved_by=i["approved_by"],
                                    approved_date=date.fromisoformat(i["approved_date"]) if i["approved_date"] else None))
        session.add(PackageInvoice(item_id=stable_id(app, "package_invoice", i["package"], i["line_no"]),
                                   package_id=packages[i["package"]].package_id, direct_cost_id=did,
                                   line_no=int(i["line_no"])))
