"""Lists sorted in SQL (portals/core/sorting.py): the tool's `sort` and the page's column headers
give the order a person expects — case-blind text, amounts as numbers, rows without a value last
either way, ties in the list's own order — the same order the portal gives lists that sort in
Python, one page read instead of every row."""
from __future__ import annotations

import re

import pytest

from portals.core.ui import _field, _sort_value
from portals.pm.contracts import REQUISITION_SORT
from portals.pm.views_invoicing import INVOICE_SORT

APPS = ["procore"]
TOOL = "procore.requisitions.list"


def _all(env, **args) -> list[dict]:
    rows, page = [], 1
    while True:
        out = env.call(TOOL, {**args, "page": page, "per_page": 100})
        assert "error" not in out, out
        rows += out["items"]
        if page >= (out["pages"] or 1):
            return rows
        page += 1


def _expected(rows: list[dict], key: str, descending: bool) -> list[int]:
    """The order ui.listing gives a list that sorts in Python (stable, missing values last)."""
    path, kind = INVOICE_SORT[key]
    present = [r for r in rows if _sort_value(_field(r, path), kind) is not None]
    missing = [r for r in rows if _sort_value(_field(r, path), kind) is None]
    present.sort(key=lambda r: _sort_value(_field(r, path), kind), reverse=descending)
    return [r["requisition_id"] for r in present + missing]


def test_the_page_and_the_tool_sort_by_the_same_columns():
    assert set(INVOICE_SORT) <= set(REQUISITION_SORT)


@pytest.mark.parametrize("key", sorted(INVOICE_SORT))
def test_every_column_sorts_both_ways_as_the_header_promises(env, key):
    natural = _all(env)
    assert len(natural) > 100  # more than one page, so paging the sorted rows is exercised
    for descending in (False, True):
        sort = ("-" if descending else "") + key
        got = [r["requisition_id"] for r in _all(env, sort=sort)]
        assert got == _expected(natural, key, descending), sort


def test_sorting_composes_with_filters(env):
    approved = _all(env, status="approved")
    got = [r["requisition_id"] for r in _all(env, status="approved", sort="-amount")]
    assert got == _expected(approved, "amount", True)
    assert {r["status"] for r in _all(env, status="approved", sort="-amount")} == {"approved"}


@pytest.mark.parametrize("bad", ["vendor_bank_account", "--amount", "amount; drop table", "-"])
def test_an_unknown_sort_is_refused_with_the_columns_named(env, bad):
    out = env.call(TOOL, {"sort": bad})
    assert out["error"] and out.get("field") == "sort", out
    assert "amount" in out["message"] and "erp_sync" in out["message"]


def test_the_sorted_page_shows_the_first_rows_of_the_whole_sorted_list(env, client):
    expected = _expected(_all(env), "amount", True)[:25]
    html = client.get("/procore/invoicing?sort=-amount").get_data(as_text=True)
    shown = [int(n) for n in re.findall(r'/invoicing/(\d+)"', html)]
    ids = list(dict.fromkeys(shown))
    assert ids[:25] == expected
