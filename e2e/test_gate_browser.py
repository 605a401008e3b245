"""The admission gate in Chromium, on one representative instance per family
(`make validate` runs every instance)."""
from __future__ import annotations

import pytest

from agent.runner import Harness
from agent.validate import one_per_family, validate
from tasks.registry import all_tasks

REPRESENTATIVES = {t.instance_id: t for t in one_per_family(all_tasks())}


@pytest.fixture(scope="module")
def browser_harness(e2e_store, live_server, browser):
    with Harness("browser", e2e_store, server=live_server, browser=browser) as h:
        yield h


@pytest.mark.parametrize("instance_id", sorted(REPRESENTATIVES))
def test_the_gate_holds_in_the_browser(browser_harness, instance_id):
    (report,) = validate([REPRESENTATIVES[instance_id]], "browser", browser_harness)
    assert report.ok, "\n".join(report.problems)
