"""The report's pages in Chromium: every link resolves, every image loads, sorting works, and
no page logs a console error."""
from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urljoin

import pytest

from agent.reporting import build_report

FIXTURES = Path(__file__).parent.parent / "tests" / "fixtures" / "results"
FILES = [FIXTURES / f"{name}.json" for name in ("scripted-model", "oracle", "noop", "eager")]


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    build_report(FILES, out)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10000)
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: page.problems.append(f"console {m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda exc: page.problems.append(f"page error: {exc}"))
    page.on("response", lambda r: page.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    yield page
    context.close()


def broken_images(page) -> list[str]:
    return page.evaluate("""() => Array.from(document.images)
        .filter(img => !img.complete || img.naturalWidth === 0).map(img => img.src)""")


def test_every_page_link_and_image(site, page):
    """Crawl the leaderboard and every run page it links to."""
    queue, seen, checked = [site + "index.html"], set(), set()
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        page.goto(url)
        assert not broken_images(page), f"{url}: images that did not load: {broken_images(page)}"
        for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))"):
            target, _ = urldefrag(urljoin(url, href))
            if not target.startswith(site):
                pytest.fail(f"{url} links outside the report: {href}")
            if target.endswith(".html"):
                queue.append(target)
            elif target not in checked:
                checked.add(target)
                assert page.request.get(target).status == 200, f"{url}: {href} does not resolve"
    assert len([u for u in seen if "/runs/" in u]) == 4 * 6 * 3  # every run has its page
    assert not page.problems, page.problems


def _column(page, table: str, index: int) -> list[str]:
    return page.eval_on_selector_all(
        f"table[data-table={table}] tbody tr", f"rows => rows.map(r => r.cells[{index}].textContent.trim())")


def test_tables_sort_by_any_column(site, page):
    page.goto(site + "index.html")
    header = page.locator("table[data-table=overall] thead th button").nth(2)  # pass^1
    header.click()
    values = [float(v.split()[0]) for v in _column(page, "overall", 2)]
    assert values == sorted(values) and values[0] == 0.0
    header.click()
    values = [float(v.split()[0]) for v in _column(page, "overall", 2)]
    assert values == sorted(values, reverse=True)
    assert _column(page, "overall", 0)[0] == "Oracle (environment check)"
    assert page.locator("table[data-table=overall] thead th").nth(2).get_attribute("aria-sort") == "descending"
    page.locator("table[data-table=overall] thead th button").nth(0).click()  # by name, as text
    names = _column(page, "overall", 0)
    assert names == sorted(names, key=str.lower)
    page.locator("table[data-table=tasks] thead th button").nth(0).click()
    tasks = _column(page, "tasks", 0)
    assert tasks == sorted(tasks) and len(tasks) == 6
    assert not page.problems, page.problems


def test_run_viewer_links_back_and_between_runs(site, page):
    page.goto(site + "index.html")
    page.locator("table[data-table=tasks] a.mark").first.click()
    page.wait_for_load_state()
    assert "/runs/" in page.url and page.locator("h1 .status").is_visible()
    page.get_by_role("link", name="run 2 →").click()
    assert page.url.endswith("/2.html")
    page.get_by_role("link", name="all tasks").click()
    assert page.url.endswith("index.html#tasks")
    assert not page.problems, page.problems
