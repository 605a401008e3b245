"""The browser side: a portal server on loopback and Chromium driven by Playwright.

Playwright's own browser download is not available everywhere, so we drive the system
Chromium (`/usr/bin/chromium`, or `CFAB_CHROMIUM`) with the flags a closed network needs.
"""
from __future__ import annotations

import logging
import os
import shutil
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from werkzeug.serving import make_server

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


class PortalServer:
    """The Flask portal app served from a background thread on 127.0.0.1 (port 0 = any free)."""

    def __init__(self, flask_app, host: str = "127.0.0.1", port: int = 0, quiet: bool = True):
        if quiet:  # one log line per request drowns the results table
            logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self.app = flask_app
        self._server = make_server(host, port, flask_app, threaded=True)
        self.host, self.port = host, self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> "PortalServer":
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until interrupted (`cfab serve`)."""
        self._server.serve_forever()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


@contextmanager
def chromium(headless: bool = True):
    """A launched Chromium (Playwright sync API); closed on exit."""
    from playwright.sync_api import sync_playwright

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

    def goto(self, path: str) -> None:
        self.page.goto(self.base_url + path)

    def click_button(self, name: str, exact: bool = True) -> None:
        """Click a button by its accessible name and wait for the resulting page."""
        with self.page.expect_navigation():
            self.page.get_by_role("button", name=name, exact=exact).click()

    def fill(self, label: str, value: str) -> None:
        self.page.get_by_label(label, exact=True).fill(value)

    def select(self, label: str, value: str) -> None:
        self.page.get_by_label(label, exact=True).select_option(value)

    def text(self) -> str:
        return self.page.inner_text("main") if self.page.locator("main").count() else \
            self.page.inner_text("body")
