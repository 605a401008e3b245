"""Build each PM's cost-to-complete workbook from the book, as an .xlsx file first (openpyxl), then
store the cells read back from that file and calculate its formulas."""
from __future__ import annotations

from portals.core.ids import stable_id

from .cells import area_text
from .models import Cell, Table, Workbook, Worksheet
from .store import address_of, calculate_sheet, cell_id
from .xlsx import read_xlsx, write_xlsx

MONEY = "#,##0.00"
HEADERS = ("Cost Code", "Description", "Cost Type", "Revised Budget", "Cost to Date", "Forecast to Complete",
           "Projected Final Cost", "Variance")
NOTES = ("Buyout came in under", "Scope added per RFI", "Productivity behind plan", "Material escalation",
         "Reforecast with superintendent")


def _text(row, col, value):
    return {"row": row, "col": col, "value_type": "string", "value": value, "formula": None}


def _num(row, col, value, formula=None):
    return {"row": row, "col": col, "value_type": "number", "value": value, "formula": formula,
            "number_format": MONEY}


def forecast_sheet(wb: dict, name: str, month: str, as_of: str) -> dict:
    """The forecast by cost code, a subtotal under each division and the job total at the bottom."""
    cells = [_text(1, 1, f"{wb['project']} - Cost to Complete"), _text(2, 1, "Job"), _text(2, 2, wb["job"]),
             _text(3, 1, "Project Manager"), _text(3, 2, wb["pm_name"]), _text(4, 1, "Forecast as of"),
             _text(4, 2, as_of)]
    cells += [_text(6, col, h) for col, h in enumerate(HEADERS, 1)]
    row, subtotals = 7, []
    divisions = sorted({line["cost_code"].split("-")[0] for line in wb["lines"]})
    for division in divisions:
        first = row
        for line in (l for l in wb["lines"] if l["cost_code"].split("-")[0] == division):
            cells += [_text(row, 1, line["cost_code"]), _text(row, 2, line["description"]),
                      _text(row, 3, line["cost_type"]), _num(row, 4, line["revised_budget"]),
                      _num(row, 5, line["cost_to_date"]), _num(row, 6, line[month]),
                      _num(row, 7, "0", f"=E{row}+F{row}"), _num(row, 8, "0", f"=D{row}-G{row}")]
            row += 1
        cells += [_text(row, 2, f"Division {division} subtotal")]
        cells += [_num(row, col, "0", f"=SUM({address_of(first, col)}:{address_of(row - 1, col)})")
                  for col in range(4, 9)]
        subtotals.append(row)
        row += 1
    row += 1
    cells += [_text(row, 2, "Job total")]
    cells += [_num(row, col, "0", "=SUM(" + ",".join(address_of(r, col) for r in subtotals) + ")")
              for col in range(4, 9)]
    return {"name": name, "cells": cells, "tables": []}


def revisions_sheet(wb: dict) -> dict:
    """The PM's log of this month's revisions, kept as an Excel table."""
    heads = ("Cost Code", "Cost Type", "May Forecast", "June Forecast", "Change", "Note")
    cells = [_text(1, col, h) for col, h in enumerate(heads, 1)]
    row = 2
    for line in wb["lines"]:
        if line["forecast_may"] == line["forecast_june"]:
            continue
        note = NOTES[stable_id(wb["job"], line["cost_code"], line["cost_type"]) % len(NOTES)]
        cells += [_text(row, 1, line["cost_code"]), _text(row, 2, line["cost_type"]),
                  _num(row, 3, line["forecast_may"]), _num(row, 4, line["forecast_june"]),
                  _num(row, 5, "0", f"=D{row}-C{row}"), _text(row, 6, note)]
        row += 1
    ref = area_text(1, 1, row - 1, len(heads))
    return {"name": "Revisions", "cells": cells, "tables": [{"name": "Revisions", "ref": ref}]}


def workbook_sheets(wb: dict) -> list[dict]:
    return [forecast_sheet(wb, "June 2026", "forecast_june", "2026-06-30"),
            forecast_sheet(wb, "May 2026", "forecast_may", "2026-05-31"),
            revisions_sheet(wb)]


def seed(session, book, rng, clock, spec) -> None:
    for wb in sorted(book.get("workbooks", []), key=lambda w: w["name"]):
        workbook_id = stable_id(spec.name, "workbook", wb["name"])
        session.add(Workbook(id=workbook_id, name=wb["name"], folder=f"/Documents/Forecasts/{wb['job']}",
                             owner=wb["pm_name"], modified_at=wb["modified_at"]))
        data = write_xlsx(workbook_sheets(wb), wb["pm_name"], wb["modified_at"])
        for position, sheet in enumerate(read_xlsx(data)):
            sheet_id = stable_id(spec.name, "worksheet", workbook_id, sheet["name"])
            session.add(Worksheet(id=sheet_id, workbook_id=workbook_id, name=sheet["name"], position=position))
            grid = {}
            for c in sheet["cells"]:
                address = address_of(c["row"], c["col"])
                grid[(c["row"], c["col"])] = Cell(
                    id=cell_id(sheet_id, address), worksheet_id=sheet_id, address=address, row=c["row"],
                    col=c["col"], value_type=c["value_type"], value=c["value"], formula=c["formula"],
                    number_format=c["number_format"])
            calculate_sheet(grid)
            session.add_all(grid.values())
            for t in sheet["tables"]:
                session.add(Table(id=stable_id(spec.name, "table", workbook_id, t["name"]), worksheet_id=sheet_id,
                                  name=t["name"], ref=t["ref"]))
    session.flush()
