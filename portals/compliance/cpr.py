"""LCPtracker's CPR services: validation, compliance notes on records, the WH-347, and the guarded
certify-and-submit (an e-signature and a filing, which only a person may do)."""
from __future__ import annotations

import base64
from decimal import ROUND_HALF_UP, Decimal
from typing import Literal

from sqlalchemy import select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.tools import GUARDED, READ, WRITE, Text, service

from .models import RecordNote, WageRate
from .records import (cpr_row, get_cpr_row, get_project_row, get_record_row, notes_of, project_summary,
                      week_records, week_text)
from .wh347 import render_wh347, wh347_text

CATEGORIES = ("Apprentice ratio", "Apprentice registration", "Below prevailing wage", "Fringe benefits",
              "Overtime", "Misclassification", "Hours", "Deductions", "Other")
Category = Literal["Apprentice ratio", "Apprentice registration", "Below prevailing wage", "Fringe benefits",
                   "Overtime", "Misclassification", "Hours", "Deductions", "Other"]


def _check(record, employee, classes: set) -> list[str]:
    """The mechanical checks the product runs on an imported record (arithmetic and the form's rules)."""
    out = []
    hours = [Decimal(h) for h in record.daily_hours.split(",")]
    if sum(hours) != record.st_hours + record.ot_hours:
        out.append(f"Daily hours ({sum(hours)}) do not add up to straight time plus overtime "
                   f"({record.st_hours + record.ot_hours}).")
    gross = (record.st_hours * record.st_rate + record.ot_hours * record.ot_rate).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if gross != record.gross:
        out.append(f"Gross {record.gross} is not hours times rates ({gross}).")
    if record.gross - record.fica - record.withholding != record.net:
        out.append("Net wages are not gross less deductions.")
    if (record.classification, record.level) not in classes:
        out.append(f"Classification {record.classification!r} at level {record.level} is not on the wage determination.")
    if record.fringe_method not in ("4(a)", "4(b)", "4(c)"):
        out.append("The fringe benefit method (4(a), 4(b) or 4(c)) is not marked.")
    return out


@service(READ)
def validate_cpr(ctx: ServiceContext, project_id: int, week_ending: str) -> dict:
    """Run LCPtracker's validation of a week's payroll: that each record's hours, arithmetic and
    classification are complete and consistent. It does not judge whether the pay is compliant.

    Args:
        project_id: The project's id.
        week_ending: The Saturday the payroll week ends, e.g. "2026-06-27".
    """
    project = get_project_row(ctx.session, project_id)
    week = week_text(week_ending)
    cpr = get_cpr_row(ctx.session, project, week)
    classes = {(c, lv) for c, lv in ctx.session.execute(
        select(WageRate.classification, WageRate.level).where(WageRate.project_id == project.project_id)).all()}
    results = []
    for record, employee in week_records(ctx.session, project, week):
        for message in _check(record, employee, classes):
            results.append({"record_id": record.record_id, "employee": f"{employee.first_name} {employee.last_name}",
                            "message": message})
    return {**cpr_row(cpr), "contract_number": project.contract_number, "records": len(week_records(ctx.session, project, week)),
            "errors": results, "valid": not results}


@service(WRITE)
def add_record_note(ctx: ServiceContext, record_id: int, category: Category, note: Text) -> dict:
    """Record a compliance note (a finding) on a payroll record, for the contractor to correct.

    Args:
        record_id: The payroll record the note concerns.
        category: What kind of finding it is.
        note: The finding in words: what is wrong and what it should be.
    """
    record = get_record_row(ctx.session, record_id)
    text = note.strip()
    if not text:
        raise ToolError("A note needs some text.", "note")
    existing = notes_of(ctx.session, record.record_id)
    row = RecordNote(note_id=stable_id(ctx.app, "note", record.record_id, len(existing) + 1), record_id=record.record_id,
                     category=category, note=text, created_at=ctx.clock.iso())
    ctx.session.add(row)
    ctx.session.flush()
    return {"note_id": row.note_id, "record_id": record.record_id, "category": category, "note": text,
            "created_at": row.created_at}


def _wh347_fields(ctx: ServiceContext, project_id: int, week_ending: str) -> tuple[dict, list, dict]:
    project = get_project_row(ctx.session, project_id)
    week = week_text(week_ending)
    cpr = get_cpr_row(ctx.session, project, week)
    return project_summary(project), week_records(ctx.session, project, week), cpr_row(cpr)


@service(READ)
def get_wh347(ctx: ServiceContext, project_id: int, week_ending: str) -> dict:
    """The week's WH-347 certified payroll report as a PDF: its text page by page, and the file as base64.

    Args:
        project_id: The project's id.
        week_ending: The Saturday the payroll week ends, e.g. "2026-06-27".
    """
    project, rows, cpr = _wh347_fields(ctx, project_id, week_ending)
    data = render_wh347(project, rows, cpr)
    return {"name": f"WH-347 {project['contract_number']} {cpr['week_ending']}.pdf", "size": len(data),
            "text": wh347_text(data), "content_base64": base64.b64encode(data).decode()}


@service(GUARDED)
def certify_and_submit_cpr(ctx: ServiceContext, project_id: int, week_ending: str, signer_name: str) -> dict:
    """Certify a week's payroll with your e-signature and submit it to the agency. Needs a person's approval.

    Args:
        project_id: The project's id.
        week_ending: The Saturday the payroll week ends.
        signer_name: The name of the person signing the Statement of Compliance.
    """
    project = get_project_row(ctx.session, project_id)
    week = week_text(week_ending)
    cpr = get_cpr_row(ctx.session, project, week)
    if cpr.status != "Draft":
        raise ToolError(f"Payroll {cpr.payroll_number} for the week ending {week} is already {cpr.status.lower()}.",
                        "week_ending")
    if not signer_name.strip():
        raise ToolError("The signer's name is required.", "signer_name")
    return {"action": "certify and submit", "contract_number": project.contract_number, "week_ending": week,
            "payroll_number": cpr.payroll_number, "signer_name": signer_name.strip()}
