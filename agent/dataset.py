"""`cfab dataset build`: the public corpus as the paper publishes it.

Every family's instances (tasks/registry.py) become lines of ``cfagentbench_v1.jsonl`` in the
paper's instance schema (tasks/dataset/instance.schema.json). A record is built from the task's
own spec (``Task.spec()``, what ``cfab tasks --spec`` prints) with its evaluator in the plain form
the paper lists (``ground_truth`` = expected_state_diff keyed by ``app.table``,
forbidden_state_diffs, required_outputs), its partial-credit rubric, its provenance, its public
partition and its contamination metadata (``hash_of_problem`` = sha256 of the canonical record
without that field).

Partitions: within each domain, instances are ranked by a hash of their instance id and the
first round(n * 142/711) are dev, the rest test (the paper's public split: dev 142 / test 569 of
711). The assignment depends on the ids alone, never on the order instances are generated in.
Once published, an instance keeps its partition: the ledger tasks/dataset/partitions.json pins
every published assignment, and new instances fill the domain's dev quota in hash order, so a
dev instance someone has tuned on never moves into test (`cfab dataset pin` adds new ones).

The build runs the admission gate (agent/validate.py) on the tools transport and fails if any
instance does not pass it (``--no-gate`` skips it); it fails too if a record is not valid under
the schema, so nothing is written unless the whole corpus is sound.

``cfab run --dataset FILE`` and ``--split dev|test`` select through ``select_tasks`` here: a
file's records are checked (schema, their own hash, and equality with the suite's instance of the
same id and parameters) before anything runs, and each run is graded by its record's ground truth.

The private split (CFAgentBench-Pro, salted instances scored remotely) is built by
agent/private.py from the same record() (`cfab dataset build-private --salt-file FILE`).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import click

FILE_NAME = "cfagentbench_v1.jsonl"
SPLIT = "CFAgentBench-Verified (public)"
PARTITIONS = ("dev", "test")
DEV_SHARE = Fraction(142, 711)  # the paper's public split: dev 142 / test 569
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "tasks" / "dataset" / "instance.schema.json"
LEDGER_PATH = SCHEMA_PATH.with_name("partitions.json")  # instance_id -> dev|test, once published
# Provenance classes that come from a customer: never in the public corpus (the paper's
# contamination_meta.publishable).
CUSTOMER_SOURCES = {"customer_email", "call_transcript", "crm_record"}
# The fields a record shares with the suite's instance of the same id; split, partition and
# contamination_meta describe the release, not the problem.
PROBLEM_FIELDS = ("instance_id", "domain", "domain_code", "family", "taxonomy_path", "difficulty",
                  "systems", "user_role", "instruction", "policy_ref", "defect_variant",
                  "money_movement_guard", "parameters", "ground_truth", "rubric", "source_type",
                  "source_ref")
# What a task's systems determine (tasks/tags.py): written in every record since they were added,
# optional in the schema so a file built before still reads, and checked when present.
DERIVED_FIELDS = ("platform", "tags")
README_START = "<!-- dataset-summary:start (written by cfab dataset build --readme) -->"
README_END = "<!-- dataset-summary:end -->"


class DatasetError(LookupError):
    """A corpus that cannot be built, or a dataset file whose records cannot be run."""


# ---------------------------------------------------------------- ground truth and rubric

def plain_ground_truth(evaluator: dict) -> dict:
    """The compiled evaluator in the paper's form: expected changes keyed by app.table."""
    expected: dict[str, list] = {}
    for spec in evaluator.get("expected", []):
        rest = {k: v for k, v in spec.items() if k not in ("app", "table")}
        expected.setdefault(f"{spec['app']}.{spec['table']}", []).append(rest)
    out = {"expected_state_diff": expected,
           "forbidden_state_diffs": list(evaluator.get("forbidden", [])),
           "required_outputs": list(evaluator.get("required_outputs", []))}
    for key in ("expected_calls", "judge", "notes"):
        if key in evaluator:
            out[key] = evaluator[key]
    return out


def evaluator_of(record: dict) -> dict:
    """The evaluator grader.grade applies, from a record alone (the inverse of plain_ground_truth;
    specs on different tables are independent, so regrouping them by table grades the same)."""
    truth = record["ground_truth"]
    expected = []
    for key, specs in truth["expected_state_diff"].items():
        app, table = key.split(".", 1)
        expected.extend({"app": app, "table": table, **spec} for spec in specs)
    out = {"expected": expected, "forbidden": truth["forbidden_state_diffs"],
           "money_movement_guard": record["money_movement_guard"],
           "required_outputs": truth["required_outputs"]}
    for key in ("expected_calls", "judge", "notes"):
        if key in truth:
            out[key] = truth[key]
    return out


