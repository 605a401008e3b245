"""Excel's web pages: the workbook list, and a workbook open on one worksheet with the formula bar,
lettered columns, numbered rows and sheet tabs. Editing a cell posts the formula bar to
range.update; adding a table row and Calculate Now post to their own services."""
from __future__ import annotations

import base64
import io

from flask import Blueprint, redirect, request, send_file, url_for

from portals.core.errors import NotFound, ToolError
from portals.core.ui import listing, render_view
from portals.core.views import list_args, ui_call

from .cells import MAX_COL, MAX_ROW, area, cell_ref, col_letter, sheet_prefix

NOTICES = {"saved": "Cell saved.", "row": "Row added to the table.", "calculated": "Workbook calculated."}
ROWS, COLS = 100, 16  # the part of a sheet one page shows
SORT = {"name": ("name", "text"), "owner": ("owner", "text"), "modified": ("modified_at", "date")}


def _address(sheet: str, cell: str) -> str:
    return f"{sheet_prefix(sheet)}!{cell}"


def make_blueprint(spec) -> Blueprint:
    bp = Blueprint(spec.name, __name__)

    @bp.get("/")
    def workbooks():
        result = listing(spec, "list_workbooks", list_args("search"), SORT)
        return render_view(spec, "excel/workbooks.html", 200, ("results",), result=result)

    def sheet_page(workbook_id: int, status: int = 200, sheet_name: str | None = None, cell: str | None = None,
                   **extra):
        sheets = ui_call(spec, "list_worksheets", {"workbook_id": workbook_id})
        names = [s["name"] for s in sheets["items"]]
        wanted = sheet_name if sheet_name is not None else request.args.get("sheet") or names[0]
        current = next((s for s in sheets["items"] if s["name"].casefold() == wanted.casefold()), None)
        if current is None:
            raise NotFound(f"The workbook has no worksheet named {wanted[:40]!r}.", "sheet")
        used = current["used_range"].rsplit("!", 1)[1] if current["used_range"] else "A1"
        _, _, last_row, last_col = area(used)
        selected = (cell if cell is not None else request.args.get("cell") or "A1").upper()
        try:
            row, col = cell_ref(selected, "cell")
        except ToolError:
            row, col = 1, 1
        selected = f"{col_letter(col)}{row}"  # "$f$7" as "F7"
        # a window of the sheet that holds the selected cell: all of a seeded sheet, a part of a huge one
        top = 1 if row <= ROWS else row - ROWS // 2
        left = 1 if col <= COLS else col - COLS // 2
        bottom = min(max(last_row + 2, 20, row), top + ROWS - 1, MAX_ROW)
        right = min(max(last_col + 1, 8, col), left + COLS - 1, MAX_COL)
        grid = ui_call(spec, "get_range", {"workbook_id": workbook_id, "address": _address(
            current["name"], f"{col_letter(left)}{top}:{col_letter(right)}{bottom}")})
        picked = ui_call(spec, "get_range", {"workbook_id": workbook_id, "address": _address(current["name"], selected)})
        formula = picked["formulas"][0][0]
        columns = {t: ui_call(spec, "list_table_rows", {"workbook_id": workbook_id, "table": t, "per_page": 1})["columns"]
                   for t in current["tables"]}
        return render_view(spec, "excel/workbook.html", status, book=sheets["workbook"], sheets=sheets["items"],
                           sheet=current, grid=grid, letters=[col_letter(c) for c in range(left, right + 1)], top=top,
                           selected=selected, sel_row=row, columns=columns,
                           formula="" if formula == "" else str(formula),
                           notice=NOTICES.get(request.args.get("done", "")), **extra)

    @bp.get("/workbook/<int:workbook_id>")
    def workbook(workbook_id: int):
        return sheet_page(workbook_id)

    @bp.post("/workbook/<int:workbook_id>/cell")
    def edit_cell(workbook_id: int):
        sheet, cell = request.form.get("sheet", ""), (request.form.get("cell") or "").strip().upper()
        value = request.form.get("value", "")
        args = {"workbook_id": workbook_id, "address": _address(sheet, cell or "?"), "values": [[value]]}
        try:
            cell_ref(cell, "cell")
            ui_call(spec, "update_range", args)
        except ToolError as err:
            errors = {"value" if err.field in ("values", None) else "cell": err.message}
            return sheet_page(workbook_id, 422, sheet_name=sheet or None, cell=cell if cell else None,
                              errors=errors, form={"value": value})
        return redirect(url_for(f"{spec.name}.workbook", workbook_id=workbook_id, sheet=sheet, cell=cell,
                                done="saved"))

    @bp.post("/workbook/<int:workbook_id>/table-row")
    def add_row(workbook_id: int):
        sheet, table = request.form.get("sheet", ""), request.form.get("table", "")
        cells = request.form.getlist("cell")
        try:
            ui_call(spec, "add_table_rows", {"workbook_id": workbook_id, "table": table, "values": [cells]})
        except ToolError as err:
            return sheet_page(workbook_id, 422, sheet_name=sheet or None,
                              errors={"row": err.message}, form={"row": cells})
        return redirect(url_for(f"{spec.name}.workbook", workbook_id=workbook_id, sheet=sheet, done="row"))

    @bp.post("/workbook/<int:workbook_id>/calculate")
    def calculate_now(workbook_id: int):
        sheet = request.form.get("sheet", "")
        ui_call(spec, "calculate", {"workbook_id": workbook_id, "calculation_type": "Recalculate"})
        return redirect(url_for(f"{spec.name}.workbook", workbook_id=workbook_id, sheet=sheet, done="calculated"))

    @bp.get("/workbook/<int:workbook_id>/download")
    def download(workbook_id: int):
        result = ui_call(spec, "download_workbook", {"workbook_id": workbook_id})
        return send_file(io.BytesIO(base64.b64decode(result["content_base64"])), mimetype=result["content_type"],
                         download_name=result["name"])

    return bp
