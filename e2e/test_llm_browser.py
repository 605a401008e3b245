"""llm-browser in Chromium against scripted models speaking BrowserGym's actions over HTTP."""
from __future__ import annotations

import os
import re
import sys

import pytest
from gymnasium.utils.env_checker import check_env

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _fake_openai import FakeOpenAI, Recorder, last_user_text, turn  # noqa: E402
from _threads import in_own_thread  # noqa: E402

from agent.gym_env import CfabEnv  # noqa: E402
from agent.policies import make_policy  # noqa: E402
from agent.runner import run_suite  # noqa: E402
from portals.core.environment import Environment  # noqa: E402
from tasks.registry import get  # noqa: E402

JOB = "2041"
TASK = f"cf_H_procore_erp_sync_{JOB}"
SYNC = re.compile(r'button "Sync invoice \S+ to ERP" \[ref=(\w+)\]')
SEARCH = re.compile(r'searchbox "Search invoices" \[ref=(\w+)\]')


def browser_script(reply: str, as_text: bool):
    """Wanders off-piste first (missing element, typing into a button, leaving the site), then
    syncs every listed invoice and finishes."""
    def act(name, *args):
        if as_text:
            return {"content": f"Next: {name}({', '.join(repr(a) for a in args)})"}
        keys = {"click": ["bid"], "fill": ["bid", "text"], "goto": ["url"], "finish": ["reply"]}[name]
        return {"tool_calls": [(name, dict(zip(keys, args)))]}

    def script(body, n):
        page = last_user_text(body)
        step = turn(body)
        if step == 0:
            return act("goto", f"/procore/projects/{JOB}/invoicing?status=approved&erp_sync=not_synced")
        if step == 1:
            return act("click", "e99999")
        if step == 2:
            button = SYNC.search(page)
            return act("fill", button.group(1) if button else "e1", "hello")
        if step == 3:
            return act("goto", "http://example.com/")
        if step == 4:
            return act("fill", SEARCH.search(page).group(1), "")
        button = SYNC.search(page)
        return act("click", button.group(1)) if button else act("finish", reply)
    return script


@pytest.fixture(scope="module")
def reply(e2e_store):
    task = get(TASK)
    episode = e2e_store.create(list(task.apps))
    text = task.oracle_tools(Recorder(Environment(episode, list(task.apps))))
    e2e_store.drop(episode.id)
    return text


@pytest.fixture(scope="module")
def server():
    with FakeOpenAI() as fake:
        yield fake


@pytest.mark.parametrize("as_text", [False, True], ids=["function-calls", "text-actions"])
def test_scripted_browser_agent_passes_despite_bad_actions(server, reply, e2e_store, as_text):
    model = f"browser-{as_text}"
    server.add(model, browser_script(reply, as_text))
    agent = make_policy("llm-browser", model=model, base_url=server.url, api_key_env="CFAB_TEST_NO_KEY",
                        screenshots=not as_text)
    results = in_own_thread(run_suite, [get(TASK)], agent, "browser", 1, progress=False, store=e2e_store)
    run = results["tasks"][0]["runs"][0]
    assert run["passed"], run["verdict"]
    assert run["stop_reason"] == "finish" and run["tokens_in"] > 0
    outcomes = " ".join(a["outcome"] for a in run["actions"])
    assert "no element with id 'e99999'" in outcomes and "limited to this site" in outcomes
    assert "fill failed" in outcomes
    sent = [m for body in server.requests if body["model"] == model for m in body["messages"]]
    images = [p for m in sent if isinstance(m.get("content"), list) for p in m["content"]
              if p.get("type") == "image_url"]
    assert bool(images) == (not as_text)


def test_browser_gym_env_passes_check_env(e2e_store):
    in_own_thread(check_gym_env, e2e_store)


def check_gym_env(e2e_store):
    env = CfabEnv(TASK, transport="browser", store=e2e_store, max_steps=3)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset()
    assert "Accessibility tree" in obs
    obs, reward, terminated, *_ = env.step("goto('https://example.com/')")
    assert "limited to this site" in obs and not terminated
    obs, reward, terminated, truncated, info = env.step("finish('nothing done')")
    assert terminated and reward < 1.0 and not info["passed"]
    env.close()
