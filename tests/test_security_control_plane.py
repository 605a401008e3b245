"""The control plane is not the agent's, and ground truth never reaches a page or a tool result.

Complements test_web_shell.py: here every route is found from the URL map and every page from
a crawl, so a new app or a new admin endpoint is covered without being listed.
"""
from __future__ import annotations

import json
from pathlib import Path


from portals.core.environment import Environment
from portals.core.limits import Limits
from portals.core.registry import load_apps
from portals.core.web import ROOT, agent_token, create_app, enter_url
from tasks.registry import all_tasks

from _crawl import crawl, endpoint_of
from conftest import ADMIN_TOKEN, post_form

APPS = load_apps()
SHELL_ENDPOINTS = {"static", "enter", "healthz"}
SHELL_BLUEPRINTS = {"admin", "api", "launcher"}
ASSET_SUFFIXES = {".css", ".js", ".svg", ".png", ".ico", ".woff2", ".woff", ".map"}


def admin_rules(flask_app):
    return [(method, rule.rule) for rule in flask_app.url_map.iter_rules()
            if rule.endpoint.startswith("admin.") for method in sorted(rule.methods - {"HEAD", "OPTIONS"})]


def ground_truth_strings() -> dict[str, str]:
    """Text that only an evaluator holds, mapped to the task it belongs to."""
    out: dict[str, str] = {}
    for key in ('"any_other_change"', '"required_outputs"', '"ground_truth"', '"expected_calls"'):
        out[key] = "evaluator keys"
    for task in all_tasks():
        ev = task.evaluator
        for entry in ev.get("expected", []) + ev.get("forbidden", []):
            if entry.get("label"):
                out[entry["label"]] = task.instance_id
            for allowed in entry.get("allow", []):
                if allowed.get("label"):
                    out[allowed["label"]] = task.instance_id
        for pattern in ev.get("required_outputs", []):  # a regex, or a typed claim (as JSON)
            out[pattern if isinstance(pattern, str) else json.dumps(pattern)] = task.instance_id
        rubric = (ev.get("judge") or {}).get("rubric")
        if rubric:
            out[rubric[:80]] = task.instance_id
        if task.defect_variant:
            out[task.defect_variant] = task.instance_id
        out[task.problem_hash()] = task.instance_id
    return out


def leaks(text: str, secrets: dict[str, str]) -> list[str]:
    return [f"{s!r} ({owner})" for s, owner in secrets.items() if s and s in text]


def crawl_apps(client, limit_per_app: int = 150) -> dict:
    """Every GET route of every app: crawled app by app from its home page, then any route no
    link led to (a detail page of a record the seed does not have) fetched with a made-up id."""
    pages: dict = {}
    adapter = client.application.url_map.bind("localhost")
    for spec in APPS.values():
        found, _forms = crawl(client, [spec.base_path + "/"], (spec.base_path + "/",), limit_per_app)
        pages.update(found)
        reached = {endpoint_of(adapter, url) for url in found}
        for rule in client.application.url_map.iter_rules():
            if rule.endpoint.split(".")[0] == spec.name and "GET" in rule.methods \
                    and rule.endpoint not in reached:
                url = adapter.build(rule.endpoint, {arg: 1 for arg in rule.arguments})
                resp = client.get(url)
                pages[url] = (resp.status_code, resp.get_data().decode("utf-8", "replace"))
    return pages


def test_every_route_belongs_to_an_app_or_to_the_shell(flask_app):
    """No stray endpoint: an app's routes sit under its base path; admin routes under /admin."""
    prefixes = {spec.name: spec.base_path for spec in APPS.values()}
    for rule in flask_app.url_map.iter_rules():
        blueprint = rule.endpoint.split(".")[0] if "." in rule.endpoint else None
        if blueprint is None:
            assert rule.endpoint in SHELL_ENDPOINTS, rule.rule
        elif blueprint == "admin":
            assert rule.rule.startswith("/admin/"), rule.rule
        elif blueprint not in SHELL_BLUEPRINTS:
            assert rule.rule.startswith(prefixes[blueprint] + "/"), rule.rule
        if rule.rule.startswith("/admin"):
            assert blueprint == "admin", f"{rule.rule} is under /admin but not behind the admin token"


