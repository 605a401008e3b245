"""Corpay: suppliers under Corpay's own numbers and remit-to names with their payment method,
payment files from Vista and their payments, Pending Approval, holds, bank-detail change requests
(one a lookalike-domain fraud, one verified by callback), and the guarded payment approval and
bank-detail change."""
from __future__ import annotations

from datetime import date

from conftest import post_form
from portals.core.registry import get_app
from seeds import corpay
from seeds.book import load_book

APPS = ["corpay"]
TODAY = date(2026, 6, 30)


def call(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"corpay.{name}", args or {})


def supplier_of(env, vendor_id: str) -> dict:
    book = {v["vendor_id"]: v for v in load_book()["vendors"]}
    rows = call(env, "vendors.list", {"query": book[vendor_id]["tin"][-4:], "per_page": 100})["items"]
    return next(r for r in rows if r["tin"] == book[vendor_id]["tin"])


def test_manifest_guards_approval_and_bank_details():
    spec = get_app("corpay")
    assert set(spec.money_guarded_tools) == {"payments.approve", "vendor.payment_method.update",
                                             "vendor.bank_change.apply"}
    assert {"payments.list", "payments.pending_approval.list", "vendors.get", "payment_file.upload"} <= set(spec.tools)
    assert spec.tools["vendor.hold"].kind == "write" and spec.tools["vendor.bank_change.reject"].kind == "write"
    assert set(spec.manifest["state_tables"]) == set(spec.pks)


def test_suppliers_carry_corpay_numbers_remit_names_and_the_book_phone(env):
    book = load_book()
    jsm = next(v for v in book["vendors"] if v["dba"] == "JSM Excavating")
    s = supplier_of(env, jsm["vendor_id"])
    assert s["name"] == "JSM Excavating" and s["supplier_number"].startswith("CP-")
    assert s["erp_vendor"] == str(jsm["vista_vendor"]) and s["phone"] == jsm["phone"]
    full = call(env, "vendors.get", {"supplier_id": s["supplier_id"]})
    assert full["account_masked"] is None or full["account_masked"].startswith("••••")
    assert "account_number" not in full


def test_this_weeks_file_waits_in_pending_approval(env):
    book = load_book()
    pending = call(env, "payments.pending_approval.list", {"per_page": 100})
    assert pending["total"] == len(corpay.pending_bills(book, TODAY))
    assert {p["status"] for p in pending["items"]} == {"Pending Approval"}
    assert call(env, "payments.list", {"status": "Paid", "per_page": 1})["total"] > 100


def test_the_two_change_requests_and_their_callbacks(env):
    planted = {c["kind"]: c for c in corpay.bank_changes(load_book(), TODAY)}
    rows = call(env, "vendor.bank_changes.list", {"status": "Pending review"})["items"]
    assert len(rows) == 2
    by_supplier = {r["supplier_id"]: r for r in rows}
    fraud = by_supplier[supplier_of(env, planted["lookalike"]["vendor_id"])["supplier_id"]]
    genuine = by_supplier[supplier_of(env, planted["callback"]["vendor_id"])["supplier_id"]]
    assert fraud["callback_at"] is None and fraud["contact_phone"] != supplier_of(env, planted["lookalike"]["vendor_id"])["phone"]
    assert genuine["callback_phone"] == supplier_of(env, planted["callback"]["vendor_id"])["phone"]


def test_hold_reject_and_guarded_steps(env, episode):
    change = call(env, "vendor.bank_changes.list", {"status": "Pending review"})["items"][0]
    before = episode.snapshot()
    staged = call(env, "vendor.bank_change.apply", {"change_id": change["change_id"]})
    assert staged.get("status") == "pending_human_approval" or "staged" in staged, staged
    assert episode.snapshot() == before
    assert "error" in call(env, "vendor.hold", {"supplier_id": change["supplier_id"], "reason": "  "})
    held = call(env, "vendor.hold", {"supplier_id": change["supplier_id"], "reason": "Unverified bank change"})
    assert held["hold"] == "On hold"
    rejected = call(env, "vendor.bank_change.reject", {"change_id": change["change_id"], "note": "Lookalike domain"})
    assert rejected["status"] == "Rejected"
    assert "error" in call(env, "vendor.bank_change.reject", {"change_id": change["change_id"], "note": "again"})
    assert "error" in call(env, "vendor.payment_method.update", {"supplier_id": change["supplier_id"],
                                                                 "payment_method": "ACH", "bank_name": "X",
                                                                 "routing_number": "123456789", "account_number": "1234"})


def test_upload_validates_every_row(env):
    s = call(env, "vendors.list", {"per_page": 1})["items"][0]
    bad = call(env, "payment_file.upload", {"file_name": "x.csv", "content": f"{s['supplier_number']},INV-1,-5",
                                            "pay_date": "2026-07-10"})
    assert "error" in bad and "Row 1" in bad["message"]
    assert "error" in call(env, "payment_file.upload", {"file_name": "x.csv", "content": "CP-000000,INV-1,5",
                                                        "pay_date": "2026-07-10"})
    made = call(env, "payment_file.upload", {"file_name": "VISTA_AP_20260710.csv", "pay_date": "2026-07-10",
                                             "content": f"supplier_number,reference,amount\n{s['supplier_number']},INV-1,1250.00"})
    assert made["payments"] == 1 and made["items"][0]["status"] == "Pending Approval"


def test_pages_render_and_forms_show_errors(client, env):
    for path in ("/corpay/", "/corpay/pending", "/corpay/payments?status=Paid&sort=-amount", "/corpay/files",
                 "/corpay/suppliers?on_hold=false&sort=name", "/corpay/bank-changes", "/corpay/files/upload"):
        assert client.get(path).status_code == 200, path
    change = call(env, "vendor.bank_changes.list", {})["items"][0]
    page = client.get(f"/corpay/bank-changes/{change['change_id']}").get_data(as_text=True)
    assert "On file" in page and "Reject request" in page and "Apply change" in page
    resp = post_form(client, f"/corpay/bank-changes/{change['change_id']}/reject", {"note": " "})
    assert resp.status_code == 422 and "Note is required" in resp.get_data(as_text=True)
    resp = post_form(client, "/corpay/files/upload", {"file_name": "", "content": "", "pay_date": "2026-07-10"})
    assert resp.status_code == 422
