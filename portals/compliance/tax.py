"""Track1099's services (the compliance archetype's tax line): payers, recipients, 1099 forms from
draft to the cart, TIN matching, and the guarded steps a person takes (scheduling the e-file,
delivering copies to recipients, emailing W-9 requests)."""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Literal

from sqlalchemy import func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id
from portals.core.money import parse_amount
from portals.core.sorting import MONEY, NUMBER, TEXT, sort_order
from portals.core.tools import GUARDED, READ, WRITE, Amount, service

from .records import paged
from .tax_models import IrsTinRecord, Payer, Recipient, TaxForm, TinMatch, W9Request

FORM_STATUSES = ("Draft", "In cart", "Scheduled", "Accepted", "Rejected")
W9_STATUSES = ("On file", "Requested", "Not requested")
CLASSIFICATIONS = ("Individual/sole proprietor", "C Corporation", "S Corporation", "Partnership",
                   "Trust/estate", "LLC - C", "LLC - S", "LLC - P", "LLC - Disregarded", "Other")
Classification = Literal["Individual/sole proprietor", "C Corporation", "S Corporation", "Partnership",
                         "Trust/estate", "LLC - C", "LLC - S", "LLC - P", "LLC - Disregarded", "Other"]
FormStatus = Literal["Draft", "In cart", "Scheduled", "Accepted", "Rejected"]
W9Status = Literal["On file", "Requested", "Not requested"]
TinType = Literal["EIN", "SSN"]
MIN_YEAR, MAX_YEAR = 2020, 2026
MATCH = "Match"
NO_MATCH = "TIN and name combination does not match"
NOT_ISSUED = "TIN not currently issued"

RECIPIENT_SORT = {"name": (Recipient.name, TEXT), "business_name": (Recipient.business_name, TEXT),
                  "tin": (Recipient.tin, TEXT), "w9_status": (Recipient.w9_status, TEXT),
                  "state": (Recipient.state, TEXT)}
FORM_SORT = {"recipient": (Recipient.name, TEXT), "tax_year": (TaxForm.tax_year, NUMBER),
             "status": (TaxForm.status, TEXT), "box1": (TaxForm.box1_nonemployee_comp, MONEY),
             "updated": (TaxForm.updated_at, TEXT)}
PAYER_SORT = {"name": (Payer.name, TEXT), "tin": (Payer.tin, TEXT)}


# -- shapes ---------------------------------------------------------------------------------------

def tin_text(value: str | None, tin_type: str = "EIN", field: str = "tin") -> str | None:
    """A TIN in its usual form: an EIN as 12-3456789, an SSN as 123-45-6789 (hyphens optional)."""
    if value is None or not str(value).strip():
        return None
    digits = re.sub(r"[\s-]", "", str(value))
    if not re.fullmatch(r"\d{9}", digits):
        raise ToolError(f"A TIN has nine digits, like 12-3456789; {str(value)[:20]!r} is not one.", field)
    return f"{digits[:2]}-{digits[2:]}" if tin_type == "EIN" else f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"


def masked(tin: str | None) -> str | None:
    return None if not tin else ("XX-XXX" if tin[2] == "-" else "XXX-XX-") + tin[-4:]


def payer_row(p: Payer) -> dict:
    return {"payer_id": p.payer_id, "name": p.name, "tin": p.tin, "address": p.address, "city": p.city,
            "state": p.state, "zip": p.zip, "phone": p.phone, "contact": p.contact}


def recipient_row(r: Recipient) -> dict:
    return {"recipient_id": r.recipient_id, "payer_id": r.payer_id, "reference_id": r.reference_id,
            "name": r.name, "business_name": r.business_name, "tin": r.tin, "tin_masked": masked(r.tin),
            "tin_type": r.tin_type, "tax_classification": r.tax_classification,
            "exempt_payee_code": r.exempt_payee_code, "address": r.address, "city": r.city, "state": r.state,
            "zip": r.zip, "email": r.email, "w9_status": r.w9_status, "w9_signed": r.w9_signed}


