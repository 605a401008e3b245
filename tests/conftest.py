"""Fixture chain: store (templates seeded once) -> episode (fresh world) -> client (a bound browser).

A test module may set `APPS = [...]` to compose only those apps into its episodes, and
`BOOK = make_book` to run against a small hand-made book instead of the Company-A book.
"""
from __future__ import annotations

import pytest

from portals.core.clock import Clock
from portals.core.environment import Environment
from portals.core.episode import EpisodeStore
from portals.core.web import create_app, enter_url

from _server import cfab_server  # noqa: F401  (a real `cfab serve` subprocess, one per session)

ADMIN_TOKEN = "test-admin-token"


@pytest.fixture(scope="session")
def book_store() -> EpisodeStore:
    return EpisodeStore()


@pytest.fixture(scope="module")
def store(request, book_store) -> EpisodeStore:
    make_book = getattr(request.module, "BOOK", None)
    if make_book is None:
        return book_store
    return EpisodeStore(book=make_book(), seed=7, clock=Clock.at("2026-06-30T17:00:00Z"))


@pytest.fixture(scope="module")
def flask_app(store):
    app = create_app(store, secret_key="test-secret", admin_token=ADMIN_TOKEN)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def episode(request, store):
    ep = store.create(getattr(request.module, "APPS", None))
    yield ep
    store.drop(ep.id)


@pytest.fixture
def env(episode):
    """The agent's view of the episode: native tools only."""
    return Environment(episode, sorted(episode.apps))


@pytest.fixture
def client(flask_app, episode):
    """A browser bound to `episode`, with its CSRF token at hand as client.csrf."""
    c = flask_app.test_client()
    resp = c.get(enter_url(flask_app, episode.id, "/"))
    assert resp.status_code == 302
    c.get("/")
    with c.session_transaction() as sess:
        c.csrf = sess.get("csrf")
    return c


def post_form(client, url: str, data: dict, **kw):
    """POST a form the way a browser would, CSRF token included."""
    return client.post(url, data={**data, "csrf_token": client.csrf}, **kw)


_BACKGROUND_BUILDS: list = []


def pytest_sessionstart(session):
    """Start BrowserGym's virtualenv build now, beside the tests, when this run will play it
    (once: in xdist's controller, not in every worker)."""
    if hasattr(session.config, "workerinput"):
        return
    from _bgym_venv import start_background_build

    build = start_background_build([str(a) for a in session.config.args])
    if build is not None:
        _BACKGROUND_BUILDS.append(build)


def pytest_sessionfinish(session):
    import os
    import signal

    for build in _BACKGROUND_BUILDS:  # deselected or interrupted: do not leave a build running
        if build.poll() is None:
            os.killpg(build.pid, signal.SIGTERM)  # its own session: the builder and its uv
