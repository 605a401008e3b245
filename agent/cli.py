"""`cfab`: run the benchmark, serve the portals, measure the environment."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

TASKS_HELP = ("Which tasks: globs over instance ids or families ('cf_H_*'), tags ('tag:pm', 'tag:pm:ressio', "
              "'tag:cross-system') or apps ('app:ressio'); a comma-separated list is their union.")


def _selector_error(err: LookupError):
    """click's error for a --tasks selector: an unknown tag or app is a bad parameter."""
    from tasks.registry import UnknownSelector

    if isinstance(err, UnknownSelector):
        return click.BadParameter(str(err.args[0]), param_hint="'--tasks'")
    return click.UsageError(str(err.args[0] if err.args else err))


@click.group()
def main():
    """CFAgentBench: a deterministic construction-finance app stack for evaluating agents."""


@main.command()
@click.option("--policy", default="oracle", show_default=True,
              help="oracle, noop, eager, gold, llm-tools, llm-browser, or module:Class (a policy of your own).")
@click.option("--transport", type=click.Choice(["tools", "browser", "http"]), default="tools", show_default=True,
              help="tools: in-process; http: the tool API of --server processes; browser: Chromium "
                   "on the portals (of --server, if given).")
@click.option("--server", "servers", multiple=True, metavar="URL",
              help="A `cfab serve` to run on (repeatable: an app is served by the first that hosts it).")
@click.option("--admin-token", envvar="CFAB_ADMIN_TOKEN", default=None,
              help="The servers' admin token (default $CFAB_ADMIN_TOKEN); never written to results.")
@click.option("--k", "k", type=click.IntRange(1, 100), default=1, show_default=True, help="Runs per task.")
@click.option("--tasks", "pattern", default=None, help=TASKS_HELP)
@click.option("--dataset", default=None, type=click.Path(exists=True, dir_okay=False),
              help="Run exactly the records of this dataset file (cfab dataset build).")
@click.option("--split", type=click.Choice(["dev", "test", "private"]), default=None,
              help="Only this public partition, or the private split (CFAgentBench-Pro) of --remote.")
@click.option("--remote", default=None, metavar="URL",
              help="--split private: the private server (cfab serve --split private) that hosts and grades it.")
@click.option("--private-token", envvar="CFAB_PRIVATE_TOKEN", default=None,
              help="--split private: the participant token the server's maintainer gave you "
                   "(default $CFAB_PRIVATE_TOKEN); never written to results.")
@click.option("--salt-file", default=None, type=click.Path(dir_okay=False),
              help="--split private --policy oracle: the maintainer's salt, which the private oracles need.")
@click.option("--out", default=None, help="Results JSON path (default results/<policy>-<transport>.json).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--model", default=None, help="Model name for llm-tools / llm-browser.")
@click.option("--base-url", default=None,
              help="OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama, a router); default $OPENAI_BASE_URL, else OpenAI.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="Name of the environment variable holding the API key.")
@click.option("--max-steps", type=click.IntRange(1, 500), default=24, show_default=True,
              help="Model turns per run.")
@click.option("--temperature", type=click.FloatRange(0, 2), default=0.0, show_default=True,
              help="Sampling temperature sent with every model request.")
@click.option("--seed", "sampling_seed", type=int, default=None,
              help="Sampling seed sent with every model request (vLLM, Ollama and OpenAI honour it).")
@click.option("--max-tokens", type=click.IntRange(1), default=None, help="Most tokens per model response.")
@click.option("--extra-body", default=None, metavar="JSON",
              help='A JSON object merged into every request body, e.g. \'{"top_k": 1}\' (vLLM) or '
                   '\'{"options": {"num_ctx": 16384}}\' (Ollama).')
@click.option("--screenshots", is_flag=True, help="llm-browser: send a screenshot with each observation.")
@click.option("--price-in", type=float, default=None, help="USD per million input tokens (overrides the table).")
@click.option("--price-out", type=float, default=None, help="USD per million output tokens (overrides the table).")
@click.option("--max-cost", type=float, default=None, help="Stop starting runs once this many USD are spent.")
@click.option("--max-retries", type=click.IntRange(0, 20), default=4, show_default=True,
              help="Retries on 429 / 5xx / connection errors, with exponential backoff.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Episodes run concurrently (threads; with --backend ray, Ray workers).")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: this process's threads; ray: Ray workers, each with its own episode store "
                   "(and server and Chromium for the browser), on this machine or --address's cluster.")
@click.option("--address", default=None, metavar="ADDR",
              help="--backend ray: a running Ray cluster (HEAD:6379, or 'auto' for `ray start` here); "
                   "default: Ray starts on this machine for the sweep.")