def _refusals(flask_app, episode):
    other = create_app(None, secret_key="another-secret", admin_token="another-admin")
    yield "no token", {}, {}
    yield "wrong token", {"Authorization": "Bearer wrong"}, {}
    yield "admin token prefix", {"Authorization": "Bearer " + ADMIN_TOKEN[:-1]}, {}
    yield "agent token", {"Authorization": "Bearer " + agent_token(flask_app, episode.id)}, {}
    yield "another server's agent token", {"Authorization": "Bearer " + agent_token(other, episode.id)}, {}
    yield "token as basic auth", {"Authorization": "Basic " + ADMIN_TOKEN}, {}
    yield "token in the query string", {}, {"token": ADMIN_TOKEN, "admin_token": ADMIN_TOKEN}
    yield "token in a custom header", {"X-Admin-Token": ADMIN_TOKEN, "Authorization": ADMIN_TOKEN}, {}


def test_every_admin_endpoint_refuses_every_wrong_credential(flask_app, episode):
    rules = admin_rules(flask_app)
    assert len(rules) >= 8
    for method, rule in rules:
        url = rule.replace("<episode_id>", episode.id)
        for why, headers, query in _refusals(flask_app, episode):
            client = flask_app.test_client()
            client.set_cookie("admin_token", ADMIN_TOKEN, domain="localhost")
            resp = client.open(url, method=method, headers=headers, query_string=query, json={})
            assert resp.status_code in (401, 403), f"{method} {rule} with {why}: {resp.status_code}"
    assert episode.diff() == {} and not episode.calls and not episode.guard_log


def test_a_bound_browser_cannot_use_the_admin_api(client, episode):
    """Being bound to an episode (session cookie, CSRF token) grants nothing on the control plane."""
    for method, rule in admin_rules(client.application):
        url = rule.replace("<episode_id>", episode.id)
        resp = client.open(url, method=method, headers={"X-CSRF-Token": client.csrf}, json={})
        assert resp.status_code in (401, 403), f"{method} {rule}"


