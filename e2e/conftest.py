"""Portals in real Chromium: one server and one browser per session, a fresh episode per test."""
from __future__ import annotations

import pytest

from agent.browser import Portal, PortalServer, chromium
from portals.core.episode import EpisodeStore
from portals.core.web import create_app, enter_url


@pytest.fixture(scope="session")
def e2e_store():
    return EpisodeStore()


@pytest.fixture(scope="session")
def live_server(e2e_store):
    app = create_app(e2e_store, secret_key="e2e-secret", admin_token="e2e-admin")
    with PortalServer(app) as server:
        yield server


@pytest.fixture(scope="session")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def e2e_episode(e2e_store):
    episode = e2e_store.create()
    yield episode
    e2e_store.drop(episode.id)


@pytest.fixture
def portal(browser, live_server, e2e_episode):
    """A page in its own browser context, bound to a fresh episode; fails on any page error."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(10000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    server_errors: list[str] = []
    page.on("response", lambda r: server_errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
    page.goto(live_server.url + enter_url(live_server.app, e2e_episode.id, "/"))
    yield Portal(page, live_server.url)
    context.close()
    assert not errors, f"uncaught page errors: {errors}"
    assert not server_errors, f"server errors: {server_errors}"
