"""Posting batches: AP and JC rows carry their Mth and BatchId; an entry joins its source's open
batch without a batch row being written; posting a batch is guarded, and a posted or empty batch
is refused (and shows no Post button)."""
from __future__ import annotations

from decimal import Decimal

import pytest

from conftest import post_form

APP = "vista_erp"
APPS = [APP]


def call(env, name, args=None):
    return env.call(f"{APP}.{name}", args or {})


def open_batch(env, source: str) -> dict:
    return next(b for b in call(env, "hq.batches.list", {"status": "open", "source": source})["items"])


def test_posted_rows_carry_the_batch_of_their_month(env, episode):
    bill = call(env, "ap.transactions.list", {"per_page": 1})["items"][0]
    assert bill["mth"] == bill["bill_date"][:7] and bill["batch_id"]
    batch = call(env, "hq.batch.get", {"mth": bill["mth"], "batch_id": bill["batch_id"], "per_page": 100})
    assert batch["source"] == "AP Entry" and batch["status"] == "posted"
    cost = call(env, "jc.cost_detail.query", {"source": "PR", "per_page": 1})["items"][0]
    pr = call(env, "hq.batch.get", {"mth": cost["mth"], "batch_id": cost["batch_id"]})
    assert pr["source"] == "PR Entry"
    assert episode.diff() == {}


def test_a_batch_totals_its_entries(env):
    b = next(b for b in call(env, "hq.batches.list", {"status": "posted", "per_page": 100})["items"]
             if 0 < b["entries"] <= 100)
    entries = call(env, "hq.batch.get", {"mth": b["mth"], "batch_id": b["batch_id"], "per_page": 100})
    assert len(entries["items"]) == entries["entries"] == b["entries"]
    assert sum(Decimal(e["amount"]) for e in entries["items"]) == Decimal(b["total"])


def test_an_entered_invoice_joins_the_open_batch_and_writes_no_batch_row(env, episode):
    before = open_batch(env, "AP Entry")
    vendor = call(env, "ap.vendors.list", {"status": "active", "per_page": 1})["items"][0]["vendor_id"]
    job = call(env, "jc.jobs.list", {"status": "active"})["items"][0]["project_id"]
    phase = call(env, "jc.phases.list", {"project_id": job})["items"][0]["task_id"]
    bill = call(env, "ap.unapproved_invoice.create", {"vendor_id": vendor, "bill_number": "ACME-0001",
                                                      "bill_date": "2026-06-24", "project_id": job,
                                                      "task_id": phase, "amount": "12345.67"})
    assert set(episode.diff()[APP]) == {"ap_bills"}
    listed = call(env, "ap.unapproved_invoices.list", {"search": "ACME-0001"})["items"][0]
    assert (listed["mth"], listed["batch_id"]) == (before["mth"], before["batch_id"])
    after = open_batch(env, "AP Entry")
    assert after["entries"] == before["entries"] + 1
    assert Decimal(after["total"]) == Decimal(before["total"]) + Decimal("12345.67")
    assert bill["bill_id"]


def test_posting_is_staged_and_refused_where_it_cannot_be(env, episode):
    sl = open_batch(env, "SL Change")
    assert sl["entries"] > 0
    before = episode.snapshot()
    staged = call(env, "hq.batch.post", {"mth": sl["mth"], "batch_id": sl["batch_id"]})
    assert staged["status"] == "pending_human_approval" and episode.snapshot() == before
    empty = open_batch(env, "JC CostAdj")
    assert "no entries" in call(env, "hq.batch.post", {"mth": empty["mth"], "batch_id": empty["batch_id"]})["message"]
    posted = call(env, "hq.batches.list", {"status": "posted", "per_page": 1})["items"][0]
    again = call(env, "hq.batch.post", {"mth": posted["mth"][5:] + "/" + posted["mth"][2:4], "batch_id": posted["batch_id"]})
    assert "cannot be posted again" in again["message"]
    assert [("refused" in g) for g in episode.guard_log] == [False, True, True]
    assert episode.snapshot() == before


@pytest.mark.parametrize("mth", ["13/26", "2026-00", "June"])
def test_a_bad_month_is_refused(env, mth):
    assert "mth" in call(env, "hq.batches.list", {"mth": mth})["message"].lower()


def test_the_post_button_is_only_on_an_open_batch_with_entries(client, env, episode):
    sl, empty = open_batch(env, "SL Change"), open_batch(env, "JC CostAdj")
    posted = call(env, "hq.batches.list", {"status": "posted", "per_page": 1})["items"][0]
    for b, shown in ((sl, True), (empty, False), (posted, False)):
        page = client.get(f"/{APP}/hq/batches/{b['mth']}/{b['batch_id']}").get_data(as_text=True)
        assert ("/post\"" in page) == shown, b
    resp = post_form(client, f"/{APP}/hq/batches/{sl['mth']}/{sl['batch_id']}/post", {})
    assert resp.status_code == 200 and "Pending human approval" in resp.get_data(as_text=True)
    bar = client.get(f"/{APP}/jobs").get_data(as_text=True)
    assert f"BatchId: <b>{open_batch(env, 'AP Entry')['batch_id']}</b>" in bar
    assert episode.diff() == {}
