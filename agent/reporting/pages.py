"""The leaderboard page and one viewer page per run, rendered with Jinja2 from the package's
templates (static files: no server, no CDN)."""
from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from .load import Entry, slugify
from .table import html_rows

HERE = Path(__file__).parent
ASSETS = ("report.css", "report.js")


def environment() -> Environment:
    env = Environment(loader=FileSystemLoader(HERE / "templates"),
                      autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True)
    env.filters["pretty"] = lambda value: json.dumps(value, ensure_ascii=False, sort_keys=True)
    env.filters["sup"] = superscripts
    return env


def superscripts(value) -> Markup:
    """pass^k as pass<sup>k</sup>, the rest escaped."""
    return Markup(re.sub(r"pass\^(\w+)", r"pass<sup>\1</sup>", str(escape(value))))


def copy_assets(out: Path) -> None:
    (out / "assets").mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(HERE / "templates" / name, out / "assets" / name)


def table_context(table, files: dict[str, str]) -> dict:
    head, body = html_rows(table)
    return {"key": table.key, "title": table.title, "caption": table.caption, "head": head,
            "body": body, "notes": table.notes, "files": files}


def write_index(out: Path, env: Environment, **context) -> Path:
    path = out / "index.html"
    path.write_text(env.get_template("index.html").render(root=".", **context))
    return path


def verdict_class(line: str) -> str:
    if line.startswith("OK"):
        return "ok"
    return "info" if line.startswith("Not scored") else "problem"


def _row_key(row: dict) -> str:
    # The diff names no key for added or removed rows; the row's own id column is the one to show.
    name = next((c for c in row if c == "id" or c.endswith("_id")), None)
    return "" if name is None else str(row[name])


def _shown(value) -> str:
    return "null" if value is None else str(value)


def diff_rows(diff: dict) -> list[dict]:
    """The state diff as a table: one line per field of an added or removed row, and per
    changed field of a changed row (`first` marks where a row starts)."""
    rows = []
    for app, tables in sorted(diff.items()):
        for table, ops in sorted(tables.items()):
            for op in ("added", "removed"):
                for row in ops.get(op, []):
                    for n, (name, value) in enumerate(row.items()):
                        rows.append({"app": app, "table": table, "change": op, "key": _row_key(row),
                                     "field": name, "first": n == 0,
                                     "before": _shown(value) if op == "removed" else "",
                                     "after": _shown(value) if op == "added" else ""})
            for change in ops.get("changed", []):
                for n, name in enumerate(change.get("fields", [])):
                    rows.append({"app": app, "table": table, "change": "changed",
                                 "key": change.get("pk"), "field": name, "first": n == 0,
                                 "before": _shown(change.get("before", {}).get(name, "(absent)")),
                                 "after": _shown(change.get("after", {}).get(name, "(absent)"))})
    return rows


def screenshot(step: dict, source: Path, folder: Path, name: str) -> dict | None:
    """A recorded screenshot as an image beside the page; a missing file is said, not broken."""
    shot = step.get("screenshot")
    if not shot:
        return None
    if shot.startswith("data:image/") and ";base64," in shot:
        header, data = shot.split(",", 1)
        target = f"{name}.{header[len('data:image/'):].split(';')[0]}"
        (folder / target).write_bytes(base64.b64decode(data))
        return {"src": target}
    path = (source.parent / shot).resolve()
    if not path.is_file():
        return {"missing": shot}
    target = name + path.suffix
    shutil.copyfile(path, folder / target)
    return {"src": target}


def write_runs(out: Path, env: Environment, entry: Entry) -> int:
    """One page per run: runs/<model>/<instance>/<n>.html (n from 1). Returns the count."""
    template, written = env.get_template("run.html"), 0
    for record in entry.tasks:
        folder = out / "runs" / entry.slug / slugify(record["instance_id"])
        folder.mkdir(parents=True, exist_ok=True)
        runs = record["runs"]
        for n, run in enumerate(runs, 1):
            steps = []
            for j, step in enumerate(run.get("actions") or [], 1):
                steps.append({**step, "shot": screenshot(step, entry.path, folder, f"{n}-step{j}")})
            status = "infra" if run.get("infra_error") else "pass" if run["passed"] else "fail"
            html = template.render(
                root="../../..", entry=entry, record=record, run=run, n=n, total=len(runs),
                status=status, steps=steps, calls=run.get("calls") or [],
                guard_log=run.get("guarded_calls") or [],
                diff=None if "diff" not in run else diff_rows(run["diff"]),
                verdict=[(verdict_class(line), line) for line in run.get("verdict", [])],
                prev=f"{n - 1}.html" if n > 1 else None,
                next=f"{n + 1}.html" if n < len(runs) else None)
            (folder / f"{n}.html").write_text(html)
            written += 1
    return written
