"""Excel write services, shaped like Microsoft Graph's workbook API: write a range, add rows to a
table, calculate. The workbook calculates automatically, as Excel does: a write recalculates the
formulas of the sheet it touched, so a saved workbook never shows a stale total."""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Literal

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.tools import WRITE, Grid, service

from .cells import area, check_formula, number_text
from .models import Cell
from .reading import range_result
from .store import address_of, calculate_sheet, cell_id, get_workbook, grid_of, locate, sheets_of, table_named

NUMBER = re.compile(r"^\s*(-)?\$?\s*([0-9]{1,15}(?:,[0-9]{3})*|[0-9]+)(\.[0-9]+)?\s*$")


def _typed(raw) -> tuple[str, str, str | None] | None:
    """(value_type, value, formula) of one value as Excel takes it when typed; None clears the cell.
    Text that reads as a number ("1,250.00", "$1250") becomes a number, as Excel parses it."""
    if raw is None or (isinstance(raw, str) and raw.strip() == ""):
        return None
    if isinstance(raw, bool):
        return "boolean", "TRUE" if raw else "FALSE", None
    if isinstance(raw, (int, float)):
        return "number", number_text(Decimal(str(raw))), None
    text = raw.strip()
    if text.startswith("="):
        check_formula(text)
        return "number", "0", text.upper()
    match = NUMBER.match(text)
    if match:
        try:
            number = Decimal((match.group(1) or "") + match.group(2).replace(",", "") + (match.group(3) or ""))
        except InvalidOperation:
            return "string", raw, None
        return "number", number_text(number), None
    if text.upper() in ("TRUE", "FALSE"):
        return "boolean", text.upper(), None
    return "string", raw, None


def _write(ctx: ServiceContext, sheet, grid: dict, top: int, left: int, values: list[list]) -> None:
    """Put a block of values on the sheet at (top, left), then calculate the sheet."""
    typed = [[_typed(v) for v in row] for row in values]  # every value checked before any is written
    for i, row in enumerate(typed):
        for j, value in enumerate(row):
            r, c = top + i, left + j
            cell = grid.get((r, c))
            if value is None:
                if cell is not None:
                    ctx.session.delete(cell)
                    del grid[(r, c)]
                continue
            kind, text, formula = value
            if cell is None:
                address = address_of(r, c)
                cell = Cell(id=cell_id(sheet.id, address), worksheet_id=sheet.id, address=address, row=r, col=c,
                            number_format="General")
                ctx.session.add(cell)
                grid[(r, c)] = cell
            cell.value_type, cell.value, cell.formula = kind, text, formula
    calculate_sheet(grid)


def _touch(ctx: ServiceContext, workbook_id: int) -> None:
    get_workbook(ctx.session, workbook_id).modified_at = ctx.clock.iso()


@service(WRITE)
def update_range(ctx: ServiceContext, workbook_id: int, address: str, values: Grid) -> dict:
    """Write values into a range of cells; the block of values must have the range's shape.

    A value starting with = is a formula (numbers, cell references, SUM(...), + - * / and parentheses);
    text that reads as a number is stored as a number; null or "" clears a cell. The sheet's formulas
    recalculate as soon as the values are written.

    Args:
        workbook_id: The workbook's id.
        address: The worksheet and cells to write, e.g. "Sheet1!B7" or "Sheet1!A1:C2".
        values: The values row by row, e.g. [[1250.5]] for one cell or [["A", 1], ["B", 2]] for two rows.
    """
    sheet, box = locate(ctx.session, workbook_id, address)
    rows, cols = box[2] - box[0] + 1, box[3] - box[1] + 1
    if len(values) != rows or any(len(row) != cols for row in values):
        raise ToolError(f"The values must be {rows} row(s) of {cols} value(s) each, the shape of the range.",
                        "values")
    grid = grid_of(ctx.session, sheet)
    _write(ctx, sheet, grid, box[0], box[1], values)
    _touch(ctx, workbook_id)
    ctx.session.flush()
    return range_result(ctx.session, sheet, box)


@service(WRITE)
def add_table_rows(ctx: ServiceContext, workbook_id: int, table: str, values: Grid) -> dict:
    """Add rows at the bottom of an Excel table; each row gives one value per table column.

    Args:
        workbook_id: The workbook's id.
        table: The table's name, as the worksheet list gives it.
        values: The new rows, each a list of one value per column, e.g. [["01-100", "L", 1200]].
    """
    found, sheet = table_named(ctx.session, workbook_id, table)
    r1, c1, r2, c2 = area(found.ref)
    width = c2 - c1 + 1
    if any(len(row) != width for row in values):
        raise ToolError(f"Each row must give {width} values, one per column of the table.", "values")
    if len(values) > 100:
        raise ToolError("Add at most 100 rows at a time.", "values")
    grid = grid_of(ctx.session, sheet)
    below = [(r, c) for (r, c) in grid if r2 < r <= r2 + len(values) and c1 <= c <= c2]
    if below:
        raise ToolError(f"The cells under the table are not empty ({address_of(*min(below))}); the rows "
                        "cannot be added without overwriting them.", "values")
    _write(ctx, sheet, grid, r2 + 1, c1, values)
    found.ref = f"{address_of(r1, c1)}:{address_of(r2 + len(values), c2)}"
    _touch(ctx, workbook_id)
    ctx.session.flush()
    return {"table": found.name, "address": found.ref, "added": len(values),
            "index": list(range(r2 - r1, r2 - r1 + len(values)))}


@service(WRITE)
def calculate(ctx: ServiceContext, workbook_id: int,
              calculation_type: Literal["Recalculate", "Full", "FullRebuild"] = "Recalculate") -> dict:
    """Calculate the workbook: recompute every formula from the cells' current values.

    Writes already recalculate their sheet, so this changes nothing in a workbook that is up to date;
    it saves only the cells whose value moved and says which. The three types do the same here.

    Args:
        workbook_id: The workbook's id.
        calculation_type: Recalculate, Full or FullRebuild (Microsoft Graph's names).
    """
    get_workbook(ctx.session, workbook_id)
    changed, formulas = [], 0
    for sheet in sheets_of(ctx.session, workbook_id):
        grid = grid_of(ctx.session, sheet)
        formulas += sum(1 for c in grid.values() if c.formula)
        changed += [f"{sheet.name}!{c.address}" for c in calculate_sheet(grid)]
    if changed:
        _touch(ctx, workbook_id)
    ctx.session.flush()
    return {"calculation_type": calculation_type, "formulas": formulas, "changed": changed}
