"""INGENIOUS.BUILD: an owner's projects, budget, funding sources, vendor invoices with their path to
approval and their Funding tab, invoicing and application packages; the paper's shared commitment
SC-1042-0 as a view of the same book record under INGENIOUS.BUILD's own keys; submitting a package
to the client or lender is guarded."""
from __future__ import annotations

from decimal import Decimal

import pytest
from conftest import post_form

from seeds.book import load_book

APPS = ["ingenious_build", "procore"]
D = Decimal
APP = "ingenious_build"


@pytest.fixture(scope="module")
def book():
    return load_book()


def _package(env, job):
    return env.call(f"{APP}.application_packages.list", {"project_number": job})["items"][0]


def test_the_shared_commitment_is_the_same_book_record_under_its_own_keys(env):
    ib = env.call(f"{APP}.contract_sov.get", {"number": "CTR-1042.00"})
    pc = env.call("procore.commitments.get", {"number": "SC-1042-0"})
    assert ib["book_number"] == pc["number"] == "SC-1042-0"
    assert ib["amount"] == pc["amount"] == "632000.00" and ib["status"] == pc["status"]
    assert ib["vendor"]["origin_id"] == pc["vendor"]["origin_id"]
    assert ib["vendor"]["vendor_id"] != pc["vendor"]["vendor_id"]  # its own id
    assert ib["vendor"]["name"] == "Walsh Electrical" != pc["vendor"]["name"]  # its own spelling
    listed = env.call(f"{APP}.contracts.list", {"project_number": "1042", "per_page": 100})["items"]
    assert "CTR-1042.00" in {c["number"] for c in listed}


def test_projects_move_through_an_owners_stages(env):
    result = env.call(f"{APP}.projects.list", {"per_page": 100})
    assert {"Planning", "Design", "Construction", "Closeout"} <= set(result["stage_counts"])
    assert env.call(f"{APP}.projects.list", {"stage": "In Production"})["error"]


def test_funding_sources_show_what_remains_and_follow_the_funding_tabs(env, book):
    job = book["funding"]["packages"][0]["job"]
    sources = {s["code"]: s for s in env.call(f"{APP}.funding_sources.list", {"project_number": job})["items"]}
    assert set(sources) == {"LOAN", "EQUITY", "GRANT"}
    for s in sources.values():
        assert D(s["remaining"]) == D(s["amount"]) - D(s["funded_to_date"]) - D(s["allocated_pending"])
        assert D(s["allocated_pending"]) == 0
    assert sources["GRANT"]["eligible_cost_codes"] and not sources["LOAN"]["eligible_cost_codes"]
    package = env.call(f"{APP}.application_package.get", {"number": _package(env, job)["number"]})
    line = next(x for x in package["lines"] if x["entered_as"] == "new")
    half = (D(line["amount"]) / 2).quantize(D("0.01"))
    done = env.call(f"{APP}.vendor_invoice.set_funding", {"vendor_invoice_id": line["vendor_invoice_id"],
                                                          "allocations": [f"EQUITY|{half}", f"LOAN|{D(line['amount']) - half}"]})
    assert done["funded"] == line["amount"] and {f["source"] for f in done["funding"]} == {"EQUITY", "LOAN"}
    after = {s["code"]: s for s in env.call(f"{APP}.funding_sources.list", {"project_number": job})["items"]}
    assert D(after["EQUITY"]["remaining"]) == D(sources["EQUITY"]["remaining"]) - half
    # setting it again replaces the tab; an empty list clears it
    env.call(f"{APP}.vendor_invoice.set_funding", {"vendor_invoice_id": line["vendor_invoice_id"],
                                                  "allocations": [f"LOAN|{line['amount']}"]})
    assert env.call(f"{APP}.application_package.get", {"number": package["number"]})["funding_totals"] == \
        {"LOAN": line["amount"]}
    env.call(f"{APP}.vendor_invoice.set_funding", {"vendor_invoice_id": line["vendor_invoice_id"], "allocations": []})
    assert env.call(f"{APP}.vendor_invoice.get", {"vendor_invoice_id": line["vendor_invoice_id"]})["funding"] == []


def test_bad_funding_is_refused_and_changes_nothing(env, episode, book):
    job = book["funding"]["packages"][0]["job"]
    package = env.call(f"{APP}.application_package.get", {"number": _package(env, job)["number"]})
    line = package["lines"][0]
    before = episode.snapshot()
    for shares in (["LOAN|1.00"], ["BANK|%s" % line["amount"]], ["LOAN|x"], [f"LOAN|{line['amount']}", "LOAN|0.01"],
                   ["LOAN|0.00", f"EQUITY|{line['amount']}"]):
        assert env.call(f"{APP}.vendor_invoice.set_funding",
                        {"vendor_invoice_id": line["vendor_invoice_id"], "allocations": shares})["error"]
    assert env.call(f"{APP}.vendor_invoice.set_funding", {"vendor_invoice_id": 1, "allocations": []})["error"]
    assert episode.snapshot() == before