def form_row(f: TaxForm, r: Recipient | None) -> dict:
    return {"form_id": f.form_id, "payer_id": f.payer_id, "recipient_id": f.recipient_id,
            "recipient_name": r.name if r else "", "recipient_tin_masked": masked(r.tin) if r else None,
            "tax_year": f.tax_year, "form_type": f.form_type, "box1_nonemployee_comp": f.box1_nonemployee_comp,
            "box4_federal_withheld": f.box4_federal_withheld, "status": f.status, "created_at": f.created_at,
            "updated_at": f.updated_at, "submitted_at": f.submitted_at, "delivered_at": f.delivered_at}


def match_row(m: TinMatch) -> dict:
    return {"match_id": m.match_id, "recipient_id": m.recipient_id, "name": m.name, "tin_masked": masked(m.tin),
            "result": m.result, "checked_at": m.checked_at}


def w9_row(w: W9Request, r: Recipient | None = None) -> dict:
    return {"request_id": w.request_id, "recipient_id": w.recipient_id, "recipient_name": r.name if r else "",
            "email": w.email, "status": w.status, "sent_at": w.sent_at, "completed_at": w.completed_at}


def year_of(value, field: str = "tax_year") -> int:
    try:
        year = int(value)
    except (TypeError, ValueError):
        raise ToolError(f"Tax year must be a year like 2025, not {str(value)[:20]!r}.", field) from None
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise ToolError(f"Tax year must be between {MIN_YEAR} and {MAX_YEAR}.", field)
    return year


def get_payer_row(session, payer_id: int) -> Payer:
    row = session.get(Payer, payer_id)
    if row is None:
        raise NotFound(f"There is no payer with id {payer_id}.", "payer_id")
    return row


def get_recipient_row(session, recipient_id: int) -> Recipient:
    row = session.get(Recipient, recipient_id)
    if row is None:
        raise NotFound(f"There is no recipient with id {recipient_id}.", "recipient_id")
    return row


def get_form_row(session, form_id: int) -> TaxForm:
    row = session.get(TaxForm, form_id)
    if row is None:
        raise NotFound(f"There is no form with id {form_id}.", "form_id")
    return row


# -- payers and recipients --------------------------------------------------------------------------

@service(READ)
def list_payers(ctx: ServiceContext, query: str | None = None, page: int = 1, per_page: int = 25,
                sort: str | None = None) -> dict:
    """List the payers (filers) the forms are issued under.

    Args:
        query: Words to find in the payer's name or TIN.
        page: Page number, starting at 1.
        per_page: Payers per page, 1 to 100.
        sort: Sort by name or tin; a leading "-" sorts descending.
    """
    stmt = select(Payer)
    for word in (query or "").split():
        stmt = stmt.where(or_(Payer.name.ilike(f"%{word}%"), Payer.tin.ilike(f"%{word}%")))
    stmt = stmt.order_by(*sort_order(sort, PAYER_SORT, (Payer.name, Payer.payer_id)))
    return paged(ctx.session, stmt, page, per_page, payer_row)


@service(READ)
def get_payer(ctx: ServiceContext, payer_id: int) -> dict:
    """Get a payer with its count of recipients and of forms by tax year and status.

    Args:
        payer_id: The payer's id, as the payer list shows it.
    """
    p = get_payer_row(ctx.session, payer_id)
    recipients = ctx.session.scalar(select(func.count()).select_from(Recipient).where(Recipient.payer_id == payer_id))
    counts = ctx.session.execute(select(TaxForm.tax_year, TaxForm.status, func.count()).where(TaxForm.payer_id == payer_id)
                                 .group_by(TaxForm.tax_year, TaxForm.status)
                                 .order_by(TaxForm.tax_year.desc(), TaxForm.status)).all()
    return {**payer_row(p), "recipients": recipients,
            "forms": [{"tax_year": y, "status": s, "count": n} for y, s, n in counts]}


