"""The published corpus: `cfab dataset build`, its schema, statistics, splits, and running a file."""
from __future__ import annotations

import json
import re
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
from click.testing import CliRunner

from agent import dataset as ds
from agent.cli import main
from tasks.registry import all_tasks, get

ROOT = Path(__file__).resolve().parent.parent
SMALL = ("cf_A_etc_forecast_1042", "cf_H_procore_erp_sync_2014")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Two builds of the whole suite (no gate), the second from the tasks in reverse order."""
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    tasks = list(all_tasks())
    ds.build(first, tasks=tasks, gate=False)
    ds.build(second, tasks=list(reversed(tasks)), gate=False)
    recs = [json.loads(line) for line in (first / ds.FILE_NAME).read_text().splitlines()]
    return SimpleNamespace(first=first, second=second, records=recs, tasks=tasks)


def _write(path: Path, recs) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_every_instance_is_a_schema_valid_record_in_the_papers_form(built):
    schema = json.loads((ROOT / "tasks" / "dataset" / "instance.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    assert [r["instance_id"] for r in built.records] == sorted(t.instance_id for t in built.tasks)
    for rec in built.records:
        assert not list(validator.iter_errors(rec)), rec["instance_id"]
        assert rec["instance_id"].startswith(f"cf_{rec['family']}_")
        assert re.fullmatch(r"cf_[A-Z]_.+", rec["instance_id"]) and rec["family"][0] == rec["domain_code"]
        assert set(rec["ground_truth"]) >= {"expected_state_diff", "forbidden_state_diffs", "required_outputs"}
        assert abs(sum(p["weight"] for p in rec["rubric"]["partial"]) - 1) < 1e-4
        assert rec["contamination_meta"]["collected_at"] == "2026-06-30"  # the book's clock
    # the schema is strict: an unknown field or a malformed hash is not a record
    assert list(validator.iter_errors({**built.records[0], "answer": 1}))
    bad = json.loads(json.dumps(built.records[0]))
    bad["contamination_meta"]["hash_of_problem"] = "sha256:4b4f8e66"
    assert list(validator.iter_errors(bad))


def test_the_three_original_families_record_their_public_sources(built):
    for rec in built.records:
        if rec["family"] in ("A_etc_forecast", "H_procore_erp_sync", "C_invoice_code"):
            assert rec["source_type"] == "vendor_docs" and rec["source_ref"]
            assert rec["parameters"].get("job") and rec["taxonomy_path"].startswith(rec["domain_code"] + ".")


def test_the_ground_truth_is_the_evaluator_that_grades(built):
    """A record alone is gradeable: its plain ground truth turns back into the task's evaluator."""
    for rec in built.records:
        task = get(rec["instance_id"])
        assert ds.evaluator_of(rec) == json.loads(json.dumps(task.evaluator)), rec["instance_id"]
        assert rec["money_movement_guard"] == task.money_movement_guard


def test_hashes_and_splits_are_stable_across_builds_and_orders(built):
    for name in (ds.FILE_NAME, "index.md", "summary.md", "summary.json"):
        assert (built.first / name).read_bytes() == (built.second / name).read_bytes(), name
    for rec in built.records:
        assert rec["contamination_meta"]["hash_of_problem"] == ds.problem_hash(rec)
        changed = {**rec, "instruction": rec["instruction"] + " "}
        assert ds.problem_hash(changed) != rec["contamination_meta"]["hash_of_problem"]


