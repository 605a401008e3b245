"""Load without cross-talk, and no leaks: many episodes on one server behave as if alone.

Sixteen-plus episodes live at once on one portal server; each runs a task's oracle (half over
the HTTP tool API, half in-process) and each passes with exactly the diff it has when run
alone. A thousand episodes later the store holds none of them and they can be collected.
Timings and memory are reported by `cfab bench`, never asserted here.
"""
from __future__ import annotations

import gc
import json
import threading
import urllib.error
import urllib.request
import weakref
from concurrent.futures import ThreadPoolExecutor

from agent.browser import PortalServer
from agent.policies import OraclePolicy
from agent.runner import Harness
from grader.grade import grade
from portals.core.environment import Environment
from portals.core.web import create_app
from tasks.registry import all_tasks

from conftest import ADMIN_TOKEN

CONCURRENT = 16
WAVE = 24  # live episodes per wave: past sixteen, well under the server's default cap of 64


class HttpTools:
    """What an agent on the tool transport holds: the tool API URL and its episode token."""

    def __init__(self, base: str, token: str):
        self.base, self.token = base, token

    def call(self, name: str, args: dict | None = None) -> dict:
        request = urllib.request.Request(f"{self.base}/api/tools/{name}", data=json.dumps(args or {}).encode(),
                                         headers={"Authorization": f"Bearer {self.token}",
                                                  "Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=60) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as err:  # refusals come back as 4xx with a JSON body
            return json.loads(err.read())


def admin(base: str, method: str, path: str, body: dict | None = None):
    request = urllib.request.Request(f"{base}/admin{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {ADMIN_TOKEN}",
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as resp:
        return json.loads(resp.read())


def alone(store, task) -> dict:
    """The reference: the task's oracle in an otherwise empty moment, in process."""
    episode = store.create(list(task.apps))
    try:
        reply = task.oracle_tools(Environment(episode, list(task.apps)))
        return {"diff": episode.diff(), "reply": reply, "guard_log": list(episode.guard_log)}
    finally:
        store.drop(episode.id)


def test_sixteen_concurrent_episodes_pass_with_the_diffs_they_have_alone(store):
    """Every task runs once over HTTP and once in process, in waves of at least sixteen live
    episodes (each wave stays under the server's cap on open episodes, as a lab's runner must)."""
    tasks = list(all_tasks())
    reference = {t.instance_id: alone(store, t) for t in tasks}
    flask_app = create_app(store, secret_key="load-secret", admin_token=ADMIN_TOKEN)
    jobs = [(task, transport) for task in tasks for transport in ("http", "in-process")]
    waves = [jobs[n:n + WAVE] for n in range(0, len(jobs), WAVE)]
    if len(waves) > 1 and len(waves[-1]) < CONCURRENT:  # the last wave overlaps as much as the others
        waves[-2:] = [waves[-2] + waves[-1]]
    open_at_once: list[int] = []
    outcomes = []
    with PortalServer(flask_app) as server:
        for wave in waves:
            started = threading.Barrier(len(wave), timeout=120)

            def run(task, transport, started=started):
                created = admin(server.url, "POST", "/episodes", {"apps": list(task.apps)})
                episode_id = created["episode_id"]
                try:
                    if transport == "http":
                        env = HttpTools(server.url, created["agent_token"])
                    else:
                        env = Environment(store.get(episode_id), list(task.apps))
                    open_at_once.append(len(store.episodes))
                    started.wait()  # every episode of the wave exists before any oracle starts
                    reply = task.oracle_tools(env)
                    diff = admin(server.url, "GET", f"/episodes/{episode_id}/diff")
                    guard_log = admin(server.url, "GET", f"/episodes/{episode_id}/guard_log")
                    calls = admin(server.url, "GET", f"/episodes/{episode_id}/calls")
                finally:  # a failed run leaves nothing open for the tests after it
                    admin(server.url, "DELETE", f"/episodes/{episode_id}")
                result = grade(diff, guard_log, reply, task.evaluator, calls)
                return task, transport, diff, reply, result, episode_id

            with ThreadPoolExecutor(max_workers=len(wave)) as pool:
                outcomes += list(pool.map(lambda job: run(*job), wave))
    assert max(open_at_once) >= CONCURRENT
    assert len(outcomes) == 2 * len(tasks)
    for task, how, diff, reply, result, _id in outcomes:
        ref = reference[task.instance_id]
        assert result.passed, (task.instance_id, how, result.verdict)
        assert json.loads(json.dumps(ref["diff"])) == diff, f"{task.instance_id} ({how}) diff differs from alone"
        assert reply == ref["reply"]
    assert not {o[-1] for o in outcomes} & set(store.episodes), "an episode outlived its DELETE"


def test_dropped_episodes_leave_the_store_and_are_collected(store):
    """A thousand create/drop cycles: none stays in the store and none stays reachable."""
    gc.collect()
    before = set(store.episodes)
    refs = []
    for n in range(1000):
        episode = store.create()
        if n % 50 == 0:
            refs.append(weakref.ref(episode))
            refs.append(weakref.ref(next(iter(episode.apps.values()))))
        store.drop(episode.id)
    del episode
    gc.collect()
    assert set(store.episodes) == before
    assert not [r for r in refs if r() is not None], "dropped episodes are still referenced"


def test_the_runner_frees_every_episode_after_grading(store):
    """The runner's own path (policy, grade, drop) keeps nothing alive either."""
    made = []
    original = store.create

    def tracking_create(apps=None):
        episode = original(apps)
        made.append(weakref.ref(episode))
        return episode

    store.create = tracking_create
    try:
        with Harness("tools", store) as harness:
            runs = [harness.run_one(task, OraclePolicy()) for task in all_tasks()]
    finally:
        del store.create
    assert all(run["passed"] for run in runs)
    gc.collect()
    assert made and all(ref() is None for ref in made)
    assert all(ref() is None or ref().id not in store.episodes for ref in made)
