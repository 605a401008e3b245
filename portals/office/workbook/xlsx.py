"""Workbooks as real .xlsx files, through openpyxl: the seed writes each PM's workbook as a file
and reads its cells back from it, and a download rebuilds the file from the stored cells.

openpyxl stamps the time of writing on every zip entry and in the document properties, so the
bytes are made canonical (a fixed time everywhere) and one workbook gives one file, every time.
"""
from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime
from decimal import Decimal

from openpyxl import Workbook as XlsxBook
from openpyxl import load_workbook
from openpyxl.worksheet.table import Table as XlsxTable, TableStyleInfo

from .cells import number_text

ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def write_xlsx(sheets: list[dict], author: str, at: str) -> bytes:
    """sheets: [{name, cells: [{row, col, value_type, value, formula, number_format}], tables: [{name, ref}]}]."""
    book = XlsxBook()
    book.remove(book.active)
    for sheet in sheets:
        ws = book.create_sheet(sheet["name"])
        for c in sorted(sheet["cells"], key=lambda c: (c["row"], c["col"])):
            cell = ws.cell(row=c["row"], column=c["col"], value=_xlsx_value(c))
            if c.get("number_format", "General") != "General":
                cell.number_format = c["number_format"]
        for t in sheet.get("tables", []):
            table = XlsxTable(displayName=t["name"], ref=t["ref"])
            table.tableStyleInfo = TableStyleInfo(name="TableStyleMedium2", showRowStripes=True)
            ws.add_table(table)
    stamp = datetime.fromisoformat(at.replace("Z", "+00:00")).replace(tzinfo=None)
    book.properties.creator = book.properties.lastModifiedBy = author
    book.properties.created = book.properties.modified = stamp
    raw = io.BytesIO()
    book.save(raw)  # openpyxl's save stamps the wall clock as the modified time: put ours back
    return _canonical_zip(raw.getvalue(), stamp.strftime("%Y-%m-%dT%H:%M:%SZ"))


def _xlsx_value(c: dict):
    if c.get("formula"):
        return c["formula"]
    if c["value_type"] == "number":
        return Decimal(c["value"])
    if c["value_type"] == "boolean":
        return c["value"] == "TRUE"
    return c["value"]


MODIFIED = re.compile(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)")


def _canonical_zip(data: bytes, modified: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            entry = zipfile.ZipInfo(info.filename, ZIP_TIME)
            entry.compress_type, entry.external_attr = zipfile.ZIP_DEFLATED, 0o600 << 16
            body = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = MODIFIED.sub(rb"\g<1>" + modified.encode() + rb"\g<2>", body)
            dst.writestr(entry, body)
    return out.getvalue()


def read_xlsx(data: bytes) -> list[dict]:
    """The sheets of an .xlsx file as write_xlsx takes them; formulas come back without values
    (the caller calculates them)."""
    book = load_workbook(io.BytesIO(data))
    sheets = []
    for ws in book.worksheets:
        cells = []
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is None or cell.value == "":
                    continue
                cells.append({"row": cell.row, "col": cell.column, "number_format": cell.number_format,
                              **_typed(cell.value)})
        tables = [{"name": t.displayName, "ref": t.ref} for t in ws.tables.values()]
        sheets.append({"name": ws.title, "cells": cells, "tables": sorted(tables, key=lambda t: t["name"])})
    return sheets


def _typed(value) -> dict:
    if isinstance(value, str) and value.startswith("="):
        return {"value_type": "number", "value": "0", "formula": value}
    if isinstance(value, bool):
        return {"value_type": "boolean", "value": "TRUE" if value else "FALSE", "formula": None}
    if isinstance(value, (int, float, Decimal)):
        return {"value_type": "number", "value": number_text(Decimal(str(value))), "formula": None}
    return {"value_type": "string", "value": str(value), "formula": None}
