"""Long sweeps lose nothing: the run journal survives a kill and `--resume` finishes the sweep
without repeating a finished run or counting its cost twice."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.accounting import Meter, Price
from agent.journal import Journal, JournalMismatch, journal_path, read
from agent.policies import OraclePolicy
from agent.runner import run_suite
from tasks.registry import select

ROOT = Path(__file__).resolve().parents[1]
CFAB = [sys.executable, "-m", "agent.cli"]


class PricedOracle(OraclePolicy):
    """The oracle, metered as if each run cost a model 1,000 input tokens at $1/Mtok."""

    name = "priced-oracle"
    uses_model = True

    def __init__(self):
        self.runs = 0
        self.client = self

    def meter(self) -> Meter:
        return Meter(price=Price(1.0, 1.0, True))

    def run_tools(self, task, env, meter=None):
        self.runs += 1
        meter.add_usage(1000, 0)
        return task.oracle_tools(env)


def entries(path: str) -> list[tuple[str, int]]:
    lines = Path(path).read_bytes().splitlines()
    return [(e["instance_id"], e["attempt"]) for e in map(json.loads, lines[1:])]


def test_the_journal_ignores_a_torn_last_line_and_refuses_another_sweep(tmp_path):
    path = str(tmp_path / "r.json.runs.jsonl")
    header = {"journal": 1, "policy": "p", "k": 2}
    journal = Journal(path, header)
    journal.append("t1", 0, {"passed": True})
    journal.append("t1", 1, {"passed": False})
    with open(path, "ab") as fh:
        fh.write(b'{"instance_id": "t2", "attempt": 0, "run": {"pas')  # killed mid-write
    found, runs = read(path)
    assert found == header and set(runs) == {("t1", 0), ("t1", 1)}
    journal.close()  # the sweep that wrote it has ended (a live one holds the journal's lock)
    resumed = Journal(path, header, resume=True)
    resumed.append("t2", 0, {"passed": True})
    assert set(read(path)[1]) == {("t1", 0), ("t1", 1), ("t2", 0)}
    assert all(json.loads(line) for line in Path(path).read_bytes().splitlines())
    resumed.close()
    with pytest.raises(JournalMismatch):
        Journal(path, {**header, "k": 3}, resume=True)


def test_resume_runs_only_what_is_missing_and_counts_cost_once(tmp_path, store):
    tasks = select("cf_H_*")[:3]
    out = str(tmp_path / "sweep.json")
    first = PricedOracle()
    full = run_suite(tasks, first, "tools", 2, out=out, progress=False, store=store)
    assert first.runs == 6 and full["n_runs"] == 6
    # Cut the journal back to what a kill after three runs (one half-written) would leave.
    lines = Path(journal_path(out)).read_bytes().splitlines(keepends=True)
    Path(journal_path(out)).write_bytes(b"".join(lines[:4]) + lines[4][:25])
    os.remove(out)
    second = PricedOracle()
    resumed = run_suite(tasks, second, "tools", 2, out=out, progress=False, store=store, resume=True)
    assert second.runs == 3 and resumed["resumed_runs"] == 3
    assert resumed["n_runs"] == 6 and resumed["cost_usd"] == pytest.approx(full["cost_usd"])
    assert resumed["pass1"] == full["pass1"]
    assert sorted(entries(journal_path(out))) == sorted({(t.instance_id, a) for t in tasks for a in range(2)})
    again = PricedOracle()
    run_suite(tasks, again, "tools", 2, out=out, progress=False, store=store, resume=True)
    assert again.runs == 0  # a finished sweep resumed runs nothing


def test_a_sweep_killed_with_sigkill_resumes_to_the_same_result(tmp_path):
    out = str(tmp_path / "killed.json")
    args = ["run", "--policy", "oracle", "--transport", "tools", "--k", "20", "--tasks", "cf_H_*", "--quiet"]
    total = 20 * len(select("cf_H_*"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(CFAB + args + ["--out", out], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(journal_path(out)) and len(read(journal_path(out))[1]) >= 5:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "the sweep finished before it could be killed"
    header, done = read(journal_path(out))  # readable as it was left: header plus whole runs
    assert header["policy"] == "oracle" and 5 <= len(done) < total
    assert not os.path.exists(out) or json.loads(Path(out).read_text())

    resumed = subprocess.run(CFAB + args + ["--resume", out], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    results = json.loads(Path(out).read_text())
    assert results["n_runs"] == total and results["resumed_runs"] == len(done)
    assert results["pass1"] == 1.0 and results["passk"] == 1.0
    keys = entries(journal_path(out))
    assert len(keys) == len(set(keys)) == total, "a finished run was run again"
