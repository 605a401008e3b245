"""Fixture chain: store (templates seeded once) -> episode (fresh world) -> client (a bound browser)."""
from __future__ import annotations

import pytest

from portals.core.episode import EpisodeStore
from portals.core.web import create_app, enter_url

ADMIN_TOKEN = "test-admin-token"


@pytest.fixture(scope="session")
def store() -> EpisodeStore:
    return EpisodeStore()


@pytest.fixture(scope="session")
def flask_app(store):
    app = create_app(store, secret_key="test-secret", admin_token=ADMIN_TOKEN)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def episode(store):
    ep = store.create()
    yield ep
    store.drop(ep.id)


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
