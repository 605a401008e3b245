"""A real `cfab serve` in a subprocess, reached over HTTP on 127.0.0.1 like an outsider would.

`cfab_server` (session-scoped, registered in conftest.py) starts one server for every test
that asks for it; `CfabServer` is its handle: the admin API, agent tool calls and a browser
whose interface matches Flask's test client closely enough for tests/_crawl.py. Every 5xx
the server answered is in its request log, and `server_errors()` reads them back.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parents[1]
BANNER = re.compile(r"portals: (http://[0-9.:]+)/\s+\(admin token: (\S+)\)")
LOG_STATUS = re.compile(r'"[A-Z]+ (\S+) HTTP/[0-9.]+" (\d{3}) ')


class Reply:
    """A `requests` response dressed as Flask's test response (status_code, get_data, ...)."""

    def __init__(self, resp: requests.Response):
        self.raw = resp
        self.status_code = resp.status_code
        self.headers = resp.headers
        self.content_type = resp.headers.get("Content-Type", "")
        self.data = resp.content

    def get_data(self, as_text: bool = False):
        return self.data.decode("utf-8", "replace") if as_text else self.data

    def get_json(self):
        return json.loads(self.data)


class Browser:
    """A cookie-keeping HTTP client shaped like `flask_app.test_client()` for the crawler."""

    def __init__(self, server: "CfabServer"):
        self.server = server
        self.session = requests.Session()
        self.application = server.url_map_app()  # routes only: the crawler matches URLs to endpoints
        self.csrf = ""

    def get(self, url: str, follow_redirects: bool = False, **kw) -> Reply:
        return Reply(self.session.get(self.server.url + url, allow_redirects=follow_redirects,
                                      timeout=60, **kw))

    def post(self, url: str, follow_redirects: bool = False, **kw) -> Reply:
        return Reply(self.session.post(self.server.url + url, allow_redirects=follow_redirects,
                                       timeout=60, **kw))

    def enter(self, enter_url: str) -> None:
        """Follow an enter link, then read this browser's CSRF token off a page."""
        assert self.get(enter_url).status_code == 302
        self.refresh_csrf()

    def refresh_csrf(self, page: str = "/") -> str:
        match = re.search(r'name="csrf_token" value="([^"]+)"|name="csrf-token" content="([^"]+)"',
                          self.get(page).get_data(as_text=True))
        self.csrf = next(g for g in match.groups() if g) if match else ""
        return self.csrf


class CfabServer:
    def __init__(self, url: str, admin_token: str, proc: subprocess.Popen, log: Path):
        self.url, self.admin_token, self.proc, self.log = url, admin_token, proc, log
        self.http = requests.Session()
        self._url_map_app, self._url_map_lock = None, threading.Lock()

    def url_map_app(self):
        # one app for every thread: werkzeug compiles each route with ast.parse, and CPython
        # 3.11.7's parser fails when several threads enter it at once ("AST constructor recursion
        # depth mismatch")
        with self._url_map_lock:
            if self._url_map_app is None:
                from portals.core.web import create_app

                self._url_map_app = create_app(None, secret_key="routes-only", admin_token="routes-only")
        return self._url_map_app

    def admin(self, method: str, path: str, body=None, *, raw: bool = False):
        resp = self.http.request(method, f"{self.url}/admin{path}", json=body, timeout=120,
                                 headers={"Authorization": f"Bearer {self.admin_token}"})
        if raw:
            return resp
        resp.raise_for_status()
        return resp.json()

    def open_episode(self, apps: list[str] | None = None, next_path: str = "/") -> dict:
        return self.admin("POST", "/episodes", {"apps": apps, "next": next_path} if apps else {"next": next_path})

    def drop(self, episode_id: str) -> None:
        self.admin("DELETE", f"/episodes/{episode_id}")

    def snapshot(self, episode_id: str) -> bytes:
        """The admin snapshot's bytes (canonical JSON: equal bytes mean equal state)."""
        resp = self.admin("GET", f"/episodes/{episode_id}/snapshot", raw=True)
        resp.raise_for_status()
        return resp.content

    def tool(self, token: str, name: str, args=None, **kw) -> requests.Response:
        return self.http.post(f"{self.url}/api/tools/{name}", json={} if args is None else args, timeout=120,
                              headers={"Authorization": f"Bearer {token}", **kw.pop("headers", {})}, **kw)

    def browser(self) -> Browser:
        return Browser(self)

    def server_errors(self) -> list[str]:
        """Every request the server answered with a 5xx, from its own request log."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return [f"{m.group(2)} {m.group(1)}" for m in LOG_STATUS.finditer(text) if m.group(2).startswith("5")]

    def alive(self) -> bool:
        return self.proc.poll() is None


@contextmanager
def running_cfab(folder: Path, *flags: str, timeout: float = 180):
    """Start `cfab serve --port 0` with `flags`; yield its handle; stop it on exit."""
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "server.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "agent.cli", "serve", "--host", "127.0.0.1", "--port", "0",
           "--recordings", str(folder / "recordings"), *flags]
    with open(log, "wb") as err:
        proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=err)
    found: dict = {}

    def read_banner():
        for line in proc.stdout:
            match = BANNER.search(line.decode(errors="replace"))
            if match:
                found["url"], found["token"] = match.groups()
                break
        for _ in proc.stdout:  # keep draining so the server never blocks on a full pipe
            pass

    threading.Thread(target=read_banner, daemon=True).start()
    deadline = time.monotonic() + timeout
    try:
        while "url" not in found:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"cfab serve did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.1)
        server = CfabServer(found["url"], found["token"], proc, log)
        while True:  # the banner is printed just before serving begins
            try:
                if server.http.get(server.url + "/healthz", timeout=5).ok:
                    break
            except requests.ConnectionError:
                time.sleep(0.1)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def cfab_server(tmp_path_factory):
    """One real server for the session's over-HTTP tests, with room for their episodes and no
    rates: they fuzz and crawl one episode as fast as they can from one address on purpose (the
    rates are tested on servers of their own, tests/test_hardening_http.py)."""
    with running_cfab(tmp_path_factory.mktemp("cfab-serve"), "--max-episodes", "256",
                      "--new-episodes-per-minute", "1000", "--tool-calls-per-minute", "0",
                      "--new-episodes-per-client-per-minute", "0") as server:
        yield server
        assert server.alive(), "the server process died during the tests"
