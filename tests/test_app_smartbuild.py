"""SmarteBuild (a design on SmartApp's pattern): projects by stage, the bill of quantities with the
site's measurement, the client contract's billing schedule and client pay apps (progress
claims), subcontracts and their sub pay apps; the paper's shared commitment SC-1042-0 as a view
of the same book record under SmarteBuild's own keys; signing and submitting a claim is guarded."""
from __future__ import annotations

from decimal import Decimal

APPS = ["smartbuild", "procore", "ressio"]
D = Decimal


def test_the_shared_commitment_is_the_same_book_record_under_smartebuilds_own_keys(env):
    sb = env.call("smartbuild.subcontract.get", {"number": "SUB-1042.00"})
    pc = env.call("procore.commitments.get", {"number": "SC-1042-0"})
    assert sb["book_number"] == pc["number"] == "SC-1042-0"
    assert sb["amount"] == pc["amount"] == "632000.00" and sb["status"] == pc["status"]
    assert sb["vendor"]["origin_id"] == pc["vendor"]["origin_id"]
    assert sb["vendor"]["name"] == "Walsh Electrical Inc" != pc["vendor"]["name"]  # its own spelling
    assert sb["vendor"]["vendor_id"] != pc["vendor"]["vendor_id"]  # its own id
    listed = env.call("smartbuild.subcontracts.list", {"project_number": "1042", "per_page": 100})["items"]
    assert "SUB-1042.00" in {c["number"] for c in listed}


def test_projects_move_through_smartebuilds_stages(env):
    result = env.call("smartbuild.projects.list", {"per_page": 100})
    assert {"Estimate", "In Progress", "Handed Over"} <= set(result["stage_counts"])
    assert env.call("smartbuild.projects.list", {"stage": "In Production"})["error"]  # Ressio's, not SmarteBuild's


def test_the_boq_prices_each_billing_line_and_shows_the_measurement(env):
    boq = env.call("smartbuild.boq.get", {"project_number": "7048"})
    sov = {line["line_no"]: D(line["scheduled_value"]) for line in env.call("smartbuild.contracts.get",
                                                                           {"project_number": "7048"})["lines"]}
    contract = [r for r in boq["items"] if r["kind"] == "contract"]
    assert {r["line_no"] for r in contract} == set(sov)
    for r in contract:  # quantity x rate is the line's scheduled value to the cent
        assert D(r["contract_value"]) == D(r["quantity"]) * D(r["rate"]) == sov[r["line_no"]]
        assert D(r["measured_value"]) == (D(r["measured_qty"]) * D(r["rate"])).quantize(D("0.01"))
    assert any(D(r["measured_pct"]) > 100 for r in contract)  # shown as measured, not capped
    (variation,) = env.call("smartbuild.boq.get", {"project_number": "7048", "kind": "variation"})["items"]
    assert variation["change_order"] == "CO-7048-001" and variation["change_order_status"].startswith("Pending")
    assert D(boq["totals"]["contract_value"]) == sum(D(r["contract_value"]) for r in boq["items"])
    assert env.call("smartbuild.boq.get", {"project_number": "0000"})["error"]
    assert env.call("smartbuild.boq.get", {"project_number": "7048", "kind": "lump"})["error"]
    assert env.call("smartbuild.boq.get", {"project_number": "7048", "per_page": 0})["error"]


def test_the_reestimate_prices_each_budget_line_of_the_job_at_its_cost_to_build(env):
    re = env.call("smartbuild.reestimate.get", {"project_number": "2728"})
    assert re["total"] == len(re["items"]) > 20 and {r["estimated_on"] for r in re["items"]} == {"2026-06-30"}
    assert D(re["totals"]["reestimate"]) == sum(D(r["reestimate"]) for r in re["items"])
    (paving,) = env.call("smartbuild.reestimate.get", {"project_number": "2728", "search": "32-130"})["items"]
    assert paving["cost_type"] == "S" and paving["description"]
    subs = env.call("smartbuild.reestimate.get", {"project_number": "2728", "cost_type": "S"})["items"]
    assert subs and {r["cost_type"] for r in subs} == {"S"}
    assert env.call("smartbuild.reestimate.get", {"project_number": "0000"})["error"]
    assert env.call("smartbuild.reestimate.get", {"project_number": "2728", "cost_type": "Z"})["error"]
    assert env.call("smartbuild.reestimate.get", {"project_number": "2728", "per_page": 0})["error"]


def test_a_claim_is_checked_saved_as_a_draft_and_only_staged_when_signed_and_submitted(env, episode):
    before = episode.snapshot()
    for args in ({"project_number": "7048", "period_end": "2026-06-30", "lines": ["3|x"]},
                 {"project_number": "7048", "period_end": "2026-06-30", "lines": ["99|10.00"]},
                 {"project_number": "7048", "period_end": "2026-06-30", "lines": ["7|99999999.00"]},
                 {"project_number": "EST-4101", "period_end": "2026-06-30", "lines": ["1|10.00"]}):
        assert env.call("smartbuild.client_pay_app.create", args)["error"]
    assert episode.snapshot() == before
    made = env.call("smartbuild.client_pay_app.create",
                    {"project_number": "7048", "period_end": "2026-06-30", "lines": ["3|1,000.00"]})
    assert made["status"] == "Draft" and made["number"].startswith("PC-7048-")
    drafted = episode.snapshot()
    staged = env.call("smartbuild.client_pay_app.sign_and_submit", {"number": made["number"]})
    assert staged["status"] == "pending_human_approval" and episode.snapshot() == drafted
    assert env.call("smartbuild.client_pay_app.get", {"number": made["number"]})["status"] == "Draft"


def test_the_pages_show_smartebuilds_own_tabs_words_and_not_other_products_screens(client):
    home = client.get("/smartbuild/?stage=Estimate").get_data(as_text=True)
    assert "EST-4101" in home and "SmartBuild" not in home
    page = client.get("/smartbuild/projects/7048/boq").get_data(as_text=True)
    assert "Bill of Quantities" in page and "Measured Qty to Date" in page and "CO-7048-001" in page
    assert "03.V01" in client.get("/smartbuild/projects/7048/boq?kind=variation").get_data(as_text=True)
    claims = client.get("/smartbuild/customer-invoices").get_data(as_text=True)
    assert "Submitted &amp; waiting for other party" in claims and "Authorized" in claims
    assert 'class="sb-board"' in claims and "Client Pay Apps" in claims
    assert 'class="sb-board"' not in client.get("/ressio/customer-invoices").get_data(as_text=True)
    assert client.get("/smartbuild/projects/7048").status_code == 200
    assert client.get("/smartbuild/projects/7048/budget").status_code == 404
    assert client.get("/smartbuild/projects/7048/budget-ladder").status_code == 404
    assert client.get("/smartbuild/eapps").status_code == 404
    assert client.get("/smartbuild/projects/0000/boq").status_code == 404
    re = client.get("/smartbuild/projects/2728/reestimate?search=32-130").get_data(as_text=True)
    assert "Cost Re-estimate" in re and "Re-estimated Cost" in re and "32-130" in re
    assert client.get("/smartbuild/projects/0000/reestimate").status_code == 404
    assert client.get("/ressio/projects/2728/reestimate").status_code == 404
    sub = client.get("/smartbuild/projects/1042/commitments/SUB-1042.00").get_data(as_text=True)
    assert "Walsh Electrical Inc" in sub and "Sub Pay Apps" in sub
