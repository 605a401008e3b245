"""A model run a vLLM or Ollama user can reproduce: sampling flags reach the server, the
endpoint and key are found as the openai client finds them, one finish argument for both
agents, full transcripts beside the results, provenance in the results, --resume refusals,
unknown cost for an unpriced model, and policies loaded from outside the project."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from _fake_openai import FakeOpenAI, offered, turn
from agent.cli import main
from agent.journal import journal_path
from agent.llm.browser_agent import BROWSER_TOOLS, BrowserDriver
from agent.llm.observe import BrowserActions, parse_actions
from agent.llm.tools_agent import RESULT_LIMIT, ToolsDriver, finish_spec, result_text
from agent.policies import make_policy
from agent.report import print_table
from agent.runner import run_suite, transcripts_path
from portals.core.environment import Environment
from tasks.registry import get, select

H = "cf_H_procore_erp_sync_2014"
REPLY = "Nothing synced: I only read the projects."


@pytest.fixture(scope="module")
def server():
    with FakeOpenAI() as fake:
        fake.add("reader", reader)
        yield fake


@pytest.fixture
def no_openai_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CFAB_TEST_KEY"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def reader(body, n):
    """Reads every project (a result far longer than the agent shows), then finishes."""
    if turn(body) == 0:
        return {"tool_calls": [(offered(body, "procore.projects.list"), {})], "usage": (1000, 50)}
    return {"tool_calls": [("finish", {"reply": REPLY})], "usage": (2000, 30)}


def cfab(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, ["run", "--quiet", *args], env=env, catch_exceptions=False)


# --- sampling, endpoint, key ---------------------------------------------------------------

def test_sampling_flags_reach_the_server_and_every_results_file_says_how_it_ran(server, tmp_path, no_openai_env):
    out = tmp_path / "run.json"
    no_openai_env.setenv("OPENAI_BASE_URL", server.url)  # as the openai client reads it; no key at all
    before = len(server.requests)
    result = cfab("--policy", "llm-tools", "--model", "reader", "--tasks", H, "--out", str(out),
                  "--temperature", "0.3", "--seed", "11", "--max-tokens", "300", "--max-steps", "5",
                  "--extra-body", '{"top_k": 1, "options": {"num_ctx": 8192}}')
    assert result.exit_code == 0, result.output
    sent = server.requests[before:]
    assert len(sent) == 2
    for body in sent:
        assert body["temperature"] == 0.3 and body["seed"] == 11 and body["max_tokens"] == 300
        assert body["top_k"] == 1 and body["options"] == {"num_ctx": 8192}
    assert server.headers[-1]["Authorization"] == "Bearer not-needed"  # a local server needs no key

    data = json.loads(out.read_text())
    prov = data["provenance"]
    assert prov["model"] == "reader" and prov["base_url"] == server.url
    assert (prov["temperature"], prov["seed"], prov["max_tokens"], prov["max_steps"]) == (0.3, 11, 300, 5)
    assert prov["extra_body"] == {"top_k": 1, "options": {"num_ctx": 8192}}
    assert prov["version"] == "0.1.0" and len(prov["commit"]) == 40
    assert prov["command"][:2] == ["cfab", "run"] and prov["argv"]
    seed_at = prov["command"].index("--seed")
    assert prov["command"][seed_at + 1] == "11" and "--extra-body" in prov["command"]
    assert prov["clock"].startswith("20") and prov["book_seed"] == 7 and isinstance(prov["run_seed"], int)
    assert prov["started"] <= prov["finished"] and prov["transport"] == "tools" and prov["k"] == 1
    assert data["transcripts"] == "run.json.transcripts.jsonl"
    assert (tmp_path / data["transcripts"]).exists()
    assert "transcripts written to" in result.output


def test_the_key_is_read_from_its_variable_and_needed_only_for_openai(server, tmp_path, no_openai_env):
    no_openai_env.setenv("CFAB_TEST_KEY", "sk-test-123")
    before = len(server.headers)
    result = cfab("--policy", "llm-tools", "--model", "reader", "--base-url", server.url,
                  "--api-key-env", "CFAB_TEST_KEY", "--tasks", H, "--out", str(tmp_path / "k.json"))
    assert result.exit_code == 0, result.output
    assert {h["Authorization"] for h in server.headers[before:]} == {"Bearer sk-test-123"}
    # OpenAI itself (no --base-url, no $OPENAI_BASE_URL) without a key: refused before any run
    refused = cfab("--policy", "llm-tools", "--model", "gpt-4o-mini", "--tasks", H,
                   "--out", str(tmp_path / "none.json"))
    assert refused.exit_code == 2 and "OPENAI_API_KEY" in refused.output and "OPENAI_BASE_URL" in refused.output
    assert not (tmp_path / "none.json").exists()


@pytest.mark.parametrize("body,says", [("{top_k: 1}", "not valid JSON"), ("[1]", "must be a JSON object")])
def test_a_bad_extra_body_is_refused_before_anything_runs(server, tmp_path, body, says):
    result = cfab("--policy", "llm-tools", "--model", "reader", "--base-url", server.url, "--tasks", H,
                  "--extra-body", body, "--out", str(tmp_path / "x.json"))
    assert result.exit_code == 2 and says in result.output and not (tmp_path / "x.json").exists()


# --- one finish argument -------------------------------------------------------------------

def test_both_agents_offer_the_same_finish_and_accept_the_other_name():
    browser_finish = next(t for t in BROWSER_TOOLS if t["function"]["name"] == "finish")
    assert browser_finish == finish_spec()
    assert finish_spec()["function"]["parameters"]["required"] == ["reply"]

    tools = ToolsDriver.__new__(ToolsDriver)  # finish needs no tools or episode
    assert tools.execute("finish", {"reply": "done A"}) == ("finished", True) and tools.reply() == "done A"
    assert tools.execute("finish", {"summary": "done B"}) == ("finished", True) and tools.reply() == "done B"
    assert tools.parse_text('{"finish": "done C"}') == [("finish", {"reply": "done C"})]

    browser = BrowserDriver.__new__(BrowserDriver)  # finish touches no page
    browser.actions, browser.messages_to_user, browser.final = BrowserActions.__new__(BrowserActions), [], ""
    for written, said in [("finish('done D')", "done D"), ("finish(summary='done E')", "done E"),
                          ("finish(reply='done F')", "done F")]:
        name, args = parse_actions(written)[0]
        assert browser.execute(name, args) == ("finished", True) and browser.reply() == said


# --- transcripts ---------------------------------------------------------------------------

def test_the_transcript_holds_every_message_call_and_result_uncut(server, store, tmp_path):
    out = str(tmp_path / "t.json")
    policy = make_policy("llm-tools", model="reader", base_url=server.url, api_key_env="CFAB_TEST_NO_KEY",
                         backoff=0.0, temperature=0.5, seed=3)
    before = len(server.requests)
    results = run_suite([get(H)], policy, "tools", 2, out=out, progress=False, store=store)
    assert results["pass1"] == 0.0  # it only read: graded, not passed
    lines = [json.loads(line) for line in Path(transcripts_path(out)).read_text().splitlines()]
    assert sorted(line["attempt"] for line in lines) == [0, 1]
    line = lines[0]
    assert line["instance_id"] == H and line["model"] == "reader"
    assert line["sampling"]["temperature"] == 0.5 and line["sampling"]["seed"] == 3
    kinds = [e["event"] for e in line["events"]]
    assert kinds[0] == "tools" and kinds[-1] == "end" and kinds.count("response") == 2
    messages = [e["message"] for e in line["events"] if e["event"] == "message"]
    last_request = next(b for b in reversed(server.requests[before:])  # this attempt's last
                        if len(b["messages"]) > 2 and b["messages"][2] == messages[2])
    # every message the model was sent, exactly as sent, then the final call and its answer
    assert messages[:len(last_request["messages"])] == last_request["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert messages[-2]["tool_calls"][0]["function"]["name"] == "finish"
    assert line["events"][0]["tools"] == last_request["tools"]
    # the tool result the model saw cut short is kept whole beside it
    shown = messages[3]["content"]
    full = next(e for e in line["events"] if e["event"] == "full_result")
    assert "cut at" in shown and len(full["result"]) > RESULT_LIMIT and full["tool"] == "procore_projects_list"
    episode = store.create(["procore"])
    try:
        assert full["result"] == result_text(Environment(episode, ["procore"]).call("procore.projects.list", {}))
    finally:
        store.drop(episode.id)
    assert full["tool_call_id"] == messages[3]["tool_call_id"]
    assert line["events"][-1] == {"event": "end", "stop_reason": "finish", "reply": REPLY}
    responses = [e for e in line["events"] if e["event"] == "response"]
    assert [(r["tokens_in"], r["tokens_out"]) for r in responses] == [(1000, 50), (2000, 30)]
    # a fresh sweep onto the same results file starts a fresh sidecar
    run_suite([get(H)], policy, "tools", 1, out=out, progress=False, store=store)
    assert len(Path(transcripts_path(out)).read_text().splitlines()) == 1


def test_scripted_policies_write_no_transcripts(store, tmp_path):
    out = str(tmp_path / "o.json")
    results = run_suite([get(H)], make_policy("oracle"), "tools", 1, out=out, progress=False, store=store)
    assert "transcripts" not in results and not os.path.exists(transcripts_path(out))
    prov = results["provenance"]
    assert prov["model"] is None and prov["base_url"] is None and prov["clock"] and prov["book_seed"] == 7


# --- unpriced models -----------------------------------------------------------------------

def test_an_unpriced_model_reports_its_cost_as_unknown_not_zero(server, store, tmp_path, capsys):
    from agent.reporting import build_report
    from agent.reporting.load import load_entries
    from agent.reporting.stats import EntryStats

    out = str(tmp_path / "unpriced.json")
    policy = make_policy("llm-tools", model="reader", base_url=server.url, api_key_env="CFAB_TEST_NO_KEY")
    assert not policy.client.price.known
    results = run_suite([get(H)], policy, "tools", 1, out=out, progress=False, store=store)
    run = results["tasks"][0]["runs"][0]
    assert run["tokens_in"] == 3000 and "cost_usd" not in run
    assert results["cost_usd"] is None and results["price_per_mtok"]["known"] is False
    print_table(results)
    printed = capsys.readouterr().out
    assert "cost unknown" in printed and "$0.0000" not in printed and "0.0000" not in printed
    assert EntryStats(load_entries([out])[0]).usage()["cost"] is None
    build_report([out], tmp_path / "report")
    usage = (tmp_path / "report" / "tables" / "usage.md").read_text()
    assert "unknown" in usage
    page = next((tmp_path / "report" / "runs").rglob("*.html")).read_text()
    assert "cost unknown" in page and "$0.0000" not in page
    # the same run priced by flags has a cost
    priced = make_policy("llm-tools", model="reader", base_url=server.url, api_key_env="CFAB_TEST_NO_KEY",
                         price_in=1.0, price_out=2.0)
    paid = run_suite([get(H)], priced, "tools", 1, progress=False, store=store)
    assert paid["cost_usd"] == pytest.approx((3000 * 1.0 + 80 * 2.0) / 1e6)


# --- resume --------------------------------------------------------------------------------

def test_resume_refuses_a_missing_journal_and_creates_nothing(tmp_path):
    out = tmp_path / "never.json"
    result = cfab("--policy", "oracle", "--resume", str(out))
    assert result.exit_code == 2 and "nothing to resume" in result.output and "without --resume" in result.output
    assert list(tmp_path.iterdir()) == []


def test_resume_refuses_an_unreadable_journal_and_leaves_it_as_it_was(tmp_path):
    out = tmp_path / "dir.json"
    os.mkdir(journal_path(str(out)))  # a directory where the journal should be
    result = cfab("--policy", "oracle", "--resume", str(out))
    assert result.exit_code == 2 and "cannot be read" in result.output
    garbage = tmp_path / "garbage.json"
    Path(journal_path(str(garbage))).write_bytes(b"this is not a journal\n")
    result = cfab("--policy", "oracle", "--resume", str(garbage))
    assert result.exit_code == 2 and "not a run journal" in result.output
    assert Path(journal_path(str(garbage))).read_bytes() == b"this is not a journal\n"
    assert not garbage.exists()


def test_the_readme_resume_example_works_as_written(tmp_path, monkeypatch):
    """`--tasks 'cf_H_*' --out r.json`, killed, then `--out r.json --resume r.json`: the journal's
    own task list (and k) is resumed, without repeating --tasks."""
    monkeypatch.chdir(tmp_path)
    first = cfab("--policy", "oracle", "--tasks", "cf_H_*", "--k", "2", "--out", "r.json")
    assert first.exit_code == 0, first.output
    lines = Path("r.json.runs.jsonl").read_bytes().splitlines(keepends=True)
    assert len(lines) == 1 + 2 * len(select("cf_H_*"))
    Path("r.json.runs.jsonl").write_bytes(b"".join(lines[:4]))  # as a kill after three runs leaves it
    os.remove("r.json")
    resumed = cfab("--policy", "oracle", "--out", "r.json", "--resume", "r.json")
    assert resumed.exit_code == 0, resumed.output
    data = json.loads(Path("r.json").read_text())
    assert data["n_tasks"] == len(select("cf_H_*")) and data["k"] == 2
    assert data["resumed_runs"] == 3 and data["n_runs"] == 2 * len(select("cf_H_*")) and data["passk"] == 1.0
    # an explicit, different filter is still another sweep
    other = cfab("--policy", "oracle", "--tasks", "cf_A_*", "--k", "2", "--resume", "r.json")
    assert other.exit_code == 2 and "another sweep" in other.output


# --- a policy from outside -----------------------------------------------------------------

OUTSIDE = '''
from agent.policies import Policy


class Solver(Policy):
    """Works the task through the documented tool interface only."""

    def run_tools(self, task, env):
        self.seen = sorted(s["name"] for s in env.tools())
        return task.oracle_tools(env)

    def run_browser(self, task, portal):
        raise NotImplementedError


class Asker(Policy):
    """A model policy of one's own, built with the run's client."""

    name = "asker"
    uses_model = True

    def __init__(self, client, max_steps=24):
        self.client, self.model, self.max_steps = client, client.model, max_steps

    def run_tools(self, task, env, meter=None):
        message = self.client.complete([{"role": "user", "content": task.instruction}], meter)
        return message.content or ""

    def run_browser(self, task, portal, meter=None):
        raise NotImplementedError


class NotAPolicy:
    pass
'''


@pytest.fixture
def outside(tmp_path, monkeypatch):
    """A module of the researcher's own in the current directory, not on sys.path."""
    name = f"my_agents_{os.getpid()}_{len(list(tmp_path.parent.iterdir()))}"
    (tmp_path / f"{name}.py").write_text(OUTSIDE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd())])
    yield name
    sys.modules.pop(name, None)


