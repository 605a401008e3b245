"""SL change orders: entering one writes that one open row; it waits in the open SL batch and
changes the subcontract's current cost only once posted."""
from __future__ import annotations

import pytest

from conftest import post_form

APP = "vista_erp"
APPS = [APP]


def call(env, name, args=None):
    return env.call(f"{APP}.{name}", args or {})


def an_open_subcontract(env) -> str:
    return call(env, "sl.subcontracts.list", {"status": "Approved", "per_page": 1})["items"][0]["number"]


def test_entering_a_change_order_writes_one_open_row_and_moves_no_cost(env, episode):
    number = an_open_subcontract(env)
    before = call(env, "sl.subcontract.get", {"subcontract": number})
    made = call(env, "sl.change_order.create", {"subcontract": number, "description": "Added scope per RFI 99",
                                                "amount": "12345.67", "act_date": "2026-06-29"})
    assert made["status"] == "open" and made["change_order"] == len(before["change_order_list"]) + 1
    assert set(episode.diff()[APP]) == {"sl_change_orders"}
    after = call(env, "sl.subcontract.get", {"subcontract": number})
    assert after["cur_cost"] == before["cur_cost"]
    open_sl = call(env, "hq.batches.list", {"status": "open", "source": "SL Change"})["items"][0]
    assert any(e["record"] == f"{number}|{made['change_order']}" for e in
               call(env, "hq.batch.get", {"mth": open_sl["mth"], "batch_id": open_sl["batch_id"], "per_page": 100})["items"])


@pytest.mark.parametrize("which,change,words", [
    ("po", {}, "purchase order"), ("open", {"item": 99}, "no item"), ("open", {"amount": "0"}, "greater than zero"),
    ("closed", {}, "takes no change orders"), ("none", {}, "no subcontract"),
])
def test_refusals(env, episode, which, change, words):
    number = {"po": lambda: call(env, "po.purchase_orders.list")["items"][0]["number"],
              "open": lambda: an_open_subcontract(env),
              "closed": lambda: call(env, "sl.subcontracts.list", {"status": "Complete"})["items"][0]["number"],
              "none": lambda: "ACME-0001"}[which]()
    result = call(env, "sl.change_order.create", {"subcontract": number, "description": "x", "amount": "10.00",
                                                  "act_date": "2026-06-29", **change})
    assert words in result["message"], result
    assert episode.diff() == {}


def test_the_form_enters_the_same_change_order(client, env, episode):
    number = an_open_subcontract(env)
    resp = post_form(client, f"/{APP}/sl/change-orders/new", {"subcontract": number, "item": "1",
                                                              "act_date": "2026-06-29", "description": "Added scope",
                                                              "amount": "-500.00"})
    assert resp.status_code == 302
    assert "open batch" in client.get(resp.location).get_data(as_text=True)
    assert len(episode.diff()[APP]["sl_change_orders"]["added"]) == 1
    bad = post_form(client, f"/{APP}/sl/change-orders/new", {"subcontract": number, "act_date": "",
                                                             "description": "x", "amount": "1"})
    assert bad.status_code == 422 and 'id="e-act_date"' in bad.get_data(as_text=True)
