"""The product's Certified Payroll report (WH-347 format) for one job and week, as a real PDF,
byte-identical on every run, that a PDF reader (pypdf) reads back: the payroll source of what a
compliance system imports (DOMAIN.md section 5)."""
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


def render_certified_payroll(label: str, company: str, job: dict, run: dict, payroll_number: int, rows: list) -> bytes:
    """rows: (timecard, employee, check) of the job's week, in name order."""
    pdf = FPDF(orientation="landscape", format="letter")
    week = run["period_end"]
    pdf.set_creation_date(datetime.fromisoformat(f"{week}T12:00:00+00:00").astimezone(timezone.utc))
    pdf.set_title(latin(f"Certified Payroll {job['job_no']} {week}"))
    pdf.set_auto_page_break(True, margin=14)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 6, latin(f"{label} - Certified Payroll Report (WH-347 format)"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 8)
    head = [("Contractor", company), ("Payroll No.", str(payroll_number)), ("Period ending", week),
            ("Check date", run["check_date"]), ("Job", f"{job['job_no']} {job['name']}"),
            ("Contract No.", job.get("contract_number") or "-"), ("WD No.", job.get("wd_number") or "-"),
            ("Payroll status", run["status"])]
    pdf.multi_cell(0, 4, latin("   ".join(f"{k}: {v}" for k, v in head)), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(1)
    cols = [("Emp # / Name / SSN", 46), ("J/RA", 9), ("Classification", 44), *((d, 7) for d in DAYS), ("Reg", 9),
            ("OT", 8), ("Reg rate", 14), ("OT rate", 14), ("Fringe plan", 15), ("In lieu", 12),
            ("Gross", 17), ("FICA", 13), ("W/H", 13), ("Net", 17)]
    pdf.set_font("Helvetica", "B", 6.5)
    for name, width in cols:
        pdf.cell(width, 5, name, border=1, align="C")
    pdf.ln()
    pdf.set_font("Helvetica", "", 6.5)
    for card, employee, check in rows:
        part = card.class_code.rsplit("-", 1)[-1] if "-" in card.class_code else "J"
        level = "J" if part == "J" else f"RA {part[1:]}"
        fica = _m(check.fica) if check else "-"
        fwt = _m(check.federal_wh) if check else "-"
        net = _m(check.net) if check else "-"
        cells = [f"{employee.employee_no} {employee.last_name}, {employee.first_name} xxx-xx-{employee.ssn_last4}", level,
                 card.certified_class[:32], *card.daily_hours.split(","), _h(card.reg_hours), _h(card.ot_hours),
                 _m(card.reg_rate), _m(card.ot_rate), _m(card.fringe_plan_rate), _m(card.fringe_cash_rate),
                 _m(card.earnings), fica, fwt, net]
        for (name, width), value in zip(cols, cells):
            pdf.cell(width, 4.5, latin(value), border=1, align="L" if width >= 40 else "R")
        pdf.ln()
    pdf.ln(2)
    pdf.set_font("Helvetica", "", 8)
    pdf.cell(0, 5, latin(f"{len(rows)} employees. Fringe benefits: 4(a) paid to approved plans, 4(b) paid in cash "
                         "(in lieu, added to the rate)."), new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 11)
    pdf.cell(0, 7, "STATEMENT OF COMPLIANCE", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 9)
    pdf.multi_cell(0, 5, latin(
        f"Payroll period: week ending {week}, payroll No. {payroll_number}, job {job['job_no']}. To be signed by "
        "the contractor's authorized officer in the certified payroll system after review; this printout from "
        "payroll carries no signature."), new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 6, "Signature: (not signed)", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


@lru_cache(maxsize=64)
def pdf_text(data: bytes) -> str:
    reader = PdfReader(io.BytesIO(data))
    return "\n\n".join(page.extract_text() for page in reader.pages)
