"""Excel: the manifest, real .xlsx files, every tool through the environment, calculation, bad input,
and the workbook page's formula bar, table-row form and Calculate Now."""
from __future__ import annotations

import base64
import io
import re

import pytest
from openpyxl import load_workbook

from conftest import post_form
from portals.core.clock import Clock
from portals.core.dispatch import call_service
from portals.core.episode import build_template
from portals.core.registry import get_app
from seeds.book import load_book

APPS = ["excel"]
JUNE = "'June 2026'"


def _workbook(env, job: str = "4418") -> int:
    return next(w["id"] for w in env.call("excel.workbooks.list", {"search": job})["items"]
                if w["name"] == f"{job} Cost to Complete.xlsx")


def _total_row(env, workbook: int) -> int:
    rows = env.call("excel.range.get", {"workbook_id": workbook, "address": f"{JUNE}!B1:B80"})["values"]
    return next(i for i, (label,) in enumerate(rows, 1) if label == "Job total")


def test_manifest_tools_are_graphs_and_none_is_guarded():
    spec = get_app("excel")
    assert set(spec.tools) == {"workbooks.list", "worksheets.list", "range.get", "tables.rows.list",
                               "range.update", "tables.rows.add", "workbook.calculate"}
    assert not any(t.guarded for t in spec.tools.values())
    assert {n for n, t in spec.tools.items() if t.mutates} == {"range.update", "tables.rows.add", "workbook.calculate"}
    assert set(spec.manifest["state_tables"]) == set(spec.pks)
    values = spec.tools["range.update"].schema()["parameters"]["properties"]["values"]
    assert values["type"] == "array" and values["items"]["type"] == "array"


def test_seeding_is_byte_identical():
    spec, clock = get_app("excel"), Clock.at("2026-06-30T17:00:00Z")
    assert build_template(spec, load_book(), 7, clock).snapshot() == build_template(spec, load_book(), 7, clock).snapshot()


def test_the_download_is_a_real_workbook_and_the_same_bytes_each_time(env, episode):
    workbook = _workbook(env)
    data = [base64.b64decode(call_service(episode, "excel", "download_workbook", {"workbook_id": workbook})
                             ["content_base64"]) for _ in (1, 2)]
    assert data[0] == data[1] and data[0][:2] == b"PK"
    book = load_workbook(io.BytesIO(data[0]))
    assert book.sheetnames == ["June 2026", "May 2026", "Revisions"]
    june = book["June 2026"]
    row = _total_row(env, workbook)
    assert june[f"B{row}"].value == "Job total" and june[f"F{row}"].value.startswith("=SUM(")
    assert "Revisions" in book["Revisions"].tables
    assert episode.diff() == {}


def test_reads_change_nothing(env, episode):
    workbook = _workbook(env)
    sheets = env.call("excel.worksheets.list", {"workbook_id": workbook})["items"]
    assert [s["name"] for s in sheets] == ["June 2026", "May 2026", "Revisions"]
    assert sheets[2]["tables"] == ["Revisions"] and sheets[0]["used_range"].startswith(f"{JUNE}!A1:H")
    head = env.call("excel.range.get", {"workbook_id": workbook, "address": f"{JUNE}!A6:H7"})
    assert head["values"][0][5] == "Forecast to Complete" and head["row_count"] == 2 and head["column_count"] == 8
    assert head["formulas"][1][6] == "=E7+F7" and head["text"][1][3].count(",") >= 0
    rows = env.call("excel.tables.rows.list", {"workbook_id": workbook, "table": "revisions"})
    assert rows["columns"][:4] == ["Cost Code", "Cost Type", "May Forecast", "June Forecast"] and rows["total"] >= 1
    assert env.call("excel.workbooks.list", {"search": "Cost to Complete"})["total"] == 4
    assert episode.diff() == {}


