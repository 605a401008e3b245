"""G_sub_accrual's browser attempts in Chromium, on job 3412: the portal form (Procore's
commitment pages and pay apps, Intacct's bills and journal entry form) passes; a reply that
claims the entry was posted fails for it."""
from __future__ import annotations

import re

import pytest

from agent.policies import AttemptPolicy
from agent.runner import Harness
from tasks.registry import all_tasks

TASK = next(t for t in all_tasks() if t.instance_id == "cf_G_sub_accrual_3412")
NEAR_MISSES = [a for a in TASK.near_misses if a.browser]
VARIANTS = [a for a in TASK.variants if a.browser]


@pytest.fixture(scope="module")
def browser_harness(e2e_store, live_server, browser):
    with Harness("browser", e2e_store, server=live_server, browser=browser) as h:
        yield h


@pytest.mark.parametrize("attempt", NEAR_MISSES, ids=[a.name for a in NEAR_MISSES])
def test_a_browser_near_miss_fails_and_says_why(browser_harness, attempt):
    run = browser_harness.run_one(TASK, AttemptPolicy(attempt))
    assert "error" not in run, run.get("error")
    assert not run["passed"]
    assert any(re.search(attempt.because, line, re.I) for line in run["verdict"]), run["verdict"]


@pytest.mark.parametrize("attempt", VARIANTS, ids=[a.name for a in VARIANTS])
def test_a_browser_variant_passes(browser_harness, attempt):
    run = browser_harness.run_one(TASK, AttemptPolicy(attempt))
    assert run["passed"] and run["score"] == 1.0, (run.get("error"), run["verdict"])
    assert run["calls"] and all(c["source"] == "ui" for c in run["calls"])
