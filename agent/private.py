"""CFAgentBench-Pro on the maintainer's side: the private split built, hosted and graded.

- `cfab dataset salt FILE` makes a salt; `cfab dataset build-private --salt-file FILE --out DIR`
  compiles the private instances (tasks/private.py) into DIR/cfagentbench_pro.jsonl in the
  instance schema (split "CFAgentBench-Pro (private)", partition "private", publishable false),
  after the admission gate on the private world (the tools transport). Those files stay with the
  maintainer: they hold the ground truth.
- `cfab serve --split private --salt-file FILE --results DIR` builds its episodes from the private
  world and mounts the private API (`/private`, a participant token) beside the portals and the
  tool API:
      GET  /private/instances            what an agent may see of each instance (no evaluator)
      POST /private/runs                 {instance_id} -> an evaluation episode: its agent token
                                         for /api/tools and its one-time browser link
      POST /private/runs/<id>/submit     {reply} -> the server grades the episode and answers
                                         {run_id, instance_id, passed, score}, nothing more
  The full record of each graded run (reply, diff, calls, guard log, verdict) is written to
  DIR/runs/<run_id>.json, for the maintainer alone. agent/private_client.py is the agent's side.
"""
from __future__ import annotations

import json
import os
import secrets
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import click
from flask import Blueprint, abort, current_app, jsonify, request

PRO_SPLIT = "CFAgentBench-Pro (private)"
FILE_NAME = "cfagentbench_pro.jsonl"


# ---------------------------------------------------------------- the private corpus

def private_records(world) -> list[dict]:
    from .dataset import record

    return [record(t, "private", split=PRO_SPLIT, meta={"publishable": False, "private_world": world.salt_id})
            for t in world.tasks]


def private_store(world, apps: list[str] | None = None, **kwargs):
    """An episode store over the private world (its templates kept off the disk cache)."""
    from portals.core.hosting import HostedStore
    from portals.core.registry import load_apps

    return HostedStore(list(apps or load_apps()), book=world.book, cache_templates=False, **kwargs)


def gate_failures(world, progress=None) -> list[str]:
    from .runner import Harness
    from .validate import validate

    with Harness("tools", store=private_store(world)) as harness:
        reports = validate(list(world.tasks), "tools", harness, progress=progress)
    return [f"{r.instance_id}: " + "; ".join(r.problems) for r in reports if not r.ok]


def build_private(out: str | Path, salt_file, gate: bool = True, progress=None) -> dict:
    """Compile the private split of the salt in `salt_file` into `out`; nothing is written
    unless every record is schema-valid and (with `gate`) passes the admission gate."""
    from tasks.private import public_collisions, world_from_file

    from .dataset import DatasetError, _write_text, schema_errors

    world = world_from_file(salt_file)
    clashes = public_collisions(world)
    if clashes:  # the families draw such figures again; a family that does not is caught here
        raise DatasetError("private answers that are figures of the public book (make another salt, or "
                           "have the family draw them again):\n  " + "\n  ".join(clashes))
    recs = private_records(world)
    bad = [f"{r['instance_id']}: {e}" for r in recs for e in schema_errors(r)]
    if bad:
        raise DatasetError("private records not valid under the instance schema:\n  " + "\n  ".join(bad))
    if gate:
        failed = gate_failures(world, progress)
        if failed:
            raise DatasetError(f"{len(failed)} private instance(s) fail the admission gate:\n  " + "\n  ".join(failed))
    by_family: dict[str, int] = {}
    for r in recs:
        by_family[r["family"]] = by_family.get(r["family"], 0) + 1
    stats = {"n": len(recs), "split": PRO_SPLIT, "private_world": world.salt_id, "by_family": by_family,
             "families_without_private": list(world.missing_families),
             "guarded": sum(r["money_movement_guard"] for r in recs)}
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    _write_text(folder / FILE_NAME, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))
    _write_text(folder / "summary.json", json.dumps(stats, indent=1, sort_keys=True) + "\n")
    return stats