def test_a_write_recalculates_its_sheet_and_shows_in_the_diff(env, episode):
    workbook = _workbook(env)
    row = _total_row(env, workbook)
    before = env.call("excel.range.get", {"workbook_id": workbook, "address": f"{JUNE}!F7"})["values"][0][0]
    total = env.call("excel.range.get", {"workbook_id": workbook, "address": f"{JUNE}!F{row}"})["values"][0][0]
    out = env.call("excel.range.update", {"workbook_id": workbook, "address": f"{JUNE}!F7", "values": [["$1,000.50"]]})
    assert out["values"] == [[1000.5]]
    after = env.call("excel.range.get", {"workbook_id": workbook, "address": f"{JUNE}!F{row}"})["values"][0][0]
    assert round(after - total, 2) == round(1000.5 - before, 2)
    changed = {c["after"]["address"] for c in episode.diff()["excel"]["cells"]["changed"]}
    assert {"F7", "G7", "H7", f"F{row}"} <= changed
    assert env.call("excel.workbook.calculate", {"workbook_id": workbook})["changed"] == []


def test_formulas_and_table_rows(env, episode):
    workbook = _workbook(env)
    env.call("excel.range.update", {"workbook_id": workbook, "address": "Revisions!J1:K2",
                                    "values": [[2, 3], ["=J1*K1+(J1-1)/2", None]]})
    got = env.call("excel.range.get", {"workbook_id": workbook, "address": "Revisions!J2"})
    assert got["values"] == [[6.5]] and got["formulas"] == [["=J1*K1+(J1-1)/2"]]
    table = env.call("excel.tables.rows.list", {"workbook_id": workbook, "table": "Revisions"})
    added = env.call("excel.tables.rows.add", {"workbook_id": workbook, "table": "Revisions",
                                               "values": [["01-100", "L", 10, 12, None, "note"]]})
    assert added["index"] == [table["total"]]
    rows = env.call("excel.tables.rows.list", {"workbook_id": workbook, "table": "Revisions", "per_page": 100})
    assert rows["total"] == table["total"] + 1 and rows["items"][-1]["values"][:4] == ["01-100", "L", 10, 12]
    diff = episode.diff()["excel"]
    assert len(diff["tables"]["changed"]) == 1 and diff["cells"]["added"]


@pytest.mark.parametrize("tool,args", [
    ("excel.worksheets.list", {"workbook_id": 1}),
    ("excel.range.get", {"workbook_id": "{wb}", "address": "A1:B2"}),
    ("excel.range.get", {"workbook_id": "{wb}", "address": "Nope!A1"}),
    ("excel.range.get", {"workbook_id": "{wb}", "address": f"{JUNE}!A1:ZZZ9999"}),
    ("excel.range.get", {"workbook_id": "{wb}", "address": f"{JUNE}!1A"}),
    ("excel.tables.rows.list", {"workbook_id": "{wb}", "table": "Nope"}),
    ("excel.range.update", {"workbook_id": "{wb}", "address": f"{JUNE}!A1:B1", "values": [["x"]]}),
    ("excel.range.update", {"workbook_id": "{wb}", "address": f"{JUNE}!A1", "values": [["=VLOOKUP(A1)"]]}),
    ("excel.range.update", {"workbook_id": "{wb}", "address": f"{JUNE}!A1", "values": [["=1+"]]}),
    ("excel.range.update", {"workbook_id": "{wb}", "address": f"{JUNE}!A1", "values": "x"}),
    ("excel.range.update", {"workbook_id": "{wb}", "address": f"{JUNE}!A1", "values": [[{"a": 1}]]}),
    ("excel.tables.rows.add", {"workbook_id": "{wb}", "table": "Revisions", "values": [["too", "short"]]}),
    ("excel.workbook.calculate", {"workbook_id": "{wb}", "calculation_type": "Partial"}),
])
def test_bad_input_is_refused_without_change(env, episode, tool, args):
    workbook = _workbook(env)
    args = {k: (workbook if v == "{wb}" else v) for k, v in args.items()}
    before = episode.snapshot()
    result = env.call(tool, args)
    assert "error" in result and result["message"]
    assert episode.snapshot() == before and episode.guard_log == []


def _page(client, url):
    resp = client.get(url)
    assert resp.status_code == 200, url
    return resp.get_data(as_text=True)