@click.option("--judge-model", default=None, help="Model for the L3 narrative judge (tasks with a judge rubric).")
@click.option("--judge-base-url", default=None, help="Judge endpoint (default: --base-url).")
@click.option("--resume", default=None, metavar="FILE",
              help="Continue the interrupted sweep whose results file is FILE (its .runs.jsonl journal).")
def run(policy, transport, k, pattern, dataset, split, out, quiet, model, base_url, api_key_env, max_steps,
        temperature, sampling_seed, max_tokens, extra_body, screenshots, price_in, price_out,
        max_cost, max_retries, workers, judge_model, judge_base_url, resume, servers, admin_token,
        remote, private_token, salt_file, backend, address):
    """Run a policy over the suite and print pass^1 / pass^k."""
    from tasks.registry import select

    from .journal import JournalMismatch
    from .policies import MODEL_POLICIES, make_policy, uses_model
    from .report import print_table
    from .runner import run_suite

    if resume:
        pattern, k, transport = _resumed_sweep(resume, pattern, k, transport)
    private = split == "private"
    if private:
        transport = _private_transport(transport, remote, servers, dataset)
    elif remote or salt_file:
        raise click.UsageError("--remote and --salt-file go with --split private")
    try:
        model_policy = uses_model(policy)
    except LookupError as err:
        raise click.UsageError(str(err.args[0] if err.args else err))
    options = {}
    if model_policy:
        from .llm.client import needs_key

        options = {"model": model, "base_url": base_url, "api_key_env": api_key_env,
                   "max_steps": max_steps, "price_in": price_in, "price_out": price_out,
                   "max_retries": max_retries, "temperature": temperature, "seed": sampling_seed,
                   "max_tokens": max_tokens, "extra_body": _json_object(extra_body, "--extra-body")}
        if policy == "llm-browser":
            options["screenshots"] = screenshots
        import os

        if needs_key(base_url) and not os.environ.get(api_key_env):
            raise click.UsageError(f"no API key in ${api_key_env} (or pass --base-url, or set "
                                   "$OPENAI_BASE_URL, for a local server)")
        expected = "browser" if policy == "llm-browser" else "tools"
        if policy in MODEL_POLICIES and transport != expected and {transport, expected} != {"http", "tools"}:
            raise click.UsageError(f"--policy {policy} runs on --transport {expected}")
    elif model:
        raise click.UsageError("--model applies to the llm-tools and llm-browser policies "
                               "(and to a module:Class policy with uses_model = True)")
    store = meta = None
    try:
        if private:
            store, chosen = _private_sweep(remote, private_token, pattern, policy, model, transport, salt_file)
            meta = {"split": "private", "private_world": store.private_world}
        elif dataset or split:  # a resumed sweep's journal checks its list against this one
            from .dataset import select_tasks

            chosen = select_tasks(dataset, split, pattern if isinstance(pattern, str) else None)
            meta = {"split": split} if split else None
        else:
            chosen = select(pattern) if not isinstance(pattern, list) else _select_ids(pattern)
    except LookupError as err:
        raise _selector_error(err)
    try:
        agent = make_policy(policy, **options)
    except (LookupError, KeyError) as err:
        raise click.UsageError(str(err.args[0] if err.args else err))
    client = getattr(agent, "client", None)
    if max_cost is not None and client is not None and not client.price.known:
        raise click.UsageError(f"no price known for {model!r}: pass --price-in/--price-out "
                               "so --max-cost can be enforced")
    judge = _make_judge(judge_model, judge_base_url or base_url, api_key_env, max_retries)
    tag = policy.replace(":", "_") if not model else f"{policy}-{model}".replace("/", "_").replace(":", "_")
    if resume and out and out != resume:
        raise click.UsageError("--resume FILE continues that file: leave out --out or give the same path")
    out = resume or out or f"results/{tag}-{transport}.json"
    if address and backend != "ray":
        raise click.UsageError("--address is a Ray cluster's: it goes with --backend ray")
    if backend == "ray" and split == "private":
        raise click.UsageError("--split private runs on its server's episodes: --backend ray runs the "
                               "public suite")
    if store is None:
        store = _remote_store(transport, servers, admin_token)
    from contextlib import nullcontext

    try:
        with _ray_backend(workers, address) if backend == "ray" else nullcontext() as cluster:
            results = run_suite(chosen, agent, transport, k, out=out, progress=not quiet, workers=workers,
                                max_cost=max_cost, judge=judge, resume=bool(resume), store=store,
                                command=_command_line(click.get_current_context()), meta=meta,
                                backend=cluster)
    except JournalMismatch as err:
        raise click.UsageError(str(err))
    print_table(results)
    if results.get("ray"):
        ray_run = results["ray"]
        click.echo(f"Ray: {ray_run['workers']} workers on {ray_run['nodes']} node(s) "
                   f"({', '.join(ray_run['hosts'])}); workers lost {ray_run['lost_workers']}, runs retried "
                   f"{ray_run['retried_runs']}, runs lost (infrastructure errors) {ray_run['lost_runs']}")
    click.echo(f"results written to {out}")
    if results.get("transcripts"):
        click.echo(f"transcripts written to {os.path.join(os.path.dirname(out), results['transcripts'])}")


