"""The HTTP transport: the paper's per-app contract served by real `cfab serve` processes, the
remote client (agent/remote.py) composing one or many of them, and parity with in process.

Parity: every task's oracle, noop and eager agree, through tools (in process) and http, on the
diff, the guard log, the call log, the reply and the grade, verdict line for verdict line.
"""
from __future__ import annotations

import json
import os
import secrets

import pytest
import requests
from click.testing import CliRunner

from _server import running_cfab
from agent.cli import main as cli
from agent.policies import make_policy
from agent.remote import RemoteEnvironment, RemoteError, RemoteStore
from agent.runner import Harness
from agent.validate import one_per_family
from portals.core.environment import Environment
from portals.core.registry import load_apps
from tasks.registry import all_tasks

COMPARED = ("diff", "guarded_calls", "calls", "reply", "passed", "score", "verdict")
TASKS = all_tasks()


def _differences(local: dict, remote: dict) -> list[str]:
    return [key for key in COMPARED if local[key] != remote[key]]


@pytest.fixture(scope="module")
def remote(cfab_server):
    store = RemoteStore([cfab_server.url], cfab_server.admin_token)
    yield store
    store.close()


def test_health_is_the_papers_get_root(cfab_server, book_store):
    health = requests.get(cfab_server.url + "/api/health", timeout=30).json()  # no token needed
    assert health["clock"] == book_store.clock.iso()
    assert sorted(health["apps"]) == sorted(load_apps())
    episode = book_store.create(list(load_apps()))
    try:
        for app, names in health["apps"].items():
            assert names == Environment(episode, [app]).tool_names()  # in the in-process order
    finally:
        book_store.drop(episode.id)
    assert "seed" not in health  # the seeds are the admin's
    assert requests.get(cfab_server.url + "/admin/health", timeout=30).status_code == 401
    private = cfab_server.admin("GET", "/health")
    assert (private["seed"], private["book_seed"]) == (book_store.seed, book_store.book["meta"]["seed"])


def test_every_family_grades_the_same_over_http(book_store, remote):
    """The paper's parity, on one instance of every family (make validate's `cfab tasks validate
    --transport http` checks it on every instance) and the three scripted policies."""
    assert (remote.clock.iso(), remote.seed) == (book_store.clock.iso(), book_store.seed)
    policies = [make_policy(name) for name in ("oracle", "noop", "eager")]
    with Harness("tools", book_store) as local, Harness("http", remote) as over_http:
        for task in one_per_family(TASKS):
            for policy in policies:
                a, b = local.run_one(task, policy), over_http.run_one(task, policy)
                assert not _differences(a, b), (task.instance_id, policy.name, _differences(a, b))
                assert a["passed"] == (policy.name == "oracle"), (task.instance_id, policy.name)
                if policy.name == "eager" and task.money_movement_guard:
                    assert b["guarded_calls"] and all(e["executed"] is False for e in b["guarded_calls"])
    assert not remote.episodes  # every episode the lifecycle opened, it dropped


def test_contract_routes_are_scoped_to_an_episode_and_its_apps(cfab_server, remote):
    task = next(t for t in TASKS if len(t.apps) > 1 and t.money_movement_guard and "box" not in t.apps)
    episode = remote.create(list(task.apps))
    part = episode.parts[0]
    path = f"/episodes/{part.id}"
    try:
        seeded = episode.snapshot()
        task.oracle_tools(RemoteEnvironment(episode, list(task.apps)))
        task.guarded_tools(RemoteEnvironment(episode, list(task.apps)))
        diff, guards = episode.diff(), episode.guard_log
        assert diff and guards
        assert cfab_server.admin("GET", f"{path}/state_diff") == cfab_server.admin("GET", f"{path}/diff")
        for app in task.apps:  # ?app= scopes every contract read to one app
            assert cfab_server.admin("GET", f"{path}/state_diff?app={app}") == \
                ({app: diff[app]} if app in diff else {})
            assert cfab_server.admin("GET", f"{path}/guarded_calls?app={app}") == \
                [e for e in guards if e["app"] == app]
        outside = next(a for a in load_apps() if a not in task.apps)
        assert cfab_server.admin("GET", f"{path}/state_diff?app={outside}", raw=True).status_code == 400

        worked = episode.snapshot()
        assert worked != seeded
        episode.restore(seeded)  # POST /reset with a body: that exact state
        assert episode.snapshot() == seeded and episode.diff() == {}
        assert episode.guard_log == guards  # the state is restored; the logs stay as they were
        episode.restore(worked)
        assert episode.snapshot() == worked and episode.diff() == diff

        broken = {app: json.loads(blob) for app, blob in seeded.items()}
        broken[task.apps[-1]] = {"no_such_table": []}
        resp = cfab_server.admin("POST", f"{path}/reset", broken, raw=True)
        assert resp.status_code == 400 and "nothing was restored" in resp.json()["message"]
        assert episode.snapshot() == worked  # all or nothing: not even the apps that fit

        episode.reset()  # no body: back to the templates, logs cleared
        assert (episode.diff(), episode.guard_log, episode.calls) == ({}, [], [])
        assert episode.snapshot() == seeded
        resp = requests.get(f"{cfab_server.url}/admin{path}/guarded_calls", timeout=30,
                            headers={"Authorization": f"Bearer {part.agent_token}"})
        assert resp.status_code == 403  # an agent's token opens no contract read
    finally:
        remote.drop(episode.id)
    assert cfab_server.admin("GET", f"{path}/state_diff", raw=True).status_code == 404


