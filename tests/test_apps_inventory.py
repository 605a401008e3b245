"""`cfab apps`: the paper's 35-app inventory beside what the stack serves, each served app with
its archetype, tier, tools by kind and the tasks that use it."""
from __future__ import annotations

import json

from click.testing import CliRunner

from agent.apps import inventory, read_inventory, unlisted_apps
from agent.cli import main
from portals.core.registry import load_apps
from tasks.registry import all_tasks


def test_the_inventory_is_the_papers_35_apps_in_nine_archetypes_and_the_utilities():
    groups = read_inventory()
    names = [app for g in groups for app in g["apps"]]
    assert len(names) == len(set(names)) == 35
    assert len([g for g in groups if not g.get("utility")]) == 9 and [g["apps"] for g in groups if g.get("utility")] == [
        ["hh2", "hcss_heavybid"]]
    assert "spectrum" not in names  # the paper dropped the ERP no task exercised


def test_every_served_app_is_in_the_inventory_under_its_own_archetype():
    assert unlisted_apps() == []
    kinds = {app: g["kinds"] for g in read_inventory() for app in g["apps"]}
    for name, spec in load_apps().items():
        assert spec.kind in kinds[name], (name, spec.kind)


def test_each_record_lists_the_apps_tools_by_kind_and_the_tasks_that_use_it():
    tasks = all_tasks()
    records = {r.app: r for r in inventory(tasks)}
    served = load_apps()
    assert {name for name, r in records.items() if r.served} == set(served)
    for name, spec in served.items():
        tools = records[name].tools
        assert sorted(tools["R"] + tools["W"] + tools["G"]) == sorted(spec.tools)
        assert set(tools["G"]) == set(spec.money_guarded_tools)
    for task in tasks:
        for app in task.apps:
            assert records[app].served and task.instance_id in records[app].tasks
    assert sum(len(r.tasks) for r in records.values()) == sum(len(t.apps) for t in tasks)


def test_cfab_apps_prints_the_inventory_and_its_json():
    table = CliRunner().invoke(main, ["apps"])
    assert table.exit_code == 0, table.output
    served = len(load_apps())
    assert f"{served} of the inventory's 35 apps served" in table.output
    assert "computerease" in table.output
    assert ("not served yet" in table.output) == (served < 35)  # an unserved app says so, by name
    listed = CliRunner().invoke(main, ["apps", "--json"])
    assert listed.exit_code == 0, listed.output
    records = json.loads(listed.output)
    assert len(records) == 35 and sum(r["served"] for r in records) == served
    vista = next(r for r in records if r["app"] == "vista_erp")
    assert vista["archetype"] == "ERP" and vista["tier"] == "A" and "ap.invoice.approve" in vista["tools"]["G"]
    assert "cf_C_coi_hold_V1000" in vista["tasks"]


def test_every_served_app_is_used_by_an_executable_task():
    """The paper dropped an app that no task exercised: every app the stack serves earns its place."""
    records = {r.app: r for r in inventory(all_tasks())}
    idle = sorted(name for name in load_apps() if not records[name].tasks)
    assert idle == [], f"served apps that no task uses: {idle}"


def test_the_readmes_app_table_is_cfab_apps_markdown():
    """The README's app table covers the whole inventory as `cfab apps --markdown` prints it."""
    from pathlib import Path

    out = CliRunner().invoke(main, ["apps", "--markdown"])
    assert out.exit_code == 0, out.output
    rows = out.output.strip().splitlines()
    names = [app for group in read_inventory() for app in group["apps"]]
    assert len(rows) == 2 + len(names) == 37 and all(f"`{app}`" in out.output for app in names)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    start, end = "<!-- apps-table:start (cfab apps --markdown) -->\n", "<!-- apps-table:end -->"
    assert start in readme and end in readme, "README lacks the app table's markers"
    assert readme.split(start, 1)[1].split(end, 1)[0].strip() == out.output.strip(), \
        "README's app table is stale: run cfab apps --markdown"
