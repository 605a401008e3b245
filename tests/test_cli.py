"""The `cfab` command line as a researcher uses it."""
from __future__ import annotations

import json

from click.testing import CliRunner

from agent.cli import main
from tasks.registry import all_tasks


def test_tasks_lists_public_records_and_the_dataset_on_request():
    runner = CliRunner()
    public = [json.loads(line) for line in runner.invoke(main, ["tasks", "--json"]).output.splitlines()]
    spec = [json.loads(line) for line in runner.invoke(main, ["tasks", "--spec"]).output.splitlines()]
    ids = [t.instance_id for t in all_tasks()]
    assert [rec["instance_id"] for rec in public] == [rec["instance_id"] for rec in spec] == ids
    assert all("ground_truth" not in rec for rec in public)
    # something to do or to say: a task whose answer is "no change is due" asserts its reply
    assert all(rec["ground_truth"]["expected"] or rec["ground_truth"]["required_outputs"] for rec in spec)
    assert all(rec["contamination_meta"]["hash_of_problem"].startswith("sha256:") for rec in spec)


def test_run_refuses_an_unknown_policy_or_task_pattern_clearly():
    runner = CliRunner()
    bad_policy = runner.invoke(main, ["run", "--policy", "nobody", "--quiet"])
    assert bad_policy.exit_code == 2 and "unknown policy" in bad_policy.output
    bad_tasks = runner.invoke(main, ["run", "--tasks", "cf_Z_*", "--quiet"])
    assert bad_tasks.exit_code == 2 and "no task matches" in bad_tasks.output


def test_run_writes_the_results_document(tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["run", "--policy", "noop", "--tasks", "cf_H_*", "--k", "2",
                                       "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    h_tasks = [t for t in all_tasks() if t.instance_id.startswith("cf_H_")]
    assert data["policy"] == "noop" and data["k"] == 2 and data["n_tasks"] == len(h_tasks) >= 6
    assert data["pass1"] == 0.0 and data["passk"] == 0.0
    assert set(data["by_domain"]) == {"Cross-system"}
    run = data["tasks"][0]["runs"][0]
    assert {"passed", "score", "verdict", "reply", "calls", "guarded_calls", "seconds"} <= set(run)
    assert "overall" in result.output