@service(READ)
def list_recipients(ctx: ServiceContext, payer_id: int | None = None, query: str | None = None,
                    w9_status: W9Status | None = None, page: int = 1, per_page: int = 25,
                    sort: str | None = None) -> dict:
    """List recipients (payees) with the legal name, business name and TIN their W-9 gives.

    Args:
        payer_id: Only this payer's recipients.
        query: Words to find in the name, business name, reference id or the TIN's last four digits.
        w9_status: Only recipients whose W-9 is on file, requested, or not requested.
        page: Page number, starting at 1.
        per_page: Recipients per page, 1 to 100.
        sort: Sort by name, business_name, tin, w9_status or state; a leading "-" sorts descending.
    """
    stmt = select(Recipient)
    if payer_id is not None:
        get_payer_row(ctx.session, payer_id)
        stmt = stmt.where(Recipient.payer_id == payer_id)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Recipient.name.ilike(like), Recipient.business_name.ilike(like),
                              Recipient.reference_id.ilike(like), Recipient.tin.ilike(f"%{word}")))
    if w9_status:
        stmt = stmt.where(Recipient.w9_status == w9_status)
    stmt = stmt.order_by(*sort_order(sort, RECIPIENT_SORT, (Recipient.name, Recipient.recipient_id)))
    return paged(ctx.session, stmt, page, per_page, recipient_row)


@service(READ)
def get_recipient(ctx: ServiceContext, recipient_id: int) -> dict:
    """Get a recipient: W-9 details, its forms, TIN-match results and W-9 requests.

    Args:
        recipient_id: The recipient's id, as the recipient list shows it.
    """
    r = get_recipient_row(ctx.session, recipient_id)
    forms = ctx.session.scalars(select(TaxForm).where(TaxForm.recipient_id == recipient_id)
                                .order_by(TaxForm.tax_year.desc(), TaxForm.form_id)).all()
    matches = ctx.session.scalars(select(TinMatch).where(TinMatch.recipient_id == recipient_id)
                                  .order_by(TinMatch.checked_at.desc(), TinMatch.match_id)).all()
    requests = ctx.session.scalars(select(W9Request).where(W9Request.recipient_id == recipient_id)
                                   .order_by(W9Request.sent_at.desc(), W9Request.request_id)).all()
    return {**recipient_row(r), "forms": [form_row(f, r) for f in forms],
            "tin_matches": [match_row(m) for m in matches], "w9_requests": [w9_row(w, r) for w in requests]}


def _clean(value: str | None, field: str, limit: int = 200, required: bool = False) -> str | None:
    text = " ".join((value or "").split())
    if required and not text:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} is required.", field)
    if len(text) > limit:
        raise ToolError(f"{field.replace('_', ' ').capitalize()} is at most {limit} characters.", field)
    return text or None


def _state(value: str | None) -> str:
    text = (value or "").strip().upper()
    if not re.fullmatch(r"[A-Z]{2}", text):
        raise ToolError("State is two letters, like NC.", "state")
    return text


def _zip(value: str | None) -> str:
    text = (value or "").strip()
    if not re.fullmatch(r"\d{5}(-\d{4})?", text):
        raise ToolError("ZIP is five digits, or five and four (28202-1234).", "zip")
    return text


def _email(value: str | None) -> str | None:
    text = (value or "").strip()
    if text and not re.fullmatch(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}", text):
        raise ToolError(f"{text[:60]!r} is not an email address.", "email")
    return text or None


