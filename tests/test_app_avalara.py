"""Avalara AvaTax: the company and nexus, rates by address per jurisdiction for every place the
company builds, the year's untaxed material invoices as committed PurchaseInvoices at their
jobsites, transactions created Uncommitted (a SalesOrder only quoted), voided, and the guarded
commit and return approval."""
from __future__ import annotations

from decimal import Decimal

from conftest import post_form
from portals.core.registry import get_app
from seeds import avalara
from seeds.book import load_book

APPS = ["avalara"]


def call(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"avalara.{name}", args or {})


def test_manifest_guards_commit_and_return_approval():
    spec = get_app("avalara")
    assert set(spec.money_guarded_tools) == {"transactions.commit", "returns.approve"}
    assert spec.tools["transactions.create"].kind == "write" and spec.tools["transactions.void"].kind == "write"
    assert spec.tools["taxrates.byaddress"].kind == "read"
    assert set(spec.manifest["state_tables"]) == set(spec.pks)


def test_rates_by_address_break_down_by_jurisdiction(env):
    durham = call(env, "taxrates.byaddress", {"line1": "1 Main St", "city": "Durham", "region": "NC"})
    assert [r["type"] for r in durham["rates"]] == ["State", "County", "Special"]
    assert Decimal(durham["total_rate"]) == Decimal("0.075") and durham["total_rate_pct"] == "7.5%"
    office = call(env, "taxrates.byaddress", {"line1": avalara.OFFICE["line1"], "city": "Charlotte", "region": "NC"})
    assert Decimal(office["total_rate"]) == Decimal("0.0725")
    norfolk = call(env, "taxrates.byaddress", {"line1": "1 Main St", "city": "norfolk", "region": "va"})
    assert {r["type"] for r in norfolk["rates"]} == {"State", "City", "Special"} and norfolk["address"]["city"] == "Norfolk"
    bad = call(env, "taxrates.byaddress", {"line1": "1 Main St", "city": "Atlantis", "region": "NC"})
    assert "error" in bad and "could not be resolved" in bad["message"]


def test_every_jobsite_resolves_and_the_company_has_nexus_where_it_builds(env):
    book = load_book()
    for j in book["jobs"]:
        got = call(env, "addresses.resolve", {"line1": j["address"], "city": j["city"], "region": j["state"]})
        assert got["jurisdictions"][0]["type"] == "State", j["job"]
    company = call(env, "companies.get")
    assert {n["region"] for n in company["nexus"]} == {j["state"] for j in book["jobs"]}
    assert company["city"] == "Charlotte"


def test_the_years_untaxed_invoices_are_committed_at_their_jobsites(env):
    book = load_book()
    accrued = avalara.accrued_bills(book)
    listed = call(env, "transactions.list", {"doc_type": "PurchaseInvoice", "status": "Committed", "per_page": 1})
    assert listed["total"] == len(accrued) > 20
    b = accrued[0]
    job = next(j for j in book["jobs"] if j["job"] == b["job"])
    row = call(env, "transactions.list", {"query": b["invoice_number"]})["items"][0]
    t = call(env, "transactions.get", {"transaction_id": row["transaction_id"]})
    assert t["ship_to"]["city"] == job["city"] and Decimal(t["use_tax"]) == avalara.use_tax(book, b)
    assert sum(Decimal(j["tax"]) for j in t["summary"]) == Decimal(t["total_tax"])
    # none of the open month's untaxed invoices is in AvaTax yet
    for b in avalara.open_bills(book):
        assert call(env, "transactions.list", {"query": b["invoice_number"]})["total"] == 0


