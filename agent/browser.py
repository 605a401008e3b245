"""The browser side: a portal server on loopback and Chromium driven by Playwright.

Playwright's own browser download is not available everywhere, so we drive the system
Chromium (`/usr/bin/chromium`, or `CFAB_CHROMIUM`) with the flags a closed network needs.

After an action, `settle(page)` waits for what the action started to land: a navigation's load,
and every htmx request until htmx has swapped and settled it (its own events and classes),
including a search box's debounced request that has not been sent yet. No fixed sleeps and no
polling: one call into the page returns a promise that resolves on the event that completes the
page (`load`, `htmx:afterSettle`, an htmx error, the end of a pending debounce).

The tracker also counts changes to the document (`__cfabSettle.version`: DOM mutations, input,
focus), so an observation of a page that did not change since the last one can be reused.
"""
from __future__ import annotations

import logging
import os
import shutil
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from werkzeug.serving import WSGIRequestHandler, make_server

# Installed in every document: counts htmx requests from htmx:beforeRequest until their
# htmx:afterRequest / htmx:afterSettle, notes when a debounced trigger (hx-trigger "delay:") will
# fire after typing, so a settle does not return in the gap before the request is sent, and
# counts changes to the document (`version`) for observations to know when they are stale.
SETTLE_TRACKER = """(() => {
  if (window.__cfabSettle) return;
  const s = window.__cfabSettle = {inflight: new Set(), settled: 0, quietUntil: 0, version: 0,
                                   doc: Math.random().toString(36).slice(2), waiters: new Set()};
  const wake = () => { for (const w of Array.from(s.waiters)) w(); };
  const bump = () => { s.version += 1; };
  const on = (name, fn) => document.addEventListener(name, fn, true);
  on('htmx:beforeRequest', e => { s.inflight.add(e.detail.xhr); bump(); });
  on('htmx:afterRequest', e => { s.inflight.delete(e.detail.xhr); wake(); });
  on('htmx:afterSettle', e => { s.inflight.delete(e.detail.xhr); s.settled += 1; bump(); wake(); });
  for (const name of ['htmx:sendError', 'htmx:responseError', 'htmx:swapError', 'htmx:timeout'])
    on(name, e => { s.inflight.delete(e.detail.xhr); bump(); wake(); });
  for (const name of ['input', 'change', 'focusin', 'focusout', 'toggle']) on(name, bump);
  // A click or submit is answered by its handlers in the same task (htmx sends its request
  // there); until the next task runs, a settle waits, so it never returns in between.
  s.armed = 0;
  for (const name of ['click', 'submit']) on(name, () => { s.armed += 1;
    setTimeout(() => { s.armed -= 1; wake(); }, 0); });
  on('input', e => {
    const host = e.target.closest && e.target.closest('[hx-trigger*="delay:"]');
    const m = host && /delay:(\\d+)(ms|s)?/.exec(host.getAttribute('hx-trigger'));
    if (m) s.quietUntil = Math.max(s.quietUntil, Date.now() + Number(m[1]) * (m[2] === 's' ? 1000 : 1) + 50);
  });
  window.addEventListener('load', () => { bump(); wake(); });
  // Back or forward to a URL htmx pushed: the portals keep no copy of earlier pages
  // (hx-history="false"), so htmx reloads it and this document is on its way out.
  window.addEventListener('popstate', e => { if (e.state && e.state.htmx) { s.leaving = true; bump(); } });
  new MutationObserver(() => { bump(); wake(); }).observe(document, {subtree: true, childList: true, attributes: true,
                                               characterData: true});
})()"""
SETTLED = """() => {
  const s = window.__cfabSettle;
  return document.readyState === 'complete'
    && (!s || (s.inflight.size === 0 && !s.armed && !s.leaving && Date.now() >= s.quietUntil))
    && !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling');
}"""
# Resolves once the page is settled (at once if it already is), woken by the tracker's events
# (htmx's, and every DOM change, which is how htmx's classes leave), the document's
# readystatechange and, during a debounce, a timer for its end; never polls.
SETTLE_WAIT = """(timeoutMs) => new Promise(resolve => {
  const settled = """ + SETTLED + """;
  if (settled()) return resolve(true);
  const s = window.__cfabSettle;
  let timer = null;
  const finish = result => { clearTimeout(timer); clearTimeout(limit);
    if (s) s.waiters.delete(check); document.removeEventListener('readystatechange', check);
    document.removeEventListener('htmx:afterSettle', late, true); resolve(result); };
  const check = () => {
    if (settled()) return finish(true);
    clearTimeout(timer);  // a debounce still pending: look again when it ends
    const wait = s && Date.now() < s.quietUntil ? s.quietUntil - Date.now() : 0;
    if (wait > 0) timer = setTimeout(check, wait);
  };
  const late = () => setTimeout(check, 0);  // after htmx's own listeners have run
  const limit = setTimeout(() => finish(false), timeoutMs);
  if (s) s.waiters.add(late);
  document.addEventListener('readystatechange', check);
  document.addEventListener('htmx:afterSettle', late, true);
  check();
})"""


def track_settling(page) -> None:
    """Install the settle tracker in this page's documents, the current one included."""
    page.add_init_script(SETTLE_TRACKER)
    try:
        page.evaluate(SETTLE_TRACKER)
    except Exception:  # mid-navigation: the init script covers the next document
        pass


