"""An export to accounting as HeavyBid writes it: an .xlsx with a Cost Budget sheet and a Revenue
sheet, stamped with the export's time (not the wall clock), so one export gives one file."""
from __future__ import annotations

from decimal import Decimal

from portals.office.workbook.xlsx import write_xlsx

COST_HEAD = ("Biditem", "Activity", "Description", "Resource Type", "Resource", "Amount")
REVENUE_HEAD = ("Biditem", "Description", "Quantity", "Unit", "Unit Price", "Total")


def _cells(rows: list[tuple]) -> list[dict]:
    out = []
    for r, row in enumerate(rows, 1):
        for c, value in enumerate(row, 1):
            if value is None or value == "":
                continue
            number = r > 1 and isinstance(value, Decimal)
            out.append({"row": r, "col": c, "value_type": "number" if number else "string",
                        "value": str(value), "number_format": "#,##0.00" if number else "General"})
    return out


def export_xlsx(estimate: dict, export: dict) -> bytes:
    cost = [COST_HEAD] + [(n["biditem"], n["activity"], n["description"], n["resource_type"], n["resource"],
                           Decimal(n["amount"])) for n in export["cost_lines"]]
    revenue = [REVENUE_HEAD] + [(n["biditem"], n["description"], Decimal(n["quantity"]), n["unit"],
                                 Decimal(n["unit_price"]), Decimal(n["amount"])) for n in export["revenue_lines"]]
    return write_xlsx([{"name": "Cost Budget", "cells": _cells(cost)}, {"name": "Revenue", "cells": _cells(revenue)}],
                      author=estimate["estimator"], at=export["exported_at"])
