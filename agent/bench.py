"""`cfab bench`: the environment's speed, as figures (never asserted inside tests).

Each figure times the path a user runs and is named for what it measures:

- `oracle_episodes_per_s.tools`: what `cfab run --transport tools` does per run (open an
  evaluation episode, the oracle's tool calls, diff and grade, drop), over every task, in one
  process (`.tools_per_cpu_s`: the same per second of that process's CPU, steadier on a shared
  machine); `.tools_workers_N` is the same loop in N processes at once (threads share the GIL).
  Read tools on an app still exactly its template answer from a per-template cache
  (portals/core/read_cache.py), which the oracle's repeated runs hit far more often than a
  model's varied reads would: `.tools_without_read_cache` is the one-process loop with it off.
- `grade_ms`: the diff and grade after an oracle run, per task; `reset_after_oracle_writes_ms`:
  an episode put back to the start after the oracle's writes (what a gym `reset()` costs);
  `reset_untouched_ms` and `episode_create_ms`: the same for an episode of every app, untouched;
  `whole_book_snapshot_untouched_ms`: the admin snapshot of an untouched episode of every app
  (each app answers with its template's snapshot); `whole_book_snapshot_read_in_full_ms`: the
  same when every app has changed, so every database is read row by row.
- `browser_step_ms`: one click on a Procore list page (an htmx swap) and the accessibility-tree
  observation an agent gets after it, as `agent.llm.observe.BrowserActions` does them.
- `oracle_episodes_per_s.browser`: `cfab run --transport browser` per run, over every task.
- `browsergym_step_ms` (with `--browsergym PYTHON`): BrowserGym's own step on the same page, in
  its virtualenv against a `cfab serve` (agent/browsergym/step_timing.py): `env.step` of a click
  on the same pager links, as BrowserGym ships (its 0.5 s `pre_observation_delay`) and at the
  0.05 s this project's BrowserGym tests use; the observation is BrowserGym's (DOM snapshot,
  accessibility tree, screenshot).
- `server`: a real `cfab serve` subprocess (its default HTTP server, named in `wsgi`): page
  latency with 16 agents each loading a list page every 250 ms (p50/p99), closed-loop pages per
  second with 16 agents, and the resident memory of the process holding the episodes (gunicorn's
  worker) after warm-up and after 1,000 episodes opened and dropped over its admin API.

Figures are medians with p95 (or p99) over the samples; `machine` records the cores, the load
average before and after, and the commit, since the reference machine is shared and noisy.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from portals.core import read_cache
from portals.core.db import snapshot_bytes
from portals.core.episode import EpisodeStore
from portals.core.registry import load_apps
from tasks.lifecycle import grade_episode, open_episode
from tasks.registry import all_tasks

from .policies import OraclePolicy
from .runner import Harness

ROOT = Path(__file__).resolve().parents[1]
PAGE = "/procore/invoicing"  # a Procore list page: 25 rows, a pager and sortable headers (htmx swaps)
STEPS = {"paging": ("page-next", "page-previous"), "sorting": ("sort-amount", "sort-status")}


def _pct(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _ms(samples: list[float], tail: float = 0.95) -> dict:
    """Median and a tail percentile (p95 unless told) of durations in seconds, in ms."""
    ordered = sorted(samples)
    if not ordered:
        return {"n": 0}
    name = f"p{int(round(tail * 100))}_ms"
    return {"median_ms": round(statistics.median(ordered) * 1000, 3),
            name: round(_pct(ordered, tail) * 1000, 3), "n": len(ordered)}


def machine() -> dict:
    """Where and on what the figures were taken."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                timeout=10).stdout.strip() or None
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                                    capture_output=True, text=True, timeout=10).stdout.strip())
    except (OSError, subprocess.SubprocessError):
        commit, dirty = None, None
    return {"cpu_count": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
            "commit": commit, "uncommitted_changes": dirty, "python": platform.python_version(),
            "platform": platform.platform()}


# -- episodes, grading, snapshots --------------------------------------------------------------