def test_seed_is_the_seeded_state_with_fresh_logs(cfab_server, remote):
    episode = remote.create(["outlook"])  # outlook: the app quickest to seed from the book
    try:
        seeded = episode.snapshot()
        env = RemoteEnvironment(episode, ["outlook"])
        first = env.call("outlook.messages.list", {})["items"][0]
        flipped = env.call("outlook.message.markRead", {"message_id": first["id"], "is_read": not first["is_read"]})
        assert "error" not in flipped
        assert episode.diff() and episode.calls
        cfab_server.admin("POST", f"/episodes/{episode.parts[0].id}/seed")
        assert (episode.diff(), episode.guard_log, episode.calls) == ({}, [], [])
        assert episode.snapshot() == seeded
    finally:
        remote.drop(episode.id)


def test_remote_environment_answers_like_the_in_process_one(book_store, remote):
    task = TASKS[0]
    episode, local = remote.create(list(task.apps)), book_store.create(list(task.apps))
    try:
        over_http, in_process = RemoteEnvironment(episode, list(task.apps)), Environment(local, list(task.apps))
        assert over_http.tools() == in_process.tools()
        assert over_http.tool_names() == in_process.tool_names()
        for name, args in (("no.such_tool", {}), (in_process.tool_names()[0], ["not", "an", "object"]),
                           (in_process.tool_names()[0], {"no_such_argument": 1})):
            assert over_http.call(name, args) == in_process.call(name, args), name
    finally:
        remote.drop(episode.id)
        book_store.drop(local.id)


def test_single_app_servers_secrets_and_a_restart(tmp_path, monkeypatch, book_store):
    """`--app NAME` per process, composed by the client; the secrets from the environment, so a
    restarted server honours the tokens it signed before."""
    task = next(t for t in TASKS if len(t.apps) == 2)
    token, key = secrets.token_urlsafe(24), secrets.token_urlsafe(32)
    monkeypatch.setenv("CFAB_ADMIN_TOKEN", token)
    monkeypatch.setenv("CFAB_SECRET_KEY", key)
    first, second = task.apps
    with running_cfab(tmp_path / "a", "--app", first) as a:
        with running_cfab(tmp_path / "b", "--app", second) as b:
            assert a.admin_token == "given"  # a secret it was given is never printed
            a.admin_token = b.admin_token = token
            assert requests.get(a.url + "/api/health", timeout=30).json()["app"] == first
            refused = a.admin("POST", "/episodes", {"apps": list(task.apps)}, raw=True)
            assert refused.status_code == 400 and second in refused.json()["message"]

            store = RemoteStore([a.url, b.url], token)
            assert store.route == {first: store.servers[0], second: store.servers[1]}
            with Harness("tools", book_store) as local, Harness("http", store) as over_http:
                for policy in (make_policy("oracle"), make_policy("eager")):
                    x, y = local.run_one(task, policy), over_http.run_one(task, policy)
                    assert not _differences(x, y), (policy.name, _differences(x, y))
                    assert {c["app"] for c in y["calls"]} == set(task.apps)  # both servers worked
            with pytest.raises(KeyError, match="no server given hosts"):
                RemoteStore([a.url], token).create(list(task.apps))
            kept = a.open_episode([first])
            assert not a.server_errors() and not b.server_errors()
    with running_cfab(tmp_path / "a2", "--app", first) as again:  # the same secrets, restarted
        again.admin_token = token
        assert again.admin("GET", "/health")["app"] == first  # the admin token still opens it
        resp = again.tool(kept["agent_token"], f"{first}.{next(iter(load_apps()[first].tools))}", {})
        assert resp.status_code == 404 and "closed" in resp.json()["message"]  # signed, episode gone


