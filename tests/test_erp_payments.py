"""AP payments: the history reconciles with the bills it paid (net of retainage held), reading it
changes nothing, and paying is guarded: staged, on record, never executed."""
from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select

from conftest import post_form
from portals.core.errors import MoneyMovementRefused
from portals.erp.models import Payment

APP = "sage_intacct"
APPS = [APP]


def call(env, name, args=None):
    return env.call(f"{APP}.{name}", args or {})


def test_every_payment_is_the_sum_of_what_it_applied(env, episode):
    page = call(env, "accounts-payable/payment.query", {"per_page": 40})
    assert page["total"] > 100 and episode.diff() == {}
    for row in page["items"]:
        payment = call(env, "accounts-payable/payment.get", {"payment_id": row["payment_id"]})
        assert sum(Decimal(b["paid"]) for b in payment["bills"]) == Decimal(payment["amount"])
        assert {b["bill_number"] for b in payment["bills"]}


def test_a_subcontract_bill_is_paid_net_of_its_retainage_and_the_rest_on_release(env):
    released = call(env, "construction/retainage.query", {"state": "released", "per_page": 5})["items"]
    assert released, "some retainage was released with final payment"
    r = released[0]
    release = call(env, "accounts-payable/payment.get", {"payment_id": r["release_payment_id"]})
    assert release["kind"] == "retainage"
    paid = {b["bill_number"]: Decimal(b["paid"]) for b in release["bills"]}
    assert paid[r["bill_number"]] == Decimal(r["held"])
    bills_paid = call(env, "accounts-payable/payment.query", {"vendor_id": r["vendor_id"], "kind": "bills",
                                                              "per_page": 100})["items"]
    net = [b for p in bills_paid for b in call(env, "accounts-payable/payment.get", {"payment_id": p["payment_id"]})["bills"]
           if b["bill_number"] == r["bill_number"] and p["state"] != "voided"]
    assert [Decimal(b["paid"]) for b in net] == [Decimal(r["bill_amount"]) - Decimal(r["held"])]


@pytest.mark.parametrize("args,words", [
    ({"method": "ACH"}, ""), ({"state": "voided"}, ""), ({"date_from": "2026-06-01", "date_to": "2026-06-30"}, ""),
    ({"vendor_id": "20835"}, "ids like"), ({"entity_id": "NOPE"}, "no entity"),
])
def test_payment_filters(env, episode, args, words):
    result = call(env, "accounts-payable/payment.query", args)
    if words:
        assert words in result["message"].lower()
    else:
        assert result["items"] and all(all(str(r.get(k, "")) == str(v) for k, v in args.items() if k in r)
                                       for r in result["items"])
    assert episode.diff() == {}


def _payable(env) -> dict:
    bill = next(b for b in call(env, "accounts-payable/bill.query", {"status": "open", "state": "posted",
                                                                     "per_page": 100})["items"])
    return {"vendor_id": bill["vendor_id"], "bill_numbers": [bill["bill_number"]]}


def test_paying_is_staged_and_changes_nothing(env, episode):
    args = _payable(env)
    before = episode.snapshot()
    result = call(env, "accounts-payable/payment.create", args)
    assert result["status"] == "pending_human_approval"
    staged = result["staged"]
    assert Decimal(staged["total"]) == sum(Decimal(b["to_pay"]) for b in staged["bills"])
    assert episode.snapshot() == before and episode.diff() == {}
    assert [g["tool"] for g in episode.guard_log] == ["accounts-payable/payment.create"]


@pytest.mark.parametrize("state,words", [("paid", "already paid"), ("draft", "draft awaiting approval")])
def test_paying_a_bill_that_cannot_be_paid_is_refused_on_record(env, episode, state, words):
    if state == "draft":
        job = call(env, "projects/project.list", {"status": "active"})["items"][0]["project_id"]
        code = call(env, "projects/task.list", {"project_id": job})["items"][0]["task_id"]
        vendor = _payable(env)["vendor_id"]
        call(env, "accounts-payable/bill.create", {"vendor_id": vendor, "bill_number": "ACME-0001",
                                                    "bill_date": "2026-06-24", "project_id": job, "task_id": code,
                                                    "amount": "12345.67"})
        args = {"vendor_id": vendor, "bill_numbers": ["ACME-0001"]}
    else:
        bill = call(env, "accounts-payable/bill.query", {"status": "paid", "per_page": 1})["items"][0]
        args = {"vendor_id": bill["vendor_id"], "bill_numbers": [bill["bill_number"]]}
    before = episode.snapshot()
    result = call(env, "accounts-payable/payment.create", args)
    assert words in result["message"] and episode.snapshot() == before
    assert episode.guard_log[-1]["refused"] == result["message"]


def test_the_pay_form_stages_and_the_history_has_no_write(client, env, episode):
    args = _payable(env)
    resp = post_form(client, f"/{APP}/ap/payments/new", {"vendor_id": args["vendor_id"],
                                                         "bill_numbers": args["bill_numbers"][0], "method": "Check"})
    assert resp.status_code == 200 and "Pending human approval" in resp.get_data(as_text=True)
    assert episode.diff() == {}
    listing = client.get(f"/{APP}/ap/payments?sort=-amount").get_data(as_text=True)
    assert 'aria-sort="descending"' in listing and "<form method=\"post\"" not in listing


def test_no_payment_row_can_be_written_outside_the_guard(episode):
    inst = episode.app(APP)
    with pytest.raises(MoneyMovementRefused):
        with inst.session() as session:
            row = session.scalars(select(Payment).limit(1)).first()
            session.add(Payment(**{c.key: getattr(row, c.key) for c in Payment.__table__.columns
                                   if c.key != "payment_id"}, payment_id="PYMT-NEW"))
    assert episode.diff() == {}