def episode_figures(store: EpisodeStore, repeats: int) -> dict:
    apps = sorted(load_apps())
    creates, resets, untouched, in_full = [], [], [], []
    episode = store.create(apps)
    for i in range(repeats):
        t0 = time.perf_counter()
        fresh = store.create(apps)
        creates.append(time.perf_counter() - t0)
        store.drop(fresh.id)
        t0 = time.perf_counter()
        episode.reset()
        resets.append(time.perf_counter() - t0)
        if i < 20:  # an untouched app answers with its template's snapshot
            t0 = time.perf_counter()
            episode.snapshot()
            untouched.append(time.perf_counter() - t0)
        if i < 3:  # every app changed: each database read row by row
            t0 = time.perf_counter()
            for inst in episode.apps.values():
                snapshot_bytes(inst.spec.name, inst.conn, inst.spec.pks)
            in_full.append(time.perf_counter() - t0)
    store.drop(episode.id)
    return {"episode_create_ms": _ms(creates), "reset_untouched_ms": _ms(resets),
            "whole_book_snapshot_untouched_ms": _ms(untouched), "whole_book_snapshot_read_in_full_ms": _ms(in_full)}


def oracle_phases(store: EpisodeStore, tasks: list, policy) -> dict:
    """Per task: grading after the oracle's writes, then putting the episode back."""
    grades, resets = [], []
    for task in tasks:
        from portals.core.environment import Environment

        episode = open_episode(store, task)
        try:
            reply = policy.run_tools(task, Environment(episode, list(task.apps)))
            t0 = time.perf_counter()
            grade_episode(episode, task, reply)
            grades.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            episode.reset()
            resets.append(time.perf_counter() - t0)
        finally:
            store.drop(episode.id)
    return {"grade_ms": _ms(grades), "reset_after_oracle_writes_ms": _ms(resets)}


def _tools_rounds(store: EpisodeStore, tasks: list, policy, seconds: float,
                  cpu: list | None = None) -> tuple[int, float, int]:
    """Run every task on the tools transport, round after round, for at least `seconds`;
    `cpu`, if given, receives the CPU seconds this process spent."""
    harness = Harness("tools", store)
    runs = passed = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while True:
        for task in tasks:
            passed += bool(harness.run_one(task, policy)["passed"])
            runs += 1
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            if cpu is not None:
                cpu.append(time.process_time() - cpu_started)
            return runs, elapsed, passed


def _worker(seconds: float, barrier, results) -> None:
    store, tasks, policy = EpisodeStore(), list(all_tasks()), OraclePolicy()
    _tools_rounds(store, tasks, policy, 0.0)  # warm: templates, compiled SQL
    barrier.wait()
    runs, elapsed, passed = _tools_rounds(store, tasks, policy, seconds)
    results.put((runs, elapsed, passed))


def tools_throughput(store: EpisodeStore, tasks: list, policy, seconds: float, workers: int) -> dict:
    _tools_rounds(store, tasks, policy, 0.0)  # one warm-up round
    cpu: list = []
    runs, elapsed, passed = _tools_rounds(store, tasks, policy, seconds, cpu)
    out = {"tools": round(runs / elapsed, 1), "tools_runs": runs, "tools_passed": passed,
           # per second of this process's own CPU: what one core gives, whatever else loads the machine
           "tools_per_cpu_s": round(runs / cpu[0], 1) if cpu[0] > 0 else None}
    was = read_cache.set_enabled(False)  # every read computed afresh, as a model's new reads are
    try:
        runs, elapsed, passed = _tools_rounds(store, tasks, policy, seconds, cpu)
    finally:
        read_cache.set_enabled(was)
    out.update(tools_without_read_cache=round(runs / elapsed, 1), tools_without_read_cache_runs=runs,
               tools_without_read_cache_passed=passed,
               tools_without_read_cache_per_cpu_s=round(runs / cpu[1], 1) if cpu[1] > 0 else None)
    if workers > 1:
        ctx = multiprocessing.get_context("fork")
        barrier, results = ctx.Barrier(workers + 1), ctx.Queue()
        procs = [ctx.Process(target=_worker, args=(seconds, barrier, results)) for _ in range(workers)]
        for p in procs:
            p.start()
        barrier.wait()
        t0 = time.perf_counter()
        got = [results.get(timeout=600) for _ in procs]
        wall = time.perf_counter() - t0
        for p in procs:
            p.join()
        total = sum(r[0] for r in got)
        out[f"tools_workers_{workers}"] = round(total / wall, 1)
        out[f"tools_workers_{workers}_passed"] = sum(r[2] for r in got)
        out[f"tools_workers_{workers}_runs"] = total
    return out


# -- the browser -------------------------------------------------------------------------------

class _Skip(Exception):
    pass


