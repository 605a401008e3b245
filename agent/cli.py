"""`cfab`: run the benchmark, serve the portals, measure the environment."""
from __future__ import annotations

import json
import sys

import click


@click.group()
def main():
    """CFAgentBench: a deterministic construction-finance app stack for evaluating agents."""


@main.command()
@click.option("--policy", default="oracle", show_default=True, help="oracle, noop or eager.")
@click.option("--transport", type=click.Choice(["tools", "browser"]), default="tools", show_default=True)
@click.option("--k", "k", type=click.IntRange(1, 100), default=1, show_default=True, help="Runs per task.")
@click.option("--tasks", "pattern", default=None, help="Glob over instance ids or families, e.g. 'cf_H_*'.")
@click.option("--out", default=None, help="Results JSON path (default results/<policy>-<transport>.json).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def run(policy, transport, k, pattern, out, quiet):
    """Run a policy over the suite and print pass^1 / pass^k."""
    from tasks.registry import select

    from .policies import make_policy
    from .report import print_table
    from .runner import run_suite

    try:
        chosen = select(pattern)
        agent = make_policy(policy)
    except (LookupError, KeyError) as err:
        raise click.UsageError(str(err.args[0] if err.args else err))
    out = out or f"results/{policy}-{transport}.json"
    results = run_suite(chosen, agent, transport, k, out=out, progress=not quiet)
    print_table(results)
    click.echo(f"results written to {out}")


@main.command()
@click.option("--port", type=click.IntRange(0, 65535), default=8300, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
def serve(port, host):
    """Serve every portal on loopback for a person to click through."""
    from portals.core.episode import EpisodeStore
    from portals.core.web import create_app

    from .browser import PortalServer

    store = EpisodeStore()
    app = create_app(store)
    server = PortalServer(app, host, port)
    click.echo(f"CFAgentBench portals: {server.url}/  (admin token: {app.extensions['cfab_admin_token']})")
    try:
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass


@main.command(name="tasks")
@click.option("--json", "as_json", is_flag=True, help="Print the public task records as JSON lines.")
def list_tasks(as_json):
    """List the executable suite."""
    from tasks.registry import all_tasks

    for task in all_tasks():
        if as_json:
            click.echo(json.dumps(task.public(), sort_keys=True))
        else:
            click.echo(f"{task.instance_id:34} {task.domain:20} D{task.difficulty} "
                       f"{'G' if task.money_movement_guard else ' '} {','.join(task.apps)}")


@main.command()
@click.option("--out", default="results/bench.json", show_default=True)
@click.option("--episodes", type=click.IntRange(5, 10000), default=200, show_default=True)
@click.option("--browser-runs", type=click.IntRange(0, 100), default=7, show_default=True)
def bench(out, episodes, browser_runs):
    """Measure reset, grading and oracle throughput; print and write the figures."""
    from .bench import run_bench
    from .runner import write_json_atomic

    figures = run_bench(episodes=episodes, browser_runs=browser_runs)
    write_json_atomic(out, figures)
    click.echo(json.dumps(figures, indent=1, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())
