"""Portals in real Chromium: one server and one browser per session, a fresh episode per test.

The browser is pytest-playwright's (`browser`, `new_context`, `context`, `page` fixtures) on
Debian's Chromium (agent/browser.py's chromium_path() and flags), so its options work as usual:
`pytest e2e --headed`, `--tracing on`, `--video on`, `--slowmo 200`. Its sync Playwright lives
in the main thread for the session: code that launches its own Chromium (the runner, the gym
env) runs in a thread of its own (tests/_threads.py in_own_thread).
"""
from __future__ import annotations

import pytest

from agent.browser import CHROMIUM_ARGS, Portal, PortalServer, chromium_path
from portals.core.episode import EpisodeStore
from portals.core.web import create_app, enter_url

VIEWPORT = {"width": 1280, "height": 860}


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
