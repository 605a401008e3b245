"""Nobody who can reach the port can exhaust the server (issue cause 2), and the enter link is
really one-time and stays on this site (cause 11).

A browser holds one launcher episode (a new one replaces the old); the server keeps at most
`max_episodes` opened over HTTP, freeing the least recently used idle one first and answering
429 when every one is in use; the launcher opens at most `new_episodes_per_minute`.
"""
from __future__ import annotations

import pytest

from portals.core.episode import EpisodeStore, StoreFull
from portals.core.limits import Limits, RateWindow, safe_next
from portals.core.web import create_app, enter_url
from tasks.registry import all_tasks

from conftest import ADMIN_TOKEN


class FakeTime:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def small(book_store):
    """A server of its own over a store sharing the session's templates, with a fake clock."""
    clock = FakeTime()
    store = EpisodeStore(book=book_store.book, seed=book_store.seed, clock=book_store.clock, monotonic=clock)
    store.templates = book_store.templates
    app = create_app(store, secret_key="small", admin_token=ADMIN_TOKEN,
                     limits=Limits(max_episodes=3, busy_seconds=60, new_episodes_per_minute=1000))
    yield app, store, clock
    for episode_id in list(store.episodes):
        store.drop(episode_id)


def browser(app):
    client = app.test_client()
    client.get("/")
    with client.session_transaction() as sess:
        client.csrf = sess["csrf"]
    return client


def bound_id(client):
    with client.session_transaction() as sess:
        return sess.get("episode")


def test_one_browser_holds_one_sandbox_however_often_it_posts(small):
    app, store, _clock = small
    client = browser(app)
    for _ in range(20):
        assert client.post("/episodes/new", data={"csrf_token": client.csrf}).status_code == 302
        with client.session_transaction() as sess:
            client.csrf = sess.get("csrf") or client.csrf
        client.get("/")
        with client.session_transaction() as sess:
            client.csrf = sess["csrf"]
    assert list(store.episodes) == [bound_id(client)]


def test_starting_tasks_replaces_the_browsers_episode_too(small):
    app, store, _clock = small
    client = browser(app)
    for task in all_tasks()[:4]:
        assert client.post(f"/tasks/{task.instance_id}/start", data={"csrf_token": client.csrf}).status_code == 302
        client.get("/")
        with client.session_transaction() as sess:
            client.csrf = sess["csrf"]
    assert list(store.episodes) == [bound_id(client)]


def test_at_the_cap_the_least_recently_used_idle_episode_is_freed(small):
    app, store, clock = small
    browsers = [browser(app) for _ in range(3)]
    for n, client in enumerate(browsers):
        client.post("/episodes/new", data={"csrf_token": client.csrf})
        clock.now += 10
    first, second, third = (bound_id(c) for c in browsers)
    clock.now += 100  # all three idle now; the second one is used again
    assert browsers[1].get("/box/").status_code == 200
    newcomer = browser(app)
    assert newcomer.post("/episodes/new", data={"csrf_token": newcomer.csrf}).status_code == 302
    assert first not in store.episodes, "the least recently used idle episode should have gone"
    assert {second, third, bound_id(newcomer)} == set(store.episodes)
    assert browsers[0].get("/box/").status_code == 403  # its browser is told, not served a 500


