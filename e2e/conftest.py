"""Portals in real Chromium: one server and one browser per session, a fresh episode per test.

The browser is pytest-playwright's (`browser`, `new_context`, `context`, `page` fixtures) on
Debian's Chromium (agent/browser.py's chromium_path() and flags), so its options work as usual:
`pytest e2e --headed`, `--tracing on`, `--video on`, `--slowmo 200` (files under --output,
test-results/ by default). `--video` needs an ffmpeg: where Playwright's own download is missing,
Debian's (`apt-get install ffmpeg`) stands in for it (see pytest_configure). Its sync Playwright lives
in the main thread for the session: code that launches its own Chromium (the runner, the gym
env) runs in a thread of its own (tests/_threads.py in_own_thread).
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agent.browser import CHROMIUM_ARGS, Portal, PortalServer, chromium_path
from portals.core.episode import EpisodeStore
from portals.core.web import create_app, enter_url

VIEWPORT = {"width": 1280, "height": 860}
ROOT = Path(__file__).resolve().parents[1]


def playwright_ffmpeg() -> tuple[Path, Path]:
    """Where Playwright looks for its ffmpeg build (the folder it reads, the executable in it)."""
    import playwright

    driver = Path(playwright.__file__).parent / "driver" / "package" / "browsers.json"
    revision = next(b["revision"] for b in json.loads(driver.read_text())["browsers"] if b["name"] == "ffmpeg")
    folder = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    return folder, folder / f"ffmpeg-{revision}" / "ffmpeg-linux"


def pytest_configure(config):
    """`--video on` records through ffmpeg, which Playwright downloads with its browsers; where it
    has not (this project uses Debian's Chromium), point Playwright at a folder under build/
    whose ffmpeg is Debian's, before its driver starts. Chromium is given by path, so nothing
    else is read from that folder."""
    if config.getoption("video", "off") == "off":
        return
    folder, executable = playwright_ffmpeg()
    if executable.exists():
        return
    system = shutil.which("ffmpeg")
    if not system:
        raise pytest.UsageError(f"--video needs ffmpeg: {executable} is missing (Playwright's download) "
                                "and there is no ffmpeg on PATH; install Debian's: apt-get install ffmpeg")
    stand_in = ROOT / "build" / "ms-playwright"
    link = stand_in / executable.relative_to(folder)
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.exists():
        link.symlink_to(system)
    os.environ["PLAYWRIGHT_BROWSERS_PATH"] = str(stand_in)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright's launch options (--headed, --slowmo, ...) on Debian's Chromium."""
    return {"executable_path": chromium_path(), "args": list(CHROMIUM_ARGS), **browser_type_launch_args}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """pytest-playwright's context options (--video's directory, ...) at the agents' viewport."""
    return {"viewport": VIEWPORT, **browser_context_args}


@pytest.fixture(scope="session")
def e2e_store():
    return EpisodeStore()


@pytest.fixture(scope="session")
def live_server(e2e_store):
    app = create_app(e2e_store, secret_key="e2e-secret", admin_token="e2e-admin")
    with PortalServer(app) as server:
        yield server


@pytest.fixture
def e2e_episode(e2e_store):
    episode = e2e_store.create()
    yield episode
    e2e_store.drop(episode.id)


@pytest.fixture
def portal(context, live_server, e2e_episode):
    """A page in pytest-playwright's context for this test (traced and filmed when asked),
    bound to a fresh episode; fails on any page error."""
    context.set_default_timeout(10000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    server_errors: list[str] = []
    page.on("response", lambda r: server_errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
    page.goto(live_server.url + enter_url(live_server.app, e2e_episode.id, "/"))
    yield Portal(page, live_server.url)
    assert not errors, f"uncaught page errors: {errors}"
    assert not server_errors, f"server errors: {server_errors}"