@service(WRITE)
def create_recipient(ctx: ServiceContext, payer_id: int, name: str, tin: str, tin_type: TinType,
                     address: str, city: str, state: str, zip: str, business_name: str | None = None,
                     tax_classification: Classification | None = None, exempt_payee_code: str | None = None,
                     reference_id: str | None = None, email: str | None = None) -> dict:
    """Add a recipient under a payer, as its W-9 gives it.

    Args:
        payer_id: The payer the recipient is paid by.
        name: W-9 line 1: the legal name (the name the TIN was issued to).
        tin: The TIN (EIN like 12-3456789, or SSN like 123-45-6789).
        tin_type: EIN or SSN.
        address: Street address.
        city: City.
        state: Two-letter state.
        zip: ZIP code.
        business_name: W-9 line 2: the business or disregarded-entity name, if different.
        tax_classification: W-9 line 3: the federal tax classification.
        exempt_payee_code: W-9 line 4: the exempt payee code, if any (1 to 13).
        reference_id: Your own id for the recipient (e.g. the vendor number in your ERP).
        email: Where W-9 requests and electronic copies go.
    """
    get_payer_row(ctx.session, payer_id)
    values = _recipient_values(name, tin, tin_type, address, city, state, zip, business_name, tax_classification,
                               exempt_payee_code, reference_id, email)
    duplicate = ctx.session.scalar(select(Recipient).where(Recipient.payer_id == payer_id, Recipient.tin == values["tin"]))
    if duplicate is not None:
        raise ToolError(f"This payer already has a recipient with TIN {masked(values['tin'])}: {duplicate.name}.", "tin")
    row = Recipient(recipient_id=stable_id(ctx.app, "recipient", payer_id, values["tin"]), payer_id=payer_id,
                    w9_status="Not requested", w9_signed=None, **values)
    ctx.session.add(row)
    ctx.session.flush()
    return recipient_row(row)


def _recipient_values(name, tin, tin_type, address, city, state, zip, business_name, tax_classification,
                      exempt_payee_code, reference_id, email) -> dict:
    code = (exempt_payee_code or "").strip() or None
    if code is not None and not (code.isdigit() and 1 <= int(code) <= 13):
        raise ToolError("An exempt payee code is a number from 1 to 13.", "exempt_payee_code")
    return {"name": _clean(name, "name", required=True), "tin": tin_text(tin, tin_type) or _missing("tin"),
            "tin_type": tin_type, "address": _clean(address, "address", required=True),
            "city": _clean(city, "city", 80, required=True), "state": _state(state), "zip": _zip(zip),
            "business_name": _clean(business_name, "business_name"), "tax_classification": tax_classification,
            "exempt_payee_code": code, "reference_id": _clean(reference_id, "reference_id", 40), "email": _email(email)}


def _missing(field: str):
    raise ToolError(f"{field.upper() if field == 'tin' else field.capitalize()} is required.", field)


@service(WRITE)
def update_recipient(ctx: ServiceContext, recipient_id: int, name: str | None = None, business_name: str | None = None,
                     tin: str | None = None, tin_type: TinType | None = None,
                     tax_classification: Classification | None = None, exempt_payee_code: str | None = None,
                     email: str | None = None) -> dict:
    """Correct a recipient's W-9 details. Fields left out keep their value; an empty business name
    or exempt payee code clears it.

    Args:
        recipient_id: The recipient's id.
        name: W-9 line 1: the legal name.
        business_name: W-9 line 2: the business name ("" clears it).
        tin: The TIN.
        tin_type: EIN or SSN.
        tax_classification: W-9 line 3: the federal tax classification.
        exempt_payee_code: W-9 line 4: the exempt payee code ("" clears it).
        email: The recipient's email.
    """
    r = get_recipient_row(ctx.session, recipient_id)
    kind = tin_type or r.tin_type
    if name is not None:
        r.name = _clean(name, "name", required=True)
    if business_name is not None:
        r.business_name = _clean(business_name, "business_name")
    if tin is not None or tin_type is not None:
        new = tin_text(tin if tin is not None else r.tin, kind) or _missing("tin")
        clash = ctx.session.scalar(select(Recipient).where(Recipient.payer_id == r.payer_id, Recipient.tin == new,
                                                           Recipient.recipient_id != r.recipient_id))
        if clash is not None:
            raise ToolError(f"Recipient {clash.name} already has TIN {masked(new)}.", "tin")
        r.tin, r.tin_type = new, kind
    if tax_classification is not None:
        r.tax_classification = tax_classification
    if exempt_payee_code is not None:
        code = exempt_payee_code.strip() or None
        if code is not None and not (code.isdigit() and 1 <= int(code) <= 13):
            raise ToolError("An exempt payee code is a number from 1 to 13.", "exempt_payee_code")
        r.exempt_payee_code = code
    if email is not None:
        r.email = _email(email)
    ctx.session.flush()
    return recipient_row(r)


