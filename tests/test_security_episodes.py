"""Episodes are sealed: a browser or an agent token bound to one episode cannot reach another.

Whatever a client edits - the URL, the cookie, a form field, a header, the tool-call body -
it reads and writes only the episode its signed handle names; and handles cannot be guessed.
"""
from __future__ import annotations

import pytest
from flask.sessions import SecureCookieSessionInterface

from portals.core.environment import Environment
from portals.core.web import agent_token, create_app, enter_url

from conftest import post_form


@pytest.fixture
def pair(store, flask_app):
    """Two live episodes: `mine` (the client is bound to it) and `theirs` (the target)."""
    mine, theirs = store.create(), store.create()
    client = flask_app.test_client()
    client.get(enter_url(flask_app, mine.id, "/"))
    client.get("/outlook/")
    with client.session_transaction() as sess:
        client.csrf = sess["csrf"]
    yield client, mine, theirs
    store.drop(mine.id)
    store.drop(theirs.id)


def untouched(episode) -> bool:
    return episode.diff() == {} and not episode.calls and not episode.guard_log


def a_message(episode) -> str:
    return Environment(episode, ["outlook"]).call("outlook.messages.list", {"per_page": 1})["items"][0]["id"]


def forged_session_cookie(flask_app, data: dict, secret: str) -> str:
    """A session cookie in Flask's own format, signed with `secret`."""
    forger = create_app(None, secret_key=secret, admin_token="x")
    return SecureCookieSessionInterface().get_signing_serializer(forger).dumps(data)


def test_episode_ids_are_long_random_and_distinct(store):
    ids = []
    for _ in range(200):
        episode = store.create(["outlook"])
        ids.append(episode.id)
        store.drop(episode.id)
    assert len(set(ids)) == len(ids)
    assert min(len(i) for i in ids) >= 22  # 18 random bytes: 144 bits, not enumerable
    assert len({i[:6] for i in ids}) > 190  # no shared prefix or counter


def test_handles_are_signed_and_bound_to_this_server(flask_app, store, pair):
    _client, mine, theirs = pair
    other = create_app(store, secret_key="someone-else", admin_token="x")
    fresh = flask_app.test_client()
    assert fresh.get(enter_url(other, theirs.id)).status_code == 403  # signed by another key
    token = enter_url(flask_app, theirs.id).split("t=", 1)[1]
    body, _, sig = token.rpartition(".")
    assert fresh.get(f"/enter?t={body}.{sig[::-1]}").status_code == 403  # signature edited
    assert fresh.get(f"/enter?t={agent_token(flask_app, theirs.id)}").status_code == 403  # an API token
    api = {"Authorization": "Bearer " + agent_token(other, theirs.id)}
    assert fresh.get("/api/tools", headers=api).status_code == 401
    store.drop(theirs.id)
    dead = enter_url(flask_app, theirs.id)
    assert fresh.get(dead).status_code == 403  # a closed episode's link opens nothing


def test_a_cookie_cannot_be_edited_or_forged_into_another_episode(flask_app, pair):
    client, mine, theirs = pair
    forged = forged_session_cookie(flask_app, {"episode": theirs.id, "csrf": "x"}, "not-the-secret")
    intruder = flask_app.test_client()
    intruder.set_cookie("session", forged, domain="localhost")
    assert intruder.get("/outlook/").status_code == 403
    real = forged_session_cookie(flask_app, {"episode": mine.id}, "test-secret")
    payload, _, rest = real.partition(".")
    swapped = forged_session_cookie(flask_app, {"episode": theirs.id}, "x").split(".", 1)[0] + "." + rest
    intruder.set_cookie("session", swapped, domain="localhost")
    assert intruder.get("/outlook/").status_code == 403
    assert untouched(theirs)


@pytest.mark.parametrize("how", ["query", "form", "header", "bearer", "path"])
def test_a_bound_browser_writes_only_its_own_episode(flask_app, pair, how):
    """Each way of naming the other episode in a request; the write still lands in `mine`."""
    client, mine, theirs = pair
    message = a_message(mine)
    url = f"/outlook/message/{message}/categorize"
    data = {"categories": "Sealed"}
    kwargs: dict = {}
    if how == "query":
        url += f"?episode={theirs.id}&episode_id={theirs.id}"
    elif how == "form":
        data.update(episode=theirs.id, episode_id=theirs.id, session=theirs.id)
    elif how == "header":
        kwargs["headers"] = {"X-Episode": theirs.id, "X-Episode-Id": theirs.id, "Cookie-Episode": theirs.id}
    elif how == "bearer":
        kwargs["headers"] = {"Authorization": "Bearer " + agent_token(flask_app, theirs.id)}
    elif how == "path":
        url = f"/outlook/message/{message}/categorize/../../{theirs.id}/categorize"
    resp = post_form(client, url, data, **kwargs)
    assert resp.status_code < 500
    assert untouched(theirs), f"a request naming the other episode by {how} reached it"
    if resp.status_code in (200, 302):
        assert [c["tool"] for c in mine.calls if c["kind"] == "write"] == ["message.categorize"]


def test_reading_pages_shows_only_this_episodes_state(flask_app, pair):
    client, mine, theirs = pair
    marker = "Only-In-Theirs-7f3a"
    Environment(theirs, ["outlook"]).call("outlook.message.createDraft",
                                          {"to": ["a@b.com"], "subject": marker, "body": "x"})
    page = client.get(f"/outlook/?folder=Drafts&episode={theirs.id}",
                      headers={"X-Episode": theirs.id}).get_data(as_text=True)
    assert marker not in page
    draft = theirs.calls[-1]
    assert draft["ok"]


def test_an_agent_token_reaches_only_its_own_episode(flask_app, pair):
    _client, mine, theirs = pair
    client = flask_app.test_client()
    auth = {"Authorization": "Bearer " + agent_token(flask_app, mine.id), "X-Episode": theirs.id}
    message = a_message(mine)  # ids are the same in every episode: both come from one book
    body = {"message_id": message, "categories": ["Sealed"], "episode_id": theirs.id}
    refused = client.post("/api/tools/outlook.message.categorize", json=body, headers=auth)
    assert refused.status_code == 400 and "episode_id" in refused.get_json()["message"]
    body.pop("episode_id")
    client.post(f"/api/tools/outlook.message.categorize?episode={theirs.id}", json=body, headers=auth)
    assert untouched(theirs)


def test_the_recorder_endpoint_refuses_events_for_another_episode(flask_app, store, pair):
    client, mine, theirs = pair
    mine.meta["task"] = "any"  # the endpoint serves task episodes only
    resp = client.post("/episode/events", json={"episode": theirs.id, "events": []},
                       headers={"X-CSRF-Token": client.csrf})
    assert resp.status_code in (403, 409)
    assert untouched(theirs) and "trajectory" not in str(theirs.meta)


def test_a_dropped_episode_leaves_its_browser_unbound_not_rebound(flask_app, store, pair):
    client, mine, theirs = pair
    store.drop(mine.id)
    assert client.get("/outlook/").status_code == 403
    assert client.get(f"/outlook/?episode={theirs.id}").status_code == 403
    assert untouched(theirs)
