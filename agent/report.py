"""The results table a researcher reads first."""
from __future__ import annotations

import click


def _ci(ci) -> str:
    return "n/a" if ci is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def _rate(value) -> str:
    return "    n/a" if value is None else f"{value:7.2f}"


def _cost(results: dict) -> str:
    if results.get("cost_usd") is None:
        return "cost unknown (no price for this model: pass --price-in/--price-out)"
    return f"cost ${results['cost_usd']:.4f}"


def _rates(r) -> str:
    if r is None or r.pass1 is None:
        return "  n/a"
    return f"{r.pass1:5.2f} {_ci(r.pass1_ci):14} {r.passk:5.2f} {_ci(r.passk_ci):14}"


def pm_block_lines(results: dict) -> list[str]:
    """The PM block apart, as the paper's PM table: overall pass^1 / pass^k, per-platform pass^1
    and the cross-system block's pass^1 / pass^k, with 95% Wilson intervals over tasks; no
    lines when the results have no PM-platform task."""
    from pathlib import Path

    from tasks.tags import platform_label

    from .reporting.load import Entry
    from .reporting.stats import EntryStats

    block = EntryStats(Entry(Path(""), results)).pm_block()
    if block is None:
        return []
    k = results["k"]
    lines = [f"PM block: {block.tasks} tasks (n = scored tasks; per platform pass^1)",
             f"{'':32} {'pass^1 [95% CI]':20} {'pass^' + str(k) + ' [95% CI]':20}",
             f"{'  overall (n=' + str(block.overall.n) + ')':32} {_rates(block.overall)}"]
    for platform, r in block.platforms.items():
        n = 0 if r is None else r.n
        rate = "  n/a" if r is None or r.pass1 is None else f"{r.pass1:5.2f}"
        lines.append(f"{'  ' + platform_label(platform) + ' (n=' + str(n) + ')':32} {rate}")
    lines.append(f"{'  cross-system (n=' + str(block.cross.n) + ')':32} {_rates(block.cross)}")
    lines = [line.rstrip() for line in lines]
    return lines


def print_pm_block(results: dict) -> None:
    lines = pm_block_lines(results)
    if lines:
        click.echo("-" * 76)
        for line in lines:
            click.echo(line)


def print_table(results: dict) -> None:
    k = results["k"]
    metered = any(run.get("tokens_in") for task in results["tasks"] for run in task["runs"])
    model = f" model={results['model']}" if results.get("model") else ""
    click.echo(f"\npolicy={results['policy']}{model} transport={results['transport']} k={k} "
               f"tasks={results['n_tasks']}")
    extra = f" {'tok/run':>9} {'cost$':>8}" if metered else ""
    click.echo(f"{'instance':36} {'domain':22} {'pass^1':>7} {'pass^' + str(k):>7}{extra}")
    for task in results["tasks"]:
        runs = [r for r in task["runs"] if not r.get("infra_error")]
        p1 = sum(r["passed"] for r in runs) / len(runs) if runs else None
        pk = (1.0 if all(r["passed"] for r in runs) else 0.0) if len(runs) >= k else None
        line = f"{task['instance_id']:36} {task['domain']:22} {_rate(p1)} {_rate(pk)}"
        if metered and task["runs"]:
            tokens = sum(r.get("tokens_in", 0) + r.get("tokens_out", 0) for r in task["runs"])
            unpriced = any("cost_usd" not in r for r in task["runs"])
            cost = sum(r.get("cost_usd", 0.0) for r in task["runs"])
            line += f" {tokens / len(task['runs']):9.0f} {'unknown' if unpriced else f'{cost:.4f}':>8}"
        infra = len(task["runs"]) - len(runs)
        click.echo(line + (f"  ({infra} infra error{'s' * (infra > 1)})" if infra else ""))
    click.echo("-" * 76)
    for domain, row in sorted(results["by_domain"].items()):
        click.echo(f"{'  ' + domain:59} {row['pass1']:7.2f} {row['passk']:7.2f}")
    click.echo(f"{'overall':59} {_rate(results['pass1'])} {_rate(results['passk'])}")
    click.echo(f"95% Wilson CI: pass^1 {_ci(results['pass1_ci'])}  pass^{k} {_ci(results['passk_ci'])}")
    print_pm_block(results)
    if "tokens_in" in results and (metered or results.get("n_infra_errors")):
        n = max(1, results.get("n_runs", 1))
        click.echo(f"tokens in/out {results['tokens_in']}/{results['tokens_out']} "
                   f"({(results['tokens_in'] + results['tokens_out']) / n:.0f}/run), "
                   f"steps {results['steps']}, {_cost(results)}, "
                   f"infra errors {results.get('n_infra_errors', 0)} (not scored)")
    if results.get("unscored_tasks"):
        click.echo(f"not scored (fewer than k graded runs): {', '.join(results['unscored_tasks'])}")
    if results.get("stopped_early"):
        stop = results["stopped_early"]
        click.echo(f"stopped early: {stop['reason']} after {stop['after_instance']} "
                   f"(${stop.get('spent_usd', 0):.4f} of ${stop.get('max_cost_usd', 0):.4f})")