def _private_transport(transport: str, remote: str | None, servers: tuple, dataset) -> str:
    """The private split runs on its server only: the http tool API (the default) or its pages."""
    if not remote:
        raise click.UsageError("--split private runs on the private server: give --remote URL")
    if servers or dataset:
        raise click.UsageError("--split private takes its instances from --remote, not --server or --dataset")
    ctx = click.get_current_context()
    if ctx.get_parameter_source("transport") in (click.core.ParameterSource.DEFAULT, None) and transport == "tools":
        return "http"
    if transport == "tools":
        raise click.UsageError("--split private runs remotely: --transport http (its tool API) or browser")
    return transport


def _private_sweep(remote, token, pattern, policy, model, transport, salt_file):
    """The private server's store and the tasks to run: its instances (those --tasks names, or
    those a resumed journal lists); the oracle policy needs the salt to know its steps."""
    from tasks.registry import filter_tasks

    from .private_client import PrivateStore
    from .remote import RemoteError

    try:
        store = PrivateStore(remote, token or "", label={"policy": policy, "transport": transport,
                                                         **({"model": model} if model else {})})
        chosen = store.tasks(pattern if isinstance(pattern, list) else None)
    except RemoteError as err:
        raise click.UsageError(str(err))
    if isinstance(pattern, str):
        try:
            chosen = filter_tasks(chosen, pattern)
        except LookupError as err:
            raise _selector_error(err)
    if policy in ("oracle", "eager", "gold"):
        from tasks.private import SaltError, world_from_file

        try:
            world = world_from_file(salt_file)
        except SaltError as err:
            raise click.UsageError(f"--policy {policy} on the private split: {err}")
        if world.salt_id != store.private_world:
            raise click.UsageError("--salt-file is not the salt of the server's private split")
        chosen = [world.get(t.instance_id) for t in chosen]
    return store, chosen


def _ray_backend(workers: int, address: str | None):
    from .cluster import RayBackend, RayUnavailable

    try:
        return RayBackend(workers=workers, address=address).start()
    except RayUnavailable as err:
        raise click.UsageError(str(err))
    except ConnectionError as err:
        raise click.UsageError(f"--address {address}: no Ray cluster answered ({err})")


def _remote_store(transport: str, servers: tuple, admin_token: str | None):
    """The servers' RemoteStore for --transport http (or a browser on --server), else None."""
    if transport == "http" and not servers:
        raise click.UsageError("--transport http runs on servers: give --server URL (cfab serve)")
    if transport == "tools" and servers:
        raise click.UsageError("--transport tools runs in-process: use --transport http with --server")
    if not servers:
        return None
    if transport == "browser" and len(servers) > 1:
        raise click.UsageError("the browser transport uses one --server (it must host every app)")
    from .remote import RemoteError, RemoteStore

    try:
        return RemoteStore(list(servers), admin_token or "")
    except RemoteError as err:
        raise click.UsageError(str(err))


def _command_line(ctx) -> list[str]:
    """`cfab run` with every option that was given (on the command line or by environment),
    as a list a shell can be handed back."""
    from click.core import ParameterSource

    line = ["cfab", ctx.info_name or "run"]
    for param in ctx.command.params:
        if ctx.get_parameter_source(param.name) not in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            continue
        value = ctx.params[param.name]
        flag = max(param.opts, key=len)
        if param.name == "admin_token":
            continue  # a secret: never in a results file
        if getattr(param, "is_flag", False):
            line += [flag] if value else []
        elif getattr(param, "multiple", False):
            line += [part for item in value for part in (flag, str(item))]
        else:
            line += [flag, str(value)]
    return line


def _json_object(text: str | None, flag: str) -> dict | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError as err:
        raise click.UsageError(f"{flag} is not valid JSON ({err})")
    if not isinstance(value, dict):
        raise click.UsageError(f"{flag} must be a JSON object, e.g. '{{\"top_k\": 1}}'")
    return value


