"""`cfab bench` measures the paths users run and says so; it is checked here for what it
measures (every task, the oracle passing, the machine it ran on), never for how fast.
"""
from __future__ import annotations

import json

from click.testing import CliRunner

from agent import bench
from agent.cli import main
from agent.policies import OraclePolicy
from tasks.registry import all_tasks


def test_machine_names_cores_load_and_commit():
    m = bench.machine()
    assert m["cpu_count"] >= 1
    assert len(m["load_average"]) == 3
    assert m["commit"] is None or len(m["commit"]) == 40


def test_grading_and_resets_are_timed_over_every_task(store):
    tasks, before = list(all_tasks()), set(store.episodes)
    found = bench.oracle_phases(store, tasks, OraclePolicy())
    assert found["grade_ms"]["n"] == found["reset_after_oracle_writes_ms"]["n"] == len(tasks)
    assert set(store.episodes) == before  # every episode it opened is dropped


def test_tools_throughput_runs_every_task_and_the_oracle_passes_in_each_process(store):
    tasks = list(all_tasks())
    rate = bench.tools_throughput(store, tasks, OraclePolicy(), seconds=0.0, workers=2)
    assert rate["tools_runs"] == len(tasks) == rate["tools_passed"]
    assert rate["tools_without_read_cache_runs"] == len(tasks) == rate["tools_without_read_cache_passed"]
    assert rate["tools_per_cpu_s"] > 0 and rate["tools_without_read_cache_per_cpu_s"] > 0
    assert rate["tools_workers_2_runs"] == 2 * len(tasks) == rate["tools_workers_2_passed"]
    assert rate["tools"] > 0 and rate["tools_workers_2"] > 0


def test_episode_figures_cover_creation_reset_and_the_whole_book(store):
    found = bench.episode_figures(store, 6)
    assert found["episode_create_ms"]["n"] == found["reset_untouched_ms"]["n"] == 6
    assert found["whole_book_snapshot_untouched_ms"]["n"] == 6
    assert found["whole_book_snapshot_read_in_full_ms"]["n"] == 3
    assert {"median_ms", "p95_ms"} <= set(found["episode_create_ms"])


def test_percentiles():
    assert bench._ms([0.001, 0.002, 0.003, 0.004, 0.1]) == {"median_ms": 3.0, "p95_ms": 100.0, "n": 5}
    assert bench._ms([0.001] * 99 + [0.5], tail=0.99)["p99_ms"] == 1.0
    assert bench._ms([]) == {"n": 0}


def test_the_server_figures_come_from_a_real_cfab_serve():
    found = bench.server_figures(agents=2, seconds=1.0, episodes=20)
    assert found["paced_4_pages_per_s_each"]["non_200"] == found["closed_loop"]["non_200"] == 0
    assert found["paced_4_pages_per_s_each"]["n"] >= 4  # two agents, about four pages a second each
    assert found["closed_loop"]["n"] > 0
    assert found["rss_mb"]["after_warm_up"] > 0 and found["rss_mb"]["after_20_episodes"] > 0


def test_cfab_bench_out_writes_the_figures_with_the_machine_and_a_table(tmp_path):
    out = tmp_path / "bench.json"
    result = CliRunner().invoke(main, ["bench", "--out", str(out), "--episodes", "5", "--browser-runs", "0",
                                       "--browser-steps", "0", "--seconds", "0.5", "--workers", "1",
                                       "--no-server"])
    assert result.exit_code == 0, result.output
    figures = json.loads(out.read_text())
    assert {"cpu_count", "load_average", "load_average_after", "commit"} <= set(figures["machine"])
    assert figures["tasks"] == len(list(all_tasks()))
    assert figures["oracle_episodes_per_s"]["tools_runs"] == figures["oracle_episodes_per_s"]["tools_passed"]
    assert "browser" not in figures["oracle_episodes_per_s"] and "server" not in figures
    assert figures["episodes_open_after"] == 0
    table = bench.markdown_table(figures)
    assert "| oracle episodes per second, tools transport" in table
    assert f"{figures['machine']['cpu_count']} cores" in table
    assert table in result.output


def test_every_32nd_dropped_episode_gives_freed_memory_back(store, monkeypatch):
    import portals.core.episode as episodes

    trims: list[int] = []
    monkeypatch.setattr(episodes, "_MALLOC_TRIM", trims.append)
    dropped_before = store._dropped
    for _ in range(2 * episodes.TRIM_EVERY):
        store.drop(store.create(["box"]).id)
    store.drop("no-such-episode")  # dropping nothing frees nothing
    expected = (dropped_before + 2 * episodes.TRIM_EVERY) // episodes.TRIM_EVERY - dropped_before // episodes.TRIM_EVERY
    assert trims == [0] * expected == [0, 0]


def _served_paths(caplog, access_log: bool) -> str:
    import logging

    import requests
    from flask import Flask

    from agent.browser import PortalServer

    app = Flask("log-check")
    app.add_url_rule("/ok", "ok", lambda: "fine")
    app.add_url_rule("/missing", "missing", lambda: ("no", 404))

    def boom():
        raise RuntimeError("a bug")

    app.add_url_rule("/boom", "boom", boom)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="werkzeug"), PortalServer(app, quiet=False, access_log=access_log) as server:
        assert [requests.get(server.url + p, timeout=30).status_code for p in ("/ok", "/missing", "/boom")] == \
            [200, 404, 500]
    return "\n".join(r.getMessage() for r in caplog.records if r.name == "werkzeug")


def test_the_server_logs_only_its_failures_unless_asked_for_every_request(caplog):
    quiet = _served_paths(caplog, access_log=False)
    assert "/boom" in quiet and "/ok" not in quiet and "/missing" not in quiet
    every = _served_paths(caplog, access_log=True)
    assert "/boom" in every and "/ok" in every and "/missing" in every


def test_the_table_sets_browsergym_s_step_beside_this_project_s():
    step = {"median_ms": 100.0, "p95_ms": 120.0, "n": 30, "click_ms": {"median_ms": 50.0},
            "observation_ms": {"median_ms": 50.0}}
    gym = {"browsergym_core": "0.14.3", "runs": [
        {"median_ms": 1500.0, "p95_ms": 1800.0, "n": 30, "action_ms": {"median_ms": 60.0},
         "pre_observation_delay_s": 0.5, "stale_observations": 0},
        {"median_ms": 700.0, "p95_ms": 900.0, "n": 30, "action_ms": {"median_ms": 60.0},
         "pre_observation_delay_s": 0.05, "stale_observations": 2}]}
    table = bench.markdown_table({"machine": {"cpu_count": 2, "load_average": [0.5, 0.5, 0.5]},
                                  "browser_step_ms": step, "browsergym_step_ms": gym})
    shipped, tests_set = [ln for ln in table.splitlines() if ln.startswith("| BrowserGym's step")]
    assert "0.5 s, as it ships" in shipped and "1500 ms / 1800 ms" in shipped and "15.0x faster" in shipped
    assert "0.05 s" in tests_set and "7.0x faster" in tests_set
    assert "2 of 30 observations showed the page before the click" in tests_set
