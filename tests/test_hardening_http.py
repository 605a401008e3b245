"""What an outsider meets: the crawler, hostile bodies and forms, and concurrent load, run
against a real `cfab serve` process over HTTP on loopback (tests/_server.py), not the Flask
test client. Every 5xx the server answered is in its own request log, and there must be none.
"""
from __future__ import annotations

import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from portals.core import recording
from portals.core.registry import load_apps
from tasks.registry import all_tasks

from _crawl import crawl, endpoint_of
from _server import running_cfab
from test_load import HttpTools, alone

APPS = load_apps()
RUN = "sage_intacct.accounts-payable/check-run.create"  # guarded, no required argument
HOSTILE = ["9999-12-31", "9223372036854775807", "\u00c9X-1\u202efdp.exe", "<script>alert(1)</script>",
           "' OR 1=1 --", "x" * 6000, "-1", "1e400", "\u0130Z-4", ""]


def test_every_app_page_and_form_over_http_answers_without_a_server_error(cfab_server):
    """The crawl of every GET route of every app (one URL a route), then every POST form found
    on the way sent once with a hostile value in each field a person types into."""
    browser = cfab_server.browser()
    made = cfab_server.open_episode()
    adapter = browser.application.url_map.bind("localhost")
    pages, forms = {}, []
    try:
        browser.enter(made["enter_url"])
        for spec in APPS.values():
            found, app_forms = crawl(browser, [spec.base_path + "/"], (spec.base_path + "/",), 25, per_endpoint=1)
            pages.update(found)
            forms += [f for f in app_forms if f.method == "post"]
            reached = {endpoint_of(adapter, url) for url in found}
            for rule in browser.application.url_map.iter_rules():  # routes no link led to
                if rule.endpoint.split(".")[0] == spec.name and "GET" in rule.methods \
                        and rule.endpoint not in reached:
                    url = adapter.build(rule.endpoint, {arg: 1 for arg in rule.arguments})
                    pages[url] = (browser.get(url).status_code, "")
        reached = {endpoint_of(adapter, url) for url in pages}
        wanted = {r.endpoint for r in browser.application.url_map.iter_rules()
                  if "GET" in r.methods and r.endpoint.split(".")[0] in APPS}
        assert wanted <= reached, sorted(wanted - reached)
        assert not {url: s for url, (s, _b) in pages.items() if s >= 500}
        assert sum(1 for s, _b in pages.values() if s == 200) > 60
        assert len(forms) > 20
        for n, form in enumerate(forms):
            value = HOSTILE[n % len(HOSTILE)]
            data = {**form.fields, **{name: value for name in form.text_fields}, "csrf_token": browser.csrf}
            resp = browser.post(form.action, data=data)
            assert resp.status_code < 500, (form.action, value, resp.status_code)
        # and pages to a browser with no episode: a 403 page (or a 404), never a 500
        stranger = cfab_server.browser()
        for url in sorted(pages)[::8]:
            status = stranger.get(url).status_code
            assert status in (403, 404), (url, status)
    finally:
        cfab_server.drop(made["episode_id"])
    assert not cfab_server.server_errors(), cfab_server.server_errors()


@pytest.mark.parametrize("body,content_type,status", [
    (b'{"vendor_id": "V9999",}', "application/json", 400), (b"<run/>", "application/xml", 400),
    (b"vendor_id=V9999", "application/x-www-form-urlencoded", 400), (b'{"vendor_id": "V9999"}', None, 400),
    (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "application/json", 400),
    (b'{"page": 1e400}', "application/json", 400), (b'{"content": "' + b"x" * (1024 * 1024 + 10) + b'"}',
                                                    "application/json", 413)],
    ids=["trailing comma", "xml", "form", "no content type", "100k deep", "1e400", "over 1 MiB"])
def test_a_body_that_is_not_one_json_object_runs_nothing_over_http(cfab_server, body, content_type, status):
    made = cfab_server.open_episode(["sage_intacct"])
    try:
        headers = {"Authorization": f"Bearer {made['agent_token']}"}
        if content_type:
            headers["Content-Type"] = content_type
        before = cfab_server.snapshot(made["episode_id"])
        resp = cfab_server.http.post(f"{cfab_server.url}/api/tools/{RUN}", data=body, headers=headers, timeout=60)
        assert resp.status_code == status and resp.json()["message"], resp.text[:200]
        assert cfab_server.admin("GET", f"/episodes/{made['episode_id']}/guard_log") == []
        assert cfab_server.admin("GET", f"/episodes/{made['episode_id']}/calls") == []
        assert cfab_server.snapshot(made["episode_id"]) == before
    finally:
        cfab_server.drop(made["episode_id"])
    assert not cfab_server.server_errors()


