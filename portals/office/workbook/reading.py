"""Excel read services, shaped like Microsoft Graph's workbook API: find a workbook, list its
worksheets, read a range, list a table's rows. Reading changes nothing."""
from __future__ import annotations

import base64
from decimal import Decimal

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.paging import check_paging
from portals.core.tools import READ, service

from .cells import area
from .models import Workbook
from .xlsx import write_xlsx
from .store import full_address, get_workbook, grid_of, locate, sheets_of, table_named, tables_of, used_range

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def workbook_summary(row: Workbook) -> dict:
    return {"id": row.id, "name": row.name, "folder": row.folder, "owner": row.owner,
            "modified_at": row.modified_at}


def shown(cell) -> str:
    """The cell's text as Excel displays it under its number format."""
    if cell is None:
        return ""
    if cell.value_type == "number" and cell.number_format == "#,##0.00":
        return f"{Decimal(cell.value):,.2f}"
    return cell.value


def plain_value(cell):
    if cell is None:
        return ""
    if cell.value_type == "number":
        number = Decimal(cell.value)
        return int(number) if number == number.to_integral_value() else float(number)
    if cell.value_type == "boolean":
        return cell.value == "TRUE"
    return cell.value


@service(READ)
def list_workbooks(ctx: ServiceContext, search: str | None = None, page: int = 1, per_page: int = 25) -> dict:
    """List or search the Excel workbooks shared with you, by name; most recently modified first.

    Args:
        search: Words to find in the workbook's name, folder or owner, e.g. "9999" or "Cost to Complete".
        page: Page number, starting at 1.
        per_page: Workbooks per page, 1 to 100.
    """
    check_paging(page, per_page)
    stmt = select(Workbook)
    for word in (search or "").split():
        pattern = f"%{word}%"
        stmt = stmt.where(or_(Workbook.name.ilike(pattern), Workbook.folder.ilike(pattern),
                              Workbook.owner.ilike(pattern)))
    rows = ctx.session.scalars(stmt.order_by(Workbook.modified_at.desc(), Workbook.name)).all()
    start = (page - 1) * per_page
    return {"items": [workbook_summary(r) for r in rows[start:start + per_page]], "page": page,
            "per_page": per_page, "total": len(rows), "pages": (len(rows) + per_page - 1) // per_page}


@service(READ)
def list_worksheets(ctx: ServiceContext, workbook_id: int) -> dict:
    """List a workbook's worksheets in tab order, each with its used range and its tables.

    Args:
        workbook_id: The workbook's id, from the workbook list.
    """
    row = get_workbook(ctx.session, workbook_id)
    sheets = sheets_of(ctx.session, row.id)
    tables = tables_of(ctx.session, [s.id for s in sheets])
    return {"workbook": workbook_summary(row), "items": [
        {"id": s.id, "name": s.name, "position": s.position, "used_range": used_range(ctx.session, s),
         "tables": [t.name for t in tables if t.worksheet_id == s.id]} for s in sheets]}


def range_result(session, sheet, box) -> dict:
    grid = grid_of(session, sheet)
    rows = range(box[0], box[2] + 1)
    cols = range(box[1], box[3] + 1)
    cells = [[grid.get((r, c)) for c in cols] for r in rows]
    return {"address": full_address(sheet, box), "row_count": len(rows), "column_count": len(cols),
            "values": [[plain_value(c) for c in line] for line in cells],
            "text": [[shown(c) for c in line] for line in cells],
            "formulas": [[(c.formula or plain_value(c)) if c else "" for c in line] for line in cells],
            "number_format": [[c.number_format if c else "General" for c in line] for line in cells]}


@service(READ)
def get_range(ctx: ServiceContext, workbook_id: int, address: str) -> dict:
    """Read a range of cells: their values, the text Excel shows, formulas and number formats, row by row.

    Args:
        workbook_id: The workbook's id.
        address: The worksheet and cells, e.g. "Sheet1!A1:D20" or "'Sheet 1'!B7"; the used range of each
            worksheet is in the worksheet list.
    """
    sheet, box = locate(ctx.session, workbook_id, address)
    return range_result(ctx.session, sheet, box)


@service(READ)
def list_table_rows(ctx: ServiceContext, workbook_id: int, table: str, page: int = 1, per_page: int = 50) -> dict:
    """List the data rows of an Excel table (its header row gives the column names).

    Args:
        workbook_id: The workbook's id.
        table: The table's name, as the worksheet list gives it.
        page: Page number, starting at 1.
        per_page: Rows per page, 1 to 100.
    """
    check_paging(page, per_page)
    found, sheet = table_named(ctx.session, workbook_id, table)
    r1, c1, r2, c2 = area(found.ref)
    grid = grid_of(ctx.session, sheet)
    columns = [plain_value(grid.get((r1, c))) for c in range(c1, c2 + 1)]
    data = [{"index": i, "values": [plain_value(grid.get((r, c))) for c in range(c1, c2 + 1)]}
            for i, r in enumerate(range(r1 + 1, r2 + 1))]
    start = (page - 1) * per_page
    return {"table": found.name, "worksheet": sheet.name, "address": full_address(sheet, area(found.ref)),
            "columns": columns, "items": data[start:start + per_page], "page": page, "per_page": per_page,
            "total": len(data), "pages": (len(data) + per_page - 1) // per_page}


@service(READ)
def download_workbook(ctx: ServiceContext, workbook_id: int) -> dict:
    """Download the workbook as an .xlsx file (base64), rebuilt from its current cells.

    Args:
        workbook_id: The workbook's id.
    """
    row = get_workbook(ctx.session, workbook_id)
    sheets = []
    for s in sheets_of(ctx.session, row.id):
        cells = [{"row": c.row, "col": c.col, "value_type": c.value_type, "value": c.value, "formula": c.formula,
                  "number_format": c.number_format} for c in grid_of(ctx.session, s).values()]
        sheets.append({"name": s.name, "cells": cells,
                       "tables": [{"name": t.name, "ref": t.ref} for t in tables_of(ctx.session, [s.id])]})
    data = write_xlsx(sheets, row.owner, row.modified_at)
    return {"id": row.id, "name": row.name, "size": len(data), "content_base64": base64.b64encode(data).decode(),
            "content_type": XLSX_TYPE}

