"""`cfab bench`: the environment's speed, as figures (never asserted inside tests)."""
from __future__ import annotations

import gc
import statistics
import time

from tasks.lifecycle import grade_episode, open_episode
from portals.core.episode import EpisodeStore
from tasks.registry import all_tasks

from portals.core.environment import Environment
from portals.core.registry import load_apps

from .policies import OraclePolicy
from .runner import Harness


def _ms(samples: list[float]) -> dict:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"median_ms": round(statistics.median(ordered) * 1000, 3), "p95_ms": round(p95 * 1000, 3),
            "n": len(ordered)}


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def run_bench(episodes: int = 200, browser_runs: int = 7) -> dict:
    figures: dict = {}
    started = time.perf_counter()
    store = EpisodeStore()
    apps = sorted(load_apps())  # every app: a sandbox episode holds them all
    for app in apps:
        store.template(app)
    figures["template_build_s"] = round(time.perf_counter() - started, 3)
    figures["book_rows"] = {app: sum(len(rows) for rows in __import__("json").loads(
        store.template(app).snapshot())["tables"].values()) for app in apps}

    episode = store.create(apps)
    resets, creates = [], []
    for _ in range(episodes):
        t0 = time.perf_counter()
        episode.reset()
        resets.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        fresh = store.create(apps)
        creates.append(time.perf_counter() - t0)
        store.drop(fresh.id)
    store.drop(episode.id)
    figures["episode_reset"] = _ms(resets)
    figures["episode_create"] = _ms(creates)

    policy = OraclePolicy()
    grading, snapshots = [], []
    tools_started = time.perf_counter()
    runs = 0
    for task in all_tasks():
        ep = open_episode(store, task)
        reply = policy.run_tools(task, Environment(ep, list(task.apps)))
        t0 = time.perf_counter()
        grade_episode(ep, task, reply)
        grading.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ep.snapshot()
        snapshots.append(time.perf_counter() - t0)
        store.drop(ep.id)
        runs += 1
    tools_elapsed = time.perf_counter() - tools_started
    figures["diff_and_grade_per_episode"] = _ms(grading)
    figures["full_snapshot_per_episode"] = _ms(snapshots)
    figures["oracle_episodes_per_s"] = {"tools": round(runs / tools_elapsed, 2)}

    if browser_runs:
        tasks = list(all_tasks())
        with Harness("browser", store) as harness:
            harness.run_one(tasks[0], policy)  # warm-up: first page loads compile templates
            t0 = time.perf_counter()
            for i in range(browser_runs):
                harness.run_one(tasks[i % len(tasks)], policy)
            figures["oracle_episodes_per_s"]["browser"] = round(browser_runs / (time.perf_counter() - t0), 3)

    gc.collect()
    rss0 = _rss_mb()
    peak = rss0
    for n in range(1000):
        ep = store.create(apps)
        store.drop(ep.id)
        if n % 100 == 0:
            peak = max(peak, _rss_mb())
    del ep
    gc.collect()  # dropped episodes hold cycles (engine <-> connection); count only what survives
    figures["memory_mb"] = {"before_1000_episodes": round(rss0, 1), "peak_during": round(peak, 1),
                            "after_1000_episodes": round(_rss_mb(), 1)}
    figures["episodes_open_after"] = len(store.episodes)
    return figures
