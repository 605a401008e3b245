"""The control plane is the runner's, and a browser sees only its own episode."""
from __future__ import annotations

import pytest

from portals.core.web import agent_token, enter_url

from conftest import ADMIN_TOKEN

ADMIN_ROUTES = [("post", "/admin/episodes"), ("post", "/admin/episodes/{id}/reset"),
                ("post", "/admin/episodes/{id}/seed"),
                ("get", "/admin/episodes/{id}/snapshot"), ("post", "/admin/episodes/{id}/restore"),
                ("get", "/admin/episodes/{id}/diff"), ("get", "/admin/episodes/{id}/guard_log"),
                ("get", "/admin/episodes/{id}/calls"), ("delete", "/admin/episodes/{id}")]


@pytest.mark.parametrize("method,route", ADMIN_ROUTES)
@pytest.mark.parametrize("token", [None, "wrong-token", agent_token])
def test_admin_endpoints_refuse_without_the_admin_token(flask_app, episode, method, route, token):
    client = flask_app.test_client()
    headers = {}
    if token is agent_token:
        headers["Authorization"] = "Bearer " + agent_token(flask_app, episode.id)
    elif token:
        headers["Authorization"] = "Bearer " + token
    resp = getattr(client, method)(route.format(id=episode.id), headers=headers, json={})
    assert resp.status_code in (401, 403)
    assert store_is_untouched(episode)


def store_is_untouched(episode) -> bool:
    return episode.diff() == {} and not episode.calls


def test_admin_api_with_the_token_creates_diffs_and_drops(flask_app, store):
    client = flask_app.test_client()
    auth = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    created = client.post("/admin/episodes", json={"apps": ["outlook"]}, headers=auth)
    assert created.status_code == 201
    body = created.get_json()
    assert body["apps"] == ["outlook"]
    episode_id = body["episode_id"]
    assert client.get(f"/admin/episodes/{episode_id}/diff", headers=auth).get_json() == {}
    snap = client.get(f"/admin/episodes/{episode_id}/snapshot", headers=auth).get_json()
    assert snap["outlook"]["app"] == "outlook"
    assert client.post(f"/admin/episodes/{episode_id}/restore", json=snap, headers=auth).status_code == 200
    reseeded = client.post(f"/admin/episodes/{episode_id}/seed", json={}, headers=auth)
    assert reseeded.status_code == 200
    assert client.get(f"/admin/episodes/{episode_id}/snapshot", headers=auth).get_json() == snap
    assert client.post(f"/admin/episodes/{episode_id}/seed", json={"clock": "noon"},
                       headers=auth).status_code == 400
    assert client.delete(f"/admin/episodes/{episode_id}", headers=auth).status_code == 200
    assert store.get(episode_id) is None
    bad = client.post("/admin/episodes", json={"apps": ["no_such_app"]}, headers=auth)
    assert bad.status_code == 400 and "no_such_app" in bad.get_json()["message"]


def test_a_browser_without_an_episode_is_told_how_to_get_one(flask_app):
    resp = flask_app.test_client().get("/procore/")
    assert resp.status_code == 403
    assert b"not bound to an episode" in resp.data


@pytest.mark.parametrize("path,skin", [("/vista_erp/jobs/9140", "vista"), ("/box/", "box"),
                                       ("/sage_intacct/ap/bills/new", "intacct")])
def test_an_app_outside_the_episode_is_a_404_page_in_its_skin(flask_app, store, path, skin):
    episode = store.create(["outlook", "procore"])
    try:
        client = flask_app.test_client()
        client.get(enter_url(flask_app, episode.id))
        resp = client.get(path)
        body = resp.get_data(as_text=True)
        assert resp.status_code == 404, body[:300]
        assert "is not part of this episode; it has Outlook, Procore." in body
        assert f'class="skin-{skin}"' in body
        with client.session_transaction() as s:
            token = s["csrf"]
        assert client.post(path, data={"csrf_token": token}).status_code in (404, 405)
        assert episode.diff() == {} and not episode.calls
    finally:
        store.drop(episode.id)


def test_a_forged_enter_link_is_refused(flask_app, episode):
    client = flask_app.test_client()
    good = enter_url(flask_app, episode.id)
    assert client.get(good[:-3] + "abc").status_code == 403


def test_two_browsers_do_not_see_each_others_episode(flask_app, store):
    a_ep, b_ep = store.create(["outlook"]), store.create(["outlook"])
    try:
        a, b = flask_app.test_client(), flask_app.test_client()
        a.get(enter_url(flask_app, a_ep.id))
        b.get(enter_url(flask_app, b_ep.id))
        with a.session_transaction() as s:
            assert s["episode"] == a_ep.id
        with b.session_transaction() as s:
            assert s["episode"] == b_ep.id
        # a tampered cookie is not a way in: Flask's signed session rejects it
        c = flask_app.test_client()
        c.set_cookie("session", "eyJlcGlzb2RlIjoi" + b_ep.id, domain="localhost")
        assert c.get("/outlook/").status_code == 403
    finally:
        store.drop(a_ep.id)
        store.drop(b_ep.id)


def test_forms_need_the_csrf_token(client):
    resp = client.post("/episodes/new", data={})
    assert resp.status_code == 400


def test_the_agent_tool_api_lists_and_calls_only_native_tools(flask_app, episode):
    client = flask_app.test_client()
    auth = {"Authorization": "Bearer " + agent_token(flask_app, episode.id)}
    tools = client.get("/api/tools", headers=auth).get_json()
    names = {t["name"] for t in tools}
    assert names and all(n.split(".", 1)[0] in episode.apps for n in names)
    assert not any("snapshot" in n or "reset" in n or "diff" in n for n in names)
    assert client.get("/api/tools").status_code == 401
    missing = client.post("/api/tools/outlook.no_such_tool", json={}, headers=auth)
    assert missing.status_code == 404


def test_an_evaluation_browser_cannot_use_the_task_launcher(flask_app, store):
    """An agent's browser may not start or finish a task, or read a verdict (ground truth)."""
    from tasks.registry import all_tasks

    episode = store.create(["procore"])
    episode.meta["evaluation"] = True
    try:
        client = flask_app.test_client()
        client.get(enter_url(flask_app, episode.id, "/"))
        assert client.get("/").status_code == 200
        with client.session_transaction() as s:
            token = s["csrf"]
        task = all_tasks()[0]
        for path in (f"/tasks/{task.instance_id}/start", "/episodes/new", "/episode/finish",
                     "/episode/start-over"):
            assert client.post(path, data={"csrf_token": token}).status_code == 403, path
        assert client.get("/episode/verdict").status_code == 403
        with client.session_transaction() as s:
            assert s["episode"] == episode.id
    finally:
        store.drop(episode.id)
