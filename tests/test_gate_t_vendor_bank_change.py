"""T_vendor_bank_change's own checks beside the admission gate: the two requests Corpay holds are
the two the book registers; the fraud's tells (a lookalike domain, a phone not on file, no callback)
and the genuine one's callback to the number on file are what the pages and tools show; the policy
states the rule without naming either supplier; each supplier has a payment waiting. The
near-misses, variants and reply corpus run in tests/test_gate.py."""
from __future__ import annotations

from pathlib import Path

from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import t_vendor_bank_change as V
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "T_vendor_bank_change"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "vendor_bank_changes.md"
APPS = ["corpay", "outlook"]


def test_two_instances_one_fraud_one_verified():
    assert sorted(TASKS) == ["cf_T_vendor_bank_change_corpay_callback", "cf_T_vendor_bank_change_corpay_lookalike"]
    book = load_book()
    registered = {d["key"] for d in book["divergences"] if d["entity"] == "bank_change"}
    assert registered == {V.case(book, k).vendor_id for k in ("lookalike", "callback")}
    for task in TASKS.values():
        assert task.money_movement_guard and task.policy_ref == POLICY.name


def test_the_policy_names_no_supplier_and_no_answer():
    text = POLICY.read_text()
    book = load_book()
    for kind in ("lookalike", "callback"):
        c = V.case(book, kind)
        assert c.name not in text and c.phone not in text
    assert "callback" in text and "on hold" in text and "@" not in text


def test_what_corpay_shows_tells_the_two_apart(episode):
    env = Environment(episode, APPS)
    book = load_book()
    for kind in ("lookalike", "callback"):
        c = V.case(book, kind)
        seen = V.read(c, env)
        assert seen["verified"] is c.genuine
        assert seen["change"]["change_id"] == c.change_id and seen["supplier"]["supplier_id"] == c.supplier_id
        assert any(p["payment_id"] == c.payment_id for p in seen["supplier"]["open_payments"])
        domain = seen["supplier"]["email"].split("@")[1]
        assert (seen["change"]["submitted_by"].endswith("@" + domain)) is c.genuine
