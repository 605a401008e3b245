"""The Integration/Estimating utility: HCSS HeavyBid (estimates, biditems, activities, resources,
the bid summary, the export to accounting as an .xlsx, the guarded bid submission) and hh2 (the
sync map with its planted mismatches, the sync log, mapping repair, the guarded sync run)."""
from __future__ import annotations

import io
from decimal import Decimal

from openpyxl import load_workbook

from conftest import post_form
from portals.core.registry import get_app
from seeds import estimating
from seeds.book import load_book

APPS = ["hcss_heavybid", "hh2"]


def hb(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"hcss_heavybid.{name}", args or {})


def h2(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"hh2.{name}", args or {})


def won(env) -> dict:
    return hb(env, "estimates.list", {"status": "Won"})["items"][0]


def test_manifests_guard_bid_submission_and_sync_runs():
    assert get_app("hcss_heavybid").money_guarded_tools == ("bid.submit",)
    assert get_app("hh2").money_guarded_tools == ("sync.run",)
    for app in ("hcss_heavybid", "hh2"):
        spec = get_app(app)
        assert set(spec.manifest["state_tables"]) == set(spec.pks)
    assert get_app("hh2").tools["mappings.update"].kind == "write"
    assert get_app("hcss_heavybid").tools["estimate.export_budget"].kind == "write"


def test_the_won_estimate_is_the_books(env):
    book = estimating.won_estimate(load_book())
    e = won(env)
    assert e["code"] == book["estimate_code"] == estimating.WON and "Alternate 2" in e["notes"]
    items = hb(env, "biditems.list", {"estimate_id": e["estimate_id"]})["items"]
    assert [b["client_code"] for b in items] == [b["biditem"] for b in book["biditems"]]
    assert {b["alternate"] for b in items} == {None, "1", "2"}
    base = sum(Decimal(b["bid_total"]) for b in items if not b["alternate"])
    assert Decimal(e["bid_total"]) == base
    resources = hb(env, "resources.list", {"estimate_id": e["estimate_id"], "per_page": 100})
    direct = sum(Decimal(r["total"]) for r in resources["items"])
    assert resources["total"] == sum(len(a["resources"]) for b in book["biditems"] for a in b["activities"])
    assert Decimal(e["direct_cost"]) == direct
    summary = hb(env, "estimate.bid_summary", {"estimate_id": e["estimate_id"]})
    assert Decimal(summary["direct_cost"]) == direct and Decimal(summary["base_bid"]) == base
    trucking = hb(env, "resources.list", {"estimate_id": e["estimate_id"], "query": estimating.TRUCKING})["items"]
    assert trucking and {r["type"] for r in trucking} == {"Equipment"}


def test_lists_filter_sort_and_page(env):
    rows = hb(env, "estimates.list", {"sort": "-bid_total", "per_page": 100})["items"]
    totals = [Decimal(r["bid_total"]) for r in rows]
    assert totals == sorted(totals, reverse=True) and len(rows) == len(load_book()["estimates"])
    assert hb(env, "estimates.list", {"status": "Lost"})["total"] == 4
    assert "error" in hb(env, "estimates.list", {"sort": "nope"})
    assert "error" in hb(env, "biditems.list", {"estimate_id": 1})
    labor = hb(env, "resources.list", {"estimate_id": won(env)["estimate_id"], "type": "Labor", "per_page": 5})
    assert labor["pages"] > 1 and {r["type"] for r in labor["items"]} == {"Labor"}


def test_export_to_accounting_sums_by_activity_and_type(env, episode):
    e = won(env)
    assert "error" in hb(env, "estimate.export_budget", {"estimate_id": e["estimate_id"], "alternates": "3"})
    x = hb(env, "estimate.export_budget", {"estimate_id": e["estimate_id"], "alternates": "1"})
    book = estimating.won_estimate(load_book())
    kept = [b for b in book["biditems"] if b["alternate"] in (None, "1")]
    assert [n["biditem"] for n in x["revenue_lines"]] == [b["biditem"] for b in kept]
    assert Decimal(x["revenue_total"]) == sum(Decimal(b["bid_total"]) for b in kept)
    cost = sum(Decimal(r["total"]) for b in kept for a in b["activities"] for r in a["resources"])
    assert Decimal(x["cost_total"]) == cost == sum(Decimal(n["amount"]) for n in x["cost_lines"])
    assert {n["resource"] for n in x["cost_lines"]} == {None, estimating.TRUCKING}
    assert hb(env, "estimate.get", {"estimate_id": e["estimate_id"]})["exports"][0]["export_id"] == x["export_id"]
    assert episode.snapshot()  # the export is recorded


def test_the_export_downloads_as_xlsx(client, env):
    e = won(env)
    x = hb(env, "estimate.export_budget", {"estimate_id": e["estimate_id"]})
    resp = client.get(f"/hcss_heavybid/exports/{x['export_id']}/download")
    assert resp.status_code == 200
    book = load_workbook(io.BytesIO(resp.data))
    assert book.sheetnames == ["Cost Budget", "Revenue"]
    amounts = [row[5] for row in book["Cost Budget"].iter_rows(min_row=2, values_only=True)]
    assert sum(Decimal(str(a)) for a in amounts) == Decimal(x["cost_total"])
    assert resp.data == client.get(f"/hcss_heavybid/exports/{x['export_id']}/download").data


def test_submitting_a_bid_is_guarded(env, episode):
    pending = hb(env, "estimates.list", {"status": "Pending"})["items"][0]
    before = episode.snapshot()
    staged = hb(env, "bid.submit", {"estimate_id": pending["estimate_id"]})
    assert staged.get("status") == "pending_human_approval" or "staged" in staged, staged
    assert episode.snapshot() == before
    assert "error" in hb(env, "bid.submit", {"estimate_id": won(env)["estimate_id"]})