def test_a_token_another_secret_signed_is_refused(cfab_server, tmp_path, monkeypatch):
    monkeypatch.setenv("CFAB_SECRET_KEY", secrets.token_urlsafe(32))
    monkeypatch.setenv("CFAB_ADMIN_TOKEN", secrets.token_urlsafe(24))
    app = sorted(load_apps())[0]
    with running_cfab(tmp_path / "other", "--app", app) as other:
        other.admin_token = os.environ["CFAB_ADMIN_TOKEN"]
        made = other.open_episode([app])
    resp = cfab_server.tool(made["agent_token"], f"{app}.x", {})
    assert resp.status_code == 401
    assert requests.get(f"{cfab_server.url}/admin/health", timeout=30,
                        headers={"Authorization": f"Bearer {other.admin_token}"}).status_code == 403


@pytest.mark.parametrize("flags, message", [
    (["--admin-token", "short"], "at least 16 characters"),
    (["--secret-key", " padded-secret-key-value "], "without surrounding spaces"),
    (["--app", "no_such_app"], "no app named 'no_such_app'"),
])
def test_serve_refuses_bad_hosting_flags(flags, message):
    result = CliRunner().invoke(cli, ["serve", "--port", "0", *flags])
    assert result.exit_code == 2 and message in result.output


def test_cfab_run_over_http(cfab_server, tmp_path, monkeypatch):
    task = TASKS[-1]
    out = tmp_path / "oracle-http.json"
    monkeypatch.setenv("CFAB_ADMIN_TOKEN", cfab_server.admin_token)
    result = CliRunner().invoke(cli, ["run", "--policy", "oracle", "--transport", "http", "--server",
                                      cfab_server.url, "--tasks", task.instance_id, "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    results = json.loads(out.read_text())
    assert results["transport"] == "http" and results["pass1"] == 1.0
    assert cfab_server.admin_token not in out.read_text()  # the secret is in no results file
    assert "--server" in results["provenance"]["command"]

    for argv, message in ((["--transport", "http"], "give --server URL"),
                          (["--server", cfab_server.url], "use --transport http"),
                          (["--transport", "http", "--server", "ftp://x"], "give the server's URL")):
        result = CliRunner().invoke(cli, ["run", "--tasks", task.instance_id, "--out", str(out), *argv])
        assert result.exit_code == 2 and message in result.output, result.output
    monkeypatch.setenv("CFAB_ADMIN_TOKEN", "wrong-token-of-some-length")
    result = CliRunner().invoke(cli, ["run", "--transport", "http", "--server", cfab_server.url,
                                      "--tasks", task.instance_id, "--out", str(out)])
    assert result.exit_code == 2 and "403" in result.output


def test_remote_store_refuses_servers_of_different_worlds(cfab_server, tmp_path, monkeypatch):
    monkeypatch.setenv("CFAB_CLOCK", "2027-01-31T17:00:00Z")
    monkeypatch.setenv("CFAB_ADMIN_TOKEN", cfab_server.admin_token)
    app = sorted(load_apps())[0]
    with running_cfab(tmp_path / "later", "--app", app) as later:
        with pytest.raises(RemoteError, match="another world"):
            RemoteStore([cfab_server.url, later.url], cfab_server.admin_token)


def test_the_browser_transport_on_a_remote_server(book_store, remote):
    """`cfab run --transport browser --server URL`: Chromium on the remote server's portals,
    graded by the same lifecycle, as the tools transport grades in process."""
    from _threads import in_own_thread

    task = next(t for t in TASKS if len(t.apps) == 1)
    policy = make_policy("oracle")

    def over_the_browser():
        with Harness("browser", remote) as harness:
            return harness.run_one(task, policy)

    run = in_own_thread(over_the_browser)
    with Harness("tools", book_store) as local:
        expected = local.run_one(task, policy)
    assert run["passed"] and run.get("error") is None, run["verdict"]
    assert (run["diff"], run["guarded_calls"]) == (expected["diff"], expected["guarded_calls"])


def test_the_admission_gate_over_http(cfab_server, monkeypatch):
    """`cfab tasks validate --transport http`: the whole gate (near-misses and variants through
    the tool API, the leak check on the schemas the server serves) on a running server, and on
    one the command starts and stops itself."""
    monkeypatch.setenv("CFAB_ADMIN_TOKEN", cfab_server.admin_token)
    result = CliRunner().invoke(cli, ["tasks", "validate", "--transport", "http", "--one-per-family",
                                      "--server", cfab_server.url])
    assert result.exit_code == 0, result.output
    assert "pass the gate on http" in result.output and "FAIL" not in result.output
    assert not cfab_server.server_errors()
    monkeypatch.delenv("CFAB_ADMIN_TOKEN")
    task = TASKS[-1]
    result = CliRunner().invoke(cli, ["tasks", "validate", "--transport", "http", "--tasks", task.instance_id])
    assert result.exit_code == 0, result.output
    assert "cfab serve started for the gate" in result.output and "all 1 tasks pass the gate on http" in result.output
    result = CliRunner().invoke(cli, ["tasks", "validate", "--server", cfab_server.url])
    assert result.exit_code == 2 and "goes with --transport http" in result.output