def _expected_dev(n: int) -> int:
    return int((Decimal(n) * 142 / 711).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def test_partitions_follow_the_papers_proportions_per_domain(built):
    by_domain: dict = {}
    for rec in built.records:
        by_domain.setdefault(rec["domain_code"], []).append(rec["partition"])
    for code, parts in by_domain.items():
        assert parts.count("dev") == _expected_dev(len(parts)), code
    # at the paper's scale the proportion is exact: 711 public instances -> dev 142, test 569
    fake = [SimpleNamespace(instance_id=f"cf_A_x_{i:04d}", domain_code="A") for i in range(711)]
    split = ds.partitions(fake, ledger={})
    assert list(split.values()).count("dev") == 142
    # assignment by hash, not by order: a shuffled list gets the same split
    assert ds.partitions(list(reversed(fake)), ledger={}) == split


def test_a_published_partition_never_changes_as_the_suite_grows():
    fake = [SimpleNamespace(instance_id=f"cf_A_x_{i:04d}", domain_code="A") for i in range(40)]
    published = ds.partitions(fake, ledger={})
    for extra in (1, 7, 60):
        more = [SimpleNamespace(instance_id=f"cf_A_y_{i:04d}", domain_code="A") for i in range(extra)]
        grown = ds.partitions(fake + more, ledger=published)
        assert {i: grown[i] for i in published} == published
        assert list(grown.values()).count("dev") == _expected_dev(40 + extra)


def test_every_public_instance_is_pinned_in_the_ledger():
    from tasks.registry import all_tasks

    public = [t for t in all_tasks() if ds.publishable(t)]
    ledger = ds.pinned()
    missing = sorted(t.instance_id for t in public if t.instance_id not in ledger)
    assert not missing, f"new instances without a published partition (run `cfab dataset pin`): {missing}"
    assert ds.partitions(public) == {t.instance_id: ledger[t.instance_id] for t in public}


def test_the_readme_shows_the_statistics_the_build_produced(built):
    readme = (ROOT / "README.md").read_text()
    block = readme.split(ds.README_START)[1].split(ds.README_END)[0]
    assert block.strip() == (built.first / "summary.md").read_text().strip(), (
        "README's dataset summary is stale: run `cfab dataset build --out build/dataset --readme README.md`")
    stats = json.loads((built.first / "summary.json").read_text())
    assert stats["n"] == len(built.records) == stats["dev"] + stats["test"]
    assert sum(c["n"] for c in stats["by_domain"].values()) == stats["n"]


def test_build_refuses_a_readme_without_its_markers_and_changes_nothing(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    with pytest.raises(ds.DatasetError, match="dataset-summary"):
        ds.build(tmp_path / "out", tasks=[get(SMALL[1])], gate=False, readme=readme)
    assert readme.read_text() == "# no markers\n" and not (tmp_path / "out").exists()


def test_build_refuses_an_instance_that_fails_the_gate_and_writes_nothing(tmp_path):
    task = get(SMALL[1])
    broken = replace(task, oracle_tools=lambda env: "Done.")  # an oracle that does nothing
    with pytest.raises(ds.DatasetError, match=rf"admission gate[\s\S]*{task.instance_id}: oracle: the oracle fails"):
        ds.build(tmp_path / "out", tasks=[broken], gate=True)
    assert not (tmp_path / "out").exists()
    stats = ds.build(tmp_path / "ok", tasks=[task], gate=True)
    assert stats["n"] == 1 and (tmp_path / "ok" / ds.FILE_NAME).exists()


def test_build_refuses_a_customer_derived_instance_in_the_public_corpus(tmp_path):
    private = replace(get(SMALL[0]), source_type="customer_email")
    with pytest.raises(ds.DatasetError, match="customer-derived"):
        ds.build(tmp_path, tasks=[private], gate=False)


def test_cfab_dataset_build_and_check(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["dataset", "build", "--out", str(tmp_path), "--no-gate"])
    assert result.exit_code == 0, result.output
    n = len(all_tasks())
    assert f"{n} instances" in result.output
    checked = runner.invoke(main, ["dataset", "check", str(tmp_path / ds.FILE_NAME)])
    assert checked.exit_code == 0 and f"{n} records" in checked.output


def test_run_dataset_runs_exactly_the_records_of_the_file(built, tmp_path):
    small = _write(tmp_path / "small.jsonl", [r for r in built.records if r["instance_id"] in SMALL])
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["run", "--policy", "oracle", "--dataset", str(small), "--quiet",
                                       "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert sorted(t["instance_id"] for t in data["tasks"]) == sorted(SMALL)
    assert data["pass1"] == 1.0


def test_run_split_runs_exactly_that_partition(built, tmp_path):
    dev = sorted(r["instance_id"] for r in built.records if r["partition"] == "dev")
    assert [t.instance_id for t in ds.select_tasks(split="dev")] == dev
    test = [t.instance_id for t in ds.select_tasks(split="test")]
    assert not set(dev) & set(test) and len(dev) + len(test) == len(built.records)
    whole = _write(tmp_path / "all.jsonl", built.records)
    assert [t.instance_id for t in ds.select_tasks(dataset=str(whole), split="dev")] == dev
    assert [t.instance_id for t in ds.select_tasks(dataset=str(whole), split="dev", pattern="cf_A_*")] == \
        [i for i in dev if i.startswith("cf_A_")]
    out = tmp_path / "noop.json"
    result = CliRunner().invoke(main, ["run", "--policy", "noop", "--split", "dev", "--tasks", "cf_H_*",
                                       "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert [t["instance_id"] for t in json.loads(out.read_text())["tasks"]] == [i for i in dev if i.startswith("cf_H_")]


def _refused(tmp_path, recs, message):
    path = _write(tmp_path / "bad.jsonl", recs)
    out = tmp_path / "never.json"
    result = CliRunner().invoke(main, ["run", "--policy", "oracle", "--dataset", str(path), "--quiet",
                                       "--out", str(out)])
    assert result.exit_code == 2 and message in result.output, result.output
    assert not out.exists()


def test_a_tampered_record_is_refused_before_anything_runs(built, tmp_path):
    rec = next(r for r in built.records if r["instance_id"] == SMALL[1])
    other = next(r for r in built.records if r["instance_id"] == SMALL[0])
    edited = json.loads(json.dumps(rec))
    edited["ground_truth"]["required_outputs"][0]["value"] = 99
    _refused(tmp_path, [other, edited], "hash_of_problem does not match")
    # re-hashed after the edit: the hash holds, but it is not the suite's instance
    edited["contamination_meta"]["hash_of_problem"] = ds.problem_hash(edited)
    _refused(tmp_path, [edited], "differs from the suite's instance of that id in ground_truth:")
    moved = {**json.loads(json.dumps(rec)), "parameters": {"job": "4012"}}
    moved["contamination_meta"]["hash_of_problem"] = ds.problem_hash(moved)
    _refused(tmp_path, [moved], "in parameters:")
    unknown = {**json.loads(json.dumps(rec)), "instance_id": "cf_H_procore_erp_sync_0000"}
    unknown["contamination_meta"]["hash_of_problem"] = ds.problem_hash(unknown)
    _refused(tmp_path, [unknown], "no such instance in this suite")
    _refused(tmp_path, [rec, rec], "appears twice")
    (tmp_path / "junk.jsonl").write_text("{not json\n")
    result = CliRunner().invoke(main, ["run", "--dataset", str(tmp_path / "junk.jsonl"), "--quiet"])
    assert result.exit_code == 2 and "junk.jsonl:1: not JSON" in result.output
