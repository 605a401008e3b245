"""A browser step settles on the page's own events and reuses an observation only while exact.

The observation of a page that has not changed (same document, no DOM change, input or focus)
is the previous one, without walking the page again; any change (an htmx swap, typing, a new
document) gives a fresh one that shows it.
"""
from __future__ import annotations

from agent.browser import SETTLED
from agent.llm.observe import BrowserActions


class CountingPage:
    """The Playwright page, counting the accessibility-tree walks made through it."""

    def __init__(self, page):
        self._page, self.walks = page, 0

    def aria_snapshot(self, *args, **kw):
        self.walks += 1
        return self._page.aria_snapshot(*args, **kw)

    def __getattr__(self, name):
        return getattr(self._page, name)


def test_an_unchanged_page_is_observed_once_and_every_change_is_seen(portal):
    portal.goto("/procore/invoicing")
    page = CountingPage(portal.page)
    actions = BrowserActions(page, portal.base_url)
    first = actions.observe()
    again = actions.observe()
    assert page.walks == 1 and again == first

    actions.execute("click", {"bid": "page-next"})
    assert portal.page.evaluate(SETTLED)
    paged = actions.observe()
    assert page.walks == 2 and paged["axtree"] != first["axtree"]
    assert "page 2 of" in portal.page.inner_text("nav.pager")
    assert actions.observe() == paged and page.walks == 2

    portal.page.get_by_label("Search invoices", exact=True).fill("no invoice is named this")
    actions.settle()  # the search waits out its debounce, then swaps the list in
    assert portal.page.evaluate(SETTLED)
    searched = actions.observe()
    assert page.walks == 3 and "no invoice is named this" in searched["axtree"]
    assert "0 records" in portal.page.inner_text("nav.pager")

    actions.execute("goto", {"url": "/procore/invoicing"})  # a new document, the same URL as before
    reloaded = actions.observe()
    assert page.walks == 4 and "no invoice is named this" not in reloaded["axtree"]


def test_a_list_page_reaches_the_agent_whole_rows_filters_and_pager(portal):
    """The agent's tree of a 25-row Procore list holds every row's invoice link, the filters and
    the pager; read-only structure (cells, rows) carries no ref, what can be acted on does."""
    portal.goto("/procore/invoicing")
    tree = BrowserActions(portal.page, portal.base_url).observe()["axtree"]
    rows = portal.page.locator("table tbody tr").count()
    assert rows == 25 and "left out here" not in tree
    assert tree.count("[bid=invoice-") >= rows * 4  # project, invoice, company, commitment links
    assert 'searchbox "Search invoices" [ref=' in tree and "[bid=page-next]" in tree
    assert "records · page 1 of" in tree
    assert not any(line.lstrip("- '").startswith(("cell", "row ", "row:")) and "[ref=" in line
                   for line in tree.splitlines())
