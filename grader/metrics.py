"""Aggregate metrics over runs: pass^1, pass^k (tau-bench) and Wilson intervals.

``results`` maps a task id to the list of pass/fail outcomes of its runs.
"""
from __future__ import annotations

from math import comb, sqrt


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / n``.

    ``successes`` may be fractional (a rate times a count). With ``n == 0``
    nothing is known, so the interval is the whole ``(0.0, 1.0)``.
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def pass_hat_k(results: dict[str, list[bool]], k: int) -> float:
    """tau-bench's unbiased pass^k: mean over tasks of C(c, k) / C(n, k).

    ``n`` is a task's number of runs and ``c`` its successes; it is the chance
    that k runs drawn without replacement all pass. pass^1 (k=1) is the plain
    success rate. Every task needs at least ``k`` runs.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not results:
        raise ValueError("no results to aggregate")
    total = 0.0
    for task, runs in results.items():
        n, c = len(runs), sum(bool(r) for r in runs)
        if n < k:
            raise ValueError(f"task {task!r} has {n} run(s); pass^{k} needs at least {k}")
        total += comb(c, k) / comb(n, k)
    return total / len(results)


def summarize(results: dict[str, list[bool]], k: int, domains: dict[str, str]) -> dict:
    """Headline numbers for a results file.

    Returns ``pass1``, ``passk``, their 95% Wilson intervals ``pass1_ci`` /
    ``passk_ci``, ``n_tasks``, ``k`` and ``by_domain`` ``{domain: {n, pass1, passk}}``.
    The intervals treat *tasks* as the trials: n = number of tasks and
    successes = rate × n_tasks (runs of one task are not independent samples).
    Tasks missing from ``domains`` are counted under ``"unknown"``.
    """
    n_tasks = len(results)
    pass1 = pass_hat_k(results, 1)
    passk = pass_hat_k(results, k)
    by_domain: dict[str, dict] = {}
    for domain in sorted({domains.get(t, "unknown") for t in results}):
        subset = {t: r for t, r in results.items() if domains.get(t, "unknown") == domain}
        by_domain[domain] = {"n": len(subset), "pass1": pass_hat_k(subset, 1),
                             "passk": pass_hat_k(subset, k)}
    return {"n_tasks": n_tasks, "k": k, "pass1": pass1, "passk": passk,
            "pass1_ci": wilson(pass1 * n_tasks, n_tasks),
            "passk_ci": wilson(passk * n_tasks, n_tasks),
            "by_domain": by_domain}
