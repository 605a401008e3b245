"""Bodies the server will not read (issue causes 1 and 7): a tool-API body that is not one JSON
object is a 400 and nothing runs; a body nested too deep is a 400, one too large a 413, on
every route that reads JSON, and none of them is ever a 500.
"""
from __future__ import annotations

import json

import pytest

from portals.core.limits import Limits
from portals.core.web import agent_token, create_app, enter_url

from conftest import ADMIN_TOKEN

RUN = "sage_intacct.accounts-payable/check-run.create"  # a guarded tool that takes no required argument
NOT_AN_OBJECT = [
    ("trailing comma", b'{"vendor_id": "V9999",}', "application/json"),
    ("invalid JSON", b"{vendor_id: V9999}", "application/json"),
    ("bad UTF-8", b'{"vendor_id": "\xff\xfe"}', "application/json"),
    ("XML", b"<run><vendor>V9999</vendor></run>", "application/xml"),
    ("form-encoded", b"vendor_id=V9999", "application/x-www-form-urlencoded"),
    ("no content type", b'{"vendor_id": "V9999"}', None),
    ("text/plain", b"{}", "text/plain"),
    ("empty body", b"", "application/json"),
    ("null", b"null", "application/json"),
    ("an array", b"[]", "application/json"),
    ("a number", b"7", "application/json"),
    ("NaN", b'{"page": NaN}', "application/json"),
    ("Infinity", b'{"page": Infinity}', "application/json"),
    ("1e400", b'{"page": 1e400}', "application/json"),
    ("a 5000-digit number", b'{"page": ' + b"9" * 5000 + b"}", "application/json"),
    ("two objects", b"{}{}", "application/json"),
]


@pytest.fixture
def agent(flask_app, store):
    episode = store.create()
    yield flask_app.test_client(), {"Authorization": "Bearer " + agent_token(flask_app, episode.id)}, episode
    store.drop(episode.id)


def post_raw(client, url, body: bytes, content_type, headers):
    return client.post(url, data=body, headers={**headers, **({"Content-Type": content_type} if content_type else {})})


@pytest.mark.parametrize("why,body,content_type", NOT_AN_OBJECT, ids=[n[0] for n in NOT_AN_OBJECT])
def test_a_tool_body_that_is_not_one_json_object_runs_nothing(agent, why, body, content_type):
    client, auth, episode = agent
    before = episode.snapshot()
    resp = post_raw(client, f"/api/tools/{RUN}", body, content_type, auth)
    assert resp.status_code == 400, (why, resp.status_code, resp.data[:200])
    reply = resp.get_json()
    assert reply["error"] == "invalid_body" and "Nothing was run" in reply["message"]
    assert not episode.calls and not episode.guard_log, f"{why}: the tool ran"
    assert episode.snapshot() == before


def test_the_same_tool_with_a_real_empty_object_does_run(agent):
    """The control: `{}` is a well-formed call, so the refusals above are about the body alone."""
    client, auth, episode = agent
    resp = client.post(f"/api/tools/{RUN}", json={}, headers=auth)
    assert resp.status_code == 200 and resp.get_json()["status"] == "pending_human_approval"
    assert len(episode.guard_log) == 1