# -- forms ------------------------------------------------------------------------------------------

@service(READ)
def list_forms(ctx: ServiceContext, payer_id: int | None = None, tax_year: int | None = None,
               status: FormStatus | None = None, recipient_id: int | None = None, query: str | None = None,
               page: int = 1, per_page: int = 25, sort: str | None = None) -> dict:
    """List 1099 forms with their status (Draft, In cart, Scheduled, Accepted, Rejected) and box 1.

    Args:
        payer_id: Only this payer's forms.
        tax_year: Only forms for this tax year (four digits).
        status: Only forms in this status.
        recipient_id: Only this recipient's forms.
        query: Words to find in the recipient's name or business name.
        page: Page number, starting at 1.
        per_page: Forms per page, 1 to 100.
        sort: Sort by recipient, tax_year, status, box1 or updated; a leading "-" sorts descending.
    """
    stmt = select(TaxForm, Recipient).join(Recipient, Recipient.recipient_id == TaxForm.recipient_id)
    if payer_id is not None:
        get_payer_row(ctx.session, payer_id)
        stmt = stmt.where(TaxForm.payer_id == payer_id)
    if tax_year is not None:
        stmt = stmt.where(TaxForm.tax_year == year_of(tax_year))
    if status:
        stmt = stmt.where(TaxForm.status == status)
    if recipient_id is not None:
        stmt = stmt.where(TaxForm.recipient_id == recipient_id)
    for word in (query or "").split():
        like = f"%{word}%"
        stmt = stmt.where(or_(Recipient.name.ilike(like), Recipient.business_name.ilike(like)))
    stmt = stmt.order_by(*sort_order(sort, FORM_SORT, (TaxForm.tax_year.desc(), Recipient.name, TaxForm.form_id)))
    return paged(ctx.session, stmt, page, per_page, form_row)


@service(READ)
def get_form(ctx: ServiceContext, form_id: int) -> dict:
    """Get one form with its payer and its recipient as the form will print them.

    Args:
        form_id: The form's id, as the form list shows it.
    """
    f = get_form_row(ctx.session, form_id)
    r = ctx.session.get(Recipient, f.recipient_id)
    p = ctx.session.get(Payer, f.payer_id)
    return {**form_row(f, r), "payer": payer_row(p), "recipient": recipient_row(r)}


@service(WRITE)
def upsert_form(ctx: ServiceContext, recipient_id: int, tax_year: int, box1_nonemployee_comp: Amount,
                box4_federal_withheld: Amount | None = None) -> dict:
    """Create or update a recipient's 1099-NEC for a tax year, saved as a draft. A form already in
    the cart goes back to draft when its amounts change; a scheduled or filed form cannot change.

    Args:
        recipient_id: The recipient the form is for (its payer is the recipient's payer).
        tax_year: The tax year the payments were made in (four digits).
        box1_nonemployee_comp: Box 1, nonemployee compensation.
        box4_federal_withheld: Box 4, federal income tax withheld (backup withholding).
    """
    r = get_recipient_row(ctx.session, recipient_id)
    year = year_of(tax_year)
    box1 = parse_amount(box1_nonemployee_comp, "box1_nonemployee_comp")
    box4 = parse_amount(box4_federal_withheld, "box4_federal_withheld") if box4_federal_withheld is not None \
        else Decimal("0.00")
    if box1 <= 0:
        raise ToolError("Box 1 must be more than zero.", "box1_nonemployee_comp")
    if box4 > box1:
        raise ToolError("Federal tax withheld cannot exceed the compensation paid.", "box4_federal_withheld")
    f = ctx.session.scalar(select(TaxForm).where(TaxForm.recipient_id == r.recipient_id, TaxForm.tax_year == year,
                                                 TaxForm.form_type == "1099-NEC"))
    now = ctx.clock.iso()
    if f is None:
        f = TaxForm(form_id=stable_id(ctx.app, "form", r.recipient_id, year, "1099-NEC"), payer_id=r.payer_id,
                    recipient_id=r.recipient_id, tax_year=year, form_type="1099-NEC", status="Draft",
                    created_at=now, submitted_at=None, delivered_at=None)
        ctx.session.add(f)
    elif f.status not in ("Draft", "In cart"):
        raise ToolError(f"This form is {f.status.lower()}; a filed form is changed by a correction, not an edit.",
                        "recipient_id")
    else:
        f.status = "Draft"
    f.box1_nonemployee_comp, f.box4_federal_withheld, f.updated_at = box1, box4, now
    ctx.session.flush()
    return form_row(f, r)


