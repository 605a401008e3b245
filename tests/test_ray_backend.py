"""`cfab run --backend ray`: the sweep's runs on Ray workers (one local Ray head for the module,
its workers separate processes), graded and journaled exactly as the local runner does.

What a user relies on: the same results as a local sweep (pass/fail, diffs, guard logs,
verdicts) on the whole suite; a worker killed mid-sweep, or one whose process exits, loses no
run and counts none twice (its run is retried, or recorded as an infrastructure error); the
journal and --resume work as for a local sweep; the browser and http transports run on workers
too.
"""
from __future__ import annotations

import json
import threading
import time

import pytest
import ray
from click.testing import CliRunner

import _ray_policies
from agent.cli import main as cli
from agent.cluster import RayBackend
from agent.journal import journal_path, read
from agent.policies import make_policy
from agent.remote import RemoteStore
from agent.runner import Harness, run_suite
from tasks.registry import all_tasks

TASKS = all_tasks()
COMPARED = ("passed", "score", "verdict", "diff", "guarded_calls", "calls", "reply")


@pytest.fixture(scope="module")
def backend():
    """One local Ray head for the module (room for the CLI's and the transports' workers too)."""
    ray.cloudpickle.register_pickle_by_value(_ray_policies)  # the workers need not import tests/
    with RayBackend(workers=2, num_cpus=5) as started:
        assert {node["NodeManagerAddress"] for node in ray.nodes()} == {"127.0.0.1"}  # loopback only
        yield started
    assert not ray.is_initialized()  # the Ray it started, it stopped


def _runs(results: dict) -> dict:
    return {(t["instance_id"], i): run for t in results["tasks"] for i, run in enumerate(t["runs"])}


def _journal_lines(out) -> list[dict]:
    return [json.loads(line) for line in open(journal_path(str(out)), "rb").read().splitlines()]


def test_the_suite_on_ray_workers_grades_as_the_local_runner(backend, tmp_path):
    for name in ("oracle", "eager"):
        policy = make_policy(name)
        local = run_suite(TASKS, policy, "tools", 1, progress=False)
        out = tmp_path / f"{name}.json"
        spread = run_suite(TASKS, policy, "tools", 1, progress=False, backend=backend, out=str(out))
        assert spread["backend"] == "ray" and spread["n_runs"] == len(TASKS)
        assert spread["ray"]["workers"] == 2 and spread["ray"]["lost_workers"] == 0
        mine, theirs = _runs(local), _runs(spread)
        assert mine.keys() == theirs.keys()
        for key in mine:
            assert [k for k in COMPARED if mine[key][k] != theirs[key][k]] == [], key
            assert theirs[key]["passed"] == (name == "oracle"), key
        assert (spread["pass1"], spread["passk"]) == (local["pass1"], local["passk"])
        assert spread["provenance"]["clock"] == local["provenance"]["clock"]
        assert spread["provenance"]["run_seed"] == local["provenance"]["run_seed"]
        assert json.loads(out.read_text())["tasks"] == spread["tasks"]  # the results file is the same
        assert len(_journal_lines(out)) == 1 + len(TASKS)
    assert len({info["pid"] for info in backend.infos.values()}) == 2  # two worker processes


def test_a_killed_worker_loses_no_run_and_counts_none_twice(backend, tmp_path):
    tasks, k = TASKS[:8], 2
    out = tmp_path / "killed.json"
    killed = []

    def kill_mid_sweep():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            written = tmp_path / "killed.json.runs.jsonl"
            if written.exists() and written.read_bytes().count(b"\n") >= 3:  # the header and 2 runs
                victim = backend.actors[0]
                ray.kill(victim)
                killed.append(victim)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_mid_sweep)
    killer.start()
    results = run_suite(tasks, _ray_policies.SlowOracle(), "tools", k, progress=False,
                        backend=backend, out=str(out))
    killer.join()
    assert killed, "the sweep ended before a worker could be killed"
    assert results["ray"]["lost_workers"] == 1 and results["ray"]["retried_runs"] >= 1
    assert results["ray"]["lost_runs"] == 0 and results["n_infra_errors"] == 0
    assert results["n_runs"] == len(tasks) * k and results["pass1"] == 1.0  # the lost run ran again
    assert len(backend.actors) == 2 and killed[0] not in backend.actors  # replaced

    lines = _journal_lines(out)
    keys = [(line["instance_id"], line["attempt"]) for line in lines[1:]]
    assert len(keys) == len(set(keys)) == len(tasks) * k  # once each: none lost, none twice

    # Killed again, the driver this time: the journal keeps 5 runs; --resume runs the other 11.
    journal = journal_path(str(out))
    with open(journal, "wb") as fh:
        fh.write(b"".join(json.dumps(line, sort_keys=True).encode() + b"\n" for line in lines[:6]))
    out.unlink()
    resumed = run_suite(tasks, make_policy("oracle"), "tools", k, progress=False, backend=backend,
                        out=str(out), resume=True)
    assert resumed["resumed_runs"] == 5 and resumed["n_runs"] == len(tasks) * k
    assert resumed["pass1"] == 1.0
    _header, finished = read(journal)
    assert len(finished) == len(tasks) * k and len(_journal_lines(out)) == 1 + len(tasks) * k
    again = run_suite(tasks, make_policy("oracle"), "tools", k, progress=False, backend=backend,
                      out=str(out), resume=True)
    assert again["resumed_runs"] == len(tasks) * k and len(_journal_lines(out)) == 1 + len(tasks) * k