def _resumed_sweep(results: str, pattern, k: int, transport: str):
    """The task list, k and transport of the sweep `--resume FILE` continues: its journal's own,
    unless given again on the command line (then they must match, which the journal checks)."""
    from .journal import JournalMismatch, journal_path, read
    from .runner import check_resumable

    path = journal_path(results)
    try:
        check_resumable(path)
        header, _ = read(path)
    except JournalMismatch as err:
        raise click.UsageError(str(err))
    if header is None:  # killed before its header was written: nothing finished, nothing to match
        return pattern, k, transport
    ctx = click.get_current_context()
    given = lambda name: ctx.get_parameter_source(name) not in (  # noqa: E731
        click.core.ParameterSource.DEFAULT, click.core.ParameterSource.DEFAULT_MAP)
    tasks = header.get("tasks")
    if pattern is None and isinstance(tasks, list) and all(isinstance(t, str) for t in tasks):
        pattern = tasks
    if not given("k") and isinstance(header.get("k"), int):
        k = header["k"]
    if not given("transport") and header.get("transport") in ("tools", "browser", "http"):
        transport = header["transport"]
    return pattern, k, transport


def _select_ids(ids: list[str]):
    """The tasks a journal lists, in its order; a task no longer in the suite is refused."""
    from tasks.registry import all_tasks

    known = {t.instance_id: t for t in all_tasks()}
    gone = [i for i in ids if i not in known]
    if gone:
        raise LookupError(f"the journal's sweep has tasks no longer in the suite: {', '.join(gone)}")
    return [known[i] for i in ids]


def _make_judge(model, base_url, api_key_env, max_retries):
    """A reply -> verdict function for tasks whose evaluator carries a judge rubric."""
    if not model:
        return None
    from grader.judge import judge_reply

    from .llm.client import ChatClient

    client = ChatClient(model, base_url=base_url, api_key_env=api_key_env, max_retries=max_retries)
    return lambda reply, rubric, instruction=None: judge_reply(client, reply, rubric, instruction)


