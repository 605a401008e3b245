"""htmx in Chromium: search, filters, paging, sorting, tabs, the reading pane and field checks swap
their region in place, push a shareable URL, and never reload the page.

A full navigation replaces `window`, so a mark set on it before the action and still there after
proves the page was not reloaded; the pushed URL, loaded on its own, renders the whole page.
"""
from __future__ import annotations

import re
from decimal import Decimal

import pytest

from agent.browser import settle

MARK = "() => { window.__stayed = 'yes'; }"
STAYED = "() => window.__stayed === 'yes'"


def rows(page, region: str = "#results") -> list[str]:
    return [t.strip() for t in page.locator(f"{region} tbody tr").all_inner_texts()]


def column(page, index: int, region: str = "#results") -> list[str]:
    return [page.locator(f"{region} tbody tr").nth(i).locator("td").nth(index).inner_text().strip()
            for i in range(page.locator(f"{region} tbody tr").count())]


def money(text: str) -> Decimal:
    text = text.replace("$", "").replace(",", "").strip()
    return -Decimal(text.strip("()")) if text.startswith("(") else Decimal(text)


def swapped(portal, action, region: str = "#results") -> list[str]:
    """Do `action` on a marked page; return the region's rows after htmx settles, checking the
    page was not reloaded."""
    page = portal.page
    page.evaluate(MARK)
    settled = page.evaluate("() => window.__cfabSettle.settled")
    action()
    settle(page)
    assert page.evaluate(STAYED), "the page reloaded instead of swapping a fragment"
    assert page.evaluate("() => window.__cfabSettle.settled") > settled, "htmx swapped nothing"
    return rows(page, region)


def test_search_as_you_type_refills_the_invoice_table_and_pushes_the_url(portal):
    portal.goto("/procore/projects/1042/invoicing")
    before = rows(portal.page)
    first = portal.page.locator("#results tbody tr").first.locator("td").first.inner_text().strip()
    after = swapped(portal, lambda: portal.page.get_by_label("Search invoices").press_sequentially(first))
    assert after != before and all(first in r for r in after)
    assert re.search(rf"[?&]search={re.escape(first)}(&|$)", portal.page.url)
    portal.page.reload()  # the pushed URL is a whole page of its own
    assert portal.page.locator("header.pc-topbar").count() == 1 and rows(portal.page) == after


def test_a_filter_choice_refills_the_table(portal):
    portal.goto("/procore/projects/1042/invoicing")
    after = swapped(portal, lambda: portal.page.get_by_label("Status", exact=True).select_option("approved"))
    assert after and all("Approved" in r for r in after)
    assert "status=approved" in portal.page.url and "search=" not in portal.page.url  # blanks stay out


def test_paging_swaps_the_next_page_in_place(portal):
    portal.goto("/procore/invoicing")
    total = int(portal.page.locator("[data-total]").first.get_attribute("data-total"))
    assert total > 25, "the company's invoice list should span pages"
    first_page = rows(portal.page)
    second = swapped(portal, lambda: portal.page.get_by_role("link", name="Next").click())
    assert second and second != first_page and not set(second) & set(first_page)
    assert "page=2" in portal.page.url
    assert "page 2 of" in portal.page.locator(".pager").inner_text()
    # back is the first page again, loaded afresh: the browser keeps no copy of an earlier page
    # that a write since would have made stale
    assert portal.page.evaluate("() => sessionStorage.getItem('htmx-history-cache')") is None
    document = portal.page.evaluate("() => window.__cfabSettle.doc")
    portal.page.go_back()
    settle(portal.page)
    assert "page=2" not in portal.page.url and rows(portal.page) == first_page
    assert portal.page.evaluate("() => window.__cfabSettle.doc") != document


