"""The standard cost type catalog and the dimensions: each cost type posts to a job-cost expense
account, and the dimensions count the values costs are coded by."""
from __future__ import annotations

APP = "sage_intacct"
APPS = [APP]


def test_every_cost_type_posts_to_an_expense_account(env, episode):
    types = env.call(f"{APP}.construction/standard-cost-type.query")["items"]
    assert {t["cost_type_id"] for t in types} == {"L", "M", "S", "E", "O"}
    accounts = {a["account"]: a for a in env.call(f"{APP}.general-ledger/account.query")["items"]}
    for t in types:
        assert accounts[t["gl_account"]]["type"] == "expense" and t["gl_account_title"]
    assert episode.diff() == {}


def test_the_dimensions_count_what_the_lists_hold(env, client):
    dims = {d["dimension"]: d["values"] for d in env.call(f"{APP}.company-config/dimension.query")["items"]}
    assert dims["project"] == env.call(f"{APP}.projects/project.list")["total"]
    assert dims["vendor"] == env.call(f"{APP}.accounts-payable/vendor.query")["total"]
    assert dims["entity"] == env.call(f"{APP}.company-config/entity.query")["total"]
    page = client.get(f"/{APP}/dimensions").get_data(as_text=True)
    assert f'href="/{APP}/cost-types"' in page and f'href="/{APP}/jobs"' in page
    assert client.get(f"/{APP}/cost-types/M").status_code == 200
    assert client.get(f"/{APP}/cost-types/Q").status_code == 404
