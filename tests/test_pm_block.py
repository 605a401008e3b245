"""The PM block: tags derived from a task's apps, `--tasks` selectors, and the PM table.

The synthetic results file below runs seven tasks k=2 (P pass, F fail):

    redteam                     PP  RedTeam Flex
    redteam + sage_intacct      PF  RedTeam Flex, cross-system
    ressio                      FF  Ressio
    ressio + vista_erp          PP  Ressio, cross-system
    smartbuild                  PP  SmarteBuild
    cf_B_draw_funding_2736      PF  an old record with neither apps nor tags: the suite's task of
                                    that id says INGENIOUS.BUILD
    procore + vista_erp         FF  not in the block (Procore is the PM reference product)

so the block has six tasks: pass^1 = (1 + 1/2 + 0 + 1 + 1 + 1/2)/6 = 2/3 and pass^2 =
(1 + 0 + 0 + 1 + 1 + 0)/6 = 1/2; per platform RedTeam 3/4, INGENIOUS.BUILD 1/2, Ressio 1/2,
SmarteBuild 1; cross-system pass^1 = (1/2 + 1)/2 = 3/4 and pass^2 = 1/2.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from agent.cli import main
from agent.report import pm_block_lines
from agent.reporting import build_report
from agent.reporting.load import load_entries
from agent.reporting.stats import EntryStats
from tasks.registry import UnknownSelector, all_tasks, filter_tasks, select
from tasks.tags import (archetype_of, known_tags, platform_label, platform_of, pm_platforms, pm_reference,
                        tags_of)

PLATFORMS = ("redteam", "ingenious_build", "ressio", "smartbuild")
# 95% Wilson intervals over tasks (z = 1.96), successes = rate * n: for the block's pass^1, 4 of 6
# gives centre (4/6 + 0.32013)/1.64027 = 0.60161 and half 1.96 * sqrt((2/3)(1/3)/6 + 0.02668)/1.64027 =
# 0.30162, so [0.29999, 0.90323].
BLOCK_PASS1_CI = (0.29999, 0.90323)   # wilson(4, 6)
BLOCK_PASS2_CI = (0.18761, 0.81239)   # wilson(3, 6)
CROSS_PASS1_CI = (0.19786, 0.97332)   # wilson(1.5, 2)
CROSS_PASS2_CI = (0.09453, 0.90547)   # wilson(1, 2)


# ---------------------------------------------------------------- tags

def test_the_pm_platforms_are_the_pm_apps_beside_the_reference():
    from seeds.consistency import pm_apps

    assert pm_reference() == "procore"
    assert pm_platforms() == PLATFORMS
    assert set(pm_platforms()) == set(pm_apps())  # the book's reconciliation agrees
    assert [platform_label(p) for p in PLATFORMS] == ["RedTeam Flex", "INGENIOUS.BUILD", "Ressio", "SmarteBuild"]
    assert known_tags() == ["pm", "pm:redteam", "pm:ingenious_build", "pm:ressio", "pm:smartbuild", "cross-system"]


@pytest.mark.parametrize("apps, platform, tags", [
    (["redteam"], "redteam", ["pm", "pm:redteam"]),
    (["ingenious_build"], "ingenious_build", ["pm", "pm:ingenious_build"]),
    (["ressio"], "ressio", ["pm", "pm:ressio"]),
    (["smartbuild"], "smartbuild", ["pm", "pm:smartbuild"]),
    (["redteam", "sage_intacct"], "redteam", ["pm", "pm:redteam", "cross-system"]),
    (["ressio", "vista_erp"], "ressio", ["pm", "pm:ressio", "cross-system"]),
    # Procore is of the same archetype: a platform beside it alone is not cross-system
    (["smartbuild", "procore"], "smartbuild", ["pm", "pm:smartbuild"]),
    (["ingenious_build", "procore", "vista_erp"], "ingenious_build", ["pm", "pm:ingenious_build", "cross-system"]),
    # the reference product's own tasks, and tasks without a PM app, are outside the block
    (["procore"], None, []),
    (["procore", "vista_erp"], None, []),
    (["vista_erp", "outlook"], None, []),
])
def test_tags_come_from_the_apps(apps, platform, tags):
    assert platform_of(apps) == platform
    assert tags_of(apps) == tags


def test_every_suite_task_is_tagged_by_its_apps():
    tasks = all_tasks()
    block = [t for t in tasks if tags_of(t.apps)]
    assert {platform_of(t.apps) for t in block} == set(PLATFORMS)  # each platform has tasks
    for task in tasks:
        on_platform = [a for a in task.apps if a in PLATFORMS]
        assert ("pm" in tags_of(task.apps)) == bool(on_platform), task.instance_id
        cross = bool(on_platform) and any(archetype_of(a) != "PM" for a in task.apps)
        assert ("cross-system" in tags_of(task.apps)) == cross, task.instance_id
    assert any("cross-system" in tags_of(t.apps) for t in block)
    assert any("cross-system" not in tags_of(t.apps) for t in block)


def test_tasks_json_shows_platform_and_tags():
    result = CliRunner().invoke(main, ["tasks", "--json"])
    assert result.exit_code == 0, result.output
    records = {r["instance_id"]: r for r in map(json.loads, result.output.splitlines())}
    for task in all_tasks():
        rec = records[task.instance_id]
        assert rec["platform"] == platform_of(task.apps) and rec["tags"] == tags_of(task.apps)
    assert {r["platform"] for r in records.values()} == set(PLATFORMS) | {None}


# ---------------------------------------------------------------- selectors

def ids(tasks) -> list[str]:
    return [t.instance_id for t in tasks]


def test_tag_app_and_glob_selectors_and_their_union():
    suite = all_tasks()
    pm = select("tag:pm")
    assert ids(pm) == [t.instance_id for t in suite if platform_of(t.apps)]
    assert ids(select("tag:pm:ressio")) == [t.instance_id for t in suite if "ressio" in t.apps]
    assert ids(select("app:ressio")) == ids(select("tag:pm:ressio"))
    cross = select("tag:cross-system")
    assert cross and set(ids(cross)) < set(ids(pm))
    assert all(any(archetype_of(a) != "PM" for a in t.apps) for t in cross)
    union = select("tag:pm:redteam, app:sage_intacct")
    assert ids(union) == [t.instance_id for t in suite if "redteam" in t.apps or "sage_intacct" in t.apps]
    mixed = select("cf_H_*,tag:pm:smartbuild")
    assert ids(mixed) == [t.instance_id for t in suite
                          if t.instance_id.startswith("cf_H_") or "smartbuild" in t.apps]
    assert ids(select("tag:pm,tag:pm")) == ids(pm)  # a union, each task once, in suite order
    assert ids(filter_tasks(pm, "app:vista_erp")) == [t.instance_id for t in pm if "vista_erp" in t.apps]


def test_unknown_or_empty_selectors_are_refused():
    with pytest.raises(UnknownSelector, match="unknown tag 'pmm'; known tags: pm, pm:redteam"):
        select("tag:pmm")
    with pytest.raises(UnknownSelector, match="unknown app 'procor'; known apps: .*procore"):
        select("cf_H_*,app:procor")
    with pytest.raises(LookupError, match="no task matches 'cf_Z_\\*'"):
        select("tag:pm,cf_Z_*")  # one term selecting nothing is a typo, not a smaller sweep


def test_cli_selectors_errors_are_bad_parameters():
    runner = CliRunner()
    for command in (["run", "--quiet", "--tasks", "tag:nope"], ["tasks", "validate", "--tasks", "tag:nope"]):
        result = runner.invoke(main, command)
        assert result.exit_code == 2, result.output
        assert "Invalid value for '--tasks'" in result.output
        assert "unknown tag 'nope'; known tags: pm, pm:redteam, pm:ingenious_build" in result.output
    result = runner.invoke(main, ["run", "--quiet", "--tasks", "app:nope"])
    assert result.exit_code == 2 and "known apps:" in result.output and "ressio" in result.output
    result = runner.invoke(main, ["run", "--quiet", "--split", "dev", "--tasks", "tag:nope"])
    assert result.exit_code == 2 and "Invalid value for '--tasks'" in result.output


def test_cli_runs_a_tag_selection(tmp_path):
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["run", "--policy", "oracle", "--tasks", "tag:pm:ressio", "--k", "1",
                                       "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    expected = [t for t in all_tasks() if "ressio" in t.apps]
    assert [t["instance_id"] for t in data["tasks"]] == ids(expected) and data["pass1"] == 1.0
    assert all(t["platform"] == "ressio" and t["tags"] == tags_of(t["apps"]) for t in data["tasks"])
    n_cross = sum("cross-system" in t["tags"] for t in data["tasks"])
    assert 0 < n_cross < len(expected)
    assert f"PM block: {len(expected)} tasks" in result.output
    assert any(line.split() == ["Ressio", f"(n={len(expected)})", "1.00"] for line in result.output.splitlines())
    assert f"  cross-system (n={n_cross})" in result.output


# ---------------------------------------------------------------- the PM table

def _task(iid, apps, runs, **extra):
    rec = {"instance_id": iid, "domain": "Billing", "family": iid, "difficulty": 2,
           "runs": [{"passed": p, "score": float(p), "verdict": []} for p in runs], **extra}
    if apps is not None:
        rec["apps"] = apps
    return rec


def _pm_results(policy="llm-tools", model="m/pm"):
    tasks = [_task("cf_X_rt", ["redteam"], [True, True], platform="redteam", tags=["pm", "pm:redteam"]),
             _task("cf_X_rt_sage", ["redteam", "sage_intacct"], [True, False]),
             _task("cf_X_rs", ["ressio"], [False, False]),
             _task("cf_X_rs_vista", ["ressio", "vista_erp"], [True, True]),
             _task("cf_X_sb", ["smartbuild"], [True, True]),
             _task("cf_B_draw_funding_2736", None, [True, False]),
             _task("cf_X_procore", ["procore", "vista_erp"], [False, False])]
    return {"policy": policy, "model": model, "transport": "tools", "k": 2, "tasks": tasks}


def test_pm_block_numbers(tmp_path):
    path = tmp_path / "pm.json"
    path.write_text(json.dumps(_pm_results()))
    block = EntryStats(load_entries([path])[0]).pm_block()
    assert block.tasks == 6 and block.overall.n == 6
    assert (block.overall.pass1, block.overall.passk) == pytest.approx((2 / 3, 1 / 2))
    assert block.overall.pass1_ci == pytest.approx(BLOCK_PASS1_CI, abs=1e-4)
    assert block.overall.passk_ci == pytest.approx(BLOCK_PASS2_CI, abs=1e-4)
    assert list(block.platforms) == list(PLATFORMS)
    assert {p: r.pass1 for p, r in block.platforms.items()} == pytest.approx(
        {"redteam": 3 / 4, "ingenious_build": 1 / 2, "ressio": 1 / 2, "smartbuild": 1.0})
    assert block.cross.n == 2 and (block.cross.pass1, block.cross.passk) == pytest.approx((3 / 4, 1 / 2))


def test_pm_table_in_the_report(tmp_path):
    model, oracle = tmp_path / "m.json", tmp_path / "o.json"
    model.write_text(json.dumps(_pm_results()))
    perfect = _pm_results("oracle", None)
    for task in perfect["tasks"]:
        task["runs"] = [{"passed": True, "score": 1.0, "verdict": []}] * 2
    oracle.write_text(json.dumps(perfect))
    summary = build_report([model, oracle], tmp_path / "out")
    assert "pm" in summary["tables"]
    import csv

    with open(tmp_path / "out" / "tables" / "pm.csv", newline="") as fh:
        rows = {r["Model"]: r for r in csv.DictReader(fh)}
    row = rows["m/pm"]
    assert int(row["#"]) == 6
    assert float(row["Overall pass^1"]) == pytest.approx(2 / 3)
    assert float(row["Overall pass^2"]) == pytest.approx(1 / 2)
    assert (float(row["Overall pass^1 ci_low"]), float(row["Overall pass^1 ci_high"])) == \
        pytest.approx(BLOCK_PASS1_CI, abs=1e-4)
    assert float(row["Per-platform pass^1 RedTeam Flex"]) == pytest.approx(3 / 4)
    assert float(row["Per-platform pass^1 INGENIOUS.BUILD"]) == pytest.approx(1 / 2)
    assert float(row["Per-platform pass^1 Ressio"]) == pytest.approx(1 / 2)
    assert float(row["Per-platform pass^1 SmarteBuild"]) == 1.0
    assert int(row["Cross-system #"]) == 2
    assert float(row["Cross-system pass^1"]) == pytest.approx(3 / 4)
    assert float(row["Cross-system pass^2"]) == pytest.approx(1 / 2)
    assert (float(row["Cross-system pass^2 ci_low"]), float(row["Cross-system pass^2 ci_high"])) == \
        pytest.approx(CROSS_PASS2_CI, abs=1e-4)
    assert float(rows["Oracle (environment check)"]["Overall pass^2"]) == 1.0  # one row per policy too
    md = (tmp_path / "out" / "tables" / "pm.md").read_text()
    assert "| Overall · pass^1 | Overall · pass^2 | Per-platform pass^1 · RedTeam Flex |" in md
    assert "| m/pm | 6 | 0.67 [0.30, 0.90] | 0.50 [0.19, 0.81] | 0.75 | 0.50 | 0.50 | 1.00 | " \
           "0.75 [0.20, 0.97] | 0.50 [0.09, 0.91] |" in md


def test_the_run_printout_has_the_pm_block():
    lines = pm_block_lines(_pm_results())
    assert lines == [
        "PM block: 6 tasks (n = scored tasks; per platform pass^1)",
        "                                 pass^1 [95% CI]      pass^2 [95% CI]",
        "  overall (n=6)                   0.67 [0.30, 0.90]    0.50 [0.19, 0.81]",
        "  RedTeam Flex (n=2)              0.75",
        "  INGENIOUS.BUILD (n=1)           0.50",
        "  Ressio (n=2)                    0.50",
        "  SmarteBuild (n=1)               1.00",
        "  cross-system (n=2)              0.75 [0.20, 0.97]    0.50 [0.09, 0.91]",
    ]
    outside = _pm_results()
    outside["tasks"] = outside["tasks"][-1:]
    assert pm_block_lines(outside) == []


# ---------------------------------------------------------------- the dataset record

def test_dataset_records_carry_platform_and_tags_checked_when_present():
    import jsonschema

    from agent import dataset as ds

    schema = json.loads(ds.SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    pm = select("tag:pm:redteam")
    tasks = [pm[0], next(t for t in all_tasks() if not platform_of(t.apps))]
    recs = [ds.record(t, "test") for t in tasks]
    for task, rec in zip(tasks, recs):
        assert not list(validator.iter_errors(rec)), rec["instance_id"]
        assert (rec["platform"], rec["tags"]) == (platform_of(task.apps), tags_of(task.apps))
    assert recs[0]["platform"] == "redteam" and recs[1]["tags"] == []
    # a record built before the fields existed still validates and resolves to the suite's task
    old = {k: v for k, v in recs[0].items() if k not in ("platform", "tags")}
    old["contamination_meta"] = {**old["contamination_meta"], "hash_of_problem": ds.problem_hash(old)}
    assert not list(validator.iter_errors(old))
    assert [t.instance_id for t in ds.resolve([old])] == [tasks[0].instance_id]
    # a record whose tags disagree with its systems is not the suite's instance
    wrong = {**recs[0], "tags": ["pm", "pm:ressio"]}
    with pytest.raises(ds.DatasetError, match="differs from the suite's instance of that id in tags"):
        ds.resolve([wrong])