def _editable(session, form_id: int, want: str) -> TaxForm:
    f = get_form_row(session, form_id)
    if f.status != want:
        raise ToolError(f"This form is {f.status.lower()}, not {want.lower()}.", "form_id")
    return f


@service(WRITE)
def add_form_to_cart(ctx: ServiceContext, form_id: int) -> dict:
    """Move a draft form into the cart, ready to be scheduled for e-filing by a person.

    Args:
        form_id: The draft form's id.
    """
    f = _editable(ctx.session, form_id, "Draft")
    f.status, f.updated_at = "In cart", ctx.clock.iso()
    ctx.session.flush()
    return form_row(f, ctx.session.get(Recipient, f.recipient_id))


@service(WRITE)
def remove_form_from_cart(ctx: ServiceContext, form_id: int) -> dict:
    """Take a form out of the cart, back to draft.

    Args:
        form_id: The id of the form in the cart.
    """
    f = _editable(ctx.session, form_id, "In cart")
    f.status, f.updated_at = "Draft", ctx.clock.iso()
    ctx.session.flush()
    return form_row(f, ctx.session.get(Recipient, f.recipient_id))


@service(WRITE)
def delete_form(ctx: ServiceContext, form_id: int) -> dict:
    """Delete a form that is a draft or in the cart (nothing has been filed).

    Args:
        form_id: The form's id.
    """
    f = get_form_row(ctx.session, form_id)
    if f.status not in ("Draft", "In cart"):
        raise ToolError(f"This form is {f.status.lower()}; only a draft or a form in the cart can be deleted.", "form_id")
    out = form_row(f, ctx.session.get(Recipient, f.recipient_id))
    ctx.session.delete(f)
    ctx.session.flush()
    return {**out, "deleted": True}


@service(READ)
def get_cart(ctx: ServiceContext, payer_id: int, tax_year: int) -> dict:
    """The checkout cart for a payer and tax year: the forms in it and their total.

    Args:
        payer_id: The payer.
        tax_year: The tax year.
    """
    p = get_payer_row(ctx.session, payer_id)
    year = year_of(tax_year)
    rows = ctx.session.execute(select(TaxForm, Recipient).join(Recipient, Recipient.recipient_id == TaxForm.recipient_id)
                               .where(TaxForm.payer_id == payer_id, TaxForm.tax_year == year,
                                      TaxForm.status == "In cart").order_by(Recipient.name, TaxForm.form_id)).all()
    return {"payer_id": p.payer_id, "payer_name": p.name, "tax_year": year, "forms": [form_row(f, r) for f, r in rows],
            "count": len(rows), "total_box1": sum((f.box1_nonemployee_comp for f, _r in rows), start=Decimal("0.00"))}


# -- TIN matching and W-9s ----------------------------------------------------------------------------

def _name_key(name: str) -> str:
    return re.sub(r"[^A-Z0-9&]", "", name.upper().replace(" AND ", "&"))


@service(WRITE)
def submit_tin_match(ctx: ServiceContext, recipient_id: int) -> dict:
    """Check a recipient's name and TIN with IRS TIN matching; the result is kept on the recipient.
    The IRS matches the legal name the TIN was issued to, not a DBA.

    Args:
        recipient_id: The recipient to check.
    """
    r = get_recipient_row(ctx.session, recipient_id)
    if not r.tin:
        raise ToolError("This recipient has no TIN to match.", "recipient_id")
    record = ctx.session.get(IrsTinRecord, r.tin)
    result = NOT_ISSUED if record is None else (MATCH if _name_key(record.name) == _name_key(r.name) else NO_MATCH)
    n = ctx.session.scalar(select(func.count()).select_from(TinMatch).where(TinMatch.recipient_id == r.recipient_id))
    row = TinMatch(match_id=stable_id(ctx.app, "tin-match", r.recipient_id, n + 1), recipient_id=r.recipient_id,
                   name=r.name, tin=r.tin, result=result, checked_at=ctx.clock.iso())
    ctx.session.add(row)
    ctx.session.flush()
    return match_row(row)


