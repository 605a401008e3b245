"""H_procore_erp_sync's gate in Chromium, on job 1042: the portal near-misses fail for the
reason they name, the portal variants pass."""
from __future__ import annotations

import re

import pytest

from agent.policies import AttemptPolicy
from agent.runner import Harness
from tasks.registry import get

TASK = get("cf_H_procore_erp_sync_1042")


@pytest.fixture(scope="module")
def browser_harness(e2e_store, live_server, browser):
    with Harness("browser", e2e_store, server=live_server, browser=browser) as h:
        yield h


@pytest.mark.parametrize("attempt", [a for a in TASK.near_misses if a.browser], ids=lambda a: a.name)
def test_each_portal_near_miss_fails_for_the_reason_it_names(browser_harness, attempt):
    run = browser_harness.run_one(TASK, AttemptPolicy(attempt))
    assert not run["passed"] and "error" not in run, run.get("error")
    assert any(re.search(attempt.because, line, re.I) for line in run["verdict"]), run["verdict"]


@pytest.mark.parametrize("attempt", [a for a in TASK.variants if a.browser], ids=lambda a: a.name)
def test_each_portal_variant_passes(browser_harness, attempt):
    run = browser_harness.run_one(TASK, AttemptPolicy(attempt))
    assert run["passed"] and run["score"] == 1.0, run["verdict"]
    assert all(c["source"] == "ui" for c in run["calls"]), "a portal variant must work the portal"
