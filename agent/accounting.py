"""Per-run accounting (tokens, steps, cost) and the sweep's cost ceiling.

The runner hands each model-driven run its own `Meter`, so concurrent runs never share
counters; the `Budget` is the one object the workers share, behind a lock.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field


class InfraError(RuntimeError):
    """The model provider failed (after retries): the run says nothing about the agent."""


@dataclass(frozen=True)
class Price:
    """USD per million tokens; `known` is False when no table entry or flag priced the model."""

    usd_in: float = 0.0
    usd_out: float = 0.0
    known: bool = False

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.usd_in + tokens_out * self.usd_out) / 1_000_000


@dataclass
class Meter:
    """What one run consumed, and how its loop ended."""

    price: Price = field(default_factory=Price)
    tokens_in: int = 0
    tokens_out: int = 0
    steps: int = 0
    model_calls: int = 0
    retries: int = 0
    stop_reason: str | None = None
    actions: list = field(default_factory=list)
    # The full conversation (a list a model client's meter carries; None: nothing to record).
    # Written to the transcripts sidecar, never to the results file.
    transcript: list | None = None

    def add_usage(self, tokens_in: int, tokens_out: int) -> None:
        self.model_calls += 1
        self.tokens_in += int(tokens_in or 0)
        self.tokens_out += int(tokens_out or 0)

    @property
    def cost_usd(self) -> float:
        return self.price.cost(self.tokens_in, self.tokens_out)

    def record(self, action: str, outcome: str) -> None:
        # A short trail for the results file: enough to see what the agent did, not a transcript.
        self.actions.append({"step": self.steps, "action": action[:300], "outcome": outcome[:200]})

    def to_run(self) -> dict:
        """The run's usage. Tokens an unpriced model spent have no cost: `cost_usd` is left out
        (unknown), never reported as 0."""
        out = {"tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "steps": self.steps}
        if self.price.known or not (self.tokens_in or self.tokens_out):
            out["cost_usd"] = round(self.cost_usd, 6)
        if self.model_calls:
            out.update({"model_calls": self.model_calls, "retries": self.retries,
                        "stop_reason": self.stop_reason, "actions": self.actions})
        return out


class Budget:
    """The sweep's running total against `--max-cost`; once crossed, no new run starts."""

    def __init__(self, max_cost: float | None = None):
        self.max_cost = max_cost
        self.spent = 0.0
        self.stopped: dict | None = None
        self._lock = threading.Lock()

    def charge(self, usd: float, instance_id: str) -> None:
        with self._lock:
            self.spent += usd
            if self.max_cost is not None and self.stopped is None and self.spent >= self.max_cost:
                self.stopped = {"reason": "max_cost", "after_instance": instance_id,
                                "spent_usd": round(self.spent, 6), "max_cost_usd": self.max_cost}

    def exhausted(self) -> bool:
        with self._lock:
            return self.stopped is not None