def test_sixteen_concurrent_episodes_over_http_get_the_diffs_they_have_alone(cfab_server, store):
    """The load check against the real process: oracles on 16 episodes at once, all over HTTP."""
    tasks = list(all_tasks())[:8]
    reference = {t.instance_id: alone(store, t) for t in tasks}  # same book, seed and clock as the server
    jobs = [tasks[i % len(tasks)] for i in range(16)]
    started = threading.Barrier(len(jobs), timeout=120)

    def run(task):
        made = cfab_server.open_episode(list(task.apps))
        started.wait()  # every episode exists before any oracle starts: they truly overlap
        reply = task.oracle_tools(HttpTools(cfab_server.url, made["agent_token"]))
        diff = cfab_server.admin("GET", f"/episodes/{made['episode_id']}/diff")
        cfab_server.drop(made["episode_id"])
        return task, reply, diff

    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        outcomes = list(pool.map(run, jobs))
    for task, reply, diff in outcomes:
        ref = reference[task.instance_id]
        assert json.loads(json.dumps(ref["diff"])) == diff, f"{task.instance_id}: diff differs from alone"
        assert reply == ref["reply"], task.instance_id
    assert not cfab_server.server_errors(), cfab_server.server_errors()


def test_many_browsers_at_once_each_hold_one_sandbox(cfab_server):
    """Browsers posting "new episode" and task starts concurrently: no 5xx, one sandbox each."""
    def visitor(n: int):
        browser = cfab_server.browser()
        browser.refresh_csrf("/")
        statuses = []
        for i in range(4):
            url = "/episodes/new" if (n + i) % 2 else f"/tasks/{all_tasks()[i].instance_id}/start"
            resp = browser.post(url, data={"csrf_token": browser.csrf})
            statuses.append(resp.status_code)
            browser.refresh_csrf("/")
        statuses.append(browser.post("/episodes/new", data={"csrf_token": browser.csrf}).status_code)
        statuses.append(browser.get("/box/").status_code)
        return statuses

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(visitor, range(8)))
    for statuses in results:
        assert all(s in (302, 429) for s in statuses[:-1]), statuses
        assert statuses[-1] == 200, statuses  # its last sandbox is still its own
    assert not cfab_server.server_errors(), cfab_server.server_errors()


def test_serve_flags_set_the_limits_and_leftovers_are_cleaned_at_start(tmp_path):
    recordings = tmp_path / "recordings"
    recordings.mkdir()
    killed = recordings / ".tmp-killed.json"
    killed.write_bytes(b"")  # a SIGKILL during Finish
    old = time.time() - recording.LEFTOVER_SECONDS - 5
    os.utime(killed, (old, old))
    with running_cfab(tmp_path, "--max-episodes", "2", "--max-body-bytes", "2048",
                      "--tool-calls-per-minute", "6") as server:
        assert not killed.exists()
        made = [server.open_episode(["box"]) for _ in range(2)]
        full = server.admin("POST", "/episodes", {"apps": ["box"]}, raw=True)
        assert full.status_code == 429 and full.json()["error"] == "too_many"
        browser = server.browser()
        browser.refresh_csrf("/")
        page = browser.post("/episodes/new", data={"csrf_token": browser.csrf})
        assert page.status_code == 429 and "<html" in page.get_data(as_text=True)
        big = server.tool(made[0]["agent_token"], "box.search", {"query": "x" * 4000})
        assert big.status_code == 413 and big.json()["error"] == "too_large"
        # the big one above was call 1 of episode 0's 6 a minute; episode 1 has its own 6
        answers = [server.tool(made[0]["agent_token"], "box.search", {"query": "lien"}) for _ in range(6)]
        assert [a.status_code for a in answers] == [200] * 5 + [429]
        limited = answers[-1]
        assert limited.json()["error"] == "too_many" and 1 <= int(limited.headers["Retry-After"]) <= 60
        assert len(server.admin("GET", f"/episodes/{made[0]['episode_id']}/calls")) == 5  # the 429 ran nothing
        assert server.tool(made[1]["agent_token"], "box.search", {"query": "lien"}).status_code == 200
        server.drop(made[0]["episode_id"])
        assert server.admin("POST", "/episodes", {"apps": ["box"]}, raw=True).status_code == 201
        assert not server.server_errors(), server.server_errors()


def test_serve_turns_the_rates_on_by_default(tmp_path):
    """`cfab serve` with no flags: 20 launcher episodes a minute from one address, the 21st a
    429 page with Retry-After (the tool-call rate's default, 600, is shown by --help)."""
    with running_cfab(tmp_path) as server:
        browser = server.browser()
        statuses = []
        for _ in range(21):
            browser.refresh_csrf("/")
            statuses.append(browser.post("/episodes/new", data={"csrf_token": browser.csrf}).status_code)
        assert statuses == [302] * 20 + [429], statuses
        page = browser.post("/episodes/new", data={"csrf_token": browser.refresh_csrf("/")})
        assert page.status_code == 429 and "one address" in page.get_data(as_text=True)
        assert 1 <= int(page.headers["Retry-After"]) <= 60
        assert browser.get("/box/").status_code == 200  # the browser keeps the sandbox it had
        assert not server.server_errors(), server.server_errors()
    from click.testing import CliRunner

    from agent.cli import main

    shown = CliRunner().invoke(main, ["serve", "--help"]).output
    assert "--tool-calls-per-minute" in shown and "600" in shown
