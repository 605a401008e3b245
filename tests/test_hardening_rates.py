"""Rates (issue 18): one episode makes at most so many tool calls and form posts a minute, and
one client address opens at most so many launcher episodes a minute. Past either, a 429 with
Retry-After (JSON on the tool API, a page on the portals) that runs and writes nothing; other
episodes and other addresses are not held back; a minute later it works again. Off in code by
default (the runner and the tests), on in `cfab serve` (tests/test_hardening_http.py).
"""
from __future__ import annotations

import pytest

from portals.core.limits import Limits, RateWindow
from portals.core.registry import load_apps
from portals.core.web import agent_token, create_app, enter_url

from conftest import ADMIN_TOKEN
from test_hardening_episodes import FakeTime, bound_id, browser


@pytest.fixture
def limited(book_store):
    clock = FakeTime()
    app = create_app(book_store, secret_key="rates", admin_token=ADMIN_TOKEN,
                     limits=Limits(tool_calls_per_minute=3, new_episodes_per_client_per_minute=2))
    app.extensions["cfab_episode_calls"] = RateWindow(3, monotonic=clock)
    app.extensions["cfab_client_episodes"] = RateWindow(2, monotonic=clock)
    made = []
    yield app, book_store, clock, made
    for episode_id in made:
        book_store.drop(episode_id)


def test_an_episodes_tool_calls_past_the_rate_are_a_json_429_that_runs_nothing(limited):
    app, store, clock, made = limited
    one, two = store.create(["box"]), store.create(["box"])
    made += [one.id, two.id]
    client = app.test_client()
    auth = {"Authorization": "Bearer " + agent_token(app, one.id)}
    answers = [client.post("/api/tools/box.search", json={"query": "lien"}, headers=auth) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    refused = answers[-1]
    assert refused.is_json and refused.get_json()["error"] == "too_many" and refused.get_json()["message"]
    assert refused.headers["Retry-After"] == "60"
    assert len(one.calls) == 3  # the refused call is not on record: it never reached the tool
    clock.now += 30
    assert client.post("/api/tools/box.search", json={}, headers=auth).headers["Retry-After"] == "30"
    other = {"Authorization": "Bearer " + agent_token(app, two.id)}
    assert client.post("/api/tools/box.search", json={}, headers=other).status_code == 200
    clock.now += 31
    assert client.post("/api/tools/box.search", json={}, headers=auth).status_code == 200


def test_form_posts_count_against_the_same_rate(limited):
    app, store, clock, made = limited
    episode = store.create(["vista_erp"])
    made.append(episode.id)
    client = app.test_client()
    client.get(enter_url(app, episode.id, "/"))
    client.get("/")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    holds = load_apps()["vista_erp"].base_path + "/ap/holds"  # a hold for no such vendor: refused, writes nothing
    posts = [client.post(holds, data={"csrf_token": csrf, "vendor_id": "NOPE", "reason": "x"}) for _ in range(4)]
    assert all(p.status_code != 429 for p in posts[:3]) and posts[3].status_code == 429, \
        [p.status_code for p in posts]
    assert "<html" in posts[3].get_data(as_text=True) and posts[3].headers["Retry-After"]
    assert episode.diff() == {}


def test_one_address_opens_at_most_so_many_launcher_episodes_a_minute(limited):
    app, store, clock, made = limited
    here = browser(app)
    statuses = []
    for _ in range(3):
        statuses.append(here.post("/episodes/new", data={"csrf_token": here.csrf}).status_code)
        made.append(bound_id(here))
        here.get("/")
        with here.session_transaction() as sess:
            here.csrf = sess["csrf"]
    assert statuses == [302, 302, 429]
    kept = bound_id(here)
    assert store.get(kept) is not None  # the refused post left the browser its sandbox
    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "10.0.0.9"
    elsewhere.get("/")
    with elsewhere.session_transaction() as sess:
        csrf = sess["csrf"]
    assert elsewhere.post("/episodes/new", data={"csrf_token": csrf}).status_code == 302
    made.append(bound_id(elsewhere))
    clock.now += 61
    assert here.post("/episodes/new", data={"csrf_token": here.csrf}).status_code == 302
    made.append(bound_id(here))


def test_the_rates_are_off_in_code_by_default_and_checked():
    assert Limits().tool_calls_per_minute == 0 and Limits().new_episodes_per_client_per_minute == 0
    with pytest.raises(ValueError):
        Limits(tool_calls_per_minute=-1)


def test_stale_keys_hold_no_memory():
    clock = FakeTime()
    window = RateWindow(2, monotonic=clock)
    for n in range(500):
        assert window.allow(f"10.0.{n // 250}.{n % 250}")
    clock.now += 61
    assert window.allow("one more")
    assert len(window._events) == 1


def test_the_http_transport_waits_out_a_429_and_sends_the_call_again(monkeypatch):
    """A rate-limited tool call never reached the tool, so the client waits Retry-After and
    sends it again; only the answer that did reach the tool is on the episode's call order."""
    import httpx

    from agent import remote

    answers = [httpx.Response(429, headers={"Retry-After": "7"}, json={"error": "too_many", "message": "m"}),
               httpx.Response(429, headers={"Retry-After": "junk"}, json={"error": "too_many", "message": "m"}),
               httpx.Response(200, json={"items": []})]
    sent, slept = [], []

    class Server:
        def request(self, method, path, *, token, body=None, params=None):
            sent.append((method, path, body))
            return answers[len(sent) - 1]

    monkeypatch.setattr(remote.time, "sleep", slept.append)
    episode = remote.RemoteEpisode([remote.Part(Server(), "e1", "token", ["box"], "/enter?t=x")])
    resp = episode.call("box", "box.search", {"query": "lien"})
    assert resp.status_code == 200 and len(sent) == 3 and slept == [7.0, 1.0]
    assert episode._order == [0]