def write_salt(path: str | Path) -> None:
    """A fresh salt in a new file only its owner may read; an existing file is never replaced."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(32) + "\n")


# ---------------------------------------------------------------- the server

def agent_view(task) -> dict:
    """What a participant sees of an instance: the public() view, never the evaluator."""
    return task.public()


class PrivateHost:
    """The private split a `cfab serve` process hosts: its instances, its open runs, where it
    records graded runs, and the participants' token."""

    def __init__(self, world, results: str | Path, token: str | None = None):
        self.world = world
        self.results = Path(results).resolve()
        (self.results / "runs").mkdir(parents=True, exist_ok=True)
        self.token = token or secrets.token_urlsafe(24)
        self.runs: dict[str, dict] = {}  # run_id -> open run
        self.graded: dict[str, dict] = {}  # run_id -> what the participant was told
        self.lock = threading.Lock()


private_bp = Blueprint("private", __name__)


def _host() -> PrivateHost:
    return current_app.extensions["cfab_private"]


def _bearer() -> str:
    header = request.headers.get("Authorization", "")
    return header[7:].strip() if header.startswith("Bearer ") else ""


@private_bp.before_request
def _require_participant():
    import hmac

    given = _bearer()
    ok = any(hmac.compare_digest(given, t) for t in (_host().token, current_app.extensions["cfab_admin_token"]))
    if not ok:
        abort(401 if not given else 403, description="The private split needs the participant token "
                                                     "(Authorization: Bearer ...).")


@private_bp.get("/instances")
def instances():
    host = _host()
    return jsonify(split=PRO_SPLIT, private_world=host.world.salt_id, clock=current_app.extensions["cfab_store"].clock.iso(),
                   instances=[agent_view(t) for t in host.world.tasks])


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _label(body: dict) -> dict:
    """Who ran (policy, model, transport), as the participant says: strings, kept short."""
    out = {}
    for key in ("policy", "model", "transport"):
        value = body.get(key)
        if value is not None:
            if not isinstance(value, str) or len(value) > 200:
                abort(400, description=f"{key} must be a string of at most 200 characters.")
            out[key] = value
    return out


@private_bp.post("/runs")
def open_run():
    from portals.core.episode import StoreFull
    from portals.core.limits import json_object_body, limits_of
    from portals.core.web import agent_token, enter_url, store_of

    host = _host()
    body = json_object_body()
    name = body.get("instance_id")
    if not isinstance(name, str):
        abort(400, description="Send {\"instance_id\": ...}, one of GET /private/instances.")
    try:
        task = host.world.get(name)
    except LookupError:
        abort(404, description=f"No private instance {name!r}.")
    label = _label(body)
    limits = limits_of()
    try:
        episode = store_of().admit(list(task.apps), cap=limits.max_episodes, busy_seconds=limits.busy_seconds,
                                   evictable=False)
    except StoreFull as err:
        abort(429, description=str(err))
    episode.meta.update({"evaluation": True, "apps": list(task.apps)})
    run_id = secrets.token_urlsafe(12)
    with host.lock:
        host.runs[run_id] = {"run_id": run_id, "instance_id": name, "episode_id": episode.id, "label": label,
                             "opened_at": _now(), "started": time.perf_counter()}
    return jsonify(run_id=run_id, instance_id=name, apps=sorted(task.apps), episode_id=episode.id,
                   agent_token=agent_token(current_app, episode.id),
                   enter_url=enter_url(current_app, episode.id, "/")), 201


def _write_record(host: PrivateHost, rec: dict) -> None:
    from .dataset import _write_text

    _write_text(host.results / "runs" / f"{rec['run_id']}.json", json.dumps(rec, indent=1, sort_keys=True) + "\n")


