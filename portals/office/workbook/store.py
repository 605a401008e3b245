"""Lookups over the stored cells, and calculation: what the read and write services share."""
from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from portals.core.errors import NotFound, ToolError
from portals.core.ids import stable_id

from .cells import area, area_text, col_letter, evaluate, sheet_prefix, split_address
from .models import Cell, Table, Workbook, Worksheet

MAX_CELLS = 2000  # one range read or write; a whole seeded sheet fits


def cell_id(worksheet_id: int, address: str) -> int:
    return stable_id("excel-cell", worksheet_id, address, digits=12)


def get_workbook(session, workbook_id: int) -> Workbook:
    row = session.get(Workbook, workbook_id)
    if row is None:
        raise NotFound(f"There is no workbook with id {workbook_id}.", "workbook_id")
    return row


def sheets_of(session, workbook_id: int) -> list[Worksheet]:
    return list(session.scalars(select(Worksheet).where(Worksheet.workbook_id == workbook_id)
                                .order_by(Worksheet.position)))


def sheet_named(session, workbook_id: int, name: str | None, field: str = "address") -> Worksheet:
    sheets = sheets_of(session, workbook_id)
    if not name:
        raise ToolError("Name the worksheet in the address, e.g. Sheet1!A1:D20 (quote a name with spaces: "
                        "'Sheet 1'!A1).", field)
    for sheet in sheets:
        if sheet.name.casefold() == name.casefold():
            return sheet
    raise NotFound(f"The workbook has no worksheet named {name[:40]!r}; it has: "
                   f"{', '.join(s.name for s in sheets)}.", field)


def locate(session, workbook_id: int, address: str) -> tuple[Worksheet, tuple[int, int, int, int]]:
    """The worksheet and area of "Sheet1!A1:D20"; refuses an area larger than one call may carry."""
    get_workbook(session, workbook_id)
    name, cells = split_address(address)
    sheet = sheet_named(session, workbook_id, name)
    box = area(cells)
    if (box[2] - box[0] + 1) * (box[3] - box[1] + 1) > MAX_CELLS:
        raise ToolError(f"That range has more than {MAX_CELLS} cells; ask for a smaller one.", "address")
    return sheet, box


def full_address(sheet: Worksheet, box) -> str:
    return f"{sheet_prefix(sheet.name)}!{area_text(*box)}"


def grid_of(session, sheet: Worksheet) -> dict[tuple[int, int], Cell]:
    return {(c.row, c.col): c for c in session.scalars(select(Cell).where(Cell.worksheet_id == sheet.id))}


def used_range(session, sheet: Worksheet) -> str | None:
    cells = list(grid_of(session, sheet))
    if not cells:
        return None
    return full_address(sheet, (1, 1, max(r for r, _ in cells), max(c for _, c in cells)))


def tables_of(session, sheet_ids: list[int]) -> list[Table]:
    return list(session.scalars(select(Table).where(Table.worksheet_id.in_(sheet_ids)).order_by(Table.name)))


def table_named(session, workbook_id: int, name: str) -> tuple[Table, Worksheet]:
    sheets = {s.id: s for s in sheets_of(session, get_workbook(session, workbook_id).id)}
    tables = tables_of(session, list(sheets))
    for table in tables:
        if table.name.casefold() == name.strip().casefold():
            return table, sheets[table.worksheet_id]
    raise NotFound(f"The workbook has no table named {name.strip()[:40]!r}; it has: "
                   f"{', '.join(t.name for t in tables) or 'none'}.", "table")


def calculate_sheet(grid: dict[tuple[int, int], Cell]) -> list[Cell]:
    """Recalculate every formula of one sheet until the values settle; the cells whose value moved.

    Formulas read only their own sheet, so a sheet is calculated alone. Passes repeat at most once
    per formula, which settles any chain of references in sheet order or not; values still moving
    after that come from a circular reference, which is refused (the caller's write rolls back)."""
    formulas = sorted((c for c in grid.values() if c.formula), key=lambda c: (c.row, c.col))

    def lookup(box):
        r1, c1, r2, c2 = box
        return [Decimal(c.value) for (r, col), c in grid.items()
                if r1 <= r <= r2 and c1 <= col <= c2 and c.value_type == "number"]

    moved: dict[int, Cell] = {}
    for _ in range(len(formulas) + 1):
        changed = False
        for cell in formulas:
            value = evaluate(cell.formula, lookup)
            kind = "error" if value.startswith("#") else "number"
            if (value, kind) != (cell.value, cell.value_type):
                cell.value, cell.value_type, changed = value, kind, True
                moved[cell.id] = cell
        if not changed:
            break
    else:
        raise ToolError("A formula refers back to its own cell (a circular reference), so it never settles; "
                        "nothing was written.", "values")
    return sorted(moved.values(), key=lambda c: (c.row, c.col))


def address_of(row: int, col: int) -> str:
    return f"{col_letter(col)}{row}"