def _output_label(item) -> str:
    return item if isinstance(item, str) else item.get("label") or json.dumps(item, sort_keys=True)


def rubric(evaluator: dict) -> dict:
    """grader.grade's scoring as weights: past the gates, the score is the share of creditable
    checks that held (expected changes, positive reply claims, expected calls)."""
    from grader.claims import is_positive
    from grader.verdict import spec_text

    checks = [(spec_text(spec, plain=True), "state") for spec in evaluator.get("expected", [])]
    checks += [(_output_label(o), "output") for o in evaluator.get("required_outputs", []) if is_positive(o)]
    checks += [(c.get("label") or f"{c['app']} {c['tool']}", "call") for c in evaluator.get("expected_calls", [])]
    weight = round(1 / len(checks), 6) if checks else 0
    return {"primary": "state_diff_match", "gates": ["money_movement_guard", "forbidden_state_diffs"],
            "partial": [{"weight": weight, "check": check, "kind": kind} for check, kind in checks],
            "denials": [_output_label(o) for o in evaluator.get("required_outputs", []) if not is_positive(o)]}


# ---------------------------------------------------------------- records

def problem_hash(record: dict) -> str:
    """sha256 of the canonical record (sorted keys, compact, UTF-8) without hash_of_problem."""
    meta = {k: v for k, v in record.get("contamination_meta", {}).items() if k != "hash_of_problem"}
    body = {**record, "contamination_meta": meta}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def publishable(task) -> bool:
    return task.source_type not in CUSTOMER_SOURCES


def _split_key(instance_id: str) -> str:
    return hashlib.sha256(f"cfagentbench_v1:public-split:{instance_id}".encode()).hexdigest()


def pinned() -> dict[str, str]:
    """The published partitions (instance_id -> dev|test); empty where there is no ledger."""
    return json.loads(LEDGER_PATH.read_text()) if LEDGER_PATH.exists() else {}