def test_a_policy_class_from_outside_runs_by_module_and_class(outside, tmp_path):
    result = cfab("--policy", f"{outside}:Solver", "--tasks", H, "--out", "mine.json")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "mine.json").read_text())
    assert data["policy"] == f"{outside}:Solver" and data["pass1"] == 1.0
    assert data["provenance"]["policy_class"] == f"{outside}:Solver"


def test_an_outside_model_policy_gets_the_runs_client(outside, server, tmp_path):
    server.add("asker-model", lambda body, n: {"content": f"temperature {body['temperature']}"})
    result = cfab("--policy", f"{outside}:Asker", "--model", "asker-model", "--base-url", server.url,
                  "--temperature", "0.7", "--tasks", H, "--out", "asker.json", "--price-in", "1", "--price-out", "1")
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "asker.json").read_text())
    run = data["tasks"][0]["runs"][0]
    assert data["policy"] == "asker" and run["reply"] == "temperature 0.7" and run["tokens_in"] > 0
    assert data["provenance"]["temperature"] == 0.7 and data["cost_usd"] > 0


@pytest.mark.parametrize("spec,says", [
    ("no_such_module_here:X", "cannot import module"),
    ("{m}:Missing", "has no 'Missing'"),
    ("{m}:NotAPolicy", "lacks run_tools and run_browser"),
    ("{m}:", "module:Class")])
def test_an_outside_policy_that_cannot_be_loaded_is_refused_clearly(outside, tmp_path, spec, says):
    result = cfab("--policy", spec.format(m=outside), "--tasks", H, "--out", "bad.json")
    assert result.exit_code == 2 and says in result.output and "Traceback" not in result.output
    assert not (tmp_path / "bad.json").exists()
