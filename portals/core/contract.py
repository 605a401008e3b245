"""The six-capability app contract, as one object per app of an episode.

`AppService` is what the paper calls the contract: seed, tools, snapshot, reset, state_diff
and guarded_calls. Every app honours it through the same machinery (templates, the
dispatcher, canonical snapshots), so the harness and the grader never special-case an app.
"""
from __future__ import annotations

from .clock import Clock
from .episode import Episode, build_template


class AppService:
    """One app inside one episode, seen through the contract."""

    def __init__(self, episode: Episode, app: str):
        self._episode = episode
        self._instance = episode.app(app)
        self.name = app

    def seed(self, book: dict, rng_seed: int, clock: Clock) -> None:
        """Rebuild this app's state from the book: a pure function of the three inputs."""
        template = build_template(self._instance.spec, book, rng_seed, clock)
        self._instance.template = template
        self._instance.reset()

    def tools(self) -> dict:
        """The app's native tools by product name (schema via `.schema()`)."""
        return dict(self._instance.spec.tools)

    def snapshot(self) -> bytes:
        """The full state as canonical JSON bytes (tables and rows in key order)."""
        return self._instance.snapshot()

    def reset(self, snapshot: bytes) -> None:
        """Restore exactly the state a `snapshot()` captured."""
        self._instance.restore(snapshot)

    @staticmethod
    def state_diff(before: bytes, after: bytes) -> dict:
        """The canonical, primary-key keyed diff the grader consumes."""
        from grader.diff import diff_snapshots

        return diff_snapshots(before, after)

    def guarded_calls(self) -> list[dict]:
        """Every guarded invocation of this app, each with executed=False."""
        return [g for g in self._episode.guard_log if g["app"] == self.name]