def test_hh2_maps_the_codebook_and_the_planted_mismatches(env):
    book = load_book()
    erp = {m["code"]: m["vista_phase"] for m in book["erp_cost_code_map"]}
    codebook = {m["source_key"]: m for m in h2(env, "mappings.get", {"system": "HeavyJob", "entity": "Cost Code",
                                                                    "per_page": 100})["items"]}
    for act, (_, code) in estimating.ACTIVITIES.items():
        assert codebook[act]["erp_key"] == (erp[code] if code else None)
        assert codebook[act]["status"] == ("Mapped" if code else "Unmapped")
    types = {m["source_key"]: m["erp_key"] for m in h2(env, "mappings.get", {"entity": "Cost Type"})["items"]}
    assert types[estimating.TRUCKING] == "S" and types["Equipment"] == "E"
    plant = estimating.planted(book)
    for (entity, system, key), p in plant.items():
        row = h2(env, "mappings.get", {"entity": entity, "system": system, "query": key})["items"]
        row = next(r for r in row if r["source_key"] == key)
        assert row["erp_key"] == p["row"]["erp_key"]
    status = h2(env, "sync.status")
    assert status["errors"] == len(plant) and status["queued"] > 0


def test_mapping_repair_and_the_guarded_sync_run(env, episode):
    book = load_book()
    worker = book["workers"][7]
    row = h2(env, "mappings.get", {"entity": "Employee", "query": worker["worker_id"]})["items"][0]
    assert "error" in h2(env, "mappings.update", {"mapping_id": row["mapping_id"], "erp_key": "  "})
    assert "error" in h2(env, "mappings.update", {"mapping_id": 1, "erp_key": "1"})
    fixed = h2(env, "mappings.update", {"mapping_id": row["mapping_id"], "erp_key": worker["foundation_employee"]})
    assert fixed["erp_key"] == worker["foundation_employee"] and fixed["updated_by"] == "Controller"
    before = episode.snapshot()
    staged = h2(env, "sync.run", {"entity": "Employee"})
    assert staged.get("status") == "pending_human_approval" or "staged" in staged, staged
    assert episode.snapshot() == before
    assert "error" in h2(env, "sync.run", {"entity": "Vendor"})  # nothing waiting


def test_pages_render_and_forms_show_errors(client, env):
    e = won(env)
    base = "/hcss_heavybid"
    for path in (f"{base}/", f"{base}/?status=Lost&sort=-bid_total", f"{base}/estimates/{e['estimate_id']}",
                 f"{base}/estimates/{e['estimate_id']}/activities", f"{base}/estimates/{e['estimate_id']}/resources?type=Equipment&sort=-total",
                 f"{base}/estimates/{e['estimate_id']}/bid-summary", "/hh2/", "/hh2/mappings?entity=Cost+Type",
                 "/hh2/mappings?sort=-erp&status=Unmapped", "/hh2/log?status=Error"):
        assert client.get(path).status_code == 200, path
    page = client.get(f"{base}/estimates/{e['estimate_id']}").get_data(as_text=True)
    assert "Notice of Award" in page and "Biditem tree" in page
    resp = post_form(client, f"{base}/estimates/{e['estimate_id']}/export", {"alternates": "9"})
    assert resp.status_code == 422 and "no alternate 9" in resp.get_data(as_text=True)
    resp = post_form(client, f"{base}/estimates/{e['estimate_id']}/export", {"alternates": "1"})
    assert resp.status_code == 302
    assert client.get(f"{base}/estimates/999999/resources").status_code == 404
    m = h2(env, "mappings.get", {"status": "Unmapped"})["items"][0]
    resp = post_form(client, f"/hh2/mappings/{m['mapping_id']}", {"erp_key": " ", "erp_name": ""})
    assert resp.status_code == 422 and "ERP key is required" in resp.get_data(as_text=True)
    assert client.get("/hh2/mappings/1").status_code == 404


def test_the_setup_the_award_calls_for_follows_the_codebook(env):
    """The ground truth a job setup from the won estimate is graded on, checked against what
    HeavyBid exports and hh2 maps: awarded items only, trucking as subcontract, dewatering unmapped."""
    book = load_book()
    want = estimating.expected_setup(book)
    e = won(env)
    x = hb(env, "estimate.export_budget", {"estimate_id": e["estimate_id"], "alternates": "1"})
    phases = {m["source_key"]: m["erp_key"] for m in h2(env, "mappings.get", {"system": "HeavyJob", "entity": "Cost Code",
                                                                             "per_page": 100})["items"]}
    types = {m["source_key"]: m["erp_key"] for m in h2(env, "mappings.get", {"entity": "Cost Type"})["items"]}
    budget: dict = {}
    for n in x["cost_lines"]:
        if phases[n["activity"]] is None:
            continue
        key = (phases[n["activity"]], types[n["resource"] or n["resource_type"]])
        budget[key] = budget.get(key, Decimal("0")) + Decimal(n["amount"])
    assert {k: f"{v:.2f}" for k, v in budget.items()} == want["budget"]
    assert Decimal(want["cost_total"]) + sum(Decimal(u["amount"]) for u in want["unmapped"]) == Decimal(x["cost_total"])
    assert {u["activity"] for u in want["unmapped"]} == {"3030"}
    assert want["contract_total"] == x["revenue_total"] and "ALT2" not in {i["item"] for i in want["items"]}
    earthwork = next(m["vista_phase"] for m in book["erp_cost_code_map"] if m["code"] == "31-200")
    assert (earthwork, "S") in want["budget"]  # the haul-off trucking, hired out
