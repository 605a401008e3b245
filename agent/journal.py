"""The run journal: every finished run appended to `<results>.runs.jsonl` as it finishes.

A sweep can be killed at any moment (SIGKILL, a lost machine) and lose nothing it finished:
each run is one JSON line written with a single `write`, flushed and fsynced, so the file is
always a header line plus whole runs plus, at worst, one torn last line that loading ignores.
`--resume` reads the journal back, refuses a journal of a different sweep, and hands the
runner the finished (task, attempt) slots so it neither repeats them nor counts their cost
twice.

One sweep at a time: the journal is locked (an exclusive `flock`) for as long as a sweep
writes it, so a second `--resume` of the same file, or a fresh sweep onto it, is refused
instead of running (and paying for) the same runs twice. A line that is JSON but not a run
(wrong shape, an attempt out of range) is skipped, and its slot simply runs again.
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


def _is_run(entry) -> bool:
    """A line the runner itself would have written: the fields the results are built from."""
    if not isinstance(entry, dict) or not isinstance(entry.get("instance_id"), str):
        return False
    attempt, run = entry.get("attempt"), entry.get("run")
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 0 or not isinstance(run, dict):
        return False
    judge = run.get("judge")
    if judge is not None and not isinstance(judge, dict):
        return False
    if "verdict" in run and not isinstance(run["verdict"], list):
        return False
    numbers = [run[k] for k in ("score", "cost_usd", "tokens_in", "tokens_out", "steps", "seconds")
               if k in run]
    numbers += [judge["cost_usd"]] if judge and "cost_usd" in judge else []
    return isinstance(run.get("passed"), bool) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in numbers)


def read(path: str) -> tuple[dict | None, dict[tuple[str, int], dict]]:
    """(header, {(instance_id, attempt): run}) from a journal. A torn last line, and any line
    that is not a run of the runner's shape, is skipped; a journal whose first line is not a
    whole header but which holds runs after it is refused (it cannot be told whose they are)."""
    if not os.path.exists(path):
        return None, {}
    header, runs, first = None, {}, True
    with open(path, "rb") as fh:
        for raw in fh:
            try:
                entry = json.loads(raw)
            except (ValueError, RecursionError):  # the line a kill cut short
                entry = None
            if first:
                first = False
                if _is_header(entry):
                    header = entry
                    continue
            if _is_run(entry):
                if header is None:
                    raise JournalMismatch(f"{path} has runs but no readable header line; it cannot be "
                                          "matched to this sweep. Move it away to start afresh.")
                runs.setdefault((entry["instance_id"], entry["attempt"]), entry["run"])
    return header, runs


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
                mismatched = [key for key in header if found.get(key) != header[key]]
                if mismatched:
                    raise JournalMismatch(f"{path} is the journal of another sweep "
                                          f"(differs in {', '.join(mismatched)}); not resuming it")
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
