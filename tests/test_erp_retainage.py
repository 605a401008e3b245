"""Retainage: held per bill and totalled per subcontract; releasing it is guarded, and the button
shows only where there is retainage to release."""
from __future__ import annotations

from decimal import Decimal

import pytest

from conftest import post_form
from portals.core.registry import load_apps

APPS = ["sage_intacct", "foundation_erp", "sage300cre", "cmic", "acumatica_construction"]


def tool(app, service):
    return f"{app}.{load_apps()[app].service_tool_names[service]}"


@pytest.mark.parametrize("app", APPS)
def test_held_retainage_is_the_subcontracts_share_of_its_bills(env, episode, app):
    rows = env.call(tool(app, "query_retainage"), {"state": "held", "per_page": 50})["items"]
    assert rows
    for r in rows:
        expected = (Decimal(r["bill_amount"]) * Decimal(r["retainage_pct"]) / 100).quantize(Decimal("0.01"))
        assert abs(Decimal(r["held"]) - expected) <= Decimal("0.01"), r  # the pay application's own rounding
    detail = env.call(tool(app, "get_retainage"), {"commitment": rows[0]["commitment"]})
    held = sum(Decimal(b["held"]) for b in detail["bills"] if b["state"] == "held")
    assert Decimal(detail["held"]) == held
    assert episode.diff() == {}


@pytest.mark.parametrize("app", APPS)
def test_the_totals_follow_the_filters(env, app):
    some = env.call(tool(app, "query_retainage"), {"state": "held", "per_page": 1})["items"][0]
    one = env.call(tool(app, "query_retainage"), {"commitment": some["commitment"], "per_page": 100})
    total = sum(Decimal(r["held"]) for r in one["items"] if r["state"] == "held")
    assert Decimal(one["totals"]["held"]) == total


@pytest.mark.parametrize("app", APPS)
def test_releasing_is_staged_and_changes_nothing(env, episode, app):
    commitment = env.call(tool(app, "query_retainage"), {"state": "held", "per_page": 1})["items"][0]["commitment"]
    before = episode.snapshot()
    result = env.call(tool(app, "release_retainage"), {"commitment": commitment})
    assert result["status"] == "pending_human_approval", result
    assert Decimal(result["staged"]["total"]) == Decimal(env.call(tool(app, "get_retainage"),
                                                                  {"commitment": commitment})["held"])
    assert episode.snapshot() == before and len(episode.guard_log) == 1


def test_released_retainage_cannot_be_released_again_and_has_no_button(env, client, episode):
    app = "sage_intacct"
    released = env.call(tool(app, "query_retainage"), {"state": "released", "per_page": 100})["items"]
    held_on = {r["commitment"] for r in env.call(tool(app, "query_retainage"), {"state": "held", "per_page": 100})["items"]}
    done = next(r["commitment"] for r in released if r["commitment"] not in held_on)
    result = env.call(tool(app, "release_retainage"), {"commitment": done})
    assert "nothing to release" in result["message"] and episode.guard_log[-1]["refused"]
    page = client.get(f"/{app}/retainage/{done}").get_data(as_text=True)
    assert "/release" not in page
    resp = post_form(client, f"/{app}/retainage/{done}/release", {})
    assert resp.status_code == 422 and "nothing to release" in resp.get_data(as_text=True)
    assert episode.diff() == {}
