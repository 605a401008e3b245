"""Error pages and the control plane (issue causes 3, 8 and the HTTP half of 11): no page needs
an open episode to say there is none, admin input is validated before anything is written,
401s are JSON where the API speaks JSON, and a wrong method is a 405, not a CSRF 400.
"""
from __future__ import annotations

import json

import pytest

from portals.core.registry import load_apps
from portals.core.web import create_app

from _crawl import endpoint_of
from conftest import ADMIN_TOKEN
from test_security_episodes import forged_session_cookie

APPS = load_apps()
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def app_get_urls(flask_app) -> list[str]:
    adapter = flask_app.url_map.bind("localhost")
    return [adapter.build(rule.endpoint, {a: 1 for a in rule.arguments})
            for rule in flask_app.url_map.iter_rules()
            if "GET" in rule.methods and rule.endpoint.split(".")[0] in APPS]


@pytest.mark.parametrize("cookie", ["none", "forged", "stale", "garbage"])
def test_every_app_page_without_an_open_episode_is_a_403_page(flask_app, store, cookie):
    client = flask_app.test_client()
    if cookie == "forged":
        client.set_cookie("session", forged_session_cookie(flask_app, {"episode": "x" * 24}, "not-the-secret"),
                          domain="localhost")
    elif cookie == "stale":
        gone = store.create(["box"])
        store.drop(gone.id)
        client.set_cookie("session", forged_session_cookie(flask_app, {"episode": gone.id}, "test-secret"),
                          domain="localhost")
    elif cookie == "garbage":
        client.set_cookie("session", "eyJ%%%.not.a.cookie", domain="localhost")
    urls = app_get_urls(flask_app)
    assert len(urls) > 30
    for url in urls:
        resp = client.get(url)
        assert resp.status_code in (403, 404), (url, resp.status_code)
        assert "not bound to an episode" in resp.get_data(as_text=True) or resp.status_code == 404, url
    for spec in APPS.values():  # and in the product's own skin where the skin can do without one
        page = client.get(spec.base_path + "/").get_data(as_text=True)
        assert "Start one from the home page" in page


def test_admin_and_api_401s_are_json(flask_app, episode):
    client = flask_app.test_client()
    for method, url in (("GET", f"/admin/episodes/{episode.id}/diff"), ("POST", "/admin/episodes"),
                        ("GET", "/api/tools"), ("POST", "/api/tools/box.search"), ("GET", "/api/openapi.json")):
        resp = client.open(url, method=method, json={})
        assert resp.status_code == 401, url
        assert resp.content_type == "application/json" and resp.get_json()["message"], url


def test_a_post_to_a_get_only_route_is_a_405_not_a_csrf_400(client, flask_app):
    adapter = flask_app.url_map.bind("localhost")
    get_only = [rule for rule in flask_app.url_map.iter_rules()
                if rule.methods & {"GET"} and "POST" not in rule.methods and rule.endpoint != "static"
                and rule.endpoint.split(".")[0] in set(APPS) | {"launcher"}]
    assert len(get_only) > 20
    for rule in get_only:
        url = adapter.build(rule.endpoint, {a: 1 for a in rule.arguments})
        if endpoint_of(adapter, url, "POST"):  # another rule takes POSTs at this same URL
            continue
        for data in ({}, {"csrf_token": client.csrf}):
            resp = client.post(url, data=data)
            assert resp.status_code == 405, (url, resp.status_code)
            assert "GET" in resp.headers["Allow"]
    assert client.post("/no/such/page").status_code == 404


def test_a_restore_with_one_bad_app_writes_no_app(flask_app, store):
    client = flask_app.test_client()
    episode = store.create(["box", "outlook"])
    try:
        snap = client.get(f"/admin/episodes/{episode.id}/snapshot", headers=ADMIN).get_json()
        changed = json.loads(json.dumps(snap["box"]))
        table = next(t for t, rows in changed["tables"].items() if rows)
        changed["tables"][table] = changed["tables"][table][1:]  # a valid snapshot that differs
        before = episode.snapshot()
        for broken in ({**snap["outlook"], "tables": {"x": []}},  # wrong tables
                       {**snap["outlook"], "tables": {t: [{"nope": 1}] for t in snap["outlook"]["tables"]}},
                       {**snap["outlook"], "tables": {t: [[1, 2]] for t in snap["outlook"]["tables"]}},
                       {**snap["outlook"], "tables": {t: [{"a": {"b": 1}}] for t in snap["outlook"]["tables"]}},
                       [], "x", None, 7):
            resp = client.post(f"/admin/episodes/{episode.id}/restore", json={"box": changed, "outlook": broken},
                               headers=ADMIN)
            assert resp.status_code == 400, (broken if not isinstance(broken, dict) else "tables", resp.data[:200])
            assert "nothing was restored" in resp.get_json()["message"]
            assert episode.snapshot() == before, "the valid app was replaced before the bad one was read"
        ok = client.post(f"/admin/episodes/{episode.id}/restore", json={"box": changed}, headers=ADMIN)
        assert ok.status_code == 200 and episode.snapshot()["box"] != before["box"]
        assert episode.diff()  # a restored app is diffed in full
    finally:
        store.drop(episode.id)


