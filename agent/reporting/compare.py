"""Honest comparisons: a between-model gap counts only when the task-level intervals separate.

Two entries are compared on the tasks both scored (and, for pass^k, only at the same k); the
within-model pass^1 -> pass^k drop is a paired comparison on the same tasks and needs no
interval test.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from .stats import EntryStats, Rates, rates

WITHIN_NOISE = "within noise (intervals overlap)"
SEPARATE = "ahead (intervals separate)"


@dataclass(frozen=True)
class Comparison:
    n: int  # tasks both entries scored
    a: Rates | None
    b: Rates | None
    verdict: str


def overlap(a: tuple, b: tuple) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def compare(a: EntryStats, b: EntryStats, metric: str) -> Comparison:
    """`a` against `b` on `metric` ("pass1" or "passk") over the tasks both scored."""
    common = sorted(set(a.scored) & set(b.scored))
    if metric == "passk" and a.k != b.k:
        return Comparison(len(common), None, None, "not comparable (different k)")
    if not common:
        return Comparison(0, None, None, "not comparable (no task scored by both)")
    ra = rates({t: a.scored[t] for t in common}, a.k)
    rb = rates({t: b.scored[t] for t in common}, b.k)
    if overlap(getattr(ra, f"{metric}_ci"), getattr(rb, f"{metric}_ci")):
        return Comparison(len(common), ra, rb, WITHIN_NOISE)
    ahead = a if getattr(ra, metric) > getattr(rb, metric) else b
    return Comparison(len(common), ra, rb, f"{ahead.entry.label} {SEPARATE}")


def pairs(stats: list[EntryStats]) -> list[tuple[EntryStats, EntryStats]]:
    """Every pair worth comparing: the oracle checks the environment and is left out."""
    return list(combinations([s for s in stats if not s.entry.is_oracle], 2))


def leader(stats: list[EntryStats]) -> EntryStats | None:
    """The best pass^k among the models (among every entry when there are no models)."""
    pool = [s for s in stats if not s.entry.is_baseline and s.overall().passk is not None] or \
        [s for s in stats if s.overall().passk is not None]
    return max(pool, key=lambda s: (s.overall().passk, s.overall().pass1), default=None)


def against_leader(s: EntryStats, top: EntryStats | None) -> str:
    """The overall table's marker: is this entry distinguishable from the leader on pass^k?"""
    if top is None:
        return "—"
    if s is top:
        return "leader"
    result = compare(s, top, "passk")
    if not result.verdict.endswith(SEPARATE):
        return result.verdict
    above = result.a.passk > result.b.passk
    return f"{'above' if above else 'below'} the leader (intervals separate)"