def test_an_invoice_entered_as_paid_is_taken_and_can_be_returned_to_approval(env, episode, book):
    bypass = next(i for i in book["funding"]["invoices"] if i["entered_as"] != "new")
    got = env.call(f"{APP}.vendor_invoice.get", {"vendor_invoice_id": bypass["invoice_id"]})
    assert got["approval_path"].startswith("Entered as") and got["approved_by"] == "" and not got["flagged"]
    listed = env.call(f"{APP}.vendor_invoices.list", {"entered_as": bypass["entered_as"], "per_page": 100})["items"]
    assert bypass["invoice_number"] in {r["invoice_number"] for r in listed}
    before = episode.snapshot()
    assert env.call(f"{APP}.vendor_invoice.approve_internal", {"vendor_invoice_id": bypass["invoice_id"]})["error"]
    assert env.call(f"{APP}.vendor_invoice.return_to_approval",
                    {"vendor_invoice_id": bypass["invoice_id"], "note": "  "})["error"]
    assert episode.snapshot() == before
    done = env.call(f"{APP}.vendor_invoice.return_to_approval",
                    {"vendor_invoice_id": bypass["invoice_id"], "note": "Entered as paid; skipped approvals."})
    assert done["status"] == "Pending Approval" and done["flagged"] and done["flag_note"].startswith("Entered")
    again = env.call(f"{APP}.vendor_invoice.return_to_approval",
                     {"vendor_invoice_id": bypass["invoice_id"], "note": "twice"})
    assert again["error"]
    approved = env.call(f"{APP}.vendor_invoice.approve_internal", {"vendor_invoice_id": bypass["invoice_id"]})
    assert approved["status"] == "Approved" and approved["approved_by"]


def test_submitting_a_package_to_the_lender_is_only_staged(env, episode, book):
    number = book["funding"]["packages"][0]["number"]
    before = episode.snapshot()
    staged = env.call(f"{APP}.application_package.submit_to_client", {"number": number})
    assert staged["status"] == "pending_human_approval" and episode.snapshot() == before
    assert env.call(f"{APP}.application_package.get", {"number": number})["status"] == "Draft"


def test_the_pages_show_the_navigator_funding_and_packages(client, book):
    package = book["funding"]["packages"][0]
    job = package["job"]
    home = client.get(f"/{APP}/?stage=Construction").get_data(as_text=True)
    assert "Navigator" in home and job in home
    sources = client.get(f"/{APP}/projects/{job}/funding").get_data(as_text=True)
    assert "Energy Efficiency Grant" in sources and "Remaining" in sources
    page = client.get(f"/{APP}/projects/{job}/packages/{package['number']}").get_data(as_text=True)
    assert "Next Step" in page and f"Submit package {package['number']}" in page
    assert client.get(f"/{APP}/eapps").status_code == 404
    assert client.get(f"/{APP}/projects/{job}/budget").status_code == 404  # RedTeam's Budget tab
    assert client.get(f"/{APP}/projects/{job}/budget-ladder").status_code == 200


def test_the_funding_tab_and_the_flag_through_the_pages(client, book):
    package = book["funding"]["packages"][0]
    job = package["job"]
    line = next(i for i in book["funding"]["invoices"] if i["job"] == job and i["entered_as"] == "new")
    base = f"/{APP}/projects/{job}/invoices/{line['invoice_id']}"
    bad = post_form(client, f"{base}/funding", {"share_LOAN": "1.00"})
    assert bad.status_code == 422 and "must add up" in bad.get_data(as_text=True)
    ok = post_form(client, f"{base}/funding", {"share_LOAN": line["amount"]}, follow_redirects=True)
    assert ok.status_code == 200 and "was saved" in ok.get_data(as_text=True)
    bypass = next(i for i in book["funding"]["invoices"] if i["job"] == job and i["entered_as"] != "new")
    flagged = post_form(client, f"/{APP}/projects/{job}/invoices/{bypass['invoice_id']}/return",
                        {"note": "Skipped approvals"}, follow_redirects=True)
    assert "returned to approval" in flagged.get_data(as_text=True)


def test_the_project_budget_carries_the_owners_estimate_to_complete(env, client, book):
    """Each budget line's Estimate to Complete is the owner's re-forecast where the owner made one
    (Procore still carries last month's forecast to complete there), and the book's elsewhere."""
    from seeds.funding import FORECAST_JOBS

    owner = {(f["job"], f["cost_code"], f["cost_type"]): f["forecast_to_complete"] for f in book["funding"]["forecasts"]}
    for job in FORECAST_JOBS:
        mine = env.call(f"{APP}.budget.get", {"project_number": job})
        procore = env.call("procore.budget.get", {"project_number": job, "per_page": 100})
        assert mine["total"] == procore["total"] and mine["pages"] == 1
        for line in mine["items"]:
            assert line["estimate_to_complete"] == owner[(job, line["cost_code"], line["cost_type"])]
            assert D(line["estimate_at_completion"]) == D(line["applied"]) + D(line["estimate_to_complete"])
        total = sum(D(owner[k]) for k in owner if k[0] == job)
        assert D(mine["totals"]["estimate_to_complete"]) == total != D(procore["totals"]["forecast_to_complete"])
        page = client.get(f"/{APP}/projects/{job}/budget-ladder?per_page=100").get_data(as_text=True)
        assert "Estimate to Complete" in page and "Estimate at Completion" in page and f"{total:,.2f}" in page
    other = env.call(f"{APP}.budget.get", {"project_number": "1042"})
    assert other["totals"]["estimate_to_complete"] == env.call(
        "procore.budget.get", {"project_number": "1042"})["totals"]["forecast_to_complete"]
