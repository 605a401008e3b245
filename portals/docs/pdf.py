"""Real PDFs drawn from a document's fields, byte-identical on every run.

The creation date comes from the file's own `created_at` and fpdf2's core fonts are used, so the
same fields always give the same bytes. Core fonts speak Latin-1, so text is folded into it.
"""
from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation

from fpdf import FPDF

TITLES = {
    "invoice": "INVOICE",
    "subcontract": "SUBCONTRACT AGREEMENT",
    "coi": "CERTIFICATE OF LIABILITY INSURANCE",
    "lien_waiver": "WAIVER AND RELEASE OF LIEN",
    "w9": "Form W-9  Request for Taxpayer Identification Number and Certification",
    "change_order": "CHANGE ORDER",
}
WAIVER_TITLES = {
    "conditional_progress": "CONDITIONAL WAIVER AND RELEASE ON PROGRESS PAYMENT",
    "unconditional_progress": "UNCONDITIONAL WAIVER AND RELEASE ON PROGRESS PAYMENT",
    "conditional_final": "CONDITIONAL WAIVER AND RELEASE ON FINAL PAYMENT",
    "unconditional_final": "UNCONDITIONAL WAIVER AND RELEASE ON FINAL PAYMENT",
}
MONEY_KEYS = {"total", "limit", "aggregate", "each_occurrence", "contract_sum", "cost_of_work", "overhead_and_fee"}
SIGNED_KINDS = {"subcontract", "change_order", "lien_waiver", "w9"}
INVOICE_HEAD = ("vendor_name", "vendor_address", "invoice_number", "invoice_date", "due_date",
                "bill_to", "job", "po_number", "lines", "total", "remit_to")
_FOLD = {"\u2014": "-", "\u2013": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
         "\u2026": "...", "\u00a0": " ", "\u2022": "-"}


def latin(value) -> str:
    text = "" if value is None else str(value)
    for src, dst in _FOLD.items():
        text = text.replace(src, dst)
    return text.encode("latin-1", "replace").decode("latin-1")


def money(value) -> str:
    try:
        return f"${Decimal(str(value)):,.2f}"
    except (InvalidOperation, ValueError):
        return latin(value)


def label(key: str) -> str:
    return key.replace("_", " ").title().replace("Po ", "PO ").replace("Coi", "COI").replace("Tin", "TIN").replace("Dba", "DBA")


def _instant(created_at: str) -> datetime:
    try:
        value = datetime.fromisoformat(str(created_at).replace("Z", "+00:00"))
    except ValueError:
        value = datetime(2026, 1, 1)
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value


def _new(created_at: str, title: str) -> FPDF:
    pdf = FPDF(format="letter")
    pdf.set_creation_date(_instant(created_at))
    pdf.set_title(latin(title))
    pdf.set_auto_page_break(True, margin=18)
    pdf.add_page()
    return pdf