@main.command(name="judge-calibrate")
@click.option("--model", required=True, help="Judge model.")
@click.option("--base-url", default=None, help="OpenAI-compatible endpoint.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True)
@click.option("--file", "path", default=None, help="Labelled JSONL (default: grader/calibration/judge_calibration.jsonl).")
@click.option("--threshold", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="A judge score at or above this counts as pass.")
@click.option("--out", default=None, help="Also write the full report as JSON here.")
def judge_calibrate(model, base_url, api_key_env, path, threshold, out):
    """Score the labelled replies with the judge; print agreement and Cohen's kappa."""
    import os

    from grader.judge import calibrate, load_items

    from .llm.client import ChatClient
    from .runner import write_json_atomic

    path = path or os.path.join(os.path.dirname(__file__), "..", "grader", "calibration",
                                "judge_calibration.jsonl")
    report = calibrate(ChatClient(model, base_url=base_url, api_key_env=api_key_env),
                       load_items(path), threshold)
    for row in report["items"]:
        mark = "=" if (row["label"] == "pass") == row["judge_pass"] else "x"
        score = "  -  " if row["score"] is None else f"{row['score']:.2f}"
        click.echo(f"{mark} {str(row['id']):16} human={row['label']:4} judge={score}  {row['reason'][:70]}")
    click.echo(f"n={report['n']} accuracy={report['accuracy']:.2f} kappa={report['kappa']:.3f} "
               f"(threshold {threshold}; unscored {len(report['unscored'])})")
    if out:
        write_json_atomic(out, report)


@main.command()
@click.option("--port", type=click.IntRange(0, 65535), default=8300, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--recordings", type=click.Path(file_okay=False), default=None,
              help="Where finished task episodes write trajectories (default ./recordings here).")
@click.option("--idle-hours", type=click.FloatRange(0), default=6.0, show_default=True,
              help="Drop episodes nobody has used for this long (0 keeps them all).")
@click.option("--max-body-bytes", type=click.IntRange(1024), default=1024 * 1024, show_default=True,
              help="Largest request body outside the admin API (413 above it).")
@click.option("--max-json-depth", type=click.IntRange(2, 1000), default=32, show_default=True,
              help="Deepest nesting of a JSON body (400 beyond it).")
@click.option("--max-episodes", type=click.IntRange(1), default=64, show_default=True,
              help="Live episodes opened over HTTP; at the cap the least recently used idle one is freed, else 429.")
@click.option("--new-episodes-per-minute", type=click.IntRange(1), default=120, show_default=True,
              help="Episodes the launcher may open per minute, server-wide (429 above it).")
@click.option("--tool-calls-per-minute", type=click.IntRange(0), default=600, show_default=True,
              help="Tool-API calls and portal form posts one episode may make per minute (429 above it; 0: no limit).")
@click.option("--new-episodes-per-client-per-minute", type=click.IntRange(0), default=20, show_default=True,
              help="Episodes the launcher opens per minute for one client address (429 above it; 0: no limit).")
@click.option("--proxy-hops", type=click.IntRange(0, 5), default=0, show_default=True,
              help="Proxies in front that set X-Forwarded-For: the client address is read from it (0: the peer's).")
@click.option("--access-log", is_flag=True, help="Log every request (by default only server errors, 5xx).")
@click.option("--wsgi", type=click.Choice(["gunicorn", "werkzeug"]), default="gunicorn", show_default=True,
              help="The HTTP server: gunicorn (one worker process, a pool of threads, keep-alive) or "
                   "werkzeug's threaded server; both keep every episode in one process (docs/serving.md).")
@click.option("--app", "hosted", multiple=True, metavar="NAME",
              help="Host only this app (repeatable), as the paper's per-app shim; default: every app.")
@click.option("--admin-token", envvar="CFAB_ADMIN_TOKEN", default=None,
              help="The admin API's bearer token (default $CFAB_ADMIN_TOKEN, else a fresh random one).")
@click.option("--secret-key", envvar="CFAB_SECRET_KEY", default=None,
              help="Signs sessions, enter links and agent tokens (default $CFAB_SECRET_KEY, else random): "
                   "keep it to keep clients valid across a restart.")
@click.option("--split", "serve_split", type=click.Choice(["public", "private"]), default="public", show_default=True,
              help="private: host the private split (CFAgentBench-Pro) of --salt-file, graded here.")
@click.option("--salt-file", default=None, type=click.Path(dir_okay=False),
              help="--split private: the secret salt the private split is built from.")
@click.option("--results", "private_results", type=click.Path(file_okay=False), default=None,
              help="--split private: where each graded run's full record is written (default results/private).")
@click.option("--private-token", envvar="CFAB_PRIVATE_TOKEN", default=None,
              help="--split private: the participants' bearer token (default $CFAB_PRIVATE_TOKEN, else random).")
def serve(port, host, recordings, idle_hours, max_body_bytes, max_json_depth, max_episodes,
          new_episodes_per_minute, tool_calls_per_minute, new_episodes_per_client_per_minute, proxy_hops,
          access_log, wsgi, hosted, admin_token, secret_key, serve_split, salt_file,
          private_results, private_token):
    """Serve the task launcher and every portal (or --app NAME) on loopback, unless --host says otherwise."""
    from portals.core.hosting import HostedStore
    from portals.core.limits import Limits
    from portals.core.recording import clean_leftovers
    from portals.core.registry import load_apps
    from portals.core.web import create_app

    from .browser import PortalServer

    for flag, value in (("--admin-token / $CFAB_ADMIN_TOKEN", admin_token),
                        ("--secret-key / $CFAB_SECRET_KEY", secret_key),
                        ("--private-token / $CFAB_PRIVATE_TOKEN", private_token)):
        if value is not None and (len(value) < 16 or value != value.strip()):
            raise click.UsageError(f"{flag} must be at least 16 characters without surrounding spaces "
                                   "(e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    from .serving import limit_malloc_arenas

    limit_malloc_arenas()  # before any thread allocates (agent/serving.py)
    world = None
    if serve_split == "private":
        from tasks.private import SaltError, world_from_file

        if hosted:
            raise click.UsageError("--split private hosts every app (its runs are graded on one server)")
        try:
            world = world_from_file(salt_file)
        except SaltError as err:
            raise click.UsageError(str(err))
    elif salt_file or private_results or private_token:
        raise click.UsageError("--salt-file, --results and --private-token go with --split private")
    try:
        if world is not None:
            from .private import private_store

            store = private_store(world, idle_ttl=idle_hours * 3600 or None)
        else:
            store = HostedStore(list(hosted) or list(load_apps()), idle_ttl=idle_hours * 3600 or None)
    except KeyError as err:
        raise click.UsageError(f"--app: {err.args[0]}")
    app = create_app(store, secret_key=secret_key, admin_token=admin_token,
                     limits=Limits(max_body_bytes=max_body_bytes, max_json_depth=max_json_depth,
                                   max_episodes=max_episodes,
                                   new_episodes_per_minute=new_episodes_per_minute,
                                   tool_calls_per_minute=tool_calls_per_minute,
                                   new_episodes_per_client_per_minute=new_episodes_per_client_per_minute))
    if proxy_hops:  # the client address (per-client rates) is the one the proxies saw
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxy_hops)
    app.config["CFAB_RECORDINGS"] = str(Path(recordings or "recordings").resolve())
    clean_leftovers(app.config["CFAB_RECORDINGS"])  # left by a kill during Finish
    if world is not None:
        from .private import PrivateHost, register

        private_host = PrivateHost(world, private_results or "results/private", private_token)
        register(app, private_host)
    try:
        server = PortalServer(app, host, port, quiet=False, access_log=access_log, wsgi=wsgi)
    except OSError as err:  # the port is taken, or the host is not this machine's
        raise click.UsageError(f"cannot listen on {host}:{port}: {err.strerror or err}")
    shown = "given" if admin_token else app.extensions["cfab_admin_token"]  # a given secret stays unprinted
    click.echo(f"CFAgentBench portals: {server.url}/  (admin token: {shown})")
    if hosted:
        click.echo(f"Hosting {', '.join(store.hosted)} only")
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"Listening on {host}: put a TLS-terminating proxy in front (README, Hosting)", err=True)
    click.echo(f"Finished tasks are recorded in {app.config['CFAB_RECORDINGS']}")
    if world is not None:
        shown_token = "given" if private_token else private_host.token
        click.echo(f"Private split {world.salt_id}: {len(world.tasks)} instances at {server.url}/private/instances "
                   f"(participant token: {shown_token}); graded runs are written to {private_host.results / 'runs'}")
    from .serving import calm_garbage_collector

    calm_garbage_collector()  # what the server holds from now on is out of the collector's walks
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--transport", type=click.Choice(["tools", "browser"]), default="tools", show_default=True)
@click.option("--trace", type=click.Path(dir_okay=False), default=None,
              help="Browser: write a Playwright trace of the replay here (view: playwright show-trace FILE).")
