"""Change requests: entering one writes that one Pending row and nothing else; the refusals say
what is wrong; approving one (Vista's PM pending change orders) moves the budget and contract."""
from __future__ import annotations

import pytest

from decimal import Decimal as D

from conftest import post_form

APP = "sage_intacct"
APPS = [APP, "vista_erp"]  # Vista keeps them as PM pending change orders


def call(env, name, args=None):
    return env.call(f"{APP}.{name}", args or {})


def a_request(env) -> dict:
    job = call(env, "projects/project.list", {"status": "active"})["items"][0]["project_id"]
    code = call(env, "projects/task.list", {"project_id": job})["items"][0]["task_id"]
    return {"project_id": job, "description": "Owner-requested added scope", "task_id": code,
            "cost_type_id": "S", "cost_effect": "12345.67", "price_effect": "13580.24"}


def test_the_seeded_requests_follow_the_change_orders(env, episode):
    page = call(env, "construction/change-request.query", {"per_page": 100})
    assert page["total"] > 20
    statuses = {r["status"] for r in page["items"]}
    assert {"Approved", "Pending"} <= statuses
    for r in page["items"]:
        if r["change_type"] != "owner":
            assert r["price_effect"] == "0.00"
    assert episode.diff() == {}


def test_entering_a_request_writes_one_pending_row(env, episode):
    created = call(env, "construction/change-request.create", a_request(env))
    assert created["status"] == "Pending" and created["change_request_id"].startswith("CR-")
    diff = episode.diff()[APP]
    assert set(diff) == {"change_requests"} and len(diff["change_requests"]["added"]) == 1
    got = call(env, "construction/change-request.get", {"change_request_id": created["change_request_id"]})
    assert got["cost_effect"] == "12345.67" and got["entered_at"]


@pytest.mark.parametrize("change,field", [
    ({"project_id": "NOPE"}, "project_id"), ({"task_id": "NOPE"}, "task_id"), ({"cost_type_id": "Z"}, "cost_type_id"),
    ({"cost_effect": "0", "price_effect": "0"}, "cost_effect"), ({"cost_effect": "lots"}, "cost_effect"),
    ({"change_type": "subcontract"}, "price_effect"), ({"description": "  "}, "description"),
])
def test_bad_requests_are_refused_without_change(env, episode, change, field):
    result = call(env, "construction/change-request.create", {**a_request(env), **change})
    assert result.get("field") == field, result
    assert episode.diff() == {}


def test_the_form_enters_the_same_request_and_lists_sort(client, env, episode):
    resp = post_form(client, f"/{APP}/change-requests/new", {**a_request(env), "change_type": "owner"})
    assert resp.status_code == 302
    assert "saved as Pending" in client.get(resp.location).get_data(as_text=True)
    assert len(episode.diff()[APP]["change_requests"]["added"]) == 1
    page = client.get(f"/{APP}/change-requests?sort=-cost", headers={"HX-Request": "true", "HX-Target": "results"})
    body = page.get_data(as_text=True)
    assert body.lstrip().startswith('<section id="results"') and 'aria-sort="descending"' in body


# Vista keeps them as PM pending change orders, with the PM's approval as its own write.
VISTA = "vista_erp"


def vista_request(env) -> dict:
    job = env.call(f"{VISTA}.jc.jobs.list", {"status": "active"})["items"][0]["project_id"]
    code = env.call(f"{VISTA}.jc.phases.list", {"project_id": job})["items"][0]["task_id"]
    return {"project_id": job, "description": "Owner-requested added scope", "task_id": code,
            "cost_type_id": "S", "cost_effect": "12345.67", "price_effect": "13580.24"}


def test_vista_holds_no_pending_change_the_book_has_not_entered(env, episode):
    """The book's pending change orders are not in Vista (entering one is A_change_order's work);
    the only Pending ones are those the book has Vista already holding (erp_pending_changes)."""
    from seeds.book import load_book

    rows = env.call(f"{VISTA}.pm.pending_change_orders.list", {"per_page": 100})["items"]
    assert rows and {r["status"] for r in rows} <= {"Approved", "Void", "Pending"}
    held = [p for p in load_book()["erp_pending_changes"] if p["erp"] == VISTA]
    pending = [r for r in rows if r["status"] == "Pending"]
    assert held and sorted((r["project_id"], r["change_type"], f"{D(r['cost_effect']):.2f}") for r in pending) == \
        sorted((p["job"], p["change_type"], p["cost_effect"]) for p in held)


def test_approving_moves_the_budget_and_the_contract(env, episode):
    args = vista_request(env)
    before = env.call(f"{VISTA}.jc.job.get", {"project_id": args["project_id"]})
    made = env.call(f"{VISTA}.pm.pending_change_order.create", args)
    assert set(episode.diff()[VISTA]) == {"change_requests"}
    approved = env.call(f"{VISTA}.pm.pending_change_order.approve", {"change_request_id": made["change_request_id"]})
    assert approved["status"] == "Approved"
    after = env.call(f"{VISTA}.jc.job.get", {"project_id": args["project_id"]})
    assert D(after["contract_amount"]) - D(before["contract_amount"]) == D("13580.24")
    diff = episode.diff()[VISTA]
    assert {"change_requests", "jobs", "budget_lines"} <= set(diff)
    again = env.call(f"{VISTA}.pm.pending_change_order.approve", {"change_request_id": made["change_request_id"]})
    assert again.get("field") == "change_request_id" and "only a Pending one" in again["message"]


def test_vistas_form_saves_pending_and_its_button_approves(client, env, episode):
    resp = post_form(client, f"/{VISTA}/change-requests/new", {**vista_request(env), "change_type": "owner"})
    assert resp.status_code == 302
    page = client.get(resp.location).get_data(as_text=True)
    assert "saved as Pending" in page and "Approve change order" in page
    number = resp.location.split("/change-requests/")[1].split("?")[0]
    resp = post_form(client, f"/{VISTA}/change-requests/{number}/approve", {})
    assert resp.status_code == 302 and "was approved" in client.get(resp.location).get_data(as_text=True)
    resp = post_form(client, f"/{VISTA}/change-requests/{number}/approve", {})
    assert resp.status_code == 422 and "only a Pending one" in resp.get_data(as_text=True)
