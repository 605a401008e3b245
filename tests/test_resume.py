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


def oracle_header(k: int = 2) -> dict:
    from agent.journal import sweep_header

    return sweep_header(OraclePolicy(), "tools", k, select("cf_H_*"))


def a_journal(path: Path, header: dict, *lines: bytes) -> None:
    whole = [json.dumps(header).encode()] + [json.dumps({"instance_id": select("cf_H_*")[0].instance_id,
                                                          "attempt": 0, "run": {"passed": True}}).encode()]
    path.write_bytes(b"\n".join(whole + list(lines)) + b"\n")


def cfab_run(args: list[str]):
    from click.testing import CliRunner

    from agent.cli import main

    return CliRunner().invoke(main, ["run", "--policy", "oracle", "--transport", "tools", "--k", "2",
                                     "--tasks", "cf_H_*", "--quiet", *args])


def test_a_second_resume_of_a_journal_in_use_is_refused_and_runs_nothing(tmp_path):
    out = tmp_path / "busy.json"
    header = oracle_header()
    a_journal(Path(journal_path(str(out))), header)
    before = Path(journal_path(str(out))).read_bytes()
    first = Journal(journal_path(str(out)), header, resume=True)  # a sweep still running on it
    try:
        with pytest.raises(JournalMismatch, match="being written by another sweep"):
            Journal(journal_path(str(out)), header, resume=True)
        result = cfab_run(["--resume", str(out)])  # and the command line says so, plainly
        assert result.exit_code == 2 and "being written by another sweep" in result.output
        assert "Traceback" not in result.output and not out.exists()
        fresh = cfab_run(["--out", str(out)])  # a fresh sweep onto it is refused the same way
        assert fresh.exit_code == 2 and "being written by another sweep" in fresh.output
        assert Path(journal_path(str(out))).read_bytes() == before
    finally:
        first.close()
    Journal(journal_path(str(out)), header, resume=True).close()  # free again once it has ended


WRONG_SHAPE = [
    (b"[1, 2]", "is a JSON list"),
    (b'"a run"', "is a JSON str"),
    (b"null", "is a JSON NoneType"),
    (b'{"instance_id": 7, "attempt": 0, "run": {"passed": true}}', "has no instance_id"),
    (b'{"instance_id": "cf", "attempt": "0", "run": {"passed": true}}', "attempt is not a whole number"),
    (b'{"instance_id": "cf", "attempt": -1, "run": {"passed": true}}', "attempt is -1"),
    (b'{"instance_id": "cf", "attempt": true, "run": {"passed": true}}', "attempt is not a whole number"),
    (b'{"instance_id": "cf", "attempt": 1, "run": [1]}', "has no run object"),
    (b'{"instance_id": "cf", "attempt": 1, "run": {}}', "no passed true/false"),
    (b'{"instance_id": "cf", "attempt": 1, "run": {"passed": true, "cost_usd": "free"}}', "cost_usd is not a number"),
    (b'{"instance_id": "cf", "attempt": 1, "run": {"passed": true, "judge": 3}}', "judge is not an object"),
    (b'{"instance_id": "cf", "attempt": 1, "run": {"passed": true, "verdict": "ok"}}', "verdict is not a list"),
    (b'{"instance_id": "cf", "attempt": 1, "ru', "line 3 is not JSON"),  # cut short, but not last
]


@pytest.mark.parametrize("line,says", WRONG_SHAPE, ids=[w[1] for w in WRONG_SHAPE])
def test_a_journal_line_of_the_wrong_shape_is_refused_by_line_number(tmp_path, line, says):
    path = tmp_path / "r.json.runs.jsonl"
    a_journal(path, oracle_header(), line, b'{"instance_id": "cf", "attempt": 1, "run": {"passed": true}}')
    before = path.read_bytes()
    with pytest.raises(JournalMismatch) as err:
        Journal(str(path), oracle_header(), resume=True)
    assert says in str(err.value) and "another sweep" not in str(err.value)
    assert "line 3" in str(err.value)
    assert path.read_bytes() == before  # refused: not truncated, not rewritten


def test_the_command_line_refuses_a_wrong_shape_journal_with_a_message_not_a_traceback(tmp_path):
    out = tmp_path / "shape.json"
    a_journal(Path(journal_path(str(out))), oracle_header(), b'{"instance_id": "x", "attempt": -1, "run": {}}')
    result = cfab_run(["--resume", str(out)])
    assert result.exit_code == 2 and "line 3 is not a run this runner writes" in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert not out.exists()


@pytest.mark.parametrize("instance_id,attempt,says", [
    ("cf_not_in_this_sweep", 0, "not one of this sweep's tasks"),
    (None, 2, "attempt 2 of"),  # k is 2: attempts 0 and 1
    (None, 99, "attempt 99 of")])
def test_a_run_outside_the_sweeps_slots_is_refused(tmp_path, instance_id, attempt, says):
    path = tmp_path / "r.json.runs.jsonl"
    line = json.dumps({"instance_id": instance_id or select("cf_H_*")[-1].instance_id, "attempt": attempt,
                       "run": {"passed": True}}).encode()
    a_journal(path, oracle_header(), line)
    with pytest.raises(JournalMismatch, match=says):
        Journal(str(path), oracle_header(), resume=True)


def test_a_torn_header_is_reported_as_torn_not_as_another_sweep(tmp_path):
    path = tmp_path / "r.json.runs.jsonl"
    header_line = json.dumps(oracle_header()).encode()
    run_line = json.dumps({"instance_id": select("cf_H_*")[0].instance_id, "attempt": 0,
                           "run": {"passed": True}}).encode()
    path.write_bytes(header_line[:30] + b"\n" + run_line + b"\n")
    with pytest.raises(JournalMismatch) as err:
        Journal(str(path), oracle_header(), resume=True)
    assert "first line is torn" in str(err.value) and "another sweep" not in str(err.value)
    # a header torn while it was the only line (killed before any run): nothing to lose, start afresh
    path.write_bytes(header_line[:30])
    journal = Journal(str(path), oracle_header(), resume=True)
    journal.close()
    assert journal.finished == {} and read(str(path)) == (oracle_header(), {})
    # a whole header of another sweep is still told apart
    path.write_bytes(json.dumps({**oracle_header(), "k": 5}).encode() + b"\n")
    with pytest.raises(JournalMismatch, match="another sweep"):
        Journal(str(path), oracle_header(), resume=True)
    path.write_bytes(json.dumps({"journal": 1, "policy": "oracle"}).encode() + b"\n")
    with pytest.raises(JournalMismatch, match="header line lacks"):
        Journal(str(path), oracle_header(), resume=True)
