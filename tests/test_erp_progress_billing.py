"""JB progress billing: each bill's previous billing is the last bill's billed to date, its items
add up to it, and nothing is billed past the contract."""
from __future__ import annotations

from decimal import Decimal

APP = "vista_erp"
APPS = [APP]


def call(env, name, args=None):
    return env.call(f"{APP}.{name}", args or {})


def test_bills_chain_and_stay_within_the_contract(env, episode):
    job = call(env, "jb.progress_bills.list", {"per_page": 1})["items"][0]["project_id"]
    bills = sorted(call(env, "jb.progress_bills.list", {"project_id": job, "per_page": 100})["items"],
                   key=lambda b: b["application"])
    assert [b["application"] for b in bills] == list(range(1, len(bills) + 1))
    billed = Decimal("0.00")
    for b in bills:
        assert Decimal(b["previous_billed"]) == billed
        billed = Decimal(b["billed_to_date"])
        assert Decimal(b["amount_due"]) == Decimal(b["this_period"]) - Decimal(b["retainage"])
    assert billed <= Decimal(bills[-1]["contract_amount"])
    assert episode.diff() == {}


def test_a_bills_items_add_up_to_it(env, client):
    b = call(env, "jb.progress_bills.list", {"status": "interfaced", "per_page": 1})["items"][0]
    got = call(env, "jb.progress_bill.get", {"project_id": b["project_id"], "application": b["application"]})
    for key, total in (("previous", "previous_billed"), ("this_period", "this_period"), ("retainage", "retainage")):
        assert sum(Decimal(i[key]) for i in got["items"]) == Decimal(got[total]), key
    assert all(Decimal(i["this_period"]) >= 0 for i in got["items"])
    page = client.get(f"/{APP}/jb/progress-bills/{b['project_id']}/{b['application']}").get_data(as_text=True)
    assert "Scheduled value" in page
    assert client.get(f"/{APP}/jb/progress-bills/{b['project_id']}/9999").status_code == 404
