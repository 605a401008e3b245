"""Web hygiene for every app: typed text is text, POSTs need the CSRF token, Box downloads stay
inside Box, and quotes or SQL-looking text in a search box are harmless.

Forms and routes come from a crawl and from the URL map, so a new app is covered as it lands.
The same checks in real Chromium (no dialog, no script run) are in e2e/test_xss.py.
"""
from __future__ import annotations

import pytest

from portals.core.environment import Environment
from portals.core.registry import load_apps
from portals.core.tools import WRITE
from portals.core.web import enter_url
from tasks.registry import all_tasks

from _crawl import crawl, endpoint_of
from conftest import post_form

APPS = load_apps()
PAYLOAD = "<script>alert('xss')</script><img src=x onerror=alert(1)>\"'><b>bold</b>"
RAW_MARKERS = ("<script>alert(", "<img src=x onerror", "<b>bold</b>")
SQLISH = ["'", "\"", "' OR '1'='1", "'; DROP TABLE files; --", "%", "_", "\\", "%' --", "1' UNION SELECT 1--"]


def raw_payload_in(body: str) -> list[str]:
    return [m for m in RAW_MARKERS if m in body]


@pytest.fixture
def bound(flask_app, store):
    """A client bound to a fresh all-apps episode, with its CSRF token."""
    episode = store.create()
    client = flask_app.test_client()
    client.get(enter_url(flask_app, episode.id, "/"))
    client.get("/healthz")
    with client.session_transaction() as sess:
        client.csrf = sess.get("csrf") or ""
    if not client.csrf:
        client.get(next(iter(APPS.values())).base_path + "/", follow_redirects=True)  # a first screen that redirects
        with client.session_transaction() as sess:
            client.csrf = sess["csrf"]
    yield client, episode
    store.drop(episode.id)


_FORMS: dict[str, list] = {}


def app_forms(client, spec, limit: int = 80):
    """The forms a crawl of an untouched episode finds in one app; crawled once per module (a
    fresh episode is the same world every time), since the CSRF test needs every app's too."""
    if spec.name not in _FORMS:
        _pages, _FORMS[spec.name] = crawl(client, [spec.base_path + "/"], (spec.base_path + "/",), limit)
    return _FORMS[spec.name]


def post_routes(flask_app):
    return [rule for rule in flask_app.url_map.iter_rules()
            if "POST" in rule.methods and rule.endpoint.split(".")[0] not in ("admin", "api")]


@pytest.mark.parametrize("app", list(APPS))
def test_every_form_echoes_typed_markup_as_text(flask_app, bound, app):
    """Every text field of every form, filled with markup and posted: the page that comes back
    (an error re-render or a success) shows it escaped, never as markup."""
    client, episode = bound
    forms = app_forms(client, APPS[app])
    if not [r for r in post_routes(flask_app) if r.endpoint.split(".")[0] == app]:
        assert not forms  # a read-only dashboard (Plaid's) posts nothing
        return
    assert forms, f"{app} has no forms to check"
    for form in forms:
        data = {**form.fields, **{name: PAYLOAD for name in form.text_fields}}
        data.pop("csrf_token", None)
        resp = post_form(client, form.action, data, follow_redirects=True)
        body = resp.get_data().decode("utf-8", "replace")
        assert resp.status_code < 500, f"{form.action}: {resp.status_code}"
        assert not raw_payload_in(body), f"{form.action} rendered typed markup: {raw_payload_in(body)}"


def _with_payload(env: Environment):
    """Wrap env.call so every write stores the payload in its free-text arguments where the
    service accepts it (ids with markup appended would just be refused, so those keep theirs)."""
    original = env.call

    def call(name, args=None):
        app, tool = name.split(".", 1)
        spec = APPS[app].tools[tool]
        if spec.kind != WRITE or not isinstance(args, dict):
            return original(name, args)
        texts = [p.name for p in spec.params if p.kind == "str" and isinstance(args.get(p.name), str)]
        for chosen in [texts] + [[t] for t in texts]:
            result = original(name, {**args, **{t: args[t] + " " + PAYLOAD for t in chosen}})
            if "error" not in result:
                return result
        return original(name, args)

    env.call = call
    return env


def test_stored_markup_shows_as_text_on_every_page(flask_app, store):
    """Run every family's oracle with markup in every free-text field it writes, then crawl every
    page of the apps it wrote to (an app's data lives in its own database, so only they can show
    it): the stored markup appears, escaped, and never raw."""
    shown = 0
    one_per_family = {t.family: t for t in reversed(all_tasks())}.values()  # instances differ in data only
    for task in one_per_family:
        episode = store.create(list(task.apps))
        try:
            task.oracle_tools(_with_payload(Environment(episode, list(task.apps))))
            client = flask_app.test_client()
            client.get(enter_url(flask_app, episode.id, "/"))
            for spec in (APPS[name] for name in task.apps):
                pages, _ = crawl(client, [spec.base_path + "/"], (spec.base_path + "/",), 60)
                for url, (status, body) in pages.items():
                    assert status < 500, url
                    assert not raw_payload_in(body), f"{url} rendered stored markup"
                    shown += "&lt;script&gt;alert(" in body
        finally:
            store.drop(episode.id)
    assert shown, "no page showed the stored text at all, so the check above proved nothing"