def test_create_quote_void_and_the_office_default(env, episode):
    lines = ["1000.00|P0000000|Lumber", "200.00|NT|Field technician services (labor)"]
    quote = call(env, "transactions.create", {"doc_type": "SalesOrder", "code": "Q-1", "date": "2026-06-30",
                                              "customer_vendor_code": "C1", "lines": lines,
                                              "ship_to_line1": "1 Main St", "ship_to_city": "Durham",
                                              "ship_to_region": "NC"})
    assert quote["transaction_id"] is None and Decimal(quote["total_tax"]) == Decimal("75.00")
    assert call(env, "transactions.list", {"query": "Q-1"})["total"] == 0
    made = call(env, "transactions.create", {"doc_type": "PurchaseInvoice", "code": "INV-9", "date": "2026-06-30",
                                             "customer_vendor_code": "20210", "lines": lines,
                                             "vendor_charged_tax": "25.00", "ship_to_line1": "1 Main St",
                                             "ship_to_city": "Durham", "ship_to_region": "NC"})
    assert made["status"] == "Uncommitted" and Decimal(made["total_taxable"]) == Decimal("1000.00")
    assert Decimal(made["use_tax"]) == Decimal("50.00")
    again = call(env, "transactions.create", {"doc_type": "PurchaseInvoice", "code": "INV-9", "date": "2026-06-30",
                                              "customer_vendor_code": "20210", "lines": lines})
    assert "error" in again and "already saved" in again["message"]
    office = call(env, "transactions.create", {"doc_type": "PurchaseInvoice", "code": "INV-10", "date": "2026-06-30",
                                               "customer_vendor_code": "20210", "lines": lines[:1]})
    assert office["ship_to"]["city"] == "Charlotte" and Decimal(office["total_tax"]) == Decimal("72.50")
    for bad in ({"lines": ["abc|P0000000|x"]}, {"lines": ["10.00|ZZZ|x"]}, {"lines": []}, {"date": "June"},
                {"ship_to_city": "Durham"}):
        args = {"doc_type": "PurchaseInvoice", "code": "INV-11", "date": "2026-06-30", "customer_vendor_code": "1",
                "lines": lines, **bad}
        assert "error" in call(env, "transactions.create", args), bad
    before = episode.snapshot()
    staged = call(env, "transactions.commit", {"transaction_id": made["transaction_id"]})
    assert staged.get("status") == "pending_human_approval" or "staged" in staged, staged
    assert episode.snapshot() == before
    assert call(env, "transactions.void", {"transaction_id": made["transaction_id"]})["status"] == "Voided"
    assert "error" in call(env, "transactions.void", {"transaction_id": made["transaction_id"]})


def test_returns_sum_committed_use_tax_and_approval_is_guarded(env):
    book = load_book()
    may = [b for b in avalara.accrued_bills(book) if b["invoice_date"][:7] == "2026-05"]
    jobs = {j["job"]: j for j in book["jobs"]}
    nc = call(env, "returns.list", {"region": "NC", "per_page": 100})["items"]
    by_period = {r["period"]: r for r in nc}
    assert by_period["2026-06"]["status"] == "Open" and by_period["2026-05"]["status"] == "Filed"
    expected = sum((avalara.use_tax(book, b) for b in may if jobs[b["job"]]["state"] == "NC"), Decimal(0))
    assert Decimal(by_period["2026-05"]["use_tax"]) == expected
    staged = call(env, "returns.approve", {"return_id": by_period["2026-06"]["return_id"]})
    assert staged.get("status") == "pending_human_approval" or "staged" in staged, staged
    assert "error" in call(env, "returns.approve", {"return_id": by_period["2026-05"]["return_id"]})


def test_pages_render_and_forms_show_errors(client, env):
    for path in ("/avalara/", "/avalara/transactions?status=Committed&sort=-tax", "/avalara/transactions/new",
                 "/avalara/rates", "/avalara/rates?line1=1+Main+St&city=Durham&region=NC", "/avalara/returns?region=NC",
                 "/avalara/settings"):
        assert client.get(path).status_code == 200, path
    assert client.get("/avalara/rates?line1=1+Main&city=Atlantis&region=NC").status_code == 422
    t = call(env, "transactions.list", {"per_page": 1})["items"][0]
    page = client.get(f"/avalara/transactions/{t['transaction_id']}").get_data(as_text=True)
    assert "Tax by jurisdiction" in page and "Commit transaction" not in page
    resp = post_form(client, "/avalara/transactions/new", {"doc_type": "PurchaseInvoice", "code": "", "date": "2026-06-30",
                                                           "customer_vendor_code": "1", "line_amount_1": "10.00",
                                                           "line_tax_code_1": "P0000000", "line_description_1": "x"})
    assert resp.status_code == 422 and "Code is required" in resp.get_data(as_text=True)
    resp = post_form(client, "/avalara/transactions/new", {"doc_type": "PurchaseInvoice", "code": "INV-77", "date": "2026-06-30",
                                                           "customer_vendor_code": "1", "ship_to_line1": "1 Main St",
                                                           "ship_to_city": "Hickory", "ship_to_region": "NC",
                                                           "line_amount_1": "100.00", "line_tax_code_1": "P0000000",
                                                           "line_description_1": "Rebar"}, follow_redirects=True)
    assert resp.status_code == 200 and "Transaction saved as Uncommitted" in resp.get_data(as_text=True)
    assert "$7.00" in resp.get_data(as_text=True)
