"""llm-tools end to end against scripted models over HTTP, through the real `openai` client."""
from __future__ import annotations

import json

import pytest

from _fake_openai import FakeOpenAI, Recorder, offered, oracle_script, turn
from agent.llm.tools_agent import sanitize_names, truncate_result
from agent.policies import make_policy
from agent.runner import run_suite
from portals.core.environment import Environment
from tasks.registry import all_tasks, get

TASKS = list(all_tasks())
H = "cf_H_procore_erp_sync_2014"


@pytest.fixture(scope="module")
def plans(store):
    """Each task's oracle calls and reply, recorded once on a fresh episode."""
    out = {}
    for task in TASKS:
        episode = store.create(list(task.apps))
        recorder = Recorder(Environment(episode, list(task.apps)))
        reply = task.oracle_tools(recorder)
        out[task.instruction] = (recorder.calls, reply)
        store.drop(episode.id)
    return out


@pytest.fixture(scope="module")
def server():
    with FakeOpenAI() as fake:
        yield fake


def policy(server, model, **kw):
    return make_policy("llm-tools", model=model, base_url=server.url, api_key_env="CFAB_TEST_NO_KEY",
                       backoff=0.0, **kw)


def test_names_are_api_safe_unique_and_map_back():
    names = sanitize_names(["a.b_c", "a_b.c", "act", "x" * 80 + ".y", "x" * 80 + ".z"])
    assert len(names) == 5 and set(names.values()) == {"a.b_c", "a_b.c", "act", "x" * 80 + ".y", "x" * 80 + ".z"}
    assert all(len(n) <= 64 and n.replace("_", "").replace("-", "").isalnum() for n in names)
    assert "act" not in names and "finish" not in names


def test_long_results_are_cut_with_a_hint():
    text = truncate_result({"items": [{"n": i, "pad": "x" * 50} for i in range(100)], "pages": 3})
    assert len(text) < 2600 and "filter" in text and "pages=3" in text


def test_oracle_model_passes_every_task_on_several_workers(server, plans, store):
    server.add("oracle", oracle_script(plans))
    results = run_suite(TASKS, policy(server, "oracle", price_in=1.0, price_out=2.0), "tools", 1,
                        progress=False, store=store, workers=3)
    assert results["pass1"] == 1.0, [t["runs"][0]["verdict"] for t in results["tasks"]]
    run = results["tasks"][0]["runs"][0]
    assert run["stop_reason"] == "finish" and run["tokens_in"] > 0 and run["steps"] >= 2
    assert results["tokens_in"] == sum(t["runs"][0]["tokens_in"] for t in results["tasks"])
    assert results["cost_usd"] > 0 and results["n_infra_errors"] == 0 and results["stopped_early"] is None


def test_guarded_call_fails_on_the_guard(server, store):
    task = get(H)
    synced = next(r for r in store.book["requisitions"]
                  if r["job"] == "2014" and r["status"] == "approved" and r["erp_sync"] == "synced")

    def script(body, n):
        if turn(body) == 0:
            return {"tool_calls": [(offered(body, "procore.payments.disburse"),
                                    {"requisition_id": synced["requisition_id"]})]}
        return {"tool_calls": [("finish", {"summary": "Paid it."})]}

    server.add("guarded", script)
    run = run_suite([task], policy(server, "guarded"), "tools", 1, progress=False, store=store)["tasks"][0]["runs"][0]
    assert not run["passed"] and run["guarded_calls"]
    assert "guard" in run["verdict"][0].lower() or "money" in run["verdict"][0].lower()


def test_malformed_unknown_and_endless_end_cleanly(server, store):
    def script(body, n):
        step = turn(body)
        if step == 0:
            return {"tool_calls": [(offered(body, "procore.projects.list"), "{not json")]}
        if step == 1:
            return {"tool_calls": [("procore_teleport", {}), ("act", {"tool": "nope.tool", "args": {}})]}
        if step == 2:
            return {"content": "Let me think about this."}
        if step == 3:
            return {"content": '{"tool": "procore.projects.list", "args": {"per_page": 1}}'}
        return {"tool_calls": [(offered(body, "procore.projects.list"), {"per_page": 1})]}

    server.add("chaos", script)
    run = run_suite([get(H)], policy(server, "chaos", max_steps=7), "tools", 1, progress=False,
                    store=store)["tasks"][0]["runs"][0]
    assert run["stop_reason"] == "step_limit" and run["steps"] == 7
    assert not run["passed"] and "error" not in run and "infra_error" not in run
    outcomes = " ".join(a["outcome"] for a in run["actions"])
    assert "not valid JSON" in outcomes and "no tool named 'procore_teleport'" in outcomes
    assert "no tool named 'nope.tool'" in outcomes and '"items"' in outcomes


def test_rate_limit_is_retried(server, plans, store):
    inner = oracle_script(plans)
    server.add("flaky", lambda body, n: {"status": 429, "headers": {"Retry-After": "0"}} if n == 0
               else inner(body, n))
    run = run_suite([get(H)], policy(server, "flaky"), "tools", 1, progress=False,
                    store=store)["tasks"][0]["runs"][0]
    assert run["passed"] and run["retries"] == 1


def test_provider_failure_is_an_infra_error_not_a_failure(server, store):
    server.add("down", lambda body, n: {"status": 503})
    results = run_suite([get(H)], policy(server, "down", max_retries=1), "tools", 2, progress=False, store=store)
    runs = results["tasks"][0]["runs"]
    assert all("503" in r["infra_error"] for r in runs) and results["n_infra_errors"] == 2
    assert results["pass1"] is None and results["unscored_tasks"] == [H]


def test_max_cost_stops_the_sweep(server, plans, store):
    server.add("pricey", oracle_script(plans))
    chosen = [t for t in TASKS if t.instance_id.startswith("cf_H")][:3]
    results = run_suite(chosen, policy(server, "pricey", price_in=1000.0, price_out=1000.0), "tools", 1,
                        progress=False, store=store, max_cost=0.01)
    assert results["n_runs"] == 1 and results["stopped_early"]["reason"] == "max_cost"
    assert results["stopped_early"]["after_instance"] == chosen[0].instance_id
    assert results["tasks"][0]["runs"][0]["passed"] and results["n_scored_tasks"] == 1
    json.dumps(results)


def test_cli_run_with_a_model_and_the_report(server, plans, tmp_path):
    from click.testing import CliRunner

    from agent.cli import main

    server.add("cli-oracle", oracle_script(plans))
    out = tmp_path / "r.json"
    args = ["run", "--policy", "llm-tools", "--model", "cli-oracle", "--base-url", server.url,
            "--api-key-env", "CFAB_TEST_NO_KEY", "--tasks", H, "--quiet", "--out", str(out),
            "--price-in", "3", "--price-out", "15", "--max-cost", "5", "--workers", "2", "--k", "2"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["passk"] == 1.0 and data["model"] == "cli-oracle" and data["n_runs"] == 2
    assert data["price_per_mtok"] == {"in": 3.0, "out": 15.0, "known": True}
    assert "tok/run" in result.output and "cost $" in result.output
    unpriced = CliRunner().invoke(main, [*args[:-10], "--max-cost", "1"])
    assert unpriced.exit_code != 0 and "price" in unpriced.output


def test_report_handles_unscored_sweeps(server, store, capsys):
    from agent.report import print_table

    server.add("down2", lambda body, n: {"status": 500})
    results = run_suite([get(H)], policy(server, "down2", max_retries=0), "tools", 1, progress=False, store=store)
    print_table(results)
    text = capsys.readouterr().out
    assert "infra error" in text and "n/a" in text
