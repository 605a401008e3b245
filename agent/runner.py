"""The runner: a fresh episode per attempt, the policy, the diff, the grade, and the tally."""
from __future__ import annotations

import json
import os
import tempfile
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager

from grader.metrics import summarize
from portals.core.environment import Environment
from portals.core.episode import EpisodeStore
from tasks.lifecycle import run_episode
from tasks.tags import platform_of, tags_of

from .accounting import Budget, InfraError, Meter
from .browser import Portal, PortalServer, chromium


class Harness:
    """Owns the episode store and, for the browser transport, the portal server and Chromium."""

    def __init__(self, transport: str = "tools", store: EpisodeStore | None = None, workers: int = 1,
                 server: PortalServer | None = None, browser=None):
        """`server` and `browser` lend a running portal server and Chromium (e.g. a test
        session's) instead of starting new ones; the server must serve the same store.

        `store` may be an agent.remote.RemoteStore (`cfab serve` processes): the http transport
        needs one, and the browser transport then drives the remote server's portals."""
        if transport not in ("tools", "browser", "http"):
            raise ValueError("transport must be 'tools', 'browser' or 'http'")
        self.remote = store is not None and not isinstance(store, EpisodeStore)
        if transport == "http" and not self.remote:
            raise ValueError("the http transport runs over an agent.remote.RemoteStore (--server URL)")
        if transport == "tools" and self.remote:
            raise ValueError("the tools transport is in-process: a RemoteStore runs on --transport http")
        self.transport = transport
        self.store = store or EpisodeStore()
        self.workers = workers
        self._stack = ExitStack()
        self.server = server
        self.flask_app = server.app if server is not None else None
        self.browser = browser

    def __enter__(self):
        if self.transport == "browser" and self.server is None and self.remote:
            if self.workers == 1 and self.browser is None:
                self.browser = self._stack.enter_context(chromium())
        elif self.transport == "browser" and self.server is None:
            from portals.core.web import create_app

            self.flask_app = create_app(self.store)
            self.server = self._stack.enter_context(PortalServer(self.flask_app))
            if self.workers == 1 and self.browser is None:  # more workers bring their own
                self.browser = self._stack.enter_context(chromium())
        return self

    def __exit__(self, *exc):
        self._stack.close()

    @contextmanager
    def worker_browser(self):
        """The Chromium a worker thread drives: sync Playwright objects belong to the thread
        that made them, so a worker thread launches its own."""
        if self.transport != "browser":
            yield None
        elif self.browser is not None:
            yield self.browser
        else:
            with chromium() as browser:
                yield browser

    def run_one(self, task, policy, browser=None, judge=None, on_transcript=None) -> dict:
        """One attempt at one task on a fresh episode; never raises for the policy's failures.

        A model policy gets its own meter (tokens, steps, cost). A provider failure that
        survived the client's retries is an infrastructure error: the run is recorded with
        `infra_error` and left ungraded, since it says nothing about the agent.
        `on_transcript(events, run)` receives the run's full conversation, if it has one.
        """
        run, transcript = self.attempt(task, policy, browser=browser)
        judge_run(run, task, judge)
        if on_transcript is not None and transcript is not None:
            on_transcript(transcript, run)
        return run

    def attempt(self, task, policy, browser=None) -> tuple[dict, list | None]:
        """The run record of one attempt before the L3 judge reads it, and its transcript (the
        part of `run_one` a Ray worker does; the driver judges and journals)."""
        outcome, infra, meter = self.run_outcome(task, policy, browser=browser)
        if infra:
            run = infra_run(infra, f"Not scored: the model provider failed ({infra})")
        else:
            if outcome.error:
                print(outcome.extra.get("traceback", outcome.error), file=sys.stderr)
            run = {"passed": outcome.grade.passed, "score": outcome.grade.score,
                   "verdict": list(outcome.grade.verdict), "reply": outcome.reply,
                   "calls": outcome.calls, "guarded_calls": outcome.guard_log,
                   "diff": outcome.diff, "seconds": round(outcome.seconds, 3)}
            if outcome.error:
                run["error"] = outcome.error
        run.update(meter.to_run())
        return run, meter.transcript

    def run_outcome(self, task, policy, browser=None):
        """The lifecycle's outcome of one attempt: `(outcome | None, infra_error | None, meter)`."""
        browser = browser or self.browser
        metered = getattr(policy, "uses_model", False)
        meter = policy.client.meter() if metered else Meter()
        extra = {"meter": meter} if metered else {}

        def act(episode) -> str:
            if self.transport == "tools":
                return policy.run_tools(task, Environment(episode, list(task.apps)), **extra)
            if self.transport == "http":
                from .remote import RemoteEnvironment

                return policy.run_tools(task, RemoteEnvironment(episode, list(task.apps)), **extra)
            from portals.core.web import enter_url

            if self.remote:  # the remote server's own one-time link into its episode
                base, link = episode.parts[0].server.url, episode.enter_url
            else:
                base, link = self.server.url, enter_url(self.flask_app, episode.id, "/")
            context = browser.new_context(viewport={"width": 1280, "height": 860})
            try:
                context.set_default_timeout(15000)
                page = context.new_page()
                page.goto(base + link)
                return policy.run_browser(task, Portal(page, base), **extra)
            finally:
                context.close()

        try:
            return run_episode(self.store, task, act, reraise=(InfraError,)), None, meter
        except InfraError as exc:
            return None, str(exc), meter