def test_every_post_route_refuses_a_request_without_the_csrf_token(flask_app, bound):
    """Every POST route outside the token-authenticated APIs, with a real target where the crawl
    found one, refuses a missing, a wrong and another session's token - and writes nothing."""
    client, episode = bound
    adapter = flask_app.url_map.bind("localhost")
    real: dict[str, str] = {}
    for spec in APPS.values():
        for form in app_forms(client, spec):
            real.setdefault(endpoint_of(adapter, form.action, "POST"), form.action)
    other = flask_app.test_client()
    other.get("/healthz")
    other_episode = client.application.extensions["cfab_store"].create(["outlook"])
    other.get(enter_url(flask_app, other_episode.id, "/outlook/"))
    other.get("/outlook/")
    with other.session_transaction() as sess:
        foreign = sess["csrf"]
    client.application.extensions["cfab_store"].drop(other_episode.id)
    task_id = all_tasks()[0].instance_id
    before_calls = len(episode.calls)
    for rule in post_routes(flask_app):
        url = real.get(rule.endpoint) or adapter.build(
            rule.endpoint, {a: (task_id if a == "instance_id" else 1) for a in rule.arguments})
        for token in (None, "", "wrong", foreign):
            data = {} if token is None else {"csrf_token": token}
            headers = {} if token is None else {"X-CSRF-Token": token}
            resp = client.post(url, data=data, headers=headers)
            assert resp.status_code == 400, f"POST {url} with token {token!r}: {resp.status_code}"
    assert len(episode.calls) == before_calls and episode.diff() == {}
    with client.session_transaction() as sess:
        assert sess["episode"] == episode.id  # no POST re-bound the browser either


@pytest.mark.parametrize("path", [
    "/box/file/..%2f..%2fetc%2fpasswd", "/box/file/../../etc/passwd/download",
    "/box/file/%2e%2e%2f%2e%2e%2fportals%2fcore%2fweb.py/download", "/box/file/-1/download",
    "/box/file/1%00/download", "/box/file/99999999999999999999999999/download",
    "/box/file/9223372036854775808/download", "/box/folder/..%2f..", "/box/folder/-5",
    "/box/folder/1/../../../etc/passwd", "/box/search?query=../../etc/passwd",
    "/box/search?query=%00", "/box/file/0x10/download", "/box/..%2f..%2fportals/core/web.py",
])
def test_box_routes_serve_nothing_outside_the_store(bound, path):
    client, episode = bound
    resp = client.get(path, follow_redirects=True)
    body = resp.get_data().decode("utf-8", "replace")
    assert resp.status_code < 500, f"{path}: {resp.status_code}"
    assert "root:x:0:0" not in body and "def create_app" not in body and "import " not in body
    if resp.status_code == 200:
        assert resp.content_type.startswith(("text/html", "application/pdf"))


def test_box_downloads_serve_only_stored_documents_by_id(bound):
    """File names are data, not paths: hostile names are refused or served safely by id."""
    client, episode = bound
    env = Environment(episode, ["box"])
    for name in ("../../etc/passwd", "..\\..\\boot.ini", "..", "a\r\nSet-Cookie: x=1.pdf", "nul\x00.pdf"):
        assert "error" in env.call("box.files.upload", {"folder_id": 0, "name": name, "content": "x"})
    odd = env.call("box.files.upload", {"folder_id": 0, "name": 'é"; rm -rf.pdf', "content": "hello"})
    resp = client.get(f"/box/file/{odd['id']}/download")
    assert resp.status_code == 200 and resp.data.startswith(b"%PDF")
    assert "\n" not in resp.headers["Content-Disposition"]


@pytest.mark.parametrize("app", list(APPS))
def test_sql_looking_text_in_search_fields_is_harmless(bound, app):
    """Every GET form (the search and filter boxes) with quotes, wildcards and SQL in every text
    field: a normal page or a polite refusal, and the database is exactly as it was."""
    client, episode = bound
    spec = APPS[app]
    searched = 0
    adapter = client.application.url_map.bind("localhost")
    pages, _ = crawl(client, [spec.base_path + "/"], (spec.base_path + "/",), 80)
    from _crawl import parse
    seen = set()
    before = episode.app(app).snapshot()
    for url, (_status, body) in pages.items():
        for form in parse("http://localhost" + url, body).forms:
            key = endpoint_of(adapter, form.action.replace("http://localhost", ""))
            if form.method != "get" or not form.text_fields or key in seen:
                continue
            seen.add(key)
            action = form.action.replace("http://localhost", "").split("?")[0]
            for text in SQLISH:
                query = {**form.fields, **{name: text for name in form.text_fields}}
                resp = client.get(action, query_string=query)
                searched += 1
                assert resp.status_code in (200, 302, 400, 404, 422), f"{action} {text!r}: {resp.status_code}"
    assert searched, f"{app} has no search box to check"
    assert episode.app(app).snapshot() == before