@pytest.mark.parametrize("body", ['{"seed": Infinity}', '{"seed": NaN}', '{"seed": 1e400}', '{"seed": 1.5}',
                                  '{"seed": true}', '{"seed": -1}', '{"seed": 99999999999999999999}',
                                  '{"seed": "x"}', '{"seed": [7]}', '{"clock": 5}', '{"clock": "noon"}',
                                  '{"clock": ["2026-06-30"]}', '{"clock": "99999-01-01T00:00:00Z"}', "[1]",
                                  '"x"'])
def test_seed_refuses_bad_values_without_a_500(flask_app, episode, body):
    client = flask_app.test_client()
    before = episode.snapshot()
    resp = client.post(f"/admin/episodes/{episode.id}/seed", data=body, content_type="application/json",
                       headers=ADMIN)
    assert resp.status_code == 400 and resp.get_json()["message"], resp.data[:200]
    assert episode.snapshot() == before


@pytest.mark.parametrize("body", ["[1]", '{"apps": "box"}', '{"apps": [1]}', '{"apps": ["nope"]}',
                                  '{"next": 5}', '{"apps": ["box"], "next": {"a": 1}}'])
def test_admin_create_refuses_bad_bodies_without_a_500(flask_app, store, body):
    before = set(store.episodes)
    resp = flask_app.test_client().post("/admin/episodes", data=body, content_type="application/json",
                                        headers=ADMIN)
    assert resp.status_code == 400, resp.data[:200]
    assert set(store.episodes) == before


def test_the_openapi_document_is_the_tools_own_schemas(flask_app, episode):
    from portals.core.environment import Environment
    from portals.core.openapi import operation_id
    from portals.core.web import agent_token

    client = flask_app.test_client()
    auth = {"Authorization": "Bearer " + agent_token(flask_app, episode.id)}
    doc = client.get("/api/openapi.json", headers=auth).get_json()
    assert doc["openapi"].startswith("3.")
    tools = Environment(episode, sorted(episode.apps)).tools()
    assert len(doc["paths"]) == len(tools) + 1
    for tool in tools:
        op = doc["paths"][f"/api/tools/{tool['name']}"]["post"]
        body = op["requestBody"]["content"]["application/json"]["schema"]
        # the tool's own schemas, an optional argument marked nullable (null is taken as not sent)
        optional = set(tool["parameters"]["properties"]) - set(tool["parameters"]["required"])
        assert body["properties"] == {name: {**prop, **({"nullable": True} if name in optional else {})}
                                      for name, prop in tool["parameters"]["properties"].items()}
        assert body.get("required", []) == tool["parameters"]["required"]
        assert body["additionalProperties"] is False
        assert op["operationId"] == operation_id(tool["name"]) and op["x-cfab-kind"] == tool["kind"]
        assert tool["description"] in op["description"]
        assert {"200", "400", "401", "404"} <= set(op["responses"])
    ids = [op["post"]["operationId"] for path, op in doc["paths"].items() if "post" in op]
    assert len(ids) == len(set(ids))
    validate = pytest.importorskip("jsonschema_rs")  # installed with schemathesis
    for tool in tools:
        validate.validator_for(tool["parameters"])  # each body schema is itself valid JSON Schema
    other = create_app(None, secret_key="x", admin_token="y")  # the document needs no store to be built
    assert endpoint_of(other.url_map.bind("localhost"), "/api/openapi.json") == "api.openapi"


@pytest.mark.parametrize("method,url", [("GET", "/admin/episodes"), ("PUT", "/api/tools/box.search"),
                                        ("GET", "/admin/no-such-thing"), ("DELETE", "/api/tools")])
def test_a_wrong_method_or_route_under_the_apis_is_json_too(flask_app, method, url):
    """No blueprint is matched for a route or method an API lacks; its answer is still JSON."""
    resp = flask_app.test_client().open(url, method=method)
    assert resp.status_code in (404, 405) and resp.is_json, (url, resp.status_code, resp.content_type)
    assert resp.get_json()["error"] and resp.get_json()["message"]