@click.option("--headed", is_flag=True, help="Browser: show the replay in a window (needs a display).")
@click.option("--observations", type=click.Path(dir_okay=False), default=None,
              help="Browser: write the trajectory here with each UI step's observation (URL, "
                   "accessibility tree) and the step as a BrowserGym action.")
@click.option("--screenshots", is_flag=True, help="With --observations: a screenshot per UI step too.")
def replay(file, transport, trace, headed, observations, screenshots):
    """Replay a recorded trajectory on a fresh episode and print its verdict."""
    from portals.core.recording import TrajectoryError, load

    from .replay import TrajectoryPolicy
    from .replay import replay as replay_run

    browser_only = [name for name, on in (("--trace", trace), ("--headed", headed),
                                          ("--observations", observations), ("--screenshots", screenshots)) if on]
    if browser_only and transport != "browser":
        raise click.UsageError(f"{', '.join(browser_only)} need --transport browser")
    if screenshots and not observations:
        raise click.UsageError("--screenshots goes with --observations FILE")
    if headed and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise click.UsageError("--headed needs a display ($DISPLAY or $WAYLAND_DISPLAY); none is set")
    try:
        trajectory = load(file)
    except TrajectoryError as err:
        raise click.UsageError(str(err))
    policy = TrajectoryPolicy(trajectory, trace=trace, observe=bool(observations), screenshots=screenshots)
    if headed:
        from .browser import chromium

        with chromium(headless=False) as browser:
            run = replay_run(trajectory, transport, browser=browser, policy=policy)
    else:
        run = replay_run(trajectory, transport, policy=policy)
    _print_run(trajectory["instance_id"], transport, run)
    if trace:
        click.echo(f"Trace: {trace} (playwright show-trace {trace})")
    if observations and policy.observed is not None:
        with open(observations, "w") as fh:
            json.dump(policy.observed, fh, indent=1, sort_keys=True)
            fh.write("\n")
        click.echo(f"Observations: {observations} ({len(policy.observed['ui_steps'])} UI steps)")
    sys.exit(0 if run["passed"] else 1)


def _print_run(instance_id: str, transport: str, run: dict) -> None:
    click.echo(f"{instance_id} via {transport}: {'PASSED' if run['passed'] else 'NOT PASSED'} "
               f"score {run['score']:.2f}")
    for line in run["verdict"]:
        click.echo(f"  {line}")


@main.group()
def gold():
    """Gold trajectories: recordings proven on both transports, kept in tasks/gold/."""