@service(READ)
def list_tin_matches(ctx: ServiceContext, result: str | None = None, query: str | None = None,
                     page: int = 1, per_page: int = 25) -> dict:
    """List TIN-matching results, newest first.

    Args:
        result: Only this result, e.g. "Match".
        query: Words to find in the name checked.
        page: Page number, starting at 1.
        per_page: Results per page, 1 to 100.
    """
    stmt = select(TinMatch)
    if result:
        stmt = stmt.where(TinMatch.result == result.strip())
    for word in (query or "").split():
        stmt = stmt.where(TinMatch.name.ilike(f"%{word}%"))
    stmt = stmt.order_by(TinMatch.checked_at.desc(), TinMatch.name, TinMatch.match_id)
    return paged(ctx.session, stmt, page, per_page, match_row)


@service(READ)
def list_w9_requests(ctx: ServiceContext, status: Literal["Sent", "Completed"] | None = None,
                     page: int = 1, per_page: int = 25) -> dict:
    """List W-9 requests emailed to recipients and whether each came back completed.

    Args:
        status: Only requests that are Sent (awaiting the recipient) or Completed.
        page: Page number, starting at 1.
        per_page: Requests per page, 1 to 100.
    """
    stmt = select(W9Request, Recipient).join(Recipient, Recipient.recipient_id == W9Request.recipient_id)
    if status:
        stmt = stmt.where(W9Request.status == status)
    stmt = stmt.order_by(W9Request.sent_at.desc(), Recipient.name, W9Request.request_id)
    return paged(ctx.session, stmt, page, per_page, w9_row)


@service(GUARDED)
def request_w9(ctx: ServiceContext, recipient_id: int, email: str | None = None) -> dict:
    """Email the recipient a request to complete a W-9. Sending it needs a person's approval.

    Args:
        recipient_id: The recipient to ask.
        email: Where to send it, if not the recipient's email on file.
    """
    r = get_recipient_row(ctx.session, recipient_id)
    to = _email(email) or r.email
    if not to:
        raise ToolError("This recipient has no email on file; give one.", "email")
    if r.w9_status == "On file":
        raise ToolError(f"{r.name}'s W-9 is already on file.", "recipient_id")
    return {"action": "send W-9 request", "recipient": r.name, "email": to}


@service(GUARDED)
def schedule_efile(ctx: ServiceContext, payer_id: int, tax_year: int) -> dict:
    """Check out the cart: schedule its forms for IRS e-filing. Needs a person's approval.

    Args:
        payer_id: The payer whose cart to check out.
        tax_year: The tax year of the forms.
    """
    cart = get_cart(ctx, payer_id, tax_year)
    if not cart["forms"]:
        raise ToolError(f"The {cart['tax_year']} cart for {cart['payer_name']} is empty.", "tax_year")
    return {"action": "schedule e-file", "payer": cart["payer_name"], "tax_year": cart["tax_year"],
            "forms": cart["count"], "total_box1": cart["total_box1"]}


@service(GUARDED)
def deliver_copies(ctx: ServiceContext, form_id: int) -> dict:
    """Deliver (or deliver again) the recipient's copy of an accepted form by email or mail. Needs a
    person's approval.

    Args:
        form_id: The accepted form's id.
    """
    f = get_form_row(ctx.session, form_id)
    if f.status != "Accepted":
        raise ToolError(f"This form is {f.status.lower()}; copies go out once the IRS has accepted it.", "form_id")
    r = ctx.session.get(Recipient, f.recipient_id)
    return {"action": "deliver copy", "recipient": r.name, "tax_year": f.tax_year, "form_type": f.form_type}
