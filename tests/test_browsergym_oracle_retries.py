"""The oracle over BrowserGym's actions (agent/browsergym/oracle.py: GymPortal.act): BrowserGym
gives every action 500 ms, so on a loaded machine typing into a field can time out. Setting a
field, a choice or a tick again is safe and is retried; a click never is."""
import importlib.util
import types
from pathlib import Path

import pytest

# the module alone: its package imports BrowserGym, which lives in its own virtualenv
_SPEC = importlib.util.spec_from_file_location(
    "cfab_browsergym_oracle", Path(__file__).resolve().parents[1] / "agent" / "browsergym" / "oracle.py")
oracle = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(oracle)
GymPortal, OracleActionError = oracle.GymPortal, oracle.OracleActionError

TIMEOUT = "TimeoutError: Locator.fill: Timeout 500ms exceeded."


class FakeEnv:
    """Answers each step with the next scripted error ("" for none); the page stays one document."""

    def __init__(self, errors):
        self.errors, self.sent = list(errors), []
        self.unwrapped = types.SimpleNamespace(page=types.SimpleNamespace(evaluate=lambda _js: 1.0, url="http://x/"))

    def step(self, action):
        self.sent.append(action)
        return {"last_action_error": self.errors.pop(0), "url": "http://x/"}, 0.0, False, False, {}


def portal(errors):
    env = FakeEnv(errors)
    return GymPortal(env, "http://x", {}), env


@pytest.mark.parametrize("action", ['fill("12", "48602.00")', 'select_option("7", "Approved")', 'check("9")'])
def test_a_timed_out_field_is_set_again(action):
    gym, env = portal([TIMEOUT, ""])
    gym.act(action)
    assert env.sent == [action, action] and gym.actions == [action, action]


def test_a_field_that_times_out_every_time_fails_after_three_tries():
    gym, env = portal([TIMEOUT] * 3)
    with pytest.raises(OracleActionError, match="Timeout 500ms"):
        gym.act('fill("12", "1.00")')
    assert len(env.sent) == 3


def test_a_timed_out_click_is_never_repeated():
    gym, env = portal([TIMEOUT.replace("fill", "click"), ""])
    with pytest.raises(OracleActionError, match="Timeout"):
        gym.act('click("31")')
    assert env.sent == ['click("31")']


def test_a_field_refused_for_another_reason_is_not_retried():
    gym, env = portal(["Error: Element is not an <input>, <textarea> or <select> element", ""])
    with pytest.raises(OracleActionError, match="not an <input>"):
        gym.act('fill("12", "1.00")')
    assert env.sent == ['fill("12", "1.00")']