def nested(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


@pytest.mark.parametrize("depth", [33, 1000, 100_000])
def test_deep_nesting_is_a_400_everywhere_json_is_read(flask_app, store, agent, depth):
    client, auth, episode = agent
    body = nested(depth)
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    for url, headers in ((f"/api/tools/{RUN}", auth), ("/admin/episodes", admin),
                         (f"/admin/episodes/{episode.id}/seed", admin),
                         (f"/admin/episodes/{episode.id}/restore", admin)):
        resp = post_raw(client, url, body, "application/json", headers)
        assert resp.status_code == 400, (url, resp.status_code)
        assert "nests more than 32 levels" in resp.get_json()["message"]
    assert not episode.calls and not episode.guard_log


def test_deep_nesting_in_the_recorder_endpoint_is_not_a_500(flask_app, store):
    """A portal route that reads JSON with get_json(silent=True) gets None, not a RecursionError."""
    episode = store.create(["outlook"])
    episode.meta.update(task="any", started=0, ui_steps=[])
    try:
        client = flask_app.test_client()
        client.get(enter_url(flask_app, episode.id, "/"))
        client.get("/outlook/")
        with client.session_transaction() as sess:
            csrf = sess["csrf"]
        resp = client.post("/episode/events", data=nested(100_000), content_type="application/json",
                           headers={"X-CSRF-Token": csrf})
        assert resp.status_code == 409 and episode.meta["ui_steps"] == []
    finally:
        store.drop(episode.id)


def test_thirty_two_levels_are_still_read(agent):
    client, auth, episode = agent
    resp = post_raw(client, f"/api/tools/{RUN}", nested(32), "application/json", auth)
    assert resp.status_code == 400 and resp.get_json()["field"] == "a"  # read, then refused by the tool


def test_a_body_over_the_limit_is_a_413_and_the_limit_is_configurable(store):
    app = create_app(store, secret_key="s", admin_token=ADMIN_TOKEN, limits=Limits(max_body_bytes=4096))
    episode = store.create(["box"])
    try:
        client = app.test_client()
        auth = {"Authorization": "Bearer " + agent_token(app, episode.id)}
        big = json.dumps({"folder_id": 0, "name": "a.pdf", "content": "x" * 5000})
        resp = client.post("/api/tools/box.files.upload", data=big, content_type="application/json", headers=auth)
        assert resp.status_code == 413 and resp.get_json()["error"] == "too_large"
        small = json.dumps({"folder_id": 0, "name": "a.pdf", "content": "x" * 100})
        assert client.post("/api/tools/box.files.upload", data=small, content_type="application/json",
                           headers=auth).status_code == 200
        # the admin API reads whole snapshots, so its limit is its own
        admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        snap = client.get(f"/admin/episodes/{episode.id}/snapshot", headers=admin).data
        assert len(snap) > 4096
        assert client.post(f"/admin/episodes/{episode.id}/restore", data=snap, content_type="application/json",
                           headers=admin).status_code == 200
        # and without the admin token a big body is refused before anyone reads it
        assert client.post(f"/admin/episodes/{episode.id}/restore", data=snap,
                           content_type="application/json").status_code in (401, 413)
    finally:
        store.drop(episode.id)


def test_a_form_post_over_the_limit_is_a_413_page(client):
    resp = client.post("/episodes/new", data={"csrf_token": client.csrf, "pad": "x" * (1024 * 1024 + 10)})
    assert resp.status_code == 413


def test_the_snapshot_digest_is_the_snapshots_sha256_and_moves_only_with_the_state(flask_app, agent):
    """GET /admin/episodes/<id>/snapshot/digest (admin token only): per app, the sha256 of the
    bytes /snapshot?app= answers; a refused call leaves it as it was, a write moves it."""
    import hashlib

    client, auth, episode = agent
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    url = f"/admin/episodes/{episode.id}/snapshot/digest"
    assert client.get(url).status_code == 401 and client.get(url).is_json
    assert client.get(url, headers=auth).status_code == 403  # an agent's token is not the admin's
    first = client.get(url, headers=admin).get_json()
    assert sorted(first) == sorted(episode.apps)
    for app, digest in first.items():
        assert digest == hashlib.sha256(episode.apps[app].snapshot()).hexdigest()
    assert client.get(url + "?app=box", headers=admin).get_json() == {"box": first["box"]}
    refused = client.post("/api/tools/box.files.upload", json={"name": "\u202efdp.exe", "folder_id": "nope",
                                                              "content": "x"},
                          headers=auth)
    assert refused.status_code in (400, 404)
    assert client.get(url, headers=admin).get_json() == first
    hold = client.post("/api/tools/vista_erp.ap.payment_hold.create",
                       json={"vendor_id": episode_vendor(client, auth), "reason": "COI expired"}, headers=auth)
    assert hold.status_code == 200, hold.get_json()
    after = client.get(url, headers=admin).get_json()
    assert after["vista_erp"] != first["vista_erp"] and {a: d for a, d in after.items() if a != "vista_erp"} == \
        {a: d for a, d in first.items() if a != "vista_erp"}
    assert after["vista_erp"] == hashlib.sha256(episode.apps["vista_erp"].snapshot()).hexdigest()


def episode_vendor(client, auth) -> str:
    rows = client.post("/api/tools/vista_erp.ap.vendors.list", json={}, headers=auth).get_json()["items"]
    return rows[0]["vendor_id"]