def infra_run(reason: str, verdict: str) -> dict:
    """A run that says nothing about the agent (a provider outage, a lost worker): recorded,
    journaled and left out of pass^k."""
    return {"passed": False, "score": 0.0, "infra_error": reason, "verdict": [verdict],
            "reply": "", "calls": [], "guarded_calls": [], "seconds": 0.0}


def judge_run(run: dict, task, judge) -> None:
    """L3: the judge's reading of the reply, reported beside the grade, never part of it."""
    rubric = (task.evaluator.get("judge") or {}).get("rubric")
    if rubric and not run.get("infra_error"):
        run["judge"] = judge(run["reply"], rubric, task.instruction) if judge else \
            {"score": None, "reason": "no judge model configured (--judge-model)"}


class JobQueue:
    """The sweep's (task, attempt) runs still to start, shared by whoever runs them: `take()`
    hands out the next one (None once the queue is empty or the cost ceiling is reached)."""

    def __init__(self, jobs: list, budget: Budget):
        self._jobs = list(jobs)
        self._budget = budget
        self._lock = threading.Lock()

    def take(self):
        with self._lock:
            if self._budget.exhausted() or not self._jobs:
                return None
            return self._jobs.pop(0)

    def put_back(self, job) -> None:
        """A run that was started but lost (its worker died) goes to the front again."""
        with self._lock:
            self._jobs.insert(0, job)

    def __len__(self) -> int:
        with self._lock:
            return len(self._jobs)


