"""The run journal: every finished run appended to `<results>.runs.jsonl` as it finishes.

A sweep can be killed at any moment (SIGKILL, a lost machine) and lose nothing it finished:
each run is one JSON line written with a single `write`, flushed and fsynced, so the file is
always a header line plus whole runs plus, at worst, one torn last line that loading ignores.
`--resume` reads the journal back, refuses a journal of a different sweep, and hands the
runner the finished (task, attempt) slots so it neither repeats them nor counts their cost
twice.

One sweep at a time: the journal is locked (an exclusive `flock`) for as long as a sweep
writes it, so a second `--resume` of the same file, or a fresh sweep onto it, is refused
instead of running (and paying for) the same runs twice.

A journal is only ever continued when every line is accounted for: a line that is JSON but
not a run of the runner's shape (a list, a run without `passed`, an attempt of -1 or past k,
a task not in the sweep) is refused with its line number, and so is a cut-short line that is
not the last one. A header line cut short by a kill is reported as torn, never as another
sweep's.
"""
from __future__ import annotations

import fcntl
import json
import math
import os
import threading
import weakref

VERSION = 1


class JournalMismatch(ValueError):
    """The journal on disk cannot be continued: it belongs to another sweep (policy,
    transport, k, model or tasks), its header is damaged, or another sweep holds it."""


class JournalBusy(JournalMismatch):
    """Another sweep is writing this journal right now."""


def journal_path(results_path: str) -> str:
    return results_path + ".runs.jsonl"


def sweep_header(policy, transport: str, k: int, tasks) -> dict:
    """What identifies a sweep: resuming a different one would mix incomparable runs."""
    return {"journal": VERSION, "policy": policy.name, "model": getattr(policy, "model", None),
            "transport": transport, "k": k, "tasks": [t.instance_id for t in tasks]}


def _is_header(entry) -> bool:
    return isinstance(entry, dict) and entry.get("journal") == VERSION and "run" not in entry


def _run_problem(entry) -> str | None:
    """Why a journal line is not a run the runner itself would have written (None if it is)."""
    if not isinstance(entry, dict):
        return f"it is a JSON {type(entry).__name__}, not an object"
    if not isinstance(entry.get("instance_id"), str):
        return "it has no instance_id"
    attempt, run = entry.get("attempt"), entry.get("run")
    if isinstance(attempt, bool) or not isinstance(attempt, int):
        return "its attempt is not a whole number"
    if attempt < 0:
        return f"its attempt is {attempt} (attempts count from 0)"
    if not isinstance(run, dict):
        return "it has no run object"
    if not isinstance(run.get("passed"), bool):
        return "its run has no passed true/false"
    judge = run.get("judge")
    if judge is not None and not isinstance(judge, dict):
        return "its judge is not an object"
    if "verdict" in run and not isinstance(run["verdict"], list):
        return "its verdict is not a list"
    for name in ("score", "cost_usd", "tokens_in", "tokens_out", "steps", "seconds"):
        value = run.get(name, 0)
        if name == "score" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"its {name} is not a number"
    if judge and "cost_usd" in judge and (isinstance(judge["cost_usd"], bool) or not isinstance(
            judge["cost_usd"], (int, float)) or not math.isfinite(judge["cost_usd"])):
        return "its judge cost_usd is not a number"
    return None


def read(path: str) -> tuple[dict | None, dict[tuple[str, int], dict]]:
    """(header, {(instance_id, attempt): run}) from a journal, or JournalMismatch saying which
    line cannot be accounted for. Only the last line may be cut short (a kill mid-write; it is
    skipped); a header line that is cut short is torn: with nothing after it the journal holds
    no run and reads as empty, with runs after it the journal is refused as torn."""
    if not os.path.exists(path):
        return None, {}
    with open(path, "rb") as fh:
        lines = fh.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline that ends the last whole line
    header, runs = None, {}
    for number, raw in enumerate(lines, 1):
        last = number == len(lines)
        try:
            entry = json.loads(raw)
        except (ValueError, RecursionError):
            entry = _TORN
        if number == 1:
            if _is_header(entry):
                header = entry
                continue
            if last and entry is _TORN:
                return None, {}  # only a header was being written when the sweep died
            what = "is torn (cut short)" if entry is _TORN else "is not a journal header"
            raise JournalMismatch(f"{path}: its first line {what}, so the runs after it cannot be "
                                  "matched to this sweep. Move the file away to start afresh.")
        if entry is _TORN:
            if last:
                continue  # the line a kill cut short
            raise JournalMismatch(f"{path}: line {number} is not JSON, and only the last line can be "
                                  "cut short by a kill. Remove that line (its run will run again) "
                                  "or move the file away.")
        problem = _run_problem(entry)
        if problem:
            raise JournalMismatch(f"{path}: line {number} is not a run this runner writes: {problem}. "
                                  "Remove that line (its run will run again) or move the file away.")
        runs.setdefault((entry["instance_id"], entry["attempt"]), entry["run"])
    return header, runs


_TORN = object()


def _outside(header: dict, runs: dict) -> str | None:
    """A finished run whose slot this sweep does not have (another task, an attempt past k)."""
    tasks, k = header.get("tasks"), header.get("k")
    for instance_id, attempt in runs:
        if isinstance(tasks, list) and instance_id not in tasks:
            return f"a run of {instance_id}, which is not one of this sweep's tasks"
        if isinstance(k, int) and attempt >= k:
            return f"attempt {attempt} of {instance_id}, but this sweep runs attempts 0 to {k - 1}"
    return None


class Journal:
    """Append-only, thread-safe, durable line per finished run."""

    def __init__(self, path: str, header: dict, resume: bool = False):
        self.path = path
        self._lock = threading.Lock()
        self.finished: dict[tuple[str, int], dict] = {}
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        self._hold = _lock_file(path)  # held until close() (or the process ends)
        self._release = weakref.finalize(self, os.close, self._hold)
        try:
            self._open(header, resume)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Let another sweep have the journal."""
        self._release()

    def _open(self, header: dict, resume: bool) -> None:
        path = self.path
        if resume:
            found, self.finished = read(path)
            if found is not None:
                missing = [key for key in header if key not in found]
                if missing:
                    raise JournalMismatch(f"{path}: its header line lacks {', '.join(missing)}, so it "
                                          "cannot be matched to this sweep; not resuming it")
                mismatched = [key for key in header if found.get(key) != header[key]]
                if mismatched:
                    raise JournalMismatch(f"{path} is the journal of another sweep "
                                          f"(differs in {', '.join(mismatched)}); not resuming it")
                outside = _outside(found, self.finished)
                if outside:
                    raise JournalMismatch(f"{path} holds {outside}; not resuming it")
                self._truncate_torn_tail()
                return
        with open(path, "wb") as fh:  # a fresh sweep starts a fresh journal
            fh.write(_line(header))
            fh.flush()
            os.fsync(fh.fileno())

    def _truncate_torn_tail(self) -> None:
        """Cut a partial last line so the next append starts on a line of its own."""
        with open(self.path, "rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                fh.truncate(data.rfind(b"\n") + 1)

    def append(self, instance_id: str, attempt: int, run: dict) -> None:
        line = _line({"instance_id": instance_id, "attempt": attempt, "run": run})
        with self._lock, open(self.path, "ab") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())


def _lock_file(path: str) -> int:
    """An exclusive lock on the journal itself (held on its own descriptor), or JournalBusy."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalBusy(f"{path} is being written by another sweep that is still running; "
                          "not starting a second one on it") from None
    return fd


def _line(obj: dict) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode() + b"\n"