def test_when_every_episode_is_in_use_a_new_one_is_a_429_page(small):
    app, store, clock = small
    for _ in range(3):
        client = browser(app)
        client.post("/episodes/new", data={"csrf_token": client.csrf})
    held = set(store.episodes)
    late = browser(app)
    resp = late.post("/episodes/new", data={"csrf_token": late.csrf})
    assert resp.status_code == 429 and resp.headers["Retry-After"] == "60"
    assert "This server is full" in resp.get_data(as_text=True) and "<html" in resp.get_data(as_text=True)
    resp = late.post(f"/tasks/{all_tasks()[0].instance_id}/start", data={"csrf_token": late.csrf})
    assert resp.status_code == 429
    assert set(store.episodes) == held
    # the admin API is told the same, as JSON
    resp = app.test_client().post("/admin/episodes", json={"apps": ["box"]},
                                  headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert resp.status_code == 429 and resp.get_json()["error"] == "too_many"
    clock.now += 61  # idle long enough: room again
    assert late.post("/episodes/new", data={"csrf_token": late.csrf}).status_code == 302


def test_evaluation_episodes_are_never_freed_for_a_browser(small):
    app, store, clock = small
    admin = app.test_client()
    made = [admin.post("/admin/episodes", json={"apps": ["box"]},
                       headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).get_json()["episode_id"] for _ in range(3)]
    clock.now += 10_000
    client = browser(app)
    assert client.post("/episodes/new", data={"csrf_token": client.csrf}).status_code == 429
    assert set(made) <= set(store.episodes)


def test_in_process_episodes_are_not_counted_against_the_cap(small):
    _app, store, _clock = small
    extra = [store.create(["box"]) for _ in range(5)]  # the runner's own: the caller's business
    assert store.admit(["box"], cap=3, busy_seconds=60, evictable=True)
    assert len(store.episodes) == 6
    for _ in range(2):
        store.admit(["box"], cap=3, busy_seconds=60, evictable=True)
    with pytest.raises(StoreFull):
        store.admit(["box"], cap=3, busy_seconds=60, evictable=True)
    assert all(e.id in store.episodes for e in extra)


def test_the_launcher_opens_at_most_so_many_episodes_a_minute(book_store):
    clock = FakeTime()
    app = create_app(book_store, secret_key="rate", admin_token=ADMIN_TOKEN,
                     limits=Limits(new_episodes_per_minute=3))
    app.extensions["cfab_new_episodes"] = RateWindow(3, monotonic=clock)
    client = browser(app)
    try:
        for _ in range(3):
            assert client.post("/episodes/new", data={"csrf_token": client.csrf}).status_code == 302
            client.get("/")
            with client.session_transaction() as sess:
                client.csrf = sess["csrf"]
        resp = client.post("/episodes/new", data={"csrf_token": client.csrf})
        assert resp.status_code == 429 and int(resp.headers["Retry-After"]) >= 1
        assert "new episodes a minute" in resp.get_data(as_text=True)
        clock.now += 61
        assert client.post("/episodes/new", data={"csrf_token": client.csrf}).status_code == 302
    finally:
        book_store.drop(bound_id(client) or "")


def test_an_enter_link_works_once(flask_app, episode):
    link = enter_url(flask_app, episode.id, "/box/")
    first, second = flask_app.test_client(), flask_app.test_client()
    resp = first.get(link)
    assert resp.status_code == 302 and resp.headers["Location"] == "/box/"
    again = second.get(link)
    assert again.status_code == 403 and "already used" in again.get_data(as_text=True)
    assert first.get(link).status_code == 403  # not even for the browser that used it
    assert bound_id(second) is None
    assert flask_app.test_client().get(enter_url(flask_app, episode.id)).status_code == 302  # a new link does


@pytest.mark.parametrize("target", ["//elsewhere.example/", "/\\elsewhere.example/", "https://elsewhere.example/",
                                    "javascript:alert(1)", "elsewhere", "/ok\r\nSet-Cookie: x=1", 7, None])
def test_an_enter_link_never_leads_off_site(flask_app, store, target):
    episode = store.create(["box"])
    try:
        resp = flask_app.test_client().get(enter_url(flask_app, episode.id, target))
        assert resp.status_code == 302 and resp.headers["Location"] == "/"
        created = flask_app.test_client().post("/admin/episodes", json={"apps": ["box"], "next": "//elsewhere/"},
                                               headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).get_json()
        assert flask_app.test_client().get(created["enter_url"]).headers["Location"] == "/"
        store.drop(created["episode_id"])
    finally:
        store.drop(episode.id)


def test_safe_next_keeps_paths_on_this_site():
    assert safe_next("/procore/projects?x=1") == "/procore/projects?x=1"
    assert [safe_next(p) for p in ("//x", "/\\x", "http://x", "", "x/y", "/a\\b")] == ["/"] * 6