@gold.command(name="add")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--gold-dir", type=click.Path(file_okay=False), default=None, help="Default tasks/gold/.")
def gold_add(file, gold_dir):
    """Promote a recording to its task's gold if it passes on replay through tools and browser."""
    from portals.core.recording import TrajectoryError

    from .gold import promote

    try:
        result = promote(file, gold_dir)
    except TrajectoryError as err:
        raise click.UsageError(str(err))
    for transport, run in result["runs"].items():
        _print_run(result["instance_id"], transport, run)
    if not result["promoted"]:
        click.echo("not promoted: a gold trajectory must pass on both transports")
        sys.exit(1)
    click.echo(f"gold written to {result['path']}")


@main.command(name="apps")
@click.option("--json", "as_json", is_flag=True, help="Print every app of the inventory as one JSON list.")
@click.option("--markdown", "as_markdown", is_flag=True, help="Print the inventory as the README's Markdown table.")
def list_apps(as_json, as_markdown):
    """The paper's 35-app inventory: each app's archetype, tier, tools (R/W/G) and the tasks using it."""
    from .apps import as_json as records_json, inventory, markdown, table, unlisted_apps

    extra = unlisted_apps()
    if extra:  # a manifest the inventory does not name would be served yet never listed
        raise click.ClickException(f"served apps missing from portals/inventory.toml: {', '.join(extra)}")
    records = inventory()
    if as_json:
        click.echo(json.dumps(records_json(records), indent=1, sort_keys=True))
    else:
        click.echo(markdown(records) if as_markdown else table(records))