def browser_figures(store: EpisodeStore, tasks: list, policy, steps: int, runs: int) -> dict:
    from portals.core.web import enter_url

    from .llm.observe import BrowserActions

    out: dict = {}
    with Harness("browser", store) as harness:
        episode = store.create(["procore"])
        context = harness.browser.new_context(viewport={"width": 1280, "height": 860})
        try:
            if not steps:
                raise _Skip
            page = context.new_page()
            page.goto(harness.server.url + enter_url(harness.flask_app, episode.id, PAGE))
            actions = BrowserActions(page, harness.server.url)
            actions.settle()
            actions.observe()
            for kind, bids in STEPS.items():
                clicks, observes, total = [], [], []
                for i in range(steps + 3):  # the first clicks warm Chromium and the templates
                    t0 = time.perf_counter()
                    actions.execute("click", {"bid": bids[i % len(bids)]})
                    t1 = time.perf_counter()
                    obs = actions.observe()
                    t2 = time.perf_counter()
                    if i >= 3:
                        clicks.append(t1 - t0)
                        observes.append(t2 - t1)
                        total.append(t2 - t0)
                name = "browser_step_ms" if kind == "paging" else f"browser_step_{kind}_ms"
                out[name] = {**_ms(total), "click_ms": _ms(clicks), "observation_ms": _ms(observes),
                             "page": PAGE, "clicks": list(bids), "axtree_chars": len(obs["axtree"])}
        except _Skip:
            pass
        finally:
            context.close()
            store.drop(episode.id)
        if runs:
            harness.run_one(tasks[0], policy)  # warm-up
            chosen = [tasks[i % len(tasks)] for i in range(runs)]
            passed, t0 = 0, time.perf_counter()
            for task in chosen:
                passed += bool(harness.run_one(task, policy)["passed"])
            out["oracle_browser"] = {"episodes_per_s": round(runs / (time.perf_counter() - t0), 3),
                                     "runs": runs, "passed": passed,
                                     "tasks": len({t.instance_id for t in chosen})}
    return out


def browsergym_figures(python: str, steps: int) -> dict:
    """BrowserGym's step on PAGE, timed by agent/browsergym/step_timing.py in `python` (a
    virtualenv with this project's `[browsergym]` extra) against a `cfab serve` of this checkout."""
    with tempfile.TemporaryDirectory(prefix="cfab-bench-bgym-") as tmp:
        server = ServeProcess(Path(tmp), ["--max-episodes", "8"])
        try:
            env = {**os.environ, "CFAB_URL": server.url, "CFAB_ADMIN_TOKEN": server.token, "PYTHONPATH": str(ROOT)}
            # an absolute path, not a resolved one: a venv's python is a link, and the link is the venv
            command = [os.path.abspath(python), "-m", "agent.browsergym.step_timing", "--page", PAGE,
                       *(arg for bid in STEPS["paging"] for arg in ("--click", bid)), "--steps", str(steps)]
            done = subprocess.run(command, env=env, cwd=tmp, capture_output=True, text=True, timeout=1800)
        finally:
            server.stop()
    if done.returncode != 0:
        raise RuntimeError(f"BrowserGym's step timing failed in {python}:\n{done.stderr[-2000:]}")
    found = json.loads(done.stdout)
    runs = [{**_ms(run.pop("step_s")), "action_ms": _ms(run.pop("action_s")), **run} for run in found["runs"]]
    return {**found, "page": PAGE, "clicks": list(STEPS["paging"]), "runs": runs}


# -- the server --------------------------------------------------------------------------------

