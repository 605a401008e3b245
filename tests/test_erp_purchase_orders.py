"""Subcontracts in SL and purchase orders in PO: each list holds its own kind, items add up to the
original cost, and current cost counts posted change orders only."""
from __future__ import annotations

from decimal import Decimal

APP = "vista_erp"
APPS = [APP]


def call(env, name, args=None):
    return env.call(f"{APP}.{name}", args or {})


def test_each_module_lists_its_own_kind(env, client, episode):
    assert {c["type"] for c in call(env, "sl.subcontracts.list", {"per_page": 100})["items"]} == {"subcontract"}
    pos = call(env, "po.purchase_orders.list", {"per_page": 100})["items"]
    assert {c["type"] for c in pos} == {"purchase_order"}
    refused = call(env, "po.purchase_order.get", {"purchase_order": call(env, "sl.subcontracts.list")["items"][0]["number"]})
    assert "not a purchase order" in refused["message"]
    po = pos[0]
    subs = call(env, "sl.subcontracts.list", {"project_id": po["project_id"], "per_page": 100})["items"]
    sl_page = client.get(f"/{APP}/commitments?project_id={po['project_id']}&per_page=100").get_data(as_text=True)
    assert all(f">{s['number']}<" in sl_page for s in subs) and f">{po['number']}<" not in sl_page
    assert f">{po['number']}<" in client.get(f"/{APP}/po/purchase-orders?project_id={po['project_id']}&per_page=100").get_data(as_text=True)
    assert episode.diff() == {}


def test_items_add_up_and_current_cost_counts_posted_change_orders(env):
    co = call(env, "sl.change_orders.list", {"status": "posted", "per_page": 1})["items"][0]
    sub = call(env, "sl.subcontract.get", {"subcontract": co["subcontract"]})
    assert sum(Decimal(i["orig_cost"]) for i in sub["items"]) == Decimal(sub["orig_cost"])
    posted = sum(Decimal(o["amount"]) for o in sub["change_order_list"] if o["status"] == "posted")
    assert Decimal(sub["cur_cost"]) == Decimal(sub["orig_cost"]) + posted
    assert Decimal(sub["remaining"]) == Decimal(sub["cur_cost"]) - Decimal(sub["inv_cost"])
    po = call(env, "po.purchase_orders.list", {"per_page": 1})["items"][0]
    got = call(env, "po.purchase_order.get", {"purchase_order": po["number"]})
    assert sum(Decimal(i["orig_cost"]) for i in got["items"]) == Decimal(got["orig_cost"])