def run_suite(tasks, policy, transport: str, k: int, out: str | None = None,
              progress: bool = True, store: EpisodeStore | None = None, workers: int = 1,
              max_cost: float | None = None, judge=None, resume: bool = False,
              command: list[str] | None = None, meta: dict | None = None, backend=None) -> dict:
    """Run every task k times (on `workers` threads); write and return the results document.

    `max_cost` (USD) is a ceiling: once spending reaches it no new run starts, runs already
    under way finish, and `stopped_early` says where the sweep stopped.

    With `out`, each finished run is also appended to the run journal beside it (see
    agent/journal.py); `resume` continues from that journal, skipping the finished runs and
    counting their cost once. `command` is the command line that asked for the sweep (for
    the provenance; `sys.argv` is recorded as well). `meta` joins the results document's top
    level (the split a sweep ran, e.g. {"split": "private", "private_world": ...}).

    `backend` (an agent.cluster.RayBackend) runs the attempts on its workers instead of this
    process's threads; everything else here (journal, resume, cost ceiling, judge,
    transcripts, the tally) is the same code either way.
    """
    from tqdm import tqdm

    from .journal import Journal, journal_path, sweep_header

    if resume and out:
        check_resumable(journal_path(out))
    started = _now_iso()
    jobs = [(task, attempt) for task in tasks for attempt in range(k)]
    slots = {task.instance_id: [None] * k for task in tasks}
    budget = Budget(max_cost)
    journal = Journal(journal_path(out), sweep_header(policy, transport, k, tasks), resume) if out else None
    transcripts = Transcripts(transcripts_path(out), policy, fresh=not resume) if out else None
    for (instance_id, attempt), run in (journal.finished.items() if journal else ()):
        if instance_id in slots and attempt < k:
            slots[instance_id][attempt] = run
            budget.charge(run.get("cost_usd", 0.0) + (run.get("judge") or {}).get("cost_usd", 0.0), instance_id)
    queue = JobQueue([(task, attempt) for task, attempt in jobs if slots[task.instance_id][attempt] is None],
                     budget)
    bar = tqdm(total=len(queue), disable=not progress, unit="run", desc=f"{policy.name}/{transport}")
    finish_lock = threading.Lock()

    def finish(task, attempt: int, run: dict) -> None:
        """A finished run: into its slot and the journal, its cost charged (once)."""
        with finish_lock:
            if slots[task.instance_id][attempt] is not None:
                raise RuntimeError(f"{task.instance_id} attempt {attempt} finished twice")
            slots[task.instance_id][attempt] = run
        if journal:
            journal.append(task.instance_id, attempt, run)
        budget.charge(run.get("cost_usd", 0.0) + (run.get("judge") or {}).get("cost_usd", 0.0),
                      task.instance_id)
        bar.update(1)

    def sink_for(task, attempt):
        return None if transcripts is None else (
            lambda events, run, t=task.instance_id, a=attempt: transcripts.write(t, a, events, run))

    stopped = None
    if backend is not None:
        def delivered(task, attempt, run, transcript):  # a worker's run, judged here as run_one would
            judge_run(run, task, judge)
            sink = sink_for(task, attempt)
            if sink is not None and transcript is not None:
                sink(transcript, run)
            finish(task, attempt, run)

        report = backend.sweep(policy, transport, store, queue, delivered)
        used_store, workers, stopped = store or report.world_store(), backend.workers, report.stopped
    else:
        with Harness(transport, store, workers) as harness:
            used_store = harness.store

            def work():
                with harness.worker_browser() as browser:
                    while (job := queue.take()) is not None:
                        task, attempt = job
                        finish(task, attempt, harness.run_one(task, policy, browser=browser, judge=judge,
                                                              on_transcript=sink_for(task, attempt)))

            if workers <= 1:
                work()
            else:
                with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cfab-run") as pool:
                    for future in [pool.submit(work) for _ in range(workers)]:
                        future.result()  # re-raise a worker's unexpected exception here
    bar.close()

    records = [{"instance_id": task.instance_id, "domain": task.domain, "family": task.family,
                "difficulty": task.difficulty, "instruction": task.instruction,
                "defect_variant": task.defect_variant,
                "apps": list(task.apps), "platform": platform_of(task.apps), "tags": tags_of(task.apps),
                "money_movement_guard": task.money_movement_guard,
                "runs": [r for r in slots[task.instance_id] if r is not None]} for task in tasks]
    results = {"policy": policy.name, "transport": transport, "k": k, "n_tasks": len(tasks),
               "model": getattr(policy, "model", None), "workers": workers,
               "backend": "local" if backend is None else backend.name,
               "resumed_runs": len(journal.finished) if journal else 0,
               "provenance": provenance(policy, started, used_store, transport, k, command), **(meta or {})}
    if backend is not None:
        results[backend.name] = report.summary()
    if transcripts is not None and os.path.exists(transcripts.path):
        results["transcripts"] = os.path.basename(transcripts.path)
    results.update(aggregate(records, k))
    results.update(totals(records, policy, budget))
    if results["stopped_early"] is None and stopped is not None:
        results["stopped_early"] = stopped
    results["tasks"] = records
    if out:
        write_json_atomic(out, results)
    if journal:
        journal.close()  # another sweep may take the journal now
    return results


def aggregate(records: list[dict], k: int) -> dict:
    """pass^1 / pass^k over the runs that measured the agent: infrastructure errors are left
    out, and a task with fewer than k such runs (provider failures, an early stop) is listed
    in `unscored_tasks` instead of being counted."""
    scored = {r["instance_id"]: [run["passed"] for run in r["runs"] if not run.get("infra_error")]
              for r in records}
    unscored = sorted(t for t, runs in scored.items() if len(runs) < k)
    scored = {t: runs for t, runs in scored.items() if len(runs) >= k}
    out = {"unscored_tasks": unscored, "n_scored_tasks": len(scored)}
    if not scored:
        return {**out, "pass1": None, "passk": None, "pass1_ci": None, "passk_ci": None, "by_domain": {}}
    summary = summarize(scored, k, {r["instance_id"]: r["domain"] for r in records})
    out.update({key: summary[key] for key in ("pass1", "passk", "pass1_ci", "passk_ci", "by_domain")})
    return out


def totals(records: list[dict], policy, budget: Budget) -> dict:
    runs = [run for r in records for run in r["runs"]]
    price = getattr(getattr(policy, "client", None), "price", None)
    cost = round(sum(run.get("cost_usd", 0.0) for run in runs), 6)
    if price is not None and not price.known and any(run.get("tokens_in") or run.get("tokens_out")
                                                     for run in runs):
        cost = None  # tokens without a price: the cost is unknown, not zero
    return {"n_runs": len(runs),
            "n_infra_errors": sum(1 for run in runs if run.get("infra_error")),
            "tokens_in": sum(run.get("tokens_in", 0) for run in runs),
            "tokens_out": sum(run.get("tokens_out", 0) for run in runs),
            "steps": sum(run.get("steps", 0) for run in runs),
            "cost_usd": cost,
            "judge_cost_usd": round(sum((run.get("judge") or {}).get("cost_usd", 0.0) for run in runs), 6),
            "price_per_mtok": None if price is None else
            {"in": price.usd_in, "out": price.usd_out, "known": price.known},
            "max_cost_usd": budget.max_cost, "stopped_early": budget.stopped}