@main.group(name="tasks", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the public task records as JSON lines.")
@click.option("--spec", "as_spec", is_flag=True,
              help="Print the full instance records, ground truth included, as JSON lines (the dataset).")
@click.pass_context
def list_tasks(ctx, as_json, as_spec):
    """List the executable suite (`cfab tasks validate` runs its admission gate)."""
    from tasks.registry import all_tasks
    from tasks.tags import platform_of, tags_of

    if ctx.invoked_subcommand is not None:
        return
    for task in all_tasks():
        block = {"platform": platform_of(task.apps), "tags": tags_of(task.apps)}
        if as_spec:
            click.echo(json.dumps({**task.spec(), **block}, sort_keys=True))
        elif as_json:
            click.echo(json.dumps({**task.public(), **block}, sort_keys=True))
        else:
            click.echo(f"{task.instance_id:34} {task.domain:20} D{task.difficulty} "
                       f"{'G' if task.money_movement_guard else ' '} {','.join(task.apps)}")


@list_tasks.command(name="validate")
@click.option("--transport", type=click.Choice(["tools", "browser", "http"]), default="tools", show_default=True,
              help="http: the tool API of --server processes, or of a `cfab serve` this command starts.")
@click.option("--tasks", "pattern", default=None, help=TASKS_HELP)
@click.option("--one-per-family", is_flag=True, help="Only the first instance of each family.")
@click.option("--server", "servers", multiple=True, metavar="URL",
              help="--transport http: a running `cfab serve` (repeatable); default: one started for the gate.")
@click.option("--admin-token", envvar="CFAB_ADMIN_TOKEN", default=None,
              help="The servers' admin token (default $CFAB_ADMIN_TOKEN).")
def validate_tasks(transport, pattern, one_per_family, servers, admin_token):
    """Run the admission gate: oracle, noop, eager, near-misses, variants, leaks, reply corpus."""
    from contextlib import ExitStack

    from tasks.registry import select

    from .runner import Harness
    from .validate import one_per_family as representatives, table, validate

    if servers and transport != "http":
        raise click.UsageError("--server goes with --transport http")
    try:
        chosen = select(pattern)
    except LookupError as err:
        raise _selector_error(err)
    if one_per_family:
        chosen = representatives(chosen)
    with ExitStack() as stack:
        store = None
        if transport == "http":
            if not servers:  # a server of our own, as a user starts one, stopped when the gate ends
                import tempfile

                from .bench import ServeProcess

                folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cfab-validate-")))
                server = ServeProcess(folder, ["--max-episodes", "64", "--new-episodes-per-minute", "100000"])
                stack.callback(server.stop)
                servers, admin_token = (server.url,), server.token
                click.echo(f"validating over http on {server.url} (cfab serve started for the gate)", err=True)
            store = _remote_store("http", servers, admin_token)
            stack.callback(store.close)
        harness = stack.enter_context(Harness(transport, store))
        reports = validate(chosen, transport, harness,
                           progress=lambda r: click.echo(f"{'ok  ' if r.ok else 'FAIL'} {r.instance_id}", err=True))
    click.echo(table(reports))
    failed = [r for r in reports if not r.ok]
    for r in failed:
        click.echo(f"\n{r.instance_id}:")
        for problem in r.problems:
            click.echo(f"  - {problem}")
    if failed:
        click.echo(f"\n{len(failed)} of {len(reports)} tasks fail the gate on {transport}: "
                   + ", ".join(r.instance_id for r in failed))
        sys.exit(1)
    click.echo(f"\nall {len(reports)} tasks pass the gate on {transport}")


@main.command()
@click.option("--out", default="results/bench.json", show_default=True,
              help="Where the figures are written, with the machine's cores, load average and commit.")
@click.option("--episodes", type=click.IntRange(5, 10000), default=200, show_default=True,
              help="Samples of episode creation and reset.")
@click.option("--browser-runs", type=click.IntRange(0, 1000), default=None,
              help="Oracle runs through the browser (default: every task once; 0 skips the browser).")
@click.option("--browser-steps", type=click.IntRange(0, 1000), default=30, show_default=True,
              help="Clicks timed on a Procore list page (0 skips them).")
@click.option("--seconds", type=click.FloatRange(0.5), default=5.0, show_default=True,
              help="How long each throughput loop runs (the server's paced load runs twice as long).")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Processes for the oracle tools throughput across cores (1 skips it).")
@click.option("--no-server", is_flag=True, help="Skip the cfab serve latency, throughput and memory figures.")
@click.option("--ray", "with_ray", is_flag=True,
              help="Also time `cfab run --backend ray` on a local Ray head, for each --ray-workers count.")
@click.option("--ray-workers", default="1,2,4", show_default=True, metavar="N,N,...",
              help="The Ray worker counts --ray times.")
@click.option("--browsergym", "browsergym_python", metavar="PYTHON",
              type=click.Path(exists=True, dir_okay=False),
              help="Also time BrowserGym's step on the same page: the python of a virtualenv with this "
                   "project's [browsergym] extra (`python tests/_bgym_venv.py` builds one and prints it).")
def bench(out, episodes, browser_runs, browser_steps, seconds, workers, no_server, with_ray, ray_workers,
          browsergym_python):
    """Measure the environment's speed on the paths users run; print and write the figures."""
    from .bench import markdown_table, run_bench
    from .runner import write_json_atomic

    counts = ()
    if with_ray:
        try:
            counts = tuple(int(part) for part in ray_workers.split(","))
        except ValueError:
            counts = ()
        if not counts or any(n < 1 or n > 64 for n in counts):
            raise click.UsageError("--ray-workers takes worker counts from 1 to 64, e.g. 1,2,4")
        from .cluster import RayUnavailable, _ray

        try:
            _ray()
        except RayUnavailable as err:
            raise click.UsageError(str(err))
    figures = run_bench(episodes=episodes, browser_runs=browser_runs, browser_steps=browser_steps,
                        seconds=seconds, workers=workers, server=not no_server, ray_workers=counts,
                        browsergym_python=browsergym_python,
                        progress=lambda stage: click.echo(f"bench: {stage}", err=True))
    write_json_atomic(out, figures)
    click.echo(markdown_table(figures), nl=False)
    click.echo(f"(all figures: {out})")



@main.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", default="results/report", show_default=True, help="Folder the report is written to.")
def report(results, out):
    """Tables (Markdown, CSV, LaTeX), plots, a leaderboard page and run pages from results files."""
    from .reporting import ResultsError, build_report

    try:
        summary = build_report(results, out)
    except ResultsError as err:
        raise click.UsageError(str(err))
    click.echo(f"{len(summary['tables'])} tables, {len(summary['plots'])} plots and "
               f"{summary['runs']} run pages for {', '.join(summary['entries'])}")
    click.echo(f"leaderboard: {summary['index']}")

@main.command()
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for the PNGs and index.html.")
@click.option("--apps", default=None, help="Comma-separated app names (default: every app).")
@click.option("--width", type=click.IntRange(800, 3840), default=1280, show_default=True)
@click.option("--panel/--no-panel", default=True, show_default=True, help="Show the task panel, open.")
def gallery(out, apps, width, panel):
    """A full-page screenshot of every main screen of every app, plus an index page."""
    from .gallery import run_gallery

    try:
        result = run_gallery(out, apps.split(",") if apps else None, width=width, panel=panel)
    except KeyError as err:
        raise click.UsageError(str(err.args[0]))
    click.echo(f"{len(result['screens'])} screens; index: {result['index']}")
    for line in result["failed"]:
        click.echo(f"FAILED {line}", err=True)
    sys.exit(1 if result["failed"] else 0)


from .dataset import dataset as _dataset  # noqa: E402  (cfab dataset build|check)
from .private import add_commands as _private_commands  # noqa: E402  (cfab dataset salt|build-private)

_private_commands(_dataset)
main.add_command(_dataset)

if __name__ == "__main__":
    sys.exit(main())
