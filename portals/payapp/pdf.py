"""The G702 (application and certificate for payment) and G703 (continuation sheet) as real PDFs.

Drawn with fpdf2's core fonts from the pay application's stored figures, dated by its own
`updated_at`, so the same application always gives the same bytes; pypdf reads the text back.
"""
from __future__ import annotations

from fpdf import FPDF

from portals.docs.pdf import _instant, latin, money

G702_LINES = (
    ("1. ORIGINAL CONTRACT SUM", "original_sum"),
    ("2. NET CHANGE BY CHANGE ORDERS", "net_change_orders"),
    ("3. CONTRACT SUM TO DATE (Line 1 +/- 2)", "contract_sum"),
    ("4. TOTAL COMPLETED & STORED TO DATE (Column G on G703)", "completed_stored"),
    ("5a. Retainage: % of Completed Work", "retainage_work"),
    ("5b. Retainage: % of Stored Material", "retainage_stored"),
    ("   Total Retainage (Lines 5a + 5b)", "retainage_total"),
    ("6. TOTAL EARNED LESS RETAINAGE (Line 4 less Line 5 Total)", "earned_less_retainage"),
    ("7. LESS PREVIOUS CERTIFICATES FOR PAYMENT (Line 6 from prior Certificate)", "previous_certificates"),
    ("8. CURRENT PAYMENT DUE", "current_due"),
    ("9. BALANCE TO FINISH, INCLUDING RETAINAGE (Line 3 less Line 6)", "balance_to_finish"),
)
G703_COLUMNS = (("A", "item_no", 10), ("B", "description", 58), ("C", "scheduled_value", 24), ("D", "previous", 24),
                ("E", "this_period", 22), ("F", "stored", 22), ("G", "completed_stored", 24), ("%", "percent", 12),
                ("H", "balance", 22), ("I", "retainage", 22))


def _head(pdf: FPDF, d: dict, title: str) -> None:
    pdf.set_font("Helvetica", "B", 13)
    pdf.cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 9)
    for label, value in (("To owner", d["owner"]), ("Project", f"{d['project_code']} {d['project_name']}"),
                         ("Contract", d["contract_number"]), ("Application no", d["number"]),
                         ("Period to", d["period_to"]), ("Status", d["status"])):
        pdf.cell(0, 5, latin(f"{label}: {value}"), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)


def _g702(pdf: FPDF, d: dict) -> None:
    g = d["g702"]
    pdf.set_font("Helvetica", "", 10)
    for label, key in G702_LINES:
        if key == "retainage_work":
            label = f"5a. {d['retainage_work_pct']}% of Completed Work"
        elif key == "retainage_stored":
            label = f"5b. {d['retainage_stored_pct']}% of Stored Material"
        pdf.set_font("Helvetica", "B" if key == "current_due" else "", 10)
        pdf.cell(150, 7, latin(label), border="B")
        pdf.cell(0, 7, money(g[key]), border="B", align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(6)
    pdf.set_font("Helvetica", "", 8)
    pdf.multi_cell(0, 4, "CONTRACTOR'S CERTIFICATION: not signed. This document is a draft until it is "
                         "submitted to the owner and certified by the architect.")


def _g703(pdf: FPDF, d: dict) -> None:
    pdf.set_font("Helvetica", "B", 7)
    for letter, _key, width in G703_COLUMNS:
        pdf.cell(width, 5, letter, border=1, align="C")
    pdf.ln()
    pdf.set_font("Helvetica", "", 7)
    totals = {k: 0 for _l, k, _w in G703_COLUMNS}
    for line in d["g703"]:
        for _letter, key, width in G703_COLUMNS:
            value = line[key]
            if key == "description":
                text = latin(value)[:38]
            elif key in ("item_no", "percent"):
                text = str(value)
            else:
                text = money(value)
                totals[key] += value
            pdf.cell(width, 5, text, border=1, align="L" if key == "description" else "R")
        pdf.ln()
    pdf.set_font("Helvetica", "B", 7)
    for _letter, key, width in G703_COLUMNS:
        text = "GRAND TOTAL" if key == "description" else ("" if key in ("item_no", "percent") else money(totals[key]))
        pdf.cell(width, 5, text, border=1, align="L" if key == "description" else "R")
    pdf.ln()


def render_pay_app(d: dict, form: str) -> bytes:
    """The G702 or G703 of a pay application (`pay_app.get`'s answer) as PDF bytes."""
    pdf = FPDF(format="letter", orientation="P" if form == "G702" else "L")
    pdf.set_creation_date(_instant(d["updated_at"]))
    title = ("APPLICATION AND CERTIFICATE FOR PAYMENT (AIA G702)" if form == "G702"
             else "CONTINUATION SHEET (AIA G703)")
    pdf.set_title(title)
    pdf.set_auto_page_break(True, margin=14)
    pdf.add_page()
    _head(pdf, d, title)
    (_g702 if form == "G702" else _g703)(pdf, d)
    return bytes(pdf.output())