class ServeProcess:
    """`cfab serve --port 0` in a subprocess, as a user starts it."""

    BANNER = re.compile(r"portals: (http://[0-9.:]+)/\s+\(admin token: (\S+)\)")

    def __init__(self, folder: Path, flags: list[str]):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        self.log = open(folder / "server.log", "wb")
        self.proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "serve", "--port", "0",
                                      "--recordings", str(folder / "recordings"), *flags],
                                     cwd=folder, env=env, stdout=subprocess.PIPE, stderr=self.log)
        for line in self.proc.stdout:
            match = self.BANNER.search(line.decode(errors="replace"))
            if match:
                self.url, self.token = match.groups()
                break
        else:
            raise RuntimeError(f"cfab serve did not start (see {folder / 'server.log'})")
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()

    def serving_pid(self) -> int:
        """The process holding the episodes: gunicorn's worker (the server's child), else the server."""
        try:
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children") as fh:
                children = [int(pid) for pid in fh.read().split()]
        except OSError:
            children = []
        return children[-1] if children else self.proc.pid

    def rss_mb(self) -> float:
        """The resident memory of the process holding the episodes."""
        with open(f"/proc/{self.serving_pid()}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
        return 0.0

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def _agent(requests, server: ServeProcess, admin) -> tuple:
    """A browser-like client entered into an episode of its own: (session, episode id)."""
    made = admin.post(f"{server.url}/admin/episodes", json={"apps": ["procore"], "next": PAGE}, timeout=60).json()
    http = requests.Session()
    http.get(server.url + made["enter_url"], allow_redirects=False, timeout=60)
    return http, made["episode_id"]


def _load(server: ServeProcess, sessions: list, seconds: float, interval: float | None) -> tuple[list, int]:
    """Every agent loads the list page (paced every `interval` s, or back to back) for `seconds`."""
    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def agent(http, offset: float):
        mine, bad = [], 0
        next_at = time.perf_counter() + offset
        while True:
            if interval:
                pause = next_at - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
                next_at += interval
            if time.perf_counter() >= stop_at:
                break
            t0 = time.perf_counter()
            resp = http.get(server.url + PAGE, timeout=60)
            mine.append(time.perf_counter() - t0)
            bad += resp.status_code != 200
        with lock:
            latencies.extend(mine)
            failures[0] += bad

    threads = [threading.Thread(target=agent, args=(s, (interval or 0) * i / len(sessions)))
               for i, s in enumerate(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, failures[0]


def _default_wsgi() -> str:
    from .cli import serve

    return next(str(p.default) for p in serve.params if p.name == "wsgi")


def server_figures(agents: int = 16, seconds: float = 10.0, episodes: int = 1000, wsgi: str | None = None) -> dict:
    """`wsgi` (gunicorn or werkzeug) picks `cfab serve --wsgi`; None runs its default."""
    import requests

    with tempfile.TemporaryDirectory(prefix="cfab-bench-") as tmp:
        server = ServeProcess(Path(tmp), ["--max-episodes", str(agents + 8), *(["--wsgi", wsgi] if wsgi else [])])
        try:
            admin = requests.Session()
            admin.headers["Authorization"] = f"Bearer {server.token}"
            made = [_agent(requests, server, admin) for _ in range(agents)]
            sessions = [m[0] for m in made]
            _load(server, sessions, 2.0, None)  # warm-up: templates compiled, pages cached
            paced, paced_bad = _load(server, sessions, seconds, 0.25)
            closed, closed_bad = _load(server, sessions, seconds / 2, None)
            for _http, episode_id in made:
                admin.delete(f"{server.url}/admin/episodes/{episode_id}", timeout=60)
            for _ in range(50):  # warm-up of the episode path before the memory baseline
                # (the first episode of every app seeds the templates a cold cache lacks: minutes)
                made_id = admin.post(f"{server.url}/admin/episodes", json={}, timeout=600).json()["episode_id"]
                admin.delete(f"{server.url}/admin/episodes/{made_id}", timeout=60)
            rss_start = server.rss_mb()
            peak = rss_start
            for n in range(episodes):
                made_id = admin.post(f"{server.url}/admin/episodes", json={}, timeout=60).json()["episode_id"]
                admin.delete(f"{server.url}/admin/episodes/{made_id}", timeout=60)
                if n % 100 == 0:
                    peak = max(peak, server.rss_mb())
            rss_after = server.rss_mb()
        finally:
            server.stop()
    return {
        "page": PAGE, "agents": agents, "wsgi": wsgi or _default_wsgi(),
        "paced_4_pages_per_s_each": {**_ms(paced, 0.99), "p50_ms": _ms(paced)["median_ms"],
                                     "pages_per_s": round(len(paced) / seconds, 1), "non_200": paced_bad},
        "closed_loop": {"pages_per_s": round(len(closed) / (seconds / 2), 1), **_ms(closed, 0.99),
                        "non_200": closed_bad},
        "rss_mb": {"after_warm_up": rss_start, f"peak_during_{episodes}_episodes": peak,
                   f"after_{episodes}_episodes": rss_after,
                   "growth_pct": round(100 * (rss_after - rss_start) / rss_start, 1) if rss_start else None},
    }


# -- Ray workers -------------------------------------------------------------------------------

def ray_figures(tasks: list, policy, counts=(1, 2, 4), seconds: float = 5.0, say=None) -> dict:
    """`cfab run --backend ray --workers N` per run, for each N: a local Ray head on this
    machine, N workers; the first sweep (the workers starting, their templates loaded) is timed
    apart, then sweeps over every task are run until `seconds` have passed."""
    from .cluster import RayBackend
    from .runner import run_suite

    say = say or (lambda _msg: None)
    out: dict = {}
    with RayBackend(workers=max(counts)):  # one Ray for every count; stopped at the end
        for n in counts:
            say(f"ray: {n} worker{'s' if n > 1 else ''}")
            with RayBackend(workers=n) as backend:
                t0 = time.perf_counter()
                first = run_suite(tasks, policy, "tools", 1, progress=False, backend=backend)
                startup = time.perf_counter() - t0
                runs = passed = 0
                started = time.perf_counter()
                while True:
                    results = run_suite(tasks, policy, "tools", 2, progress=False, backend=backend)
                    runs += results["n_runs"]
                    passed += sum(run["passed"] for task in results["tasks"] for run in task["runs"])
                    elapsed = time.perf_counter() - started
                    if elapsed >= seconds:
                        break
                out[f"workers_{n}"] = {"episodes_per_s": round(runs / elapsed, 1), "runs": runs,
                                       "passed": passed, "first_sweep_s": round(startup, 2),
                                       "first_sweep_runs": first["n_runs"],
                                       "nodes": first["ray"]["nodes"]}
    return out


# -- all of it ---------------------------------------------------------------------------------

def run_bench(episodes: int = 200, browser_runs: int | None = None, seconds: float = 5.0, workers: int = 2,
              browser_steps: int = 30, server: bool = True, progress=None, ray_workers=(),
              browsergym_python: str | None = None) -> dict:
    """Every figure. `browser_runs=None` runs each task once through the browser (0: none);
    `browser_steps=0` skips the timed clicks; `workers=1` the multi-process throughput;
    `server=False` the `cfab serve` figures; `ray_workers` (e.g. (1, 2, 4)) adds the oracle
    sweep on that many Ray workers (none by default); `browsergym_python` adds BrowserGym's step
    on the browser step's page (a python with the `[browsergym]` extra)."""
    say = progress or (lambda _msg: None)
    figures: dict = {"machine": machine()}
    started = time.perf_counter()
    store = EpisodeStore()
    apps = sorted(load_apps())  # every app: a sandbox episode holds them all
    for app in apps:
        store.template(app)
    figures["template_load_s"] = round(time.perf_counter() - started, 3)
    figures["book_rows"] = {app: sum(len(rows) for rows in json.loads(store.template(app).snapshot())["tables"].values())
                            for app in apps}
    tasks, policy = list(all_tasks()), OraclePolicy()
    figures["tasks"] = len(tasks)
    say("episodes")
    figures.update(episode_figures(store, episodes))
    say("grading and resets")
    figures.update(oracle_phases(store, tasks, policy))
    say("tools throughput")
    figures["oracle_episodes_per_s"] = tools_throughput(store, tasks, policy, seconds, workers)
    runs = len(tasks) if browser_runs is None else browser_runs
    if runs or browser_steps:
        say("browser")
        found = browser_figures(store, tasks, policy, browser_steps, runs)
        figures.update({k: v for k, v in found.items() if k.startswith("browser_step")})
        if "oracle_browser" in found:
            figures["oracle_episodes_per_s"]["browser"] = found["oracle_browser"]["episodes_per_s"]
            figures["oracle_browser"] = found["oracle_browser"]
    if browsergym_python and browser_steps:
        say("browsergym")
        figures["browsergym_step_ms"] = browsergym_figures(browsergym_python, browser_steps)
    if server:
        say("server")
        figures["server"] = server_figures(seconds=2 * seconds)
    if ray_workers:
        say("ray")
        figures["ray_oracle_episodes_per_s"] = ray_figures(tasks, policy, tuple(ray_workers), seconds, say)
    figures["episodes_open_after"] = len(store.episodes)
    figures["machine"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    figures["seconds"] = round(time.perf_counter() - started, 1)
    return figures


def _fmt(entry: dict | None, tail: str = "p95_ms") -> str:
    if not entry or "median_ms" not in entry:
        return "not measured"
    return f"{entry['median_ms']:g} ms / {entry.get(tail, float('nan')):g} ms"


def markdown_table(figures: dict) -> str:
    """The README's speed table, from the figures of one `cfab bench` run."""
    m, rate = figures["machine"], figures.get("oracle_episodes_per_s", {})
    def cpu(key: str) -> str:
        return f" ({rate[key]} per second of the process's own CPU)" if rate.get(key) else ""

    rows = [
        ("oracle episodes per second, tools transport, one process (as `cfab run`: open, oracle, "
         "grade, drop; every task)", f"{rate.get('tools', 'not measured')}{cpu('tools_per_cpu_s')}"),
    ]
    if "tools_without_read_cache" in rate:
        rows.append(("the same with read tools' answers computed afresh every time (the read cache off)",
                     f"{rate['tools_without_read_cache']}{cpu('tools_without_read_cache_per_cpu_s')}"))
    workers = sorted(k for k in rate if re.fullmatch(r"tools_workers_\d+", k))
    for key in workers:
        rows.append((f"the same in {key.rsplit('_', 1)[1]} processes at once", f"{rate[key]}"))
    rows += [
        ("diff + grade after an oracle run, median / p95 (`grade_ms`)", _fmt(figures.get("grade_ms"))),
        ("reset after the oracle's writes, median / p95 (`reset_after_oracle_writes_ms`)",
         _fmt(figures.get("reset_after_oracle_writes_ms"))),
        ("new episode of every app, median / p95", _fmt(figures.get("episode_create_ms"))),
        ("reset of an untouched episode of every app, median / p95", _fmt(figures.get("reset_untouched_ms"))),
        ("admin snapshot of an untouched episode of every app, median / p95",
         _fmt(figures.get("whole_book_snapshot_untouched_ms"))),
        ("the same with every app changed (read in full), median / p95",
         _fmt(figures.get("whole_book_snapshot_read_in_full_ms"))),
    ]
    step = figures.get("browser_step_ms")
    if step:
        rows.append(("browser step on a Procore list page (click Next/Previous + observation), median / p95",
                     f"{_fmt(step)} (click {step['click_ms']['median_ms']:g}, observation "
                     f"{step['observation_ms']['median_ms']:g})"))
    sort = figures.get("browser_step_sorting_ms")
    if sort:
        rows.append(("browser step sorting that list by a column header, median / p95", _fmt(sort)))
    for run in (figures.get("browsergym_step_ms") or {}).get("runs", []):
        delay = run["pre_observation_delay_s"]
        how = "as it ships" if delay == 0.5 else "as this project's BrowserGym tests set it"
        ratio = f"; this project's step is {run['median_ms'] / step['median_ms']:.1f}x faster" if step else ""
        stale = (f"; {run['stale_observations']} of {run['n']} observations showed the page before the click"
                 if run["stale_observations"] else "")
        rows.append((f"BrowserGym's step on the same page (browsergym-core "
                     f"{figures['browsergym_step_ms']['browsergym_core']}, `env.step` of the same click; "
                     f"its pre-observation delay {delay:g} s, {how}), median / p95",
                     f"{_fmt(run)} (action {run['action_ms']['median_ms']:g}{ratio}{stale})"))
    if "browser" in rate:
        rows.append(("oracle episodes per second, browser transport (Chromium; every task)", f"{rate['browser']}"))
    server = figures.get("server")
    if server:
        paced, closed, rss = server["paced_4_pages_per_s_each"], server["closed_loop"], server["rss_mb"]
        rows += [
            (f"`cfab serve` page latency, {server['agents']} agents each loading a list page every 250 ms, "
             "p50 / p99", f"{paced['p50_ms']:g} ms / {paced['p99_ms']:g} ms"),
            (f"`cfab serve` closed loop, {server['agents']} agents back to back: pages per second "
             "(p99 latency)", f"{closed['pages_per_s']} ({closed['p99_ms']:g} ms)"),
            ("`cfab serve` resident memory after warm-up / after 1,000 episodes opened and dropped",
             f"{rss['after_warm_up']} MB / {rss['after_1000_episodes']} MB ({rss['growth_pct']:+g}%)"),
        ]
    for key, entry in sorted((figures.get("ray_oracle_episodes_per_s") or {}).items(),
                             key=lambda item: int(item[0].rsplit("_", 1)[1])):
        n = key.rsplit("_", 1)[1]
        rows.append((f"oracle episodes per second on {n} Ray worker{'s' if n != '1' else ''} "
                     f"(`cfab run --backend ray --workers {n}`, a local Ray head; every task, warm workers)",
                     f"{entry['episodes_per_s']} (first sweep, workers starting: {entry['first_sweep_s']:g} s)"))
    head = (f"Measured by `cfab bench` on {m['cpu_count']} cores, load average "
            f"{m['load_average'][0]:g} at the start and {m.get('load_average_after', ['?'])[0]} at the end, "
            f"commit {str(m.get('commit'))[:7]}{' with uncommitted changes' if m.get('uncommitted_changes') else ''}:")
    lines = [head, "", "| figure | value |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows]
    return "\n".join(lines) + "\n"