def test_a_worker_whose_process_exits(backend, tmp_path):
    """A run whose worker dies is run again on another; one whose workers keep dying is an
    infrastructure error, left out of pass^k, recorded once."""
    tasks = TASKS[:4]
    doomed, unlucky = tasks[0].instance_id, tasks[1].instance_id
    policy = _ray_policies.ExitingOracle(str(tmp_path), always=[doomed], once=[unlucky])
    out = tmp_path / "exits.json"
    results = run_suite(tasks, policy, "tools", 1, progress=False, backend=backend, out=str(out))
    runs = {key[0]: run for key, run in _runs(results).items()}
    assert set(runs) == {t.instance_id for t in tasks}
    assert "lost" in runs[doomed]["infra_error"] and not runs[doomed]["passed"]
    assert runs[doomed]["verdict"] == ["Not scored: the Ray worker running it was lost (ActorDiedError), "
                                       "on all 2 tries"]
    assert all(runs[t.instance_id]["passed"] for t in tasks[1:])  # the unlucky one ran again
    assert (tmp_path / f"exited-{unlucky}").exists()
    assert results["n_infra_errors"] == 1 and results["unscored_tasks"] == [doomed]
    assert results["pass1"] == 1.0 and results["n_scored_tasks"] == 3
    assert (results["ray"]["lost_workers"], results["ray"]["retried_runs"], results["ray"]["lost_runs"]) == (3, 2, 1)
    assert len(_journal_lines(out)) == 1 + len(tasks)
    assert len(backend.actors) == 2


def test_cfab_run_backend_ray(backend, tmp_path):
    out = tmp_path / "cli.json"
    result = CliRunner().invoke(cli, ["run", "--backend", "ray", "--workers", "2", "--tasks", "cf_H_*",
                                      "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "Ray: 2 workers on 1 node(s)" in result.output
    results = json.loads(out.read_text())
    assert results["backend"] == "ray" and results["pass1"] == 1.0
    command = results["provenance"]["command"]
    assert command[command.index("--backend") + 1] == "ray"
    assert ray.is_initialized()  # it joined the running Ray and left it running

    result = CliRunner().invoke(cli, ["run", "--address", "127.0.0.1:6379", "--tasks", "cf_H_*",
                                      "--out", str(out)])
    assert result.exit_code == 2 and "goes with --backend ray" in result.output
    result = CliRunner().invoke(cli, ["run", "--backend", "ray", "--address", "127.0.0.1:9", "--tasks", "cf_H_*",
                                      "--out", str(out)])  # port 9 (discard): nothing listens here
    assert result.exit_code == 2 and "no Ray cluster answered" in result.output, result.output


def test_the_browser_and_http_transports_on_ray_workers(backend, book_store, cfab_server):
    """A worker brings its own portal server and Chromium (browser), or its own client of the
    `cfab serve` processes (http); both grade as the tools transport does in process."""
    task = next(t for t in TASKS if len(t.apps) == 1)
    oracle = make_policy("oracle")
    with Harness("tools", book_store) as local:
        expected = local.run_one(task, oracle)
    remote = RemoteStore([cfab_server.url], cfab_server.admin_token)
    with RayBackend(workers=1) as browser_backend, RayBackend(workers=1) as http_backend:
        over_browser = run_suite([task], oracle, "browser", 1, progress=False, backend=browser_backend)
        over_http = run_suite([task], oracle, "http", 1, progress=False, backend=http_backend, store=remote)
    remote.close()
    for results in (over_browser, over_http):
        run = results["tasks"][0]["runs"][0]
        assert run["passed"] and run.get("error") is None, (results["transport"], run["verdict"])
        assert (run["diff"], run["guarded_calls"]) == (expected["diff"], expected["guarded_calls"])
    assert {c["source"] for c in over_browser["tasks"][0]["runs"][0]["calls"]} == {"ui"}
    assert over_http["tasks"][0]["runs"][0]["calls"] == expected["calls"]


def test_cfab_bench_times_the_oracle_on_ray_workers(backend):
    from agent import bench

    before = list(backend.actors)
    found = bench.ray_figures(TASKS, make_policy("oracle"), counts=(1, 2), seconds=0.0)
    assert set(found) == {"workers_1", "workers_2"}
    for entry in found.values():  # one timed round: every task twice, each run passing
        assert entry["runs"] == entry["passed"] == 2 * len(TASKS)
        assert entry["first_sweep_runs"] == len(TASKS) and entry["episodes_per_s"] > 0
    table = bench.markdown_table({"machine": bench.machine(), "ray_oracle_episodes_per_s": found})
    assert "oracle episodes per second on 2 Ray workers (`cfab run --backend ray --workers 2`" in table
    assert ray.is_initialized() and backend.actors == before  # the module's Ray and workers untouched


def test_a_worker_that_died_between_sweeps_is_replaced(backend):
    tasks = TASKS[:2]
    run_suite(tasks, make_policy("oracle"), "tools", 1, progress=False, backend=backend)  # the pool is up
    victim = backend.actors[-1]
    ray.kill(victim)
    results = run_suite(tasks, make_policy("oracle"), "tools", 1, progress=False, backend=backend)
    assert results["pass1"] == 1.0 and results["n_runs"] == 2 and results["ray"]["lost_workers"] == 0
    assert len(backend.actors) == 2 and victim not in backend.actors
