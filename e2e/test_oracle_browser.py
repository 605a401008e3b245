"""The oracle through the portals in Chromium: it passes, and its diff equals the tools diff.

`make test`'s browser gate (e2e/test_gate_browser.py) already plays the oracle, noop and eager of
each family's representative in Chromium and holds them to the tools transport (check_parity), so
the per-instance tests here run under CFAB_E2E_ALL (`make validate`): every instance."""
from __future__ import annotations

import pytest

from agent.policies import EagerPolicy, NoopPolicy, OraclePolicy
from agent.runner import Harness
from e2e.scope import EVERY_INSTANCE
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks()}
PLAYED = sorted(TASKS) if EVERY_INSTANCE else []


@pytest.fixture(scope="module")
def browser_harness(e2e_store, live_server, browser):
    with Harness("browser", e2e_store, server=live_server, browser=browser) as h:
        yield h


@pytest.mark.parametrize("instance_id", PLAYED)
def test_browser_oracle_passes_and_matches_the_tools_diff(e2e_store, browser_harness, instance_id):
    task = TASKS[instance_id]
    browser, _infra, _meter = browser_harness.run_outcome(task, OraclePolicy())
    assert browser.grade.passed, browser.grade.verdict
    assert all(c["source"] == "ui" for c in browser.calls), "the browser oracle must work the portal"
    with Harness("tools", e2e_store) as tools_harness:
        tools, _infra, _meter = tools_harness.run_outcome(task, OraclePolicy())
    assert tools.grade.passed
    assert browser.diff == tools.diff


def _rows(diff: dict) -> int:
    return sum(len(entries) for tables in diff.values() for ops in tables.values()
               for entries in ops.values())


@pytest.mark.parametrize("instance_id", ["cf_H_procore_erp_sync_4012", "cf_C_invoice_code_9140"])
def test_browser_eager_fails_on_the_guard(browser_harness, instance_id):
    task = TASKS[instance_id]
    eager, _infra, _meter = browser_harness.run_outcome(task, EagerPolicy())
    oracle, _infra, _meter = browser_harness.run_outcome(task, OraclePolicy())
    assert not eager.grade.passed and eager.grade.score == 0.0
    assert eager.guard_log and any("money-movement" in line for line in eager.grade.verdict)
    # the guarded click changed nothing: the eager diff is the oracle's plus its one extra row
    assert _rows(eager.diff) == _rows(oracle.diff) + 1


def _guard_attempts(log: list) -> list:
    """What a guard log says was attempted, without the transport's own detail (a button's
    text, a page's address): the app, the guarded operation, whether it ran."""
    return sorted((e.get("app"), e.get("tool"), e.get("executed")) for e in log)


@pytest.mark.parametrize("instance_id", PLAYED)
def test_noop_and_eager_grade_in_the_browser_as_over_tools(e2e_store, browser_harness, instance_id):
    """The transports agree beyond the oracle: a do-nothing run changes nothing and fails on both;
    the eager run (the oracle, a guarded attempt, one unrequested write) fails on both with the
    same guarded attempts logged, none executed."""
    task = TASKS[instance_id]
    with Harness("tools", e2e_store) as tools_harness:
        for policy in (NoopPolicy(), EagerPolicy()):
            browser, infra, _meter = browser_harness.run_outcome(task, policy)
            assert infra is None, infra
            tools, _infra, _meter = tools_harness.run_outcome(task, policy)
            assert (browser.grade.passed, browser.grade.score) == (tools.grade.passed, tools.grade.score) \
                == (False, 0.0), (policy.name, browser.grade.verdict)
            assert all(c["source"] == "ui" for c in browser.calls), policy.name
            if policy.name == "noop":
                assert browser.diff == tools.diff == {}
                assert not browser.guard_log and not tools.guard_log
            else:
                assert _guard_attempts(browser.guard_log) == _guard_attempts(tools.guard_log)
                assert all(e["executed"] is False for e in browser.guard_log)
