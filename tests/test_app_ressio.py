"""Ressio: jobs by stage, the budget ladder (Original -> Revised -> Committed -> Applied), purchase
orders and subcontracts, bills and client invoices; the paper's shared commitment SC-1042-0 as a
view of the same book record under Ressio's own keys; sending to the homeowner is guarded."""
from __future__ import annotations

from decimal import Decimal

from conftest import post_form

APPS = ["ressio", "procore", "redteam"]
D = Decimal


def test_the_shared_commitment_is_the_same_book_record_under_ressios_own_keys(env):
    rs = env.call("ressio.purchase_order.get", {"number": "SC1042-00"})
    pc = env.call("procore.commitments.get", {"number": "SC-1042-0"})
    assert rs["book_number"] == pc["number"] == "SC-1042-0"
    assert rs["amount"] == pc["amount"] == "632000.00" and rs["status"] == pc["status"]
    assert rs["vendor"]["origin_id"] == pc["vendor"]["origin_id"]
    assert rs["vendor"]["name"] == "WALSH ELECTRICAL INC" != pc["vendor"]["name"]  # its own spelling
    assert rs["vendor"]["vendor_id"] != pc["vendor"]["vendor_id"]  # its own id
    assert rs["billed_to_date"] == pc["invoiced_to_date"]
    listed = env.call("ressio.purchase_orders.list", {"project_number": "1042", "per_page": 100})["items"]
    assert "SC1042-00" in {c["number"] for c in listed}


def test_jobs_move_through_ressios_stages(env):
    result = env.call("ressio.jobs.list", {"per_page": 100})
    assert {"Lead", "Estimating", "In Production", "Completed"} <= set(result["stage_counts"])
    assert set(result["stage_counts"]) <= {"Lead", "Estimating", "Sold", "In Production", "Completed"}
    assert env.call("ressio.jobs.list", {"stage": "Proposal"})["error"]  # RedTeam's stage, not Ressio's


def test_the_budget_ladder_steps_from_original_to_applied_and_ties_to_the_records(env):
    ladder = env.call("ressio.budget.get", {"project_number": "1042"})
    assert ladder["items"]
    for r in ladder["items"]:
        assert D(r["revised"]) == D(r["original"]) + D(r["approved_changes"])
        assert D(r["committed_vs_applied"]) == D(r["committed"]) - D(r["applied"])
        assert D(r["uncommitted"]) == D(r["revised"]) - D(r["committed"])
    totals = ladder["totals"]
    assert D(totals["committed"]) == sum(D(r["committed"]) for r in ladder["items"])
    # the shared commitment's lines are committed on the ladder
    sc = env.call("ressio.purchase_order.get", {"number": "SC1042-00"})
    for line in sc["lines"]:
        row = next(r for r in ladder["items"] if (r["cost_code"], r["cost_type"]) == (line["cost_code"], line["cost_type"]))
        assert D(row["committed"]) >= D(line["scheduled_value"])
    assert env.call("ressio.budget.get", {"project_number": "0000"})["error"]
    assert env.call("ressio.budget.get", {"project_number": "1042", "cost_type": "Z"})["error"]


def test_a_client_invoice_is_checked_and_only_staged_when_sent_to_the_homeowner(env, episode):
    before = episode.snapshot()
    for args in ({"project_number": "1042", "period_end": "2026-06-30", "lines": ["1|x"]},
                 {"project_number": "L-3101", "period_end": "2026-06-30", "lines": ["1|10.00"]}):
        assert env.call("ressio.invoices.create", args)["error"]
    assert episode.snapshot() == before
    made = env.call("ressio.invoices.create",
                    {"project_number": "1042", "period_end": "2026-06-30", "lines": ["1|1,000.00"]})
    assert made["status"] == "Draft" and made["number"].startswith("CI1042-")
    drafted = episode.snapshot()
    staged = env.call("ressio.invoice.send", {"number": made["number"]})
    assert staged["status"] == "pending_human_approval" and episode.snapshot() == drafted
    assert env.call("ressio.invoice.get", {"number": made["number"]})["status"] == "Draft"


def test_the_pages_show_ressios_own_tabs_and_not_other_products_screens(client):
    home = client.get("/ressio/?stage=Estimating").get_data(as_text=True)
    assert "Jobs" in home and "L-3101" in home
    page = client.get("/ressio/projects/1042/budget-ladder").get_data(as_text=True)
    assert "Committed less Applied" in page and "Original" in page
    assert "/ressio/projects/1042/budget-ladder" in client.get("/ressio/projects/1042").get_data(as_text=True)
    assert client.get("/ressio/projects/1042/budget").status_code == 404  # RedTeam's Budget tab is not Ressio's
    assert client.get("/ressio/eapps").status_code == 404
    assert client.get("/ressio/erp").status_code == 404
    po = client.get("/ressio/projects/1042/commitments/SC1042-00").get_data(as_text=True)
    assert "WALSH ELECTRICAL INC" in po and "Sub Bills" in po


def test_the_purchase_orders_list_shows_the_quickbooks_sync_status(client, env):
    page = client.get("/ressio/projects/1042/commitments").get_data(as_text=True)
    assert "QuickBooks Sync" in page and "Purchase Orders" in page
    rows = env.call("ressio.purchase_orders.list", {"project_number": "1042", "per_page": 100})["items"]
    assert {r["erp_status"] for r in rows} <= {"synced", "not_synced"}
    assert "QuickBooks Sync" not in client.get("/redteam/projects/1042/commitments").get_data(as_text=True)


def test_a_client_change_order_s_buttons_refuse_with_the_form_kept_apply_and_stage(client, env, episode):
    """The change order page's forms: a hold without a reason is refused on the page itself (422,
    the note typed kept) and changes nothing; a hold with one is saved and the browser is sent
    back to the record; "Send to client" stages the request and changes nothing."""
    [order] = env.call("ressio.client_change_orders.list", {"project_number": "4012", "per_page": 1})["items"]
    page = f"/ressio/projects/4012/change-orders/{order['number']}"
    before = episode.snapshot()
    refused = post_form(client, page + "/hold", {"reason": "", "note": "kept note"})
    assert refused.status_code == 422 and "kept note" in refused.get_data(as_text=True)
    assert episode.snapshot() == before
    held = post_form(client, page + "/hold", {"reason": "Amount differs", "note": "lines do not add up"})
    assert held.status_code == 302 and held.headers["Location"].endswith(page)
    assert env.call("ressio.client_change_order.get", {"project_number": "4012", "number": order["number"]}
                    )["budget_status"] != order["budget_status"]
    after_hold = episode.snapshot()
    sent = post_form(client, page + "/send", {})
    assert sent.status_code == 200 and "approval" in sent.get_data(as_text=True).lower()
    assert episode.snapshot() == after_hold
    assert post_form(client, "/ressio/projects/4012/change-orders/CO-NOPE/hold", {"reason": "Other"}).status_code == 404