def _now_iso() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def provenance(policy, started: str, store: EpisodeStore | None = None, transport: str | None = None,
               k: int | None = None, command: list[str] | None = None) -> dict:
    """Where a results file came from; a value that cannot be known is None, never a guess.

    Enough to run it again: the project's version and commit, the command line, the model and
    how it was sampled (endpoint, temperature, seed, max tokens, extra body), the step limit,
    and the world the episodes were built from (clock, the book's seed, the id seed)."""
    import platform
    import subprocess
    from importlib import metadata

    def git(*args):
        try:
            done = subprocess.run(["git", *args], cwd=os.path.dirname(os.path.abspath(__file__)),
                                  capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    def version(package):
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    client = getattr(policy, "client", None)
    sampling = client.sampling() if callable(getattr(client, "sampling", None)) else {}
    status = git("status", "--porcelain", "--untracked-files=no")
    book_meta = (store.book.get("meta") or {}) if store is not None else {}
    return {"version": version("cfagentbench"), "commit": git("rev-parse", "HEAD"),
            "dirty": None if status is None else bool(status),
            "argv": list(sys.argv), "command": command, "policy": getattr(policy, "name", None),
            "policy_class": f"{type(policy).__module__}:{type(policy).__qualname__}",
            "transport": transport, "k": k,
            "model": getattr(policy, "model", None),
            "base_url": sampling.get("base_url", getattr(client, "base_url", None)),
            "temperature": sampling.get("temperature", getattr(client, "temperature", None)),
            "seed": sampling.get("seed"), "max_tokens": sampling.get("max_tokens"),
            "extra_body": sampling.get("extra_body"),
            "max_steps": getattr(policy, "max_steps", None),
            "clock": store.clock.iso() if store is not None else None,
            "book_seed": book_meta.get("seed"), "run_seed": getattr(store, "seed", None),
            "python": platform.python_version(), "openai": version("openai") if client else None,
            "started": started, "finished": _now_iso()}


def transcripts_path(results_path: str) -> str:
    return results_path + ".transcripts.jsonl"


class Transcripts:
    """The sidecar of full conversations: one JSON line per model run, written as it finishes
    (the whole message list, tool calls and results, raw responses; nothing cut)."""

    def __init__(self, path: str, policy, fresh: bool):
        self.path = path
        self.policy = policy
        self._lock = threading.Lock()
        if fresh and os.path.exists(path):
            os.remove(path)  # a fresh sweep's transcripts never mix with an older sweep's

    def write(self, instance_id: str, attempt: int, events: list, run: dict) -> None:
        client = getattr(self.policy, "client", None)
        sampling = client.sampling() if callable(getattr(client, "sampling", None)) else None
        line = {"instance_id": instance_id, "attempt": attempt, "policy": self.policy.name,
                "model": getattr(self.policy, "model", None), "sampling": sampling,
                "passed": run.get("passed"), "score": run.get("score"),
                "infra_error": run.get("infra_error"), "stop_reason": run.get("stop_reason"),
                "events": events}
        data = json.dumps(line, ensure_ascii=False, sort_keys=True, default=str).encode() + b"\n"
        with self._lock, open(self.path, "ab") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())


def check_resumable(path: str) -> None:
    """Refuse to resume from a journal that is not there or cannot be read: resuming would
    otherwise start the sweep over and overwrite whatever the file held."""
    from .journal import JournalMismatch

    if not os.path.exists(path):
        raise JournalMismatch(f"nothing to resume: there is no journal {path} (a sweep writes it beside "
                              "its results file). Run without --resume to start the sweep.")
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError as err:
        raise JournalMismatch(f"cannot resume: the journal {path} cannot be read "
                              f"({err.strerror or err}).") from None
    if head and not head.lstrip().startswith(b"{"):
        raise JournalMismatch(f"cannot resume: {path} is not a run journal (its first line is not a "
                              "JSON header). Move it away to start the sweep afresh.")


def write_json_atomic(path: str, data: dict) -> None:
    """Write to a temporary file beside the target, then rename: a reader never sees half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())  # durable before the rename makes it the results file
    os.replace(tmp, path)
