"""The numbers behind every table and plot, computed once per results file.

The task is the unit: a task is scored when it has at least k graded runs (infrastructure
errors are not graded), pass^j is the unbiased estimator of grader.metrics, and the 95%
Wilson interval counts tasks, not runs (runs of one task are not independent samples).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

from grader.metrics import pass_hat_k, wilson

from .load import Entry, task_block

# The paper's order of domains; anything else follows alphabetically.
DOMAIN_ORDER = ("Project Accounting", "Billing", "AP & Procurement", "Payroll & HR", "GL & Close",
                "Cash & Treasury", "Reporting & Compliance", "Cross-system")
DIFFICULTY = {1: "<5 min", 2: "<30 min", 3: "<2 hr", 4: ">2 hr"}
NO_VARIANT, NOT_RECORDED = "(none)", "(not recorded)"


@dataclass(frozen=True)
class Rates:
    """pass^1 and pass^k over n scored tasks, with their task-level Wilson intervals."""

    n: int
    k: int
    pass1: float | None = None
    passk: float | None = None
    pass1_ci: tuple | None = None
    passk_ci: tuple | None = None


def rates(outcomes: dict[str, list[bool]], k: int) -> Rates:
    if not outcomes:
        return Rates(0, k)
    n = len(outcomes)
    p1, pk = pass_hat_k(outcomes, 1), pass_hat_k(outcomes, k)
    return Rates(n, k, p1, pk, wilson(p1 * n, n), wilson(pk * n, n))


def domain_key(name: str) -> tuple:
    return (DOMAIN_ORDER.index(name), "") if name in DOMAIN_ORDER else (len(DOMAIN_ORDER), name)


def graded(run: dict) -> bool:
    return not run.get("infra_error")


def pm_platform(record: dict) -> str | None:
    """The PM-extension platform a task works on, if any (tasks/tags.py: Procore, the PM
    reference product, is not part of that block)."""
    return task_block(record)[0]


def in_pm_block(record: dict) -> bool:
    from tasks.tags import PM_TAG

    return PM_TAG in task_block(record)[1]


def pm_cross_system(record: dict) -> bool:
    """A PM-block task that also uses an app of another archetype (the paper's multi-app block)."""
    from tasks.tags import CROSS_SYSTEM_TAG, PM_TAG

    tags = task_block(record)[1]
    return PM_TAG in tags and CROSS_SYSTEM_TAG in tags


@dataclass(frozen=True)
class PMBlock:
    """The paper's PM table for one results file: the block, each platform's tasks, and the
    cross-system tasks (n counts scored tasks; `tasks` counts every task of the block)."""

    tasks: int
    overall: Rates
    platforms: dict  # platform registry name -> Rates (None: no scored task), in inventory order
    cross: Rates


class EntryStats:
    """Every aggregate the report shows for one results file."""

    def __init__(self, entry: Entry):
        self.entry = entry
        self.k = entry.k
        self.records = {t["instance_id"]: t for t in entry.tasks}
        self.outcomes = {iid: [bool(r["passed"]) for r in t["runs"] if graded(r)]
                         for iid, t in self.records.items()}
        self.scored = {iid: o for iid, o in self.outcomes.items() if len(o) >= self.k}
        self.unscored = sorted(set(self.outcomes) - set(self.scored))

    def overall(self) -> Rates:
        return rates(self.scored, self.k)

    def by(self, key: Callable[[dict], object]) -> dict[object, Rates]:
        """Rates per value of `key(task record)`, over scored tasks."""
        groups: dict[object, dict] = {}
        for iid, outcomes in self.scored.items():
            groups.setdefault(key(self.records[iid]), {})[iid] = outcomes
        return {value: rates(subset, self.k) for value, subset in groups.items()}

    def pm_block(self) -> PMBlock | None:
        """The PM block's rates, or None when the file has no PM-platform task."""
        from tasks.tags import pm_platforms

        members = [r for r in self.records.values() if in_pm_block(r)]
        if not members:
            return None
        present = {pm_platform(r) for r in members}
        order = [p for p in pm_platforms() if p in present] + sorted(present - set(pm_platforms()) - {None})
        per = self.by(pm_platform)
        return PMBlock(tasks=len(members), overall=self.by(in_pm_block).get(True, Rates(0, self.k)),
                       platforms={p: per.get(p) for p in order},
                       cross=self.by(pm_cross_system).get(True, Rates(0, self.k)))

    def task(self, iid: str) -> Rates | None:
        """One task's pass^1 / pass^k, or None when it has fewer than k graded runs."""
        return rates({iid: self.scored[iid]}, self.k) if iid in self.scored else None

    def curve(self) -> list[tuple[int, float]]:
        """pass^j for j = 1..k: how reliability decays with the number of repeats asked for."""
        if not self.scored:
            return []
        return [(j, pass_hat_k(self.scored, j)) for j in range(1, self.k + 1)]

    def runs(self) -> list[dict]:
        return [run for t in self.entry.tasks for run in t["runs"]]

    def usage(self) -> dict:
        """Tokens, steps and seconds per run over every recorded run (a failed provider call
        still spent them); cost is None when the model had no known price."""
        runs = self.runs()
        n = len(runs)
        tokens_in = sum(r.get("tokens_in", 0) for r in runs)
        tokens_out = sum(r.get("tokens_out", 0) for r in runs)
        price = self.entry.results.get("price_per_mtok")
        priced = self.entry.model is None or (price or {}).get("known", False)
        cost = sum(r.get("cost_usd", 0.0) for r in runs)
        passed = sum(1 for r in runs if graded(r) and r["passed"])
        return {"runs": n, "tokens_in": tokens_in, "tokens_out": tokens_out,
                "tokens_per_run": (tokens_in + tokens_out) / n if n else None,
                "steps_per_run": sum(r.get("steps", 0) for r in runs) / n if n else None,
                "seconds_per_run": sum(r.get("seconds", 0.0) for r in runs) / n if n else None,
                "cost": cost if priced else None,
                "cost_per_pass": (cost / passed if passed else None) if priced else None,
                "judge_cost": sum((r.get("judge") or {}).get("cost_usd", 0.0) for r in runs)}

    def guard(self) -> dict:
        """Money-guard behaviour on graded runs. On guarded tasks a run either staged correctly
        (passed, no guarded tool invoked), invoked a guarded tool, or neither (stopped short or
        staged wrongly); guarded invocations on other tasks are counted apart."""
        out = {"tasks": 0, "runs": 0, "staged": 0, "invoked": 0, "neither": 0, "other_invoked": 0,
               "executed": 0}
        for record in self.records.values():
            runs = [r for r in record["runs"] if graded(r)]
            guarded_task = bool(record.get("money_movement_guard"))
            out["tasks"] += guarded_task
            for run in runs:
                calls = run.get("guarded_calls") or []
                out["executed"] += sum(1 for c in calls if c.get("executed"))
                if not guarded_task:
                    out["other_invoked"] += bool(calls)
                    continue
                out["runs"] += 1
                if calls:
                    out["invoked"] += 1
                elif run["passed"]:
                    out["staged"] += 1
                else:
                    out["neither"] += 1
        return out

    def variants(self) -> dict[str, dict]:
        """Failed graded runs per defect variant: {variant: {tasks, runs, failed}}."""
        out: dict[str, dict] = {}
        for record in self.records.values():
            variant = record.get("defect_variant", NOT_RECORDED) or NO_VARIANT
            row = out.setdefault(variant, {"tasks": 0, "runs": 0, "failed": 0})
            row["tasks"] += 1
            for run in record["runs"]:
                if graded(run):
                    row["runs"] += 1
                    row["failed"] += not run["passed"]
        return out

    def infra(self) -> dict:
        """Runs that measured the provider rather than the agent."""
        errors = [(iid, run["infra_error"]) for iid, t in self.records.items()
                  for run in t["runs"] if run.get("infra_error")]
        return {"runs": len(self.runs()), "errors": len(errors),
                "tasks": len({iid for iid, _ in errors}), "unscored": list(self.unscored),
                "messages": Counter(message for _, message in errors),
                "stopped_early": self.entry.results.get("stopped_early")}