def test_the_admin_token_is_not_an_agent_token(flask_app, episode):
    client = flask_app.test_client()
    resp = client.get("/api/tools", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert resp.status_code == 401
    link_token = enter_url(flask_app, episode.id).split("t=", 1)[1]  # a browser's link is not an API key
    assert client.get("/api/tools", headers={"Authorization": f"Bearer {link_token}"}).status_code == 401


def test_the_agent_tool_surface_is_only_the_apps_native_tools(flask_app, store):
    episode = store.create()
    try:
        env = Environment(episode, list(APPS))
        native = {f"{a}.{t}" for a, spec in APPS.items() for t in spec.tools}
        assert {t["name"] for t in env.tools()} == native == set(env.tool_names())
        assert [n for n in dir(env) if not n.startswith("_")] == ["call", "tool_names", "tools"]
        episode.meta["apps"] = ["procore"]  # what a procore-only task's token may reach
        auth = {"Authorization": "Bearer " + agent_token(flask_app, episode.id)}
        client = flask_app.test_client()
        listed = {t["name"] for t in client.get("/api/tools", headers=auth).get_json()}
        assert listed == {n for n in native if n.startswith("procore.")}
        resp = client.post("/api/tools/outlook.message.send", json={}, headers=auth)
        assert resp.status_code == 404 and resp.get_json()["error"] == "unknown_tool"
        for name in ("admin.snapshot", "episode.diff", "../admin/episodes", "procore.__init__"):
            assert client.post(f"/api/tools/{name}", json={}, headers=auth).status_code == 404
    finally:
        store.drop(episode.id)


def test_static_holds_only_assets_and_cannot_be_escaped(flask_app):
    static = Path(flask_app.static_folder)
    files = [p for p in static.rglob("*") if p.is_file()]
    assert files and all(p.suffix in ASSET_SUFFIXES for p in files), \
        [str(p) for p in files if p.suffix not in ASSET_SUFFIXES]
    client = flask_app.test_client()
    gold = next((ROOT / "tasks" / "gold").glob("*.json")).name
    for path in (f"../tasks/gold/{gold}", f"..%2ftasks%2fgold%2f{gold}", f"%2e%2e/tasks/gold/{gold}",
                 "../portals/core/web.py", "..%5cportals%5ccore%5cweb.py", "/etc/passwd",
                 "%2fetc%2fpasswd", "....//....//etc/passwd", "css/../../tasks/registry.py"):
        resp = client.get(f"/static/{path}", follow_redirects=True)
        assert resp.status_code in (400, 404), f"/static/{path} -> {resp.status_code}"


def test_no_page_a_browser_can_reach_serves_ground_truth(store):
    """Crawl every page of every app (and the launcher pages) in a task episode started the way a
    person starts one, with the task panel showing; no page mentions what only the evaluator knows."""
    secrets = ground_truth_strings()
    # its own server: starting every task spends the launcher's episodes-per-minute, which the
    # module's other tests still need (the suite is near the default of 120)
    app = create_app(store, secret_key="test-secret", admin_token=ADMIN_TOKEN,
                     limits=Limits(new_episodes_per_minute=len(all_tasks()) + 10))
    app.config["TESTING"] = True
    client = app.test_client()
    sandbox = store.create()
    try:
        client.get(enter_url(app, sandbox.id, "/"))
        pages = crawl_apps(client)
        starts = ["/", "/healthz", "/episode/verdict"] + [f"/tasks/{t.instance_id}" for t in all_tasks()]
        pages.update(crawl(client, starts, ("/tasks/", "/policies/"), limit=60)[0])
        for task in all_tasks():  # each task's own episode, panel included
            with client.session_transaction() as sess:
                csrf = sess.get("csrf")
            resp = client.post(f"/tasks/{task.instance_id}/start", data={"csrf_token": csrf})
            assert resp.status_code == 302
            first = resp.headers["Location"]
            page = client.get(first, follow_redirects=True)  # an app's home may redirect (Vista's does)
            pages[f"{task.instance_id}:{first}"] = (page.status_code, page.get_data(as_text=True))
    finally:
        store.drop(sandbox.id)
    assert len(pages) > 40
    bad = {url: leaks(body, secrets) for url, (_status, body) in pages.items() if leaks(body, secrets)}
    assert not bad, bad
    errors = {url: status for url, (status, _body) in pages.items() if status >= 500}
    assert not errors, errors


def test_every_get_route_of_every_app_is_fetched_by_the_crawl(flask_app, store):
    """So the crawl above really covers every page of every app, linked or not."""
    client = flask_app.test_client()
    episode = store.create()
    try:
        client.get(enter_url(flask_app, episode.id, "/"))
        pages = crawl_apps(client, limit_per_app=40)
    finally:
        store.drop(episode.id)
    adapter = flask_app.url_map.bind("localhost")
    reached = {endpoint_of(adapter, url) for url in pages}
    wanted = {r.endpoint for r in flask_app.url_map.iter_rules()
              if "GET" in r.methods and r.endpoint.split(".")[0] in APPS}
    assert wanted <= reached, sorted(wanted - reached)
    assert not {url: status for url, (status, _body) in pages.items() if status >= 500}


def test_no_tool_result_carries_ground_truth(store):
    """Run every task's oracle through the agent's tool surface; no result mentions the evaluator."""
    secrets = ground_truth_strings()
    for task in all_tasks():
        episode = store.create(list(task.apps))
        try:
            env = Environment(episode, list(task.apps))
            seen: list[dict] = []
            original = env.call

            def recording_call(name, args=None):
                result = original(name, args)
                seen.append(result)
                return result

            env.call = recording_call
            task.oracle_tools(env)
            listed = json.dumps(env.tools())
            assert not leaks(listed + json.dumps(seen), secrets), task.instance_id
        finally:
            store.drop(episode.id)


def test_the_home_and_task_pages_name_no_evaluator_even_when_posted_to(client):
    """The launcher's own forms (start, start over) answer with redirects or pages, never evaluators."""
    task = all_tasks()[0]
    resp = post_form(client, f"/tasks/{task.instance_id}/start", {})
    assert resp.status_code == 302
    client.get(resp.headers["Location"])
    with client.session_transaction() as sess:  # binding a new episode starts a new session
        client.csrf = sess["csrf"]
    resp = post_form(client, "/episode/start-over", {}, follow_redirects=True)
    assert resp.status_code == 200
    assert not leaks(resp.get_data(as_text=True), ground_truth_strings())


def test_the_evaluator_is_shown_only_after_a_task_is_finished(client, monkeypatch, tmp_path):
    """The launcher's verdict page is the one place an evaluator is shown: after Finish has graded
    the episode. (Also a positive control: the leak detector above does see an evaluator.)"""
    monkeypatch.setitem(client.application.config, "CFAB_RECORDINGS", str(tmp_path))
    task = all_tasks()[0]
    resp = post_form(client, f"/tasks/{task.instance_id}/start", {})
    client.get(resp.headers["Location"])
    with client.session_transaction() as sess:
        client.csrf = sess["csrf"]
    secrets = {s: o for s, o in ground_truth_strings().items() if o == task.instance_id}
    early = client.get("/episode/verdict")
    assert early.status_code == 404 and not leaks(early.get_data(as_text=True), secrets)
    post_form(client, "/episode/finish", {"reply": "done"})
    late = client.get("/episode/verdict").get_data(as_text=True)
    assert leaks(late, secrets)
