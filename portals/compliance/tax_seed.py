"""Build Track1099 from the book: the company as payer, every subcontractor (a vendor of services)
and every vendor the ERP flags for a 1099 as a recipient under its W-9 (legal name, business name, TIN; the ERP's name and TIN where no W-9 came
back), the IRS's record of each TIN for TIN matching, last filing season's W-9 requests and TIN
matches, and the prior tax year's 1099-NEC forms, filed and accepted."""
from __future__ import annotations


from portals.core.ids import stable_id
from seeds import tax1099

from .tax_models import IrsTinRecord, Payer, Recipient, TaxForm, TinMatch, W9Request

PRIOR_YEAR = 2024
FILED_AT = "2025-01-24T15:00:00Z"
DELIVERED_AT = "2025-01-27T15:00:00Z"


def seed_tax(session, book, rng, clock, spec) -> None:
    app = spec.name
    tin = tax1099.payer_tin(book)
    payer_id = stable_id(app, "payer", tin)
    session.add(Payer(payer_id=payer_id, tin=tin, **tax1099.PAYER))
    profiles = tax1099.tax_profiles(book)
    paid = tax1099.payments_by_year(book, clock.today())
    for v in book.get("vendors", []):
        p = profiles[v["vendor_id"]]
        session.add(IrsTinRecord(tin=v["tin"], name=p["w9_name"]))
        if p["form_1099"] is None and not p["services"]:
            continue  # a supplier of goods was never asked for a W-9 here
        on_file = p["w9_on_file"]
        rid = stable_id(app, "recipient", payer_id, v["tin"])
        requested = not on_file and v["status"] == "active"
        session.add(Recipient(
            recipient_id=rid, payer_id=payer_id, reference_id=str(v.get("vista_vendor") or v["vendor_id"]),
            name=p["w9_name"] if on_file else v["legal_name"], business_name=p["w9_business_name"] if on_file else v["dba"],
            tin=v["tin"], tin_type=p["tin_type"], tax_classification=p["entity_type"] if on_file else None,
            exempt_payee_code=p["exempt_payee_code"] if on_file else None, address=v["address"], city=v["city"],
            state=v["state"], zip=v["zip"], email=v["email"],
            w9_status="On file" if on_file else ("Requested" if requested else "Not requested"),
            w9_signed=p["w9_signed"]))
        if on_file:
            session.add(TinMatch(match_id=stable_id(app, "tin-match", rid, 1), recipient_id=rid, name=p["w9_name"],
                                 tin=v["tin"], result="Match", checked_at=f"{p['w9_signed']}T16:00:00Z"))
            if p["w9_signed"] >= "2024-01-01":
                session.add(W9Request(request_id=stable_id(app, "w9", rid, 1), recipient_id=rid, email=v["email"],
                                      status="Completed", sent_at=f"{p['w9_signed']}T13:00:00Z",
                                      completed_at=f"{p['w9_signed']}T18:00:00Z"))
        elif requested:
            session.add(W9Request(request_id=stable_id(app, "w9", rid, 1), recipient_id=rid, email=v["email"],
                                  status="Sent", sent_at="2026-01-06T14:00:00Z", completed_at=None))
        amount = sum(paid.get((v["vendor_id"], PRIOR_YEAR), {}).values())
        if on_file and tax1099.reportable(p) and amount >= tax1099.THRESHOLDS.get(PRIOR_YEAR, tax1099.THRESHOLDS[2025]):
            session.add(TaxForm(form_id=stable_id(app, "form", rid, PRIOR_YEAR, "1099-NEC"), payer_id=payer_id,
                                recipient_id=rid, tax_year=PRIOR_YEAR, form_type="1099-NEC", box1_nonemployee_comp=amount,
                                box4_federal_withheld=0, status="Accepted", created_at="2025-01-15T15:00:00Z",
                                updated_at="2025-01-22T15:00:00Z", submitted_at=FILED_AT, delivered_at=DELIVERED_AT))
    session.flush()
