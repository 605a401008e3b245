"""Results files in, one `Entry` per file out: a unique label, a path-safe slug, provenance.

A results file is what `agent.runner.run_suite` writes. Older files may lack provenance, the
defect variant or the diff; whatever is missing is reported as unknown, never filled in. The one
exception is what the task's apps determine, its PM platform and tags (tasks/tags.py): a file
written before runs recorded them has them derived by `task_block`.
"""
from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

UNKNOWN = "unknown"
NOT_APPLICABLE = "n/a (no model)"
# Scripted policies are baselines, not model results: the oracle checks the environment, the
# do-nothing and over-eager agents floor it.
BASELINES = {"oracle": "Oracle (environment check)", "noop": "Trivial (no-op)",
             "eager": "Over-eager (scripted)", "gold": "Gold replay"}


class ResultsError(ValueError):
    """A file that is not a results file this report can read."""


@dataclass
class Entry:
    """One results file: one policy or model, one transport, one k."""

    path: Path
    results: dict
    label: str = ""
    slug: str = ""
    provenance: dict = field(default_factory=dict)

    @property
    def policy(self) -> str:
        return self.results["policy"]

    @property
    def model(self) -> str | None:
        return self.results.get("model")

    @property
    def k(self) -> int:
        return int(self.results["k"])

    @property
    def transport(self) -> str:
        return self.results.get("transport", UNKNOWN)

    @property
    def tasks(self) -> list[dict]:
        return self.results["tasks"]

    @property
    def split(self) -> str:
        """"private" for a run of the private split (CFAgentBench-Pro, `cfab run --split private`);
        otherwise "public" (the whole public suite, or its dev or test partition)."""
        return "private" if self.results.get("split") == "private" else "public"

    @property
    def is_baseline(self) -> bool:
        return self.model is None and self.policy in BASELINES

    @property
    def is_oracle(self) -> bool:
        return self.model is None and self.policy in ("oracle", "gold")


def read_results(path: str | Path) -> Entry:
    """Read and check one results file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except OSError as err:
        raise ResultsError(f"{path}: cannot be read ({err.strerror})") from err
    except ValueError as err:
        raise ResultsError(f"{path}: is not JSON ({err})") from err
    missing = [key for key in ("policy", "k", "tasks") if not isinstance(data, dict) or key not in data]
    if missing:
        raise ResultsError(f"{path}: not a cfab results file (no {', '.join(missing)})")
    for task in data["tasks"]:
        if "instance_id" not in task or not isinstance(task.get("runs"), list):
            raise ResultsError(f"{path}: a task record has no instance_id or runs")
    return Entry(path, data)


def task_block(record: dict) -> tuple[str | None, list[str]]:
    """A task record's PM platform and tags: the file's own; else derived from the record's apps;
    else (a record without apps) from the apps of the suite's task of that id."""
    from tasks.tags import platform_of, tags_of

    if isinstance(record.get("tags"), list):
        return record.get("platform"), list(record["tags"])
    apps = record.get("apps")
    if not isinstance(apps, list):
        from tasks.registry import get

        try:
            apps = list(get(record["instance_id"]).apps)
        except LookupError:  # not a task of this suite (another version, or a private instance)
            apps = []
    return platform_of(apps), tags_of(apps)


def load_entries(paths) -> list[Entry]:
    """Entries in the order given, each with a unique label and slug and its provenance."""
    entries = [read_results(p) for p in paths]
    if not entries:
        raise ResultsError("no results files given")
    base = [(e.model or BASELINES.get(e.policy, e.policy)) + (" · private" if e.split == "private" else "")
            for e in entries]
    for entry, name in zip(entries, base):
        clash = base.count(name) > 1
        entry.label = f"{name} ({entry.transport}, k={entry.k})" if clash else name
    seen: dict[str, int] = {}
    for entry in entries:
        if entry.label in seen:  # the same model, transport and k twice: number them
            seen[entry.label] += 1
            entry.label = f"{entry.label} #{seen[entry.label]}"
        else:
            seen[entry.label] = 1
    slugs: set[str] = set()
    for entry in entries:
        slug = slugify(entry.label)
        while slug in slugs:
            slug += "_"
        slugs.add(slug)
        entry.slug = slug
        entry.provenance = provenance(entry.results)
    return entries


def slugify(text: str) -> str:
    """A file-name-safe form of a label or instance id."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "run"


def _pick(raw: dict, *keys):
    for key in keys:
        if raw.get(key) not in (None, ""):
            return raw[key]
    return None


def provenance(results: dict) -> dict:
    """Commit, command line, endpoint, temperature and date as display text ("unknown" when absent)."""
    raw = results.get("provenance") or {}
    model_run = bool(results.get("model"))
    commit = _pick(raw, "commit", "git_commit")
    if commit and raw.get("dirty"):
        commit = f"{commit} (with uncommitted changes)"
    argv = _pick(raw, "argv", "command", "command_line")
    if isinstance(argv, list):
        argv = shlex.join(str(a) for a in argv)
    endpoint = _pick(raw, "base_url", "endpoint")
    temperature = _pick(raw, "temperature")
    return {
        "commit": commit or UNKNOWN,
        "command": argv or UNKNOWN,
        "endpoint": endpoint or (UNKNOWN if model_run else NOT_APPLICABLE),
        "temperature": UNKNOWN if temperature is None and model_run else
        NOT_APPLICABLE if temperature is None else str(temperature),
        "date": _pick(raw, "started", "started_at", "date", "finished", "finished_at") or UNKNOWN,
    }