def test_pages_render_accessibly_and_reading_changes_nothing(client, env, episode):
    workbook = _workbook(env)
    listing = _page(client, "/excel/?search=4418")
    assert 'aria-label="Open workbook 4418 Cost to Complete.xlsx"' in listing
    page = _page(client, f"/excel/workbook/{workbook}?cell=F7")
    assert '<th scope="col"' in page and '<th scope="row"' in page and 'aria-label="Sheets"' in page
    assert '<label for="f-value">' in page and 'value="=E7+F7"' not in page
    assert re.search(r'<button type="submit"[^>]*>Enter</button>', page)
    assert "Add a row to table Revisions" in _page(client, f"/excel/workbook/{workbook}?sheet=Revisions")
    assert client.get(f"/excel/workbook/{workbook}?sheet=Nope").status_code == 404
    assert client.get("/excel/workbook/1").status_code == 404
    assert episode.diff() == {}


def test_the_formula_bar_saves_a_cell_as_the_tool_does(client, env, episode, store):
    workbook = _workbook(env)
    resp = post_form(client, f"/excel/workbook/{workbook}/cell", {"sheet": "June 2026", "cell": "f7", "value": "1250"})
    assert resp.status_code == 302 and "Cell saved." in _page(client, resp.headers["Location"])
    other = store.create(APPS)
    try:
        from portals.core.environment import Environment
        Environment(other, APPS).call("excel.range.update", {"workbook_id": workbook, "address": f"{JUNE}!F7",
                                                             "values": [[1250]]})
        assert other.diff() == episode.diff() and episode.diff()
    finally:
        store.drop(other.id)


@pytest.mark.parametrize("data,message", [
    ({"sheet": "June 2026", "cell": "F7", "value": "=SUM(F1:"}, "does not calculate"),
    ({"sheet": "June 2026", "cell": "Q0", "value": "1"}, "outside the sheet"),
    ({"sheet": "June 2026", "cell": "", "value": "1"}, "is not a cell address"),
    ({"sheet": "June 2026", "cell": "F7", "value": "=F7+1"}, "circular reference"),
])
def test_the_formula_bar_validates(client, env, episode, data, message):
    workbook = _workbook(env)
    resp = post_form(client, f"/excel/workbook/{workbook}/cell", data)
    assert resp.status_code == 422 and message in resp.get_data(as_text=True)
    assert episode.diff() == {}


def test_table_row_form_and_calculate_now(client, env, episode):
    workbook = _workbook(env)
    short = post_form(client, f"/excel/workbook/{workbook}/table-row", {"sheet": "Revisions", "table": "Revisions",
                                                                         "cell": ["01-100"]})
    assert short.status_code == 422 and "one per column" in short.get_data(as_text=True) and episode.diff() == {}
    calc = post_form(client, f"/excel/workbook/{workbook}/calculate", {"sheet": "June 2026"})
    assert calc.status_code == 302 and episode.diff() == {}
    resp = client.post(f"/excel/workbook/{workbook}/table-row", data={
        "csrf_token": client.csrf, "sheet": "Revisions", "table": "Revisions",
        "cell": ["01-100", "L", "10", "12", "", "note"]})
    assert resp.status_code == 302 and episode.diff()["excel"]["tables"]["changed"]


def test_a_cell_far_down_the_sheet_is_shown_in_a_window_around_it(client, env, episode):
    workbook = _workbook(env)
    env.call("excel.range.update", {"workbook_id": workbook, "address": f"{JUNE}!GR9000", "values": [["far"]]})
    first = _page(client, f"/excel/workbook/{workbook}")
    assert "Job total" in first and ">far<" not in first
    far = _page(client, f"/excel/workbook/{workbook}?cell=GR9000")
    assert ">far<" in far and '<th scope="row" class="xl-sel-head">9000</th>' in far
    assert "Contents of cell GR9000" in far


def test_a_workbook_file_does_not_carry_the_wall_clock():
    """openpyxl stamps the time of saving into the file: two saves a second apart are one file."""
    import time

    from portals.office.workbook.xlsx import write_xlsx

    sheets = [{"name": "S", "cells": [{"row": 1, "col": 1, "value_type": "number", "value": "1"}], "tables": []}]
    first = write_xlsx(sheets, "PM", "2026-06-30T17:00:00Z")
    time.sleep(1.1)
    assert write_xlsx(sheets, "PM", "2026-06-30T17:00:00Z") == first
