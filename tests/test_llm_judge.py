"""The L3 judge: beside the grade, never in it; calibrated against labelled replies."""
from __future__ import annotations

import dataclasses
import json
import os

import pytest
from click.testing import CliRunner

from _fake_openai import FakeOpenAI, Recorder, oracle_script
from agent.cli import main
from agent.llm.client import ChatClient
from agent.policies import make_policy
from agent.runner import run_suite
from grader.judge import cohen_kappa, judge_reply, load_items, parse_verdict
from portals.core.environment import Environment
from tasks.registry import get

CALIBRATION = os.path.join(os.path.dirname(__file__), "..", "grader", "calibration", "judge_calibration.jsonl")


@pytest.fixture(scope="module")
def server():
    items = {item["reply"]: item["label"] for item in load_items(CALIBRATION)}
    with FakeOpenAI() as fake:
        def by_label(body, n):  # a judge that agrees with the humans
            text = body["messages"][-1]["content"]
            label = next(lab for reply, lab in items.items() if reply in text)
            return {"content": json.dumps({"score": 1.0 if label == "pass" else 0.0, "reason": "as labelled"})}
        fake.add("label-judge", by_label)
        fake.add("yes-judge", lambda body, n: {"content": 'Verdict: {"score": 0.9, "reason": "fine"}'})
        fake.add("stingy-judge", lambda body, n: {"content": '{"score": 0.25, "reason": "misses the counts"}'})
        yield fake


def test_kappa_and_parsing():
    assert cohen_kappa([True, True, False, False], [True, False, False, False]) == pytest.approx(0.5)
    assert cohen_kappa([True, False], [True, False]) == 1.0
    assert parse_verdict('{"score": 1.7, "reason": "x"}') == (1.0, "x")
    assert parse_verdict("score: 0.4")[0] == 0.4
    assert parse_verdict("no idea")[0] is None


def test_calibration_set_is_labelled_and_balanced():
    items = load_items(CALIBRATION)
    labels = [i["label"] for i in items]
    assert len(items) >= 20 and 0.3 < labels.count("pass") / len(items) < 0.7


def test_judge_is_reported_beside_the_grade(server, store):
    task = get("cf_H_procore_erp_sync_2014")
    episode = store.create(list(task.apps))
    recorder = Recorder(Environment(episode, list(task.apps)))
    reply = task.oracle_tools(recorder)
    store.drop(episode.id)
    judged = dataclasses.replace(task, evaluator={**task.evaluator, "judge": {"rubric": "Give both counts."}})
    server.add("agent", oracle_script({task.instruction: (recorder.calls, reply)}))
    client = ChatClient("stingy-judge", base_url=server.url, api_key_env="CFAB_TEST_NO_KEY")
    judge = lambda r, rubric, instruction=None: judge_reply(client, r, rubric, instruction)  # noqa: E731
    agent = make_policy("llm-tools", model="agent", base_url=server.url, api_key_env="CFAB_TEST_NO_KEY")
    run = run_suite([judged], agent, "tools", 1, progress=False, store=store, judge=judge)["tasks"][0]["runs"][0]
    assert run["passed"] and run["score"] == 1.0  # a low judge score changes nothing
    assert run["judge"]["score"] == 0.25 and "counts" in run["judge"]["reason"]
    plain = run_suite([task], agent, "tools", 1, progress=False, store=store, judge=judge)["tasks"][0]["runs"][0]
    assert "judge" not in plain  # no rubric, no judge


def test_judge_calibrate_command(server, tmp_path):
    runner = CliRunner()
    out = tmp_path / "cal.json"
    result = runner.invoke(main, ["judge-calibrate", "--model", "label-judge", "--base-url", server.url,
                                  "--api-key-env", "CFAB_TEST_NO_KEY", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "kappa=1.000" in result.output and json.loads(out.read_text())["accuracy"] == 1.0
    result = runner.invoke(main, ["judge-calibrate", "--model", "yes-judge", "--base-url", server.url,
                                  "--api-key-env", "CFAB_TEST_NO_KEY"])
    assert result.exit_code == 0 and "kappa=0.000" in result.output
