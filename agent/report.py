"""The results table a researcher reads first."""
from __future__ import annotations

import click


def _ci(ci) -> str:
    return f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def print_table(results: dict) -> None:
    k = results["k"]
    click.echo(f"\npolicy={results['policy']} transport={results['transport']} k={k} "
               f"tasks={results['n_tasks']}")
    click.echo(f"{'instance':36} {'domain':22} {'pass^1':>7} {'pass^' + str(k):>7}")
    for task in results["tasks"]:
        runs = [r["passed"] for r in task["runs"]]
        p1 = sum(runs) / len(runs)
        pk = 1.0 if all(runs) else 0.0
        click.echo(f"{task['instance_id']:36} {task['domain']:22} {p1:7.2f} {pk:7.2f}")
    click.echo("-" * 76)
    for domain, row in sorted(results["by_domain"].items()):
        click.echo(f"{'  ' + domain:59} {row['pass1']:7.2f} {row['passk']:7.2f}")
    click.echo(f"{'overall':59} {results['pass1']:7.2f} {results['passk']:7.2f}")
    click.echo(f"95% Wilson CI: pass^1 {_ci(results['pass1_ci'])}  pass^{k} {_ci(results['passk_ci'])}")