def test_sorting_by_a_column_both_ways(portal):
    portal.goto("/procore/projects/1042/invoicing")
    header = portal.page.locator("th", has=portal.page.get_by_role("link", name="Amount", exact=True))
    index = portal.page.locator("#results thead th").all_text_contents().index("Amount")
    swapped(portal, lambda: portal.page.get_by_role("link", name="Amount", exact=True).click())
    up = [money(v) for v in column(portal.page, index)]
    assert up == sorted(up) and "sort=amount" in portal.page.url
    assert header.get_attribute("aria-sort") == "ascending"
    swapped(portal, lambda: portal.page.get_by_role("link", name="Amount", exact=True).click())
    down = [money(v) for v in column(portal.page, index)]
    assert down == sorted(down, reverse=True) and "sort=-amount" in portal.page.url
    assert header.get_attribute("aria-sort") == "descending"
    # the sort survives a filter and a page change
    swapped(portal, lambda: portal.page.get_by_label("ERP sync", exact=True).select_option("synced"))
    assert "sort=-amount" in portal.page.url
    kept = [money(v) for v in column(portal.page, index)]
    assert kept == sorted(kept, reverse=True)


def test_a_field_is_checked_on_its_own_before_the_form_is_sent(portal, e2e_episode):
    from seeds.book import load_book

    req = next(r for r in load_book()["requisitions"] if r["job"] == "4012" and r["status"] == "approved")
    portal.goto(f"/procore/projects/4012/invoicing/{req['requisition_id']}")
    page = portal.page
    page.evaluate(MARK)
    amount = page.get_by_label("Amount to pay")
    amount.fill("twelve")
    amount.blur()
    settle(page)
    alert = page.locator("#e-amount")
    assert "amount" in alert.inner_text().lower() and alert.get_attribute("role") == "alert"
    assert page.evaluate(STAYED)
    amount.fill("10.00")
    amount.blur()
    settle(page)
    assert alert.inner_text().strip() == "" and alert.get_attribute("role") is None
    assert e2e_episode.diff() == {} and not e2e_episode.guard_log  # checking is not doing


def test_outlook_checks_an_address_as_it_is_typed_in(portal):
    portal.goto("/outlook/compose")
    to = portal.page.get_by_label("To", exact=True)
    to.fill("not an address")
    to.blur()
    settle(portal.page)
    assert "is not an email address" in portal.page.locator("#e-to").inner_text()


def test_outlook_opens_a_message_in_the_reading_pane_and_keeps_the_search(portal):
    portal.goto("/outlook/")
    page = portal.page
    swapped(portal, lambda: page.get_by_label("Search", exact=True).press_sequentially("invoice"),
            "#message_list")
    assert "search=invoice" in page.url
    listed = rows(page, "#message_list")
    link = page.locator("#message_list tbody a").first
    subject = link.inner_text().strip()
    swapped(portal, link.click, "#message_list")
    assert page.locator(".ol-reading h2").inner_text().strip().endswith(subject)
    assert "/outlook/message/" in page.url and "search=invoice" in page.url
    assert page.get_by_label("Search", exact=True).input_value() == "invoice"
    assert rows(page, "#message_list") == listed
    assert page.locator("#message_list tr[aria-current=true]").count() == 1
    page.reload()  # the message's own URL is the whole page, still searched
    assert page.locator(".ol-reading h2").inner_text().strip().endswith(subject)
    assert rows(page, "#message_list") == listed


def test_procore_tabs_load_their_panel_in_place(portal):
    portal.goto("/procore/projects/1042/commitments")
    portal.page.locator("#results tbody a").first.click()
    portal.page.wait_for_load_state()
    assert portal.page.locator("section[aria-labelledby=h-sov]").count() == 1
    swapped(portal, lambda: portal.page.get_by_role("link", name="Subcontractor Invoices").click(),
            "#commitment_tab")
    assert "tab=invoices" in portal.page.url
    assert portal.page.locator("#h-invoices").count() == 1 and portal.page.locator("#h-sov").count() == 0
    assert portal.page.get_by_role("link", name="Subcontractor Invoices").get_attribute("aria-current") == "page"
    portal.goto("/procore/erp")
    swapped(portal, lambda: portal.page.get_by_role("link", name="Cost Code Map").click(), "#erp_tab")
    assert "tab=cost_codes" in portal.page.url
    assert "Procore Cost Code" in portal.page.locator("#results thead").text_content()


@pytest.mark.parametrize("path,label", [("/box/search", "Search for"), ("/procore/directory", "Search companies")])
def test_other_lists_search_as_you_type(portal, path, label):
    portal.goto(path)
    before = rows(portal.page)
    after = swapped(portal, lambda: portal.page.get_by_label(label, exact=True).press_sequentially("zzqq-none"))
    assert after != before and len(after) == 1  # the "nothing matches" row
