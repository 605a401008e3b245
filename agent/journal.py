"""The run journal: every finished run appended to `<results>.runs.jsonl` as it finishes.

A sweep can be killed at any moment (SIGKILL, a lost machine) and lose nothing it finished:
each run is one JSON line written with a single `write`, flushed and fsynced, so the file is
always a header line plus whole runs plus, at worst, one torn last line that loading ignores.
`--resume` reads the journal back, refuses a journal of a different sweep, and hands the
runner the finished (task, attempt) slots so it neither repeats them nor counts their cost
twice.
"""
from __future__ import annotations

import json
import os
import threading

VERSION = 1


class JournalMismatch(ValueError):
    """The journal on disk belongs to another sweep (policy, transport, k, model or tasks)."""


def journal_path(results_path: str) -> str:
    return results_path + ".runs.jsonl"


def sweep_header(policy, transport: str, k: int, tasks) -> dict:
    """What identifies a sweep: resuming a different one would mix incomparable runs."""
    return {"journal": VERSION, "policy": policy.name, "model": getattr(policy, "model", None),
            "transport": transport, "k": k, "tasks": [t.instance_id for t in tasks]}


def read(path: str) -> tuple[dict | None, dict[tuple[str, int], dict]]:
    """(header, {(instance_id, attempt): run}) from a journal; a torn last line is skipped."""
    if not os.path.exists(path):
        return None, {}
    header, runs = None, {}
    with open(path, "rb") as fh:
        for raw in fh:
            try:
                entry = json.loads(raw)
            except ValueError:  # the line a kill cut short; every line before it is whole
                continue
            if header is None:
                header = entry
            elif isinstance(entry, dict) and "run" in entry:
                runs.setdefault((entry["instance_id"], int(entry["attempt"])), entry["run"])
    return header, runs


class Journal:
    """Append-only, thread-safe, durable line per finished run."""

    def __init__(self, path: str, header: dict, resume: bool = False):
        self.path = path
        self._lock = threading.Lock()
        self.finished: dict[tuple[str, int], dict] = {}
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
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


def _line(obj: dict) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode() + b"\n"
