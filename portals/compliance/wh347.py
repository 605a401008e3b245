"""The WH-347 certified payroll report (revised form) as a real PDF, byte-identical on every run.

Page 1 lists each worker (name and last four of the SSN, J or RA and level, the WD classification,
daily and total hours, rates, fringe to plans and in lieu, gross, deductions, net); the last page is
the Statement of Compliance, unsigned until a person certifies it (DOMAIN.md section 5).
"""
from __future__ import annotations

import io
from datetime import datetime, timezone
from functools import lru_cache

from fpdf import FPDF
from pypdf import PdfReader

from portals.docs.pdf import latin

DAYS = ("Su", "M", "Tu", "W", "Th", "F", "Sa")


def _m(value) -> str:
    return f"{value:,.2f}"


def _h(value) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text or "0"


def render_wh347(project: dict, rows: list, cpr: dict) -> bytes:
    pdf = FPDF(orientation="landscape", format="letter")
    week = cpr["week_ending"]
    pdf.set_creation_date(datetime.fromisoformat(f"{week}T12:00:00+00:00").astimezone(timezone.utc))
    pdf.set_title(latin(f"WH-347 {project['contract_number']} {week}"))
    pdf.set_auto_page_break(True, margin=14)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 6, "U.S. Department of Labor - PAYROLL (Form WH-347)", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 8)
    head = [("Contractor", project["prime_contractor"]), ("Payroll No.", str(cpr["payroll_number"])),
            ("Week ending", week), ("Project", project["name"]), ("Location", project["location"]),
            ("Contract No.", project["contract_number"]),
            ("WD No.", f"{project['wd_number']} Mod {project['wd_modification']}")]
    pdf.multi_cell(0, 4, latin("   ".join(f"{k}: {v}" for k, v in head)), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(1)
    cols = [("Name / SSN", 40), ("J/RA", 10), ("Classification", 48), *((d, 7) for d in DAYS), ("ST", 9),
            ("OT", 8), ("ST rate", 14), ("OT rate", 14), ("Fringe plan", 15), ("In lieu", 12),
            ("Gross", 17), ("FICA", 13), ("W/H", 13), ("Net", 17)]
    pdf.set_font("Helvetica", "B", 6.5)
    for name, width in cols:
        pdf.cell(width, 5, name, border=1, align="C")
    pdf.ln()
    pdf.set_font("Helvetica", "", 6.5)
    for record, employee in rows:
        level = "J" if record.level == "J" else f"RA {record.level[1:]}"
        cells = [f"{employee.last_name}, {employee.first_name} xxx-xx-{employee.ssn_last4}", level,
                 record.classification[:34], *(h for h in record.daily_hours.split(",")),
                 _h(record.st_hours), _h(record.ot_hours), _m(record.st_rate), _m(record.ot_rate),
                 _m(record.fringe_plan), _m(record.fringe_cash), _m(record.gross), _m(record.fica),
                 _m(record.withholding), _m(record.net)]
        for (name, width), value in zip(cols, cells):
            pdf.cell(width, 4.5, latin(value), border=1, align="L" if width >= 40 or name == "Classification" else "R")
        pdf.ln()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 11)
    pdf.cell(0, 7, "STATEMENT OF COMPLIANCE", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 9)
    signed = cpr.get("certified_by")
    text = (f"Payroll period: week ending {week}, payroll No. {cpr['payroll_number']}, contract "
            f"{project['contract_number']}. The undersigned certifies that each worker was paid the full weekly "
            "wages earned with no deductions other than permissible ones, at rates not less than the applicable "
            "wage rates in the wage determination, that apprentices are registered in a bona fide program, and "
            "that fringe benefits were paid as marked: 4(a) to plans, 4(b) in cash, 4(c) exceptions.")
    pdf.multi_cell(0, 5, latin(text), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.cell(0, 6, latin(f"Signed: {signed}" if signed else "Signature: (not certified)"), new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 6, latin(f"Status: {cpr['status']}"), new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


@lru_cache(maxsize=64)
def wh347_text(data: bytes) -> str:
    """The report's text as a reader extracts it (pypdf), page by page."""
    reader = PdfReader(io.BytesIO(data))
    return "\n\n".join(page.extract_text() for page in reader.pages)
