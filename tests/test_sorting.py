"""Lists sorted in SQL (portals/core/sorting.py): the tool's `sort` and the page's column headers
give the order a person expects — case-blind text, amounts as numbers, rows without a value last
either way, ties in the list's own order — the same order the portal gives lists that sort in
Python, one page read instead of every row."""
from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from portals.core.ui import _field, _sort_value
from portals.erp.ap import BILL_SORT
from portals.erp.views import BILL_SORT as BILL_HEADERS
from portals.pm.contracts import REQUISITION_SORT
from portals.pm.views_invoicing import INVOICE_SORT

APPS = ["procore", "sage_intacct", "vista_erp"]


@dataclass(frozen=True)
class SortedList:
    tool: str
    headers: dict  # the page's column key -> (row field, kind)
    columns: dict  # the service's sort key -> (column, kind)
    row_id: str
    page: str  # the screen that lists it
    link: str  # how the screen links a row: a regex whose group is the row id

    def __str__(self):
        return self.tool


LISTS = [SortedList("procore.requisitions.list", INVOICE_SORT, REQUISITION_SORT, "requisition_id",
                    "/procore/invoicing", r'/invoicing/(\d+)"'),
         SortedList("sage_intacct.accounts-payable/bill.query", BILL_HEADERS, BILL_SORT, "bill_id",
                    "/sage_intacct/ap/bills", r'/ap/bills/(APB-\d+)'),
         SortedList("vista_erp.ap.transactions.list", BILL_HEADERS, BILL_SORT, "bill_id",
                    "/vista_erp/ap/transactions", r'/ap/bills/(APB-\d+)')]


def _all(env, tool, **args) -> list[dict]:
    rows, page = [], 1
    while True:
        out = env.call(tool, {**args, "page": page, "per_page": 100})
        assert "error" not in out, out
        rows += out["items"]
        if page >= (out["pages"] or 1):
            return rows
        page += 1


def _expected(rows: list[dict], lst: SortedList, key: str, descending: bool) -> list:
    """The order ui.listing gives a list that sorts in Python (stable, missing values last)."""
    path, kind = lst.headers[key]
    present = [r for r in rows if _sort_value(_field(r, path), kind) is not None]
    missing = [r for r in rows if _sort_value(_field(r, path), kind) is None]
    present.sort(key=lambda r: _sort_value(_field(r, path), kind), reverse=descending)
    return [r[lst.row_id] for r in present + missing]


@pytest.mark.parametrize("lst", LISTS, ids=str)
def test_the_page_and_the_tool_sort_by_the_same_columns(lst):
    assert set(lst.headers) <= set(lst.columns)


@pytest.mark.parametrize("lst", LISTS, ids=str)
def test_every_column_sorts_both_ways_as_the_header_promises(env, lst):
    natural = _all(env, lst.tool)
    assert len(natural) > 100  # more than one page, so paging the sorted rows is exercised
    for key in sorted(lst.headers):
        for descending in (False, True):
            sort = ("-" if descending else "") + key
            got = [r[lst.row_id] for r in _all(env, lst.tool, sort=sort)]
            assert got == _expected(natural, lst, key, descending), sort


def test_sorting_composes_with_filters(env):
    lst = LISTS[0]
    approved = _all(env, lst.tool, status="approved")
    got = _all(env, lst.tool, status="approved", sort="-amount")
    assert [r[lst.row_id] for r in got] == _expected(approved, lst, "amount", True)
    assert {r["status"] for r in got} == {"approved"}


@pytest.mark.parametrize("lst", LISTS, ids=str)
@pytest.mark.parametrize("bad", ["vendor_bank_account", "--amount", "amount; drop table", "-"])
def test_an_unknown_sort_is_refused_with_the_columns_named(env, lst, bad):
    out = env.call(lst.tool, {"sort": bad})
    assert out["error"] and out.get("field") == "sort", out
    assert "amount" in out["message"] and "status" in out["message"]


@pytest.mark.parametrize("lst", LISTS, ids=str)
def test_the_sorted_page_shows_the_first_rows_of_the_whole_sorted_list(env, client, lst):
    expected = _expected(_all(env, lst.tool), lst, "amount", True)[:25]
    html = client.get(f"{lst.page}?sort=-amount").get_data(as_text=True)
    ids = list(dict.fromkeys(re.findall(lst.link, html)))
    assert [type(expected[0])(i) for i in ids[:25]] == expected