def _block(pdf: FPDF, heading: str, text) -> None:
    pdf.set_font("Helvetica", "B", 9)
    pdf.cell(0, 5, heading, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(90, 5, latin(text), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)


def _lines(pdf: FPDF, lines: list, total=None) -> None:
    pdf.set_font("Helvetica", "B", 10)
    pdf.set_fill_color(230, 233, 238)
    pdf.cell(140, 7, "Description", border=1, fill=True)
    pdf.cell(0, 7, "Amount", border=1, fill=True, align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    for line in lines or []:
        if not isinstance(line, dict):
            continue
        desc = line.get("description") or line.get("cost_code") or ""
        pdf.cell(140, 7, latin(desc)[:80], border=1)
        pdf.cell(0, 7, money(line.get("amount", line.get("scheduled_value", ""))), border=1, align="R",
                 new_x="LMARGIN", new_y="NEXT")
    if total is not None:
        pdf.set_font("Helvetica", "B", 11)
        pdf.cell(140, 8, "TOTAL DUE", border=1, align="R")
        pdf.cell(0, 8, money(total), border=1, align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)


def _facts(pdf: FPDF, fields: dict, skip) -> None:
    for key in sorted(k for k in fields if k not in skip):
        value = fields[key]
        if isinstance(value, (list, dict)):
            continue
        if isinstance(value, bool):
            shown = "Yes" if value else "No"
        elif "amount" in key or key in MONEY_KEYS:
            shown = money(value)
        else:
            shown = latin(value).replace("_", " ") if key.endswith("_type") else latin(value)
        pdf.set_font("Helvetica", "B", 10)
        pdf.cell(55, 6, label(key) + ":")
        pdf.set_font("Helvetica", "", 10)
        pdf.multi_cell(0, 6, shown, new_x="LMARGIN", new_y="NEXT")


def _invoice(pdf: FPDF, f: dict) -> None:
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(110, 8, latin(f.get("vendor_name", "")))
    pdf.set_font("Helvetica", "B", 22)
    pdf.cell(0, 8, "INVOICE", align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(100, 5, latin(f.get("vendor_address", "")), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    top = pdf.get_y()
    for i, (name, key) in enumerate((("Invoice #", "invoice_number"), ("Invoice Date", "invoice_date"),
                                     ("Due Date", "due_date"), ("PO Number", "po_number"))):
        pdf.set_xy(120, top + i * 6)
        pdf.set_font("Helvetica", "B", 10)
        pdf.cell(30, 6, name + ":")
        pdf.set_font("Helvetica", "", 10)
        pdf.cell(0, 6, latin(f.get(key, "")))
    pdf.set_xy(pdf.l_margin, top)
    _block(pdf, "BILL TO", f.get("bill_to", ""))
    _block(pdf, "JOB", f.get("job", ""))
    pdf.set_y(max(pdf.get_y(), top + 28))
    _lines(pdf, f.get("lines", []), f.get("total"))
    _facts(pdf, f, INVOICE_HEAD)
    pdf.ln(4)
    _block(pdf, "REMIT TO", f.get("remit_to", ""))
    pdf.set_font("Helvetica", "I", 9)
    pdf.cell(0, 6, "Please reference the invoice number with your payment. Thank you for your business.")


def _document(pdf: FPDF, kind: str, f: dict) -> None:
    issuer = f.get("vendor_name") or f.get("legal_name") or f.get("insured") or f.get("claimant") or ""
    if issuer:
        pdf.set_font("Helvetica", "B", 13)
        pdf.cell(0, 7, latin(issuer), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "B", 13)
    title = WAIVER_TITLES.get(f.get("waiver_type"), TITLES.get(kind, label(kind).upper()))
    pdf.multi_cell(0, 9, title, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    _facts(pdf, f, ())
    if f.get("lines"):
        pdf.ln(3)
        _lines(pdf, f["lines"], f.get("total") if "total" in f else None)
    if kind in SIGNED_KINDS:
        pdf.ln(12)
        pdf.set_font("Helvetica", "", 10)
        pdf.cell(85, 6, "_______________________________")
        pdf.cell(0, 6, "_______________________________", new_x="LMARGIN", new_y="NEXT")
        pdf.cell(85, 6, "Signature")
        pdf.cell(0, 6, "Date", new_x="LMARGIN", new_y="NEXT")


def _text(pdf: FPDF, name: str, content: str) -> None:
    pdf.set_font("Helvetica", "B", 13)
    pdf.cell(0, 8, latin(name), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 5, latin(content), new_x="LMARGIN", new_y="NEXT")


def render_pdf(name: str, kind: str, created_at: str, fields: dict, content: str | None = None) -> bytes:
    """The PDF of one stored file: uploads show their text; book documents their kind's layout."""
    pdf = _new(created_at, name)
    if content is not None:
        _text(pdf, name, content)
    elif kind == "invoice":
        _invoice(pdf, fields)
    else:
        _document(pdf, kind, fields)
    return bytes(pdf.output())
