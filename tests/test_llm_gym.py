"""The gymnasium face of the benchmark: check_env passes, the oracle earns reward 1."""
from __future__ import annotations

import json

import gymnasium as gym
from gymnasium.utils.env_checker import check_env

from _fake_openai import Recorder
from agent.gym_env import CfabEnv, register_envs
from portals.core.environment import Environment
from tasks.registry import all_tasks, get

TASK = "cf_H_procore_erp_sync_2041"


def test_every_task_is_registered():
    ids = register_envs()
    assert ids == [f"cfab/{t.instance_id}" for t in all_tasks()] and register_envs() == ids
    env = gym.make(f"cfab/{TASK}")
    obs, info = env.reset(seed=0)
    assert get(TASK).instruction in obs and "procore.erp.sync_invoice" in obs and info["tools"]
    env.close()


def test_check_env_passes(store):
    env = CfabEnv(TASK, store=store, max_steps=5)
    check_env(env, skip_render_check=True)
    env.close()


def test_oracle_actions_earn_reward_one_and_bad_ones_are_observations(store):
    task = get(TASK)
    episode = store.create(list(task.apps))
    recorder = Recorder(Environment(episode, list(task.apps)))
    reply = task.oracle_tools(recorder)
    store.drop(episode.id)

    env = CfabEnv(TASK, store=store)
    env.reset()
    obs, reward, terminated, truncated, _ = env.step("click the thing")
    assert obs.startswith("error:") and not (terminated or truncated) and reward == 0.0
    obs, *_ = env.step(json.dumps({"tool": "procore.nope", "args": {}}))
    assert "unknown_tool" in obs
    for name, args in recorder.calls:
        obs, reward, terminated, truncated, _ = env.step(json.dumps({"tool": name, "args": args}))
        assert not terminated and "error" not in json.loads(obs)
    obs, reward, terminated, truncated, info = env.step(json.dumps({"finish": reply}))
    assert terminated and reward == 1.0 and info["passed"]
    env.reset()  # a fresh world: the same finish now scores below 1
    *_, info = env.step(json.dumps({"finish": reply}))
    assert not info["passed"]
    env.close()


def test_step_limit_truncates_with_the_grade(store):
    env = CfabEnv(TASK, store=store, max_steps=2)
    env.reset()
    env.step(json.dumps({"tool": "procore.projects.list", "args": {"per_page": 1}}))
    _, reward, terminated, truncated, info = env.step(json.dumps({"tool": "procore.projects.list", "args": {}}))
    assert truncated and not terminated and reward == 0.0 and info["verdict"]
    env.close()


def test_a_gym_episode_is_an_evaluation_episode_the_launcher_will_not_serve(store):
    """A browser agent in a gym env cannot use the launcher to start a fresh, ungraded episode."""
    from portals.core.web import create_app, enter_url

    env = CfabEnv(TASK, store=store)
    env.reset()
    episode = env._episode
    app = create_app(store, secret_key="gym-test", admin_token="gym-admin")
    client = app.test_client()
    assert client.get(enter_url(app, episode.id, "/")).status_code == 302
    client.get("/")
    with client.session_transaction() as sess:
        csrf = sess.get("csrf")
    fresh = client.post(f"/tasks/{TASK}/start", data={"csrf_token": csrf})
    assert fresh.status_code == 403 and b"evaluation episode" in fresh.data
    assert store.get(episode.id) is episode and len(episode.calls) == 0
    env.close()