@private_bp.post("/runs/<run_id>/submit")
def submit(run_id):
    from portals.core.limits import json_object_body
    from portals.core.web import store_of
    from tasks.lifecycle import grade_episode

    host = _host()
    body = json_object_body()
    reply, error = body.get("reply", ""), body.get("error")
    if not isinstance(reply, str) or (error is not None and not isinstance(error, str)):
        abort(400, description="Send {\"reply\": \"...\"} (and optionally \"error\": \"...\").")
    with host.lock:
        if run_id in host.graded:
            return jsonify({**host.graded[run_id], "message": "This run was already graded."}), 409
        run = host.runs.pop(run_id, None)
    if run is None:
        abort(404, description=f"No open private run {run_id}.")
    store = store_of()
    episode = store.get(run["episode_id"])
    task = host.world.get(run["instance_id"])
    try:
        if episode is None:  # dropped for idling: nothing the agent did is left to grade
            passed, score, verdict, diff, calls, guard_log = False, 0.0, [
                "The episode was closed before the run was submitted (idle too long)."], {}, [], []
        else:
            outcome = grade_episode(episode, task, reply, error=error[:2000] if error else None,
                                    seconds=time.perf_counter() - run["started"])
            g = outcome.grade
            passed, score, verdict = g.passed, g.score, list(g.verdict)
            diff, calls, guard_log = outcome.diff, outcome.calls, outcome.guard_log
        told = {"run_id": run_id, "instance_id": run["instance_id"], "passed": bool(passed), "score": float(score)}
        rec = {**told, "label": run["label"], "opened_at": run["opened_at"], "graded_at": _now(),
               "seconds": round(time.perf_counter() - run["started"], 3), "reply": reply, "error": error,
               "verdict": verdict, "diff": diff, "calls": calls, "guard_log": guard_log,
               "split": PRO_SPLIT, "private_world": host.world.salt_id, "family": task.family,
               "domain": task.domain, "difficulty": task.difficulty, "apps": list(task.apps),
               "money_movement_guard": task.money_movement_guard, "defect_variant": task.defect_variant,
               "instruction": task.instruction}
        _write_record(host, rec)
        with host.lock:
            host.graded[run_id] = told
    finally:
        if episode is not None:
            store.drop(episode.id)
    return jsonify(told)


def results_from_records(folder: str | Path, policy: str, model: str | None = None, k: int = 1) -> dict:
    """A results document (as `cfab run` writes, `"split": "private"`) from the server's own
    records of one policy's (and model's) graded runs: the maintainer's numbers for the private
    split, which do not rest on the participant's file. A task's first k runs count, in the
    order they were graded."""
    from .runner import aggregate

    folder = Path(folder)
    runs_dir = folder / "runs" if (folder / "runs").is_dir() else folder
    recs = []
    for path in sorted(runs_dir.glob("*.json")):
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError) as err:
            raise click.ClickException(f"{path}: not a private run record ({err})")
        label = rec.get("label") or {}
        if label.get("policy") == policy and label.get("model") == model:
            recs.append(rec)
    if not recs:
        raise click.ClickException(f"no graded run of policy {policy!r}" + (f", model {model!r}" if model else "")
                                   + f" in {runs_dir}")
    worlds = {r["private_world"] for r in recs}
    if len(worlds) > 1:
        raise click.ClickException(f"{runs_dir} mixes private worlds {', '.join(sorted(worlds))}")
    tasks: dict[str, dict] = {}
    for rec in sorted(recs, key=lambda r: (r["graded_at"], r["run_id"])):
        task = tasks.setdefault(rec["instance_id"], {
            "instance_id": rec["instance_id"], "domain": rec["domain"], "family": rec["family"],
            "difficulty": rec["difficulty"], "apps": rec.get("apps", []), "instruction": rec.get("instruction"),
            "money_movement_guard": rec.get("money_movement_guard"), "defect_variant": rec.get("defect_variant"),
            "runs": []})
        if len(task["runs"]) < k:
            task["runs"].append({"passed": rec["passed"], "score": rec["score"], "verdict": rec["verdict"],
                                 "reply": rec["reply"], "calls": rec["calls"], "guarded_calls": rec["guard_log"],
                                 "diff": rec["diff"], "seconds": rec["seconds"],
                                 **({"error": rec["error"]} if rec.get("error") else {})})
    records = sorted(tasks.values(), key=lambda t: t["instance_id"])
    transports = sorted({(r.get("label") or {}).get("transport") or "unknown" for r in recs})
    out = {"policy": policy, "model": model, "transport": "+".join(transports), "k": k,
           "n_tasks": len(records), "split": "private", "private_world": worlds.pop(),
           "source": f"the private server's records in {runs_dir}",
           "n_runs": sum(len(t["runs"]) for t in records)}
    out.update(aggregate(records, k))
    out["tasks"] = records
    return out