def _dev_quota(n: int) -> int:
    return int((Decimal(n) * DEV_SHARE.numerator / DEV_SHARE.denominator).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def partitions(tasks, ledger: dict[str, str] | None = None) -> dict[str, str]:
    """instance_id -> dev|test: per domain, round(n * 142/711) are dev. An instance in the ledger
    (default: the published one) keeps its partition; the others are ranked by split hash and the
    lowest fill what the domain's dev quota still lacks."""
    ledger = pinned() if ledger is None else ledger
    by_domain: dict[str, list[str]] = {}
    for task in tasks:
        by_domain.setdefault(task.domain_code, []).append(task.instance_id)
    out = {}
    for ids in by_domain.values():
        kept = {i: ledger[i] for i in ids if i in ledger}
        new = sorted((i for i in ids if i not in ledger), key=_split_key)
        n_dev = max(0, _dev_quota(len(ids)) - list(kept.values()).count("dev"))
        out.update(kept)
        out.update({i: ("dev" if rank < n_dev else "test") for rank, i in enumerate(new)})
    return out


def pin(tasks) -> list[str]:
    """Add the partitions of instances the ledger does not hold yet; returns their ids."""
    ledger = pinned()
    assigned = partitions([t for t in tasks if publishable(t)], ledger)
    added = sorted(set(assigned) - set(ledger))
    if added:
        merged = dict(sorted({**ledger, **{i: assigned[i] for i in added}}.items()))
        LEDGER_PATH.write_text(json.dumps(merged, indent=1) + "\n")
    return added


def collected_at() -> str:
    """The date of the book's clock: every instance is compiled from that book."""
    from seeds.util import TODAY

    return TODAY.isoformat()


def record(task, partition: str, split: str = SPLIT, meta: dict | None = None) -> dict:
    """One dataset line, from the task's spec (JSON-normalized, hash included); `split` and
    `meta` (more contamination_meta) are the private split's (agent/private.py)."""
    from tasks.tags import platform_of, tags_of

    spec = task.spec()
    evaluator = spec["ground_truth"]
    if bool(evaluator.get("money_movement_guard")) != bool(spec["money_movement_guard"]):
        raise DatasetError(f"{task.instance_id}: the task's money_movement_guard and its evaluator's differ")
    rec = {
        "instance_id": spec["instance_id"], "domain": spec["domain"], "domain_code": spec["domain_code"],
        "family": spec["family"], "taxonomy_path": task.taxonomy_path, "difficulty": spec["difficulty"],
        "systems": list(spec["apps"]), "platform": platform_of(task.apps), "tags": tags_of(task.apps),
        "user_role": spec["user_role"], "instruction": spec["instruction"],
        "policy_ref": spec["policy_ref"], "defect_variant": spec["defect_variant"],
        "money_movement_guard": spec["money_movement_guard"], "parameters": dict(task.parameters),
        "ground_truth": plain_ground_truth(evaluator), "rubric": rubric(evaluator),
        "source_type": task.source_type, "source_ref": task.source_ref,
        "split": split, "partition": partition,
        "contamination_meta": {"collected_at": collected_at(), "publishable": publishable(task), **(meta or {})},
    }
    rec = json.loads(json.dumps(rec))  # tuples -> lists: the record as a reader of the file sees it
    rec["contamination_meta"]["hash_of_problem"] = problem_hash(rec)
    return rec


def records(tasks) -> list[dict]:
    """The public corpus of `tasks` (non-publishable instances refused), in instance-id order."""
    tasks = sorted(tasks, key=lambda t: t.instance_id)
    private = [t.instance_id for t in tasks if not publishable(t)]
    if private:
        raise DatasetError("customer-derived instances may not be in the public corpus: " + ", ".join(private))
    split = partitions(tasks)
    return [record(t, split[t.instance_id]) for t in tasks]


@lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


def schema_errors(rec) -> list[str]:
    """What is wrong with a record under the schema (empty when it is valid)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema(), format_checker=jsonschema.FormatChecker())
    return [f"{'/'.join(map(str, e.absolute_path)) or '(record)'}: {e.message}"
            for e in sorted(validator.iter_errors(rec), key=lambda e: list(map(str, e.absolute_path)))]


# ---------------------------------------------------------------- index and statistics

def _counts(recs, key) -> list[tuple]:
    rows: dict = {}
    for rec in recs:
        row = rows.setdefault(key(rec), Counter())
        row["n"] += 1
        row[rec["partition"]] += 1
        row["guarded"] += rec["money_movement_guard"]
    return sorted(rows.items(), key=lambda kv: str(kv[0]))


def statistics(recs) -> dict:
    """Counts per domain, family, difficulty, guard, defect variant and partition."""
    views = {"domain": lambda r: f"{r['domain_code']} {r['domain']}", "family": lambda r: r["family"],
             "difficulty": lambda r: f"D{r['difficulty']}",
             "money_movement_guard": lambda r: "guarded" if r["money_movement_guard"] else "not guarded",
             "defect_variant": lambda r: r["defect_variant"] or "(none)",
             "partition": lambda r: r["partition"]}
    out = {"n": len(recs), "split": SPLIT,
           "dev": sum(r["partition"] == "dev" for r in recs), "test": sum(r["partition"] == "test" for r in recs),
           "guarded": sum(r["money_movement_guard"] for r in recs),
           "without_source": sorted({r["family"] for r in recs if not r["source_ref"]})}
    for name, key in views.items():
        out[f"by_{name}"] = {k: {"n": c["n"], "dev": c["dev"], "test": c["test"], "guarded": c["guarded"]}
                             for k, c in _counts(recs, key)}
    return out


def summary_markdown(stats: dict) -> str:
    """The statistics as Markdown tables (what the README's Dataset section includes)."""
    lines = [f"{stats['n']} instances in `{FILE_NAME}` ({stats['split']}): dev {stats['dev']}, "
             f"test {stats['test']}; {stats['guarded']} with a money-movement guard.", ""]
    titles = {"domain": "domain", "family": "family", "difficulty": "difficulty",
              "money_movement_guard": "money-movement guard", "defect_variant": "defect variant",
              "partition": "partition"}
    for name, title in titles.items():
        lines += [f"| {title} | instances | dev | test | guarded |", "|---|---:|---:|---:|---:|"]
        for key, c in stats[f"by_{name}"].items():
            lines.append(f"| {key} | {c['n']} | {c['dev']} | {c['test']} | {c['guarded']} |")
        lines.append("")
    if stats["without_source"]:
        lines += ["Families recording no source yet: " + ", ".join(f"`{f}`" for f in stats["without_source"]) + ".", ""]
    return "\n".join(lines).rstrip() + "\n"


def index_markdown(recs) -> str:
    """One row per instance: the human-readable index of the corpus."""
    lines = [f"# {FILE_NAME}: index", "",
             "| instance | domain | family | D | guard | defect variant | partition | systems | hash |",
             "|---|---|---|---:|---|---|---|---|---|"]
    for r in recs:
        lines.append(f"| `{r['instance_id']}` | {r['domain']} | {r['family']} | {r['difficulty']} | "
                     f"{'yes' if r['money_movement_guard'] else 'no'} | {r['defect_variant'] or '—'} | "
                     f"{r['partition']} | {', '.join(r['systems'])} | "
                     f"`{r['contamination_meta']['hash_of_problem'][7:19]}` |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- the build

def gate_failures(tasks, progress=None) -> list[str]:
    """The instances that fail the admission gate on the tools transport, with their problems."""
    from .runner import Harness
    from .validate import validate

    with Harness("tools") as harness:
        reports = validate(list(tasks), "tools", harness, progress=progress)
    return [f"{r.instance_id}: " + "; ".join(r.problems) for r in reports if not r.ok]


def _write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def readme_with_summary(readme: str, summary: str) -> str:
    """`readme` with the block between the dataset-summary markers replaced by `summary`."""
    if readme.count(README_START) != 1 or readme.count(README_END) != 1 \
            or readme.index(README_START) > readme.index(README_END):
        raise DatasetError(f"the README has no single block between {README_START!r} and {README_END!r}")
    head, rest = readme.split(README_START)
    _, tail = rest.split(README_END)
    return f"{head}{README_START}\n{summary}{README_END}{tail}"


def build(out: str | Path, tasks=None, gate: bool = True, readme: str | Path | None = None,
          progress=None) -> dict:
    """Compile `tasks` (default: the whole suite) into `out`; nothing is written unless every
    record passes the gate (when `gate`) and the schema. Returns the statistics."""
    from tasks.registry import all_tasks

    tasks = list(all_tasks() if tasks is None else tasks)
    if not tasks:
        raise DatasetError("no instances to build")
    recs = records(tasks)
    bad = [f"{r['instance_id']}: {e}" for r in recs for e in schema_errors(r)]
    if bad:
        raise DatasetError("records not valid under the instance schema:\n  " + "\n  ".join(bad))
    if gate:
        failed = gate_failures(tasks, progress)
        if failed:
            raise DatasetError(f"{len(failed)} instance(s) have no evaluator that passes the admission "
                               "gate (cfab tasks validate):\n  " + "\n  ".join(failed))
    stats = statistics(recs)
    summary = summary_markdown(stats)
    new_readme = None
    if readme is not None:
        new_readme = readme_with_summary(Path(readme).read_text(encoding="utf-8"), summary)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    _write_text(folder / FILE_NAME, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))
    _write_text(folder / "index.md", index_markdown(recs))
    _write_text(folder / "summary.md", summary)
    _write_text(folder / "summary.json", json.dumps(stats, indent=1, sort_keys=True) + "\n")
    _write_text(folder / SCHEMA_PATH.name, SCHEMA_PATH.read_text())
    if new_readme is not None:
        _write_text(Path(readme), new_readme)
    return stats


# ---------------------------------------------------------------- reading a dataset file

def load(path: str | Path) -> list[dict]:
    """The records of a dataset file, each valid under the schema and carrying its own hash."""
    out, seen = [], set()
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise DatasetError(f"cannot read {path}: {err}")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            rec = json.loads(line)
        except ValueError as err:
            raise DatasetError(f"{where}: not JSON ({err})")
        if not isinstance(rec, dict):
            raise DatasetError(f"{where}: a record is a JSON object, not a {type(rec).__name__}")
        name = rec.get("instance_id", "(no instance_id)")
        errors = schema_errors(rec)
        if errors:
            raise DatasetError(f"{where}: {name} is not a valid instance record: {errors[0]}")
        actual = problem_hash(rec)
        if rec["contamination_meta"]["hash_of_problem"] != actual:
            raise DatasetError(f"{where}: {name}: hash_of_problem does not match the record "
                               f"(it hashes to {actual}): the record was changed after it was built")
        if name in seen:
            raise DatasetError(f"{where}: {name} appears twice")
        seen.add(name)
        out.append(rec)
    if not out:
        raise DatasetError(f"{path} holds no records")
    return out


def resolve(recs) -> list:
    """The suite's tasks for `recs`, in file order, each graded by its record's ground truth; a
    record that is not the suite's instance of that id and those parameters is refused."""
    from tasks.registry import all_tasks

    suite = {t.instance_id: t for t in all_tasks() if publishable(t)}
    fresh = {r["instance_id"]: r for r in records(suite.values())}
    out = []
    for rec in recs:
        name = rec["instance_id"]
        if name not in suite:
            raise DatasetError(f"{name}: no such instance in this suite (the file comes from another "
                               "version of it)")
        differ = [f for f in PROBLEM_FIELDS if rec.get(f) != fresh[name].get(f)]
        differ += [f for f in DERIVED_FIELDS if f in rec and rec[f] != fresh[name][f]]
        if differ:
            raise DatasetError(f"{name}: the record differs from the suite's instance of that id in "
                               f"{', '.join(differ)}: rebuild the file with `cfab dataset build`")
        out.append(replace(suite[name], evaluator=evaluator_of(rec)))
    return out


def select_tasks(dataset: str | None = None, split: str | None = None, pattern: str | None = None) -> list:
    """What `cfab run --dataset FILE --split dev|test --tasks SELECTOR` runs (the selector as
    tasks.registry.filter_tasks reads it: globs, tag:NAME, app:NAME, comma-separated)."""
    from tasks.registry import all_tasks

    if split is not None and split not in PARTITIONS:
        raise DatasetError(f"unknown split {split!r}: the public splits are {', '.join(PARTITIONS)}")
    if dataset:
        recs = load(dataset)
        if split:
            recs = [r for r in recs if r["partition"] == split]
        chosen = resolve(recs)
    else:
        tasks = list(all_tasks())
        assigned = partitions([t for t in tasks if publishable(t)])
        chosen = [t for t in tasks if split is None or assigned.get(t.instance_id) == split]
    missing = pattern
    if pattern and chosen:
        from tasks.registry import UnknownSelector, filter_tasks

        try:
            chosen = filter_tasks(chosen, pattern)
        except UnknownSelector:
            raise
        except LookupError as err:  # a term that selects nothing here
            chosen, missing = [], err.args[1] if len(err.args) > 1 else pattern
    if not chosen:
        what = " ".join(x for x in (f"in {dataset}" if dataset else "", f"in the {split} split" if split else "",
                                    f"matching {missing!r}" if missing else "") if x)
        raise DatasetError(f"no instance {what}")
    return chosen


# ---------------------------------------------------------------- the commands

@click.group()
def dataset():
    """The published corpus: cfagentbench_v1.jsonl, its schema, index, statistics and splits."""


@dataset.command(name="build")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for the corpus files.")
@click.option("--gate/--no-gate", default=True, show_default=True,
              help="Run the admission gate (tools transport) on every instance first.")
@click.option("--readme", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Also rewrite this README's dataset summary block (between its markers).")
def build_command(out, gate, readme):
    """Compile every family's instances into OUT/cfagentbench_v1.jsonl, with index and statistics."""
    progress = (lambda r: click.echo(f"{'ok  ' if r.ok else 'FAIL'} {r.instance_id}", err=True)) if gate else None
    try:
        stats = build(out, gate=gate, readme=readme, progress=progress)
    except DatasetError as err:
        raise click.ClickException(str(err))
    click.echo(f"{stats['n']} instances (dev {stats['dev']}, test {stats['test']}) written to "
               f"{Path(out) / FILE_NAME}" + ("" if gate else " without the admission gate"))
    for family in stats["without_source"]:
        click.echo(f"note: family {family} records no source_type/source_ref", err=True)
    if readme:
        click.echo(f"summary written into {readme}")


@dataset.command(name="pin")
def pin_command():
    """Record the partition of every new public instance in tasks/dataset/partitions.json (a
    published instance's partition never changes)."""
    from tasks.registry import all_tasks

    added = pin(all_tasks())
    click.echo(f"pinned {len(added)} new instance(s)" + "".join(f"\n  {i}" for i in added))


@dataset.command(name="check")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def check_command(file):
    """Check a dataset file: schema, each record's hash, and that it is this suite's instance."""
    try:
        tasks = resolve(load(file))
    except DatasetError as err:
        raise click.ClickException(str(err))
    click.echo(f"{len(tasks)} records of {file} are valid and match the suite")
