"""An outside attack on a real `cfab serve` (issue 18), as a repeatable check of a few minutes.

    .venv/bin/python tests/attack.py [--scale 1.0] [--out results/attack.json]   (or: make attack)

It starts `cfab serve` on loopback with its default limits (tests/_server.py) and, over HTTP
only: crawls every app's pages, posts every form it found with hostile values, calls every tool
with hostile values in each argument, sends every tool bodies that are not one JSON object (and
deep, and too large), pokes the control plane without or with the wrong token and with
malformed restores and seeds, reads pages with no, forged and stale cookies, floods the launcher
from fresh browsers, and does much of it from many threads at once. Then it SIGKILLs a server
while browsers press Finish on their tasks, truncates a cached template, restarts on the same
recordings and checks that nothing is half-written: every recording is whole JSON, the
truncated template is rebuilt, old cookies get a 403 page, the new server works.

It prints the count of answers by status and the 5xx (from the answers and from the server's
own request log), and exits 1 if there was any 5xx or a check failed. `--scale` multiplies the
rounds (1.0 is about 20,000 requests).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from _crawl import crawl  # noqa: E402
from _server import running_cfab  # noqa: E402

HOSTILE = ["9999-12-31", "0001-01-01", "9223372036854775807", "-9223372036854775809", "1e400", "-1", "0",
           "\u00c9X-1\u202efdp.exe", "\u0130Z-4", "i\u0307z-4", "<script>alert(1)</script>", "' OR 1=1 --",
           "../../etc/passwd", "%00", "x" * 6000, "", " ", "\u200b", "NaN", "99999999999999999999.99"]
VALUES = HOSTILE + [2 ** 63, -2 ** 63 - 1, 9223372036854775807, 1.5, -0.0, True, None, [], {}, [[["deep"]]],
                    {"$gt": ""}, ["V1001"] * 50]
BODIES = [(b'{"vendor_id": "V9999",}', "application/json"), (b"{vendor_id: V9999}", "application/json"),
          (b'{"vendor_id": "\xff\xfe"}', "application/json"), (b"<run/>", "application/xml"),
          (b"vendor_id=V9999", "application/x-www-form-urlencoded"), (b'{"vendor_id": "V9999"}', None),
          (b"{}", "text/plain"), (b"", "application/json"), (b"null", "application/json"),
          (b"[]", "application/json"), (b'{"page": NaN}', "application/json"),
          (b'{"page": Infinity}', "application/json"), (b"{}{}", "application/json"),
          (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "application/json"),
          (b'{"q": "' + b"x" * (1024 * 1024 + 10) + b'"}', "application/json")]


class Tally:
    """Every answer the attack got, by status; the 5xx kept with what was asked."""

    def __init__(self):
        self.status: Counter = Counter()
        self.errors: list[str] = []
        self.failed: list[str] = []
        self.lock = threading.Lock()

    def hook(self, resp, *args, **kwargs):
        with self.lock:
            self.status[resp.status_code] += 1
            if resp.status_code >= 500:
                self.errors.append(f"{resp.status_code} {resp.request.method} {resp.request.url[:200]}")

    def watch(self, session):
        session.hooks["response"].append(self.hook)
        return session

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            with self.lock:
                self.failed.append(what)


class Episodes:
    """Admin episodes handed out to the tool callers; each is dropped and replaced after `calls`
    calls, so the per-episode rate (600 a minute by default) is met but not what is measured."""

    def __init__(self, server, apps=None, calls: int = 500):
        self.server, self.apps, self.calls = server, apps, calls
        self.local = threading.local()

    def token(self) -> str:
        mine = getattr(self.local, "made", None)
        if mine is None or self.local.used >= self.calls:
            if mine is not None:
                self.server.admin("DELETE", f"/episodes/{mine['episode_id']}", raw=True)
            self.local.made, self.local.used = self.server.open_episode(self.apps), 0
        self.local.used += 1
        return self.local.made["agent_token"]


def tool_calls(server, tally, tools: list[dict], rounds: int, workers: int) -> int:
    episodes = Episodes(server)
    jobs = []
    for _ in range(rounds):
        for tool in tools:
            props = tool["parameters"]["properties"]
            filled = {name: "1" for name in tool["parameters"].get("required", [])}
            jobs.append((tool["name"], {}))
            for name in props:
                jobs.extend((tool["name"], {**filled, name: value}) for value in VALUES)
            jobs.append((tool["name"], {**filled, "no_such_argument": 1}))

    def call(job):
        name, body = job
        resp = server.tool(episodes.token(), name, body)
        tally.check(resp.status_code == 429 or resp.headers.get("Content-Type", "").startswith("application/json"),
                    f"{name}: a non-JSON answer {resp.status_code}")

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(call, jobs))
    return len(jobs)


def bodies(server, tally, tools: list[dict], workers: int) -> int:
    episodes = Episodes(server)
    jobs = [(tool["name"], body, kind) for tool in tools for body, kind in BODIES]

    def send(job):
        name, body, kind = job
        headers = {"Authorization": f"Bearer {episodes.token()}", **({"Content-Type": kind} if kind else {})}
        resp = server.http.post(f"{server.url}/api/tools/{name}", data=body, headers=headers, timeout=120)
        tally.check(resp.status_code in (400, 413, 429), f"{name}: a malformed body answered {resp.status_code}")

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(send, jobs))
    return len(jobs)


def pages_and_forms(server, tally, apps: list[str], rounds: int) -> int:
    browser = server.browser()
    tally.watch(browser.session)
    made = server.open_episode()
    browser.enter(made["enter_url"])
    from portals.core.registry import load_apps

    specs, sent, pages, forms = load_apps(), 0, {}, []
    for app in apps:
        found, app_forms = crawl(browser, [specs[app].base_path + "/"], (specs[app].base_path + "/",), 40,
                                 per_endpoint=2)
        pages.update(found)
        forms += [f for f in app_forms if f.method == "post"]
    sent += len(pages)
    for n in range(rounds * len(HOSTILE)):
        for form in forms:
            value = HOSTILE[(n + hash(form.action)) % len(HOSTILE)]
            data = {**form.fields, **{name: value for name in form.text_fields}, "csrf_token": browser.csrf}
            browser.post(form.action, data=data)
            sent += 1
        if n % 5 == 4:  # a fresh episode now and then: the rate per episode is not what is tested
            server.admin("DELETE", f"/episodes/{made['episode_id']}", raw=True)
            made = server.open_episode()
            browser.enter(made["enter_url"])
    # the same pages to strangers: no cookie, a forged one, a cookie of a dropped episode
    server.admin("DELETE", f"/episodes/{made['episode_id']}", raw=True)
    stale = browser
    forged = tally.watch(server.browser().session)
    forged.cookies.set("session", "eyJlcGlzb2RlIjoibm9wZSJ9.Zm9v.YmFy")
    nobody = tally.watch(server.browser().session)
    for url in sorted(pages)[::3]:
        for who in (stale.session, forged, nobody):
            resp = who.get(server.url + url, allow_redirects=False, timeout=60)
            tally.check(resp.status_code in (302, 403, 404), f"{url} without an episode: {resp.status_code}")
            sent += 1
    tally.check(len(forms) > 20 and len(pages) > 60, f"the crawl found {len(pages)} pages, {len(forms)} forms")
    return sent


def control_plane(server, tally) -> int:
    made = server.open_episode(["box", "vista_erp"])
    eid, sent = made["episode_id"], 0
    digest = server.admin("GET", f"/episodes/{eid}/snapshot/digest")
    for path in ("/episodes", f"/episodes/{eid}/snapshot", f"/episodes/{eid}/diff", f"/episodes/{eid}/guard_log",
                 f"/episodes/{eid}/snapshot/digest", f"/episodes/{eid}/calls"):
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Bearer {made['agent_token']}"}):
            resp = server.http.get(f"{server.url}/admin{path}", headers=headers, timeout=60)
            tally.check(resp.status_code in (401, 403, 405) and resp.headers["Content-Type"].startswith(
                "application/json"), f"/admin{path} with {headers}: {resp.status_code}")
            sent += 1
    box = json.loads(server.snapshot(eid))["box"]
    for body in ({"box": box, "vista_erp": {"tables": {"nope": []}}}, {"box": box, "vista_erp": "x"},
                 {"box": box, "nope": {}}, {"box": []}):
        resp = server.admin("POST", f"/episodes/{eid}/restore", body, raw=True)
        tally.check(resp.status_code == 400, f"a malformed restore answered {resp.status_code}")
        sent += 1
    for body in ({"seed": "Infinity"}, {"clock": 5}, {"seed": -1}, {"seed": 2 ** 70}, {"clock": "9999-99-99"}):
        resp = server.admin("POST", f"/episodes/{eid}/seed", body, raw=True)
        tally.check(resp.status_code == 400, f"seed {body}: {resp.status_code}")
        sent += 1
    resp = server.http.post(f"{server.url}/admin/episodes/{eid}/seed", data=b'{"seed": Infinity}', timeout=60,
                            headers={"Authorization": f"Bearer {server.admin_token}",
                                     "Content-Type": "application/json"})
    tally.check(resp.status_code == 400, f"seed Infinity: {resp.status_code}")
    tally.check(server.admin("GET", f"/episodes/{eid}/snapshot/digest") == digest,
                "a refused restore or seed changed the episode")
    server.drop(eid)
    return sent + 1


def launcher_flood(server, tally, visitors: int) -> int:
    from tasks.registry import all_tasks

    tasks = [t.instance_id for t in all_tasks()][:6]

    def visitor(n):
        browser = server.browser()
        tally.watch(browser.session)
        out = []
        for i in range(3):
            browser.refresh_csrf("/")
            url = "/episodes/new" if (n + i) % 2 else f"/tasks/{tasks[(n + i) % len(tasks)]}/start"
            out.append(browser.post(url, data={"csrf_token": browser.csrf}).status_code)
        out.append(browser.post("/episodes/new", data={}).status_code)  # no CSRF token
        out.append(browser.get("/episodes/new").status_code)  # a GET to a POST route
        return out

    with ThreadPoolExecutor(8) as pool:
        for statuses in pool.map(visitor, range(visitors)):
            tally.check(all(s in (302, 429) for s in statuses[:3]) and statuses[3:] == [400, 405], str(statuses))
    return visitors * 9


def kill_during_finish(folder: Path, recordings: Path, tally, cache: Path, browsers: int = 8) -> dict:
    """Browsers press Finish on their tasks while the server is SIGKILLed; a cached template is
    truncated; a new server starts on the same recordings and must find nothing half-written."""
    from tasks.registry import all_tasks

    tasks = [t for t in all_tasks()][:browsers]
    flags = ("--recordings", str(recordings))
    with running_cfab(folder / "killed", *flags) as server:
        tally.watch(server.http)
        people = []
        for task in tasks:
            browser = server.browser()
            tally.watch(browser.session)
            browser.refresh_csrf("/")
            browser.post(f"/tasks/{task.instance_id}/start", data={"csrf_token": browser.csrf})
            browser.refresh_csrf("/")
            people.append(browser)
        def finish(browser):
            go.wait()
            for _ in range(3):
                try:
                    browser.session.post(server.url + "/episode/finish", timeout=10,
                                         data={"csrf_token": browser.csrf, "reply": "Done. " * 2000})
                except Exception:  # the server is gone mid-request: that is the point
                    return

        done = people[: len(people) // 2]  # these finish before the kill: their recordings must be whole
        for browser in done:
            resp = browser.session.post(server.url + "/episode/finish", timeout=120,
                                        data={"csrf_token": browser.csrf, "reply": "Done."})
            tally.check(resp.status_code == 200 and "verdict" in resp.url, f"a finish before the kill: {resp.status_code}")
        people = people[len(done):]
        go = threading.Barrier(len(people) + 1)
        threads = [threading.Thread(target=finish, args=(b,)) for b in people]
        for t in threads:
            t.start()
        go.wait()
        time.sleep(0.05)
        os.kill(server.proc.pid, signal.SIGKILL)
        for t in threads:
            t.join()
        server.proc.wait()
        errors_before_kill = server.server_errors()
    templates = sorted(cache.glob("*.sqlite"))
    if templates:
        data = templates[0].read_bytes()
        templates[0].write_bytes(data[: len(data) // 3])  # a cache file cut short
    with running_cfab(folder / "restarted", *flags) as server:
        tally.watch(server.http)
        written = [p for p in recordings.rglob("*") if p.is_file() and not p.name.startswith(".tmp-")]
        whole = 0
        for path in written:
            try:
                json.loads(path.read_text())
                whole += 1
            except ValueError:
                tally.check(False, f"a half-written recording: {path}")
        leftovers = [p.name for p in recordings.rglob(".tmp-*")]
        for browser in done + people:  # cookies of the killed server's episodes
            resp = browser.session.get(server.url + "/procore/", timeout=60)
            tally.check(resp.status_code == 403, f"a stale cookie after the restart: {resp.status_code}")
        app = templates[0].name.split("-")[0] if templates else "box"
        made = server.open_episode([app])
        tools = server.http.get(f"{server.url}/api/tools", timeout=60,
                                headers={"Authorization": f"Bearer {made['agent_token']}"}).json()
        first = next(t["name"] for t in tools if t["kind"] == "read" and not t["parameters"]["required"])
        resp = server.tool(made["agent_token"], first, {})
        tally.check(resp.status_code == 200, f"{first} after the truncated {app} template: {resp.status_code}")
        tally.check(whole >= len(done), f"{whole} whole recordings, {len(done)} finished before the kill")
        errors = errors_before_kill + server.server_errors()
    return {"recordings_whole": whole, "temp_files_left": leftovers, "truncated_template": app,
            "server_log_5xx": errors}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="rounds multiplier (1.0: ~20,000 requests)")
    parser.add_argument("--workers", type=int, default=8, help="threads calling at once")
    parser.add_argument("--out", default=None, help="write the summary JSON here too")
    args = parser.parse_args(argv)
    from portals.core import template_cache

    tally, started = Tally(), time.monotonic()
    summary: dict = {"requests": {}}
    with tempfile.TemporaryDirectory(prefix="cfab-attack-") as tmp:
        folder = Path(tmp)
        cache = folder / "cache"
        cache.mkdir()
        for path in Path(template_cache.CACHE_DIR).glob("*.sqlite"):  # a copy: the real cache stays whole
            shutil.copy(path, cache / path.name)
        os.environ["CFAB_CACHE_DIR"] = str(cache)
        recordings = folder / "recordings"
        with running_cfab(folder / "main", "--recordings", str(recordings)) as server:
            tally.watch(server.http)
            from portals.core.registry import load_apps

            apps = sorted(load_apps())
            made = server.open_episode()
            tools = server.http.get(f"{server.url}/api/tools", timeout=60,
                                    headers={"Authorization": f"Bearer {made['agent_token']}"}).json()
            server.drop(made["episode_id"])
            rounds = max(1, round(args.scale))
            phases = [
                ("pages and forms", lambda: pages_and_forms(server, tally, apps, max(1, round(args.scale)))),
                ("control plane", lambda: control_plane(server, tally)),
                ("malformed bodies", lambda: bodies(server, tally, tools, args.workers)),
                ("hostile tool calls", lambda: tool_calls(server, tally, tools, rounds, args.workers)),
                ("launcher flood", lambda: launcher_flood(server, tally, int(32 * args.scale))),
            ]
            with ThreadPoolExecutor(len(phases)) as pool:  # every phase at once: concurrency is part of it
                futures = {name: pool.submit(run) for name, run in phases}
                for name, future in futures.items():
                    try:
                        summary["requests"][name] = future.result()
                    except Exception as err:  # a phase that broke is a failed check, not a crash
                        tally.check(False, f"{name}: {type(err).__name__}: {err}")
            summary["server_log_5xx"] = server.server_errors()
            tally.check(server.alive(), "the server died")
        summary["kill_and_restart"] = kill_during_finish(folder, recordings, tally, cache)
    summary.update(answers_by_status=dict(sorted(tally.status.items())), answers=sum(tally.status.values()),
                   answered_5xx=tally.errors, failed_checks=tally.failed,
                   seconds=round(time.monotonic() - started, 1))
    fives = len(tally.errors) + len(summary["server_log_5xx"]) + len(summary["kill_and_restart"]["server_log_5xx"])
    summary["count_5xx"] = fives
    text = json.dumps(summary, indent=1, default=str)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")
    print(f"attack: {summary['answers']} answers in {summary['seconds']} s, {fives} 5xx, "
          f"{len(tally.failed)} failed checks", file=sys.stderr)
    return 0 if not fives and not tally.failed else 1


if __name__ == "__main__":
    sys.exit(main())