def register(app, host: PrivateHost) -> None:
    app.extensions["cfab_private"] = host
    app.register_blueprint(private_bp, url_prefix="/private")

    @app.before_request
    def _no_launcher_episodes():
        """On the private server every episode is a participant's run (POST /private/runs):
        the launcher opens none (its sandbox would show the private world to anyone who can
        reach the server, without a token) and shows no public task pages; its home page,
        where an agent's browser lands, stays."""
        if request.blueprint == "launcher" and (request.method == "POST" or
                                               request.endpoint in ("launcher.task_page", "launcher.policy")):
            abort(403, description="This server hosts the private split: runs are opened over its "
                                   "private API (POST /private/runs) with a participant token.")


# ---------------------------------------------------------------- the commands

def add_commands(dataset_group) -> None:
    @dataset_group.command(name="salt")
    @click.argument("file", type=click.Path(dir_okay=False))
    def salt_command(file):
        """Write a fresh secret salt for the private split to FILE (never replaces a file)."""
        try:
            write_salt(file)
        except FileExistsError:
            raise click.ClickException(f"{file} exists; a salt is never overwritten (its private split "
                                       "would be lost)")
        click.echo(f"salt written to {file} (keep it secret: it is the private split)")

    @dataset_group.command(name="private-results")
    @click.argument("folder", type=click.Path(exists=True, file_okay=False))
    @click.option("--policy", required=True, help="The policy the runs were made with (as the participant said).")
    @click.option("--model", default=None, help="The model, for a model policy.")
    @click.option("--k", type=click.IntRange(1, 100), default=1, show_default=True,
                  help="Runs per task that count (a task's first k, in the order graded).")
    @click.option("--out", required=True, type=click.Path(dir_okay=False), help="Results JSON to write.")
    def private_results_command(folder, policy, model, k, out):
        """A results file (for cfab report) from a private server's --results FOLDER."""
        from .runner import write_json_atomic

        results = results_from_records(folder, policy, model, k)
        write_json_atomic(out, results)
        p1 = "n/a" if results["pass1"] is None else f"{results['pass1']:.2f}"
        click.echo(f"{results['n_tasks']} private instances, {results['n_runs']} runs of {policy}"
                   f"{' / ' + model if model else ''}: pass^1 {p1}; written to {out}")

    @dataset_group.command(name="build-private")
    @click.option("--salt-file", required=True, type=click.Path(dir_okay=False),
                  help="The private split's secret salt (cfab dataset salt FILE).")
    @click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for the private corpus.")
    @click.option("--gate/--no-gate", default=True, show_default=True,
                  help="Run the admission gate (tools transport) on every private instance first.")
    def build_private_command(salt_file, out, gate):
        """Compile the salted private instances (CFAgentBench-Pro) into OUT/cfagentbench_pro.jsonl."""
        from tasks.private import SaltError

        from .dataset import DatasetError

        progress = (lambda r: click.echo(f"{'ok  ' if r.ok else 'FAIL'} {r.instance_id}", err=True)) if gate else None
        try:
            stats = build_private(out, salt_file, gate=gate, progress=progress)
        except (SaltError, DatasetError) as err:
            raise click.ClickException(str(err))
        click.echo(f"{stats['n']} private instances of world {stats['private_world']} written to "
                   f"{Path(out) / FILE_NAME}" + ("" if gate else " without the admission gate"))
        for family in stats["families_without_private"]:
            click.echo(f"note: family {family} has no private instances", err=True)