def settle(page, timeout_ms: int = 5000, navigating: bool = True) -> None:
    """Wait until the page has loaded and htmx has settled every request it started.

    `navigating=False`: the caller knows nothing it did leaves the document (an htmx request),
    so the wait is one call into the page (SETTLE_WAIT waits for the load itself)."""
    for attempt in range(3):  # a navigation may replace the document while we wait; wait on the new one
        try:
            if navigating or attempt:
                page.wait_for_load_state("load", timeout=timeout_ms)
            page.evaluate(SETTLE_WAIT, timeout_ms)
            return
        except Exception as err:
            if "Timeout" in type(err).__name__ or "Timeout" in str(err)[:80]:
                return  # something never finished; the next observation shows the page as it is


def _is_htmx(locator) -> bool:
    """Whether pressing this element is an htmx request rather than a navigation."""
    return bool(locator.evaluate(
        "el => !!(el.closest('[hx-get],[hx-post],[hx-put],[hx-patch],[hx-delete]') ||"
        " (el.form && el.form.matches('[hx-get],[hx-post],[hx-put],[hx-patch],[hx-delete]')))"))


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def chromium_path() -> str:
    for candidate in (os.environ.get("CFAB_CHROMIUM"), "/usr/lib/chromium/chromium",
                      "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.path.exists(candidate):
            return candidate
    raise RuntimeError("Chromium was not found. Install Debian's `chromium` package "
                       "(make install does this) or set CFAB_CHROMIUM to its path.")


class _ErrorsOnlyHandler(WSGIRequestHandler):
    """Logs a request only when the server failed it (5xx): writing a line for every request
    costs the one process serving every agent about a tenth of its time."""

    def log_request(self, code="-", size="-") -> None:
        try:
            failed = int(getattr(code, "value", code)) >= 500
        except (TypeError, ValueError):
            failed = True
        if failed:
            super().log_request(code, size)


class PortalServer:
    """The Flask portal app served on 127.0.0.1 (port 0 = any free), in one process.

    `wsgi="werkzeug"` (the default here): werkzeug's threaded server, which can also run from a
    background thread (`start()`, the runners and tests). `wsgi="gunicorn"`: gunicorn with one
    worker process and a pool of threads (agent/serving.py), for `cfab serve` in the foreground
    (`serve_forever()`). Either way every episode lives in one process's memory, so any thread
    can serve any of them (docs/serving.md). `access_log` logs every request; by default only
    the server's failures (5xx) are logged."""

    WSGI = ("gunicorn", "werkzeug")

    def __init__(self, flask_app, host: str = "127.0.0.1", port: int = 0, quiet: bool = True,
                 access_log: bool = False, wsgi: str = "werkzeug"):
        if wsgi not in self.WSGI:
            raise ValueError(f"wsgi must be one of {', '.join(self.WSGI)}, not {wsgi!r}")
        if quiet:  # one log line per request drowns the results table
            logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self.app, self.wsgi = flask_app, wsgi
        if wsgi == "gunicorn":
            from .serving import listen

            self._listener = listen(host, port)
            self._server = None
            self.host, self.port = host, self._listener.getsockname()[1]
        else:
            self._server = make_server(host, port, flask_app, threaded=True,
                                       request_handler=WSGIRequestHandler if access_log else _ErrorsOnlyHandler)
            self.host, self.port = host, self._server.server_port
            self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._access_log = access_log

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> "PortalServer":
        if self._server is None:
            raise RuntimeError("gunicorn serves from the main thread (serve_forever); "
                               "a background server is werkzeug's")
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (`cfab serve`)."""
        if self._server is None:
            from .serving import GunicornServer

            GunicornServer(self.app, self._listener, access_log=self._access_log).run()
        else:
            self._server.serve_forever()

    def stop(self) -> None:
        if self._server is None:
            self._listener.close()
            return
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def check_playwright() -> None:
    """The browser transport reads pages with Page.aria_snapshot(mode="ai"): refuse, with the
    reason, an older Playwright (browsergym-core's pinned 1.44 in a BrowserGym virtualenv)."""
    import inspect

    import playwright
    from playwright.sync_api import Page

    snapshot = getattr(Page, "aria_snapshot", None)
    if snapshot is None or "mode" not in inspect.signature(snapshot).parameters:
        raise RuntimeError(f"The browser transport needs a recent Playwright (Page.aria_snapshot(mode='ai')); "
                           f"this environment has {getattr(playwright, '__version__', 'an old one')}, "
                           "e.g. the one browsergym-core pins. Use agent/browsergym/ here (it talks to "
                           "cfab serve over HTTP), or run cfab from a virtualenv with `pip install -U playwright`.")


@contextmanager
def chromium(headless: bool = True):
    """A launched Chromium (Playwright sync API); closed on exit."""
    from playwright.sync_api import sync_playwright

    check_playwright()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=headless,
                                     args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Portal:
    """What a browser policy drives: one page in a context bound to one episode."""

    page: object  # playwright.sync_api.Page
    base_url: str

    def __post_init__(self):
        track_settling(self.page)

    def goto(self, path: str) -> None:
        self.page.goto(self.base_url + path)
        self.settle()

    def settle(self) -> None:
        settle(self.page)

    def click_button(self, name: str, exact: bool = True) -> None:
        """Click a button by its accessible name and wait for the resulting page or swap."""
        button = self.page.get_by_role("button", name=name, exact=exact)
        if _is_htmx(button):
            button.click()
        else:
            with self.page.expect_navigation():
                button.click()
        self.settle()

    def fill(self, label: str, value: str) -> None:
        self.page.get_by_label(label, exact=True).fill(value)
        self.settle()

    def select(self, label: str, value: str) -> None:
        self.page.get_by_label(label, exact=True).select_option(value)
        self.settle()

    def text(self) -> str:
        return self.page.inner_text("main") if self.page.locator("main").count() else \
            self.page.inner_text("body")
