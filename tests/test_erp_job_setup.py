"""Setting up a new job in an ERP: the job master record, its original estimate by cost code and
cost type (only codes the product already has), and its contract items; each refuses bad input
with a clear error and changes nothing."""
from __future__ import annotations

from decimal import Decimal

APPS = ["vista_erp"]
JOB = {"project_id": "6031", "name": "Riverside Lift Station", "customer": "Town of Holly Springs",
       "city": "Holly Springs", "state": "NC", "start_date": "2026-07-20", "est_completion": "2027-06-30",
       "retainage_pct": "5", "project_manager": "Tom Kessler"}


def call(env, name: str, args: dict) -> dict:
    return env.call(f"vista_erp.{name}", args)


def test_a_new_job_with_its_estimate_and_contract(env, episode):
    made = call(env, "jc.job.create", JOB)
    assert made["project_id"] == "6031" and made["status"] == "active" and made["retainage_pct"] == "5.00"
    assert "error" in call(env, "jc.job.create", JOB)  # it exists now
    first = call(env, "jc.original_estimate.add", {"project_id": "6031", "task_id": "03300-000-",
                                                   "cost_type_id": "L", "original_budget": "1200.50"})
    assert first["job_original_budget"] == "1200.50"
    call(env, "jc.original_estimate.add", {"project_id": "6031", "task_id": "31200-000-", "cost_type_id": "s",
                                           "original_budget": "99.50"})
    assert "error" in call(env, "jc.original_estimate.add", {"project_id": "6031", "task_id": "03300-000-",
                                                             "cost_type_id": "L", "original_budget": "1.00"})
    item = call(env, "jb.contract_item.add", {"project_id": "6031", "item": "100", "description": "Mobilization",
                                              "amount": "5000.00"})
    assert item["contract_amount"] == "5000.00"
    call(env, "jb.contract_item.add", {"project_id": "6031", "item": "ALT1", "description": "Generator",
                                       "amount": "1500.25"})
    assert "error" in call(env, "jb.contract_item.add", {"project_id": "6031", "item": "100",
                                                         "description": "Again", "amount": "1.00"})
    job = call(env, "jc.job.get", {"project_id": "6031"})
    assert Decimal(job["original_budget"]) == Decimal("1300.00") and Decimal(job["contract_amount"]) == Decimal("6500.25")
    assert {(b["task_id"], b["cost_type_id"]) for b in job["budget"]} == {("03300-000-", "L"), ("31200-000-", "S")}
    contract = call(env, "jb.contract.get", {"project_id": "6031"})
    assert [line["description"] for line in contract["lines"]] == ["Mobilization", "Generator"]
    rows = episode.diff()
    assert rows  # every write is on the record


def test_bad_input_is_refused_and_changes_nothing(env, episode):
    before = episode.snapshot()
    assert "error" in call(env, "jc.job.create", {**JOB, "project_id": "1042"})  # an existing job
    assert "error" in call(env, "jc.job.create", {**JOB, "state": "North Carolina"})
    assert "error" in call(env, "jc.job.create", {**JOB, "est_completion": "2026-01-01"})
    assert "error" in call(env, "jc.job.create", {**JOB, "name": "  "})
    assert "error" in call(env, "jc.original_estimate.add", {"project_id": "6031", "task_id": "03300-000-",
                                                             "cost_type_id": "L", "original_budget": "1.00"})
    # a code in another system's format is not a Vista phase, and the job never adds one
    assert "error" in call(env, "jc.original_estimate.add", {"project_id": "1042", "task_id": "03-3000",
                                                             "cost_type_id": "L", "original_budget": "1.00"})
    assert "error" in call(env, "jc.original_estimate.add", {"project_id": "1042", "task_id": "03300-000-",
                                                             "cost_type_id": "Q", "original_budget": "1.00"})
    assert "error" in call(env, "jb.contract_item.add", {"project_id": "1042", "description": "X", "amount": "-5"})
    assert episode.snapshot() == before


def test_the_job_setup_screens_add_a_job_its_estimate_and_items(client, episode):
    from conftest import post_form

    assert client.get("/vista_erp/job-setup").status_code == 200
    resp = post_form(client, "/vista_erp/job-setup", {**JOB, "state": "Carolina"})
    assert resp.status_code == 422 and "two-letter" in resp.get_data(as_text=True)
    assert post_form(client, "/vista_erp/job-setup", JOB).status_code == 302
    resp = post_form(client, "/vista_erp/jobs/6031/setup/estimate",
                     {"task_id": "03-3000", "cost_type_id": "L", "original_budget": "10.00"})
    assert resp.status_code == 422  # not a Vista phase: the job never adds codes
    assert post_form(client, "/vista_erp/jobs/6031/setup/estimate",
                     {"task_id": "03300-000-", "cost_type_id": "L", "original_budget": "10.00"}).status_code == 302
    assert post_form(client, "/vista_erp/jobs/6031/setup/items",
                     {"item": "100", "description": "Mobilization", "amount": "25.00"}).status_code == 302
    resp = post_form(client, "/vista_erp/jobs/6031/setup/items", {"item": "", "description": " ", "amount": "1.00"})
    assert resp.status_code == 422
    page = client.get("/vista_erp/jobs/6031/setup").get_data(as_text=True)
    assert "03300-000-" in page and "Mobilization" in page and "JC Job Setup" in page
    assert client.get("/vista_erp/jobs/NOPE/setup").status_code == 404
