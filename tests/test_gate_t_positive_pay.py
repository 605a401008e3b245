"""T_positive_pay's own checks beside the admission gate: seven batches of the day's planted check
exceptions, each recording the defect it leads with and mixing a check to pay with checks to
return; every decision asserted on its exact exception; the policy states the rules (the cutoff,
the stale-date days) without any check's figures; the oracle's reading of the policy over the
bank and Vista agrees with the planted answers; Vista's check register ties to the bank. The
near-misses, variants and reply corpus run in tests/test_gate.py and the gold replay in
e2e/test_people.py."""
from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from portals.core.environment import Environment
from seeds import treasury
from seeds.book import load_book
from tasks.families import t_positive_pay as T
from tasks.families import t_positive_pay_controller as C
from tasks.registry import all_tasks

FAMILY = {t.instance_id: t for t in all_tasks() if t.family == "T_positive_pay"}
TASKS = {i: t for i, t in FAMILY.items() if T.BANK in t.apps}  # CashPro: staged decisions
BY_BANK = {b.app: {i: t for i, t in FAMILY.items() if b.app in t.apps} for b in C.BANKS}  # the Controller decides
CONTROLLER_DECIDES = {i: t for by in BY_BANK.values() for i, t in by.items()}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "treasury_positive_pay.md"
APPS = list(T.APPS)


def test_seven_batches_each_carrying_the_defect_it_records():
    assert sorted(TASKS) == sorted(f"cf_T_positive_pay_{k}" for k in T.KEYS) and len(TASKS) == 7
    assert len({t.defect_variant for t in TASKS.values()}) == 7
    book = load_book()
    day = treasury.positive_pay_day(book, date.fromisoformat(T.DAY))
    planted = {e["serial"]: e for e in day["exceptions"]}
    registered = {d["key"] for d in book["divergences"] if d["family"] == "T_positive_pay" and d["entity"] == "bank_check"}
    # the day's exceptions, and every check on the issue file that was loaded twice
    assert registered == set(planted) | set(day["loaded_twice"]["serials"])
    for task in TASKS.values():
        decisions = T.truth(book, task.parameters["batch"])
        assert {d.decision for d in decisions} == {"Pay", "Return"}  # neither all-pay nor all-return passes
        for d in decisions:
            assert planted[d.serial]["decision"] == d.decision and planted[d.serial]["kind"] == d.kind
    assert len(T.truth(book, "day")) == len(planted) == 9


def test_an_issue_file_loaded_twice_puts_the_checks_on_two_issue_records_and_the_check_is_paid(store):
    """The latest run's issue file is on CashPro's file list twice (the same name and contents);
    each of its checks is on two issue records; the run's check presented today is flagged as a
    duplicate issue record but matches the register, so it is paid, and the near-miss that
    returns it (and the one that pays the second presentment beside it) fail."""
    book = load_book()
    day = treasury.positive_pay_day(book, date.fromisoformat(T.DAY))
    twice = day["loaded_twice"]
    episode = store.create(APPS)
    try:
        env = Environment(episode, APPS)
        files = [f for f in T.call(env, f"{T.BANK}.positive_pay.issue_files.list", {"per_page": 100})["items"]
                 if f["name"] == f"ISSUE_{twice['run'].replace('-', '')}.csv"]
        assert len(files) == 2 and len({f["uploaded_at"] for f in files}) == 2
        for serial in twice["serials"]:
            records = T.call(env, f"{T.BANK}.positive_pay.issued_checks.search", {"serial": serial})["items"]
            assert {r["file_id"] for r in records} == {f["file_id"] for f in files}, serial
        exc = next(e for e in T.call(env, T.LIST, {"per_page": 100})["items"] if e["serial"] == twice["serial"])
        assert exc["reason"] == T.DUPLICATE_ISSUE and exc["issued"]["status"] == "Outstanding"
    finally:
        store.drop(episode.id)
    task = TASKS["cf_T_positive_pay_loaded_twice"]
    decisions = {d.kind: d for d in T.truth(book, "loaded_twice")}
    assert decisions["issue_loaded_twice"].decision == "Pay" and decisions["duplicate"].decision == "Return"
    assert decisions["issue_loaded_twice"].serial == twice["serial"]
    assert {"flipped_issue_loaded_twice", "flipped_duplicate"} <= {a.name for a in task.near_misses}
    assert task.defect_variant == "issue_file_loaded_twice"


def test_the_policy_states_the_rules_but_no_figure_of_a_check():
    text = " ".join(POLICY.read_text().replace("**", "").split())
    for rule in ("2:00 p.m. ET", "180 days", "default decision", "Return", "cuts long names short",
                 "abbreviates words", "Submitting the day's decisions is the Controller's step", "AP Payment History",
                 "Two issue records are not a duplicate check", "loaded into CashPro twice"):
        assert rule in text, rule
    assert T.STALE_DAYS == treasury.STALE_DAYS == 180
    assert not re.search(r"\$\s*\d|\b\d{5}\b|\d{4}-\d{2}-\d{2}", text)  # no serial, amount or date
    assert all(t.policy_ref == POLICY.name for t in FAMILY.values())
    for rule in ("4:00 p.m. ET", "1:00 p.m. PT", "3:00 p.m. ET",
                 "deciding an exception in Chase, in Wells Fargo or in PNC is the Controller's step",
                 "one Outlook draft, not sent", "Controller's email on the bank's user list",
                 "Chase Connect's Access & Security", "Wells Fargo Vantage's Administration",
                 "PNC PINACLE's Administration operators", "Duplicate Issue Item", '"Duplicate Issue"',
                 '"Multiple Issue Records")'):
        assert rule in text, rule
    for bank in C.BANKS:  # the policy's cutoff and words are the bank's own
        assert bank.cutoff in text and bank.duplicate_issue in text and bank.product in text


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_every_decision_is_asserted_on_its_exception(instance_id):
    task = TASKS[instance_id]
    decisions = T.truth(load_book(), task.parameters["batch"])
    specs = task.evaluator["expected"]
    assert [s["where"]["_pk"] for s in specs] == [d.exception_id for d in decisions]
    assert all(s["count"] == 1 and s["assert"]["status"] == "Open" for s in specs)
    assert task.evaluator["forbidden"][0]["any_other_change"] and task.money_movement_guard
    claims = [o.get("claim") for o in task.evaluator["required_outputs"]]
    assert claims.count("regex") == 2 * len(decisions) and "denies" in claims
    assert any(a.name == "portal_form" and a.browser for a in task.variants)
    assert any(a.name == "submitted" for a in task.near_misses)
    for d in decisions:
        assert d.serial in task.instruction or task.parameters["batch"] == "day"
    assert not re.search(r"\b(pay|return)\b.*\b\d{5}\b", task.instruction.replace("Pay or Return", "").replace("Positive Pay", ""), re.I)


def test_the_oracles_reading_of_the_policy_matches_the_planted_answers(store):
    episode = store.create(APPS)
    try:
        env = Environment(episode, APPS)
        book = load_book()
        read = {d.serial: d for d in T.read(env, T.serials_of(book, "day"))}
        for d in T.truth(book, "day"):
            assert (read[d.serial].decision, read[d.serial].kind) == (d.decision, d.kind), d.serial
    finally:
        store.drop(episode.id)


@pytest.mark.parametrize("presented,vendor,same", [
    ("CATAWBA REINFORCING", "Catawba Reinforcing Steel, LLC", True),
    ("HINSON MAS CORP", "Hinson Masonry Corp.", True),
    ("SIZEMORE PLBG CO", "Sizemore Plumbing Co.", True),
    ("MARCUS T WHITFIELD", "Underwood Rebar, LLC", False),
    ("HINSON", "Hinson Masonry Corp.", False),  # too short to be the vendor's name cut off
    ("HINSON ASPHALT", "Hinson Masonry Corp.", False),
])
def test_a_payee_cut_short_or_abbreviated_is_the_vendor(presented, vendor, same):
    assert T.same_payee(presented, vendor) is same


@pytest.mark.parametrize("bank", C.BANKS, ids=lambda b: b.key)
def test_a_bank_whose_decision_is_the_controllers_gets_a_draft_and_no_decision(bank):
    tasks = BY_BANK[bank.app]
    assert sorted(tasks) == sorted(f"cf_T_positive_pay_{bank.key}_{k}" for k in bank.batches)
    assert set(FAMILY) == set(TASKS) | set(CONTROLLER_DECIDES) and len(FAMILY) == len(TASKS) + len(CONTROLLER_DECIDES)
    book = load_book()
    for task in tasks.values():
        decisions = C.truth(bank, book, task.parameters["batch"])
        assert {d.decision for d in decisions} == {"Pay", "Return"}
        assert [(d.serial, d.decision, d.kind) for d in decisions] == \
            [(d.serial, d.decision, d.kind) for d in T.truth(book, task.parameters["batch"])]
        expected = task.evaluator["expected"]
        assert all(s["app"] == "outlook" and s["where"] == {"folder": "Drafts", "to_addrs": {"ieq": C.CONTROLLER}}
                   and s["count"] == 1 for s in expected)
        assert len(expected) == 1 + 2 * len(decisions)  # the one draft; each check's decision and reason in it
        assert task.evaluator["forbidden"] == [{"any_other_change": True, "label": task.evaluator["forbidden"][0]["label"]}]
        assert task.money_movement_guard and set(task.apps) == {bank.app, "vista_erp", "outlook"}
        assert task.parameters["bank"] == bank.app and bank.product in task.instruction and bank.area in task.instruction
        names = {a.name for a in task.near_misses}
        assert {"decided_in_bank", "sent", "one_check_left_out", "draft_to_the_cfo", "two_drafts"} <= names
        assert {f"flipped_{d.kind}" for d in decisions} <= names  # a flipped decision for every defect
        assert any(a.name == "portal_form" and a.browser for a in task.variants)
        for d in decisions:
            assert d.serial in task.instruction
        plain = task.instruction.replace("Pay or Return", "").replace("positive pay", "").replace(bank.area, "")
        assert not re.search(r"\b(pay|return|paid|returned)\b", plain, re.I), plain
        assert C.CONTROLLER not in task.instruction
    assert not set(bank.batches) & {k for other in C.BANKS if other != bank for k in other.batches}


@pytest.mark.parametrize("bank", C.BANKS, ids=lambda b: b.key)
def test_the_controller_on_the_banks_user_list_is_the_drafts_recipient(store, bank):
    episode = store.create(list(bank.apps))
    try:
        env = Environment(episode, list(bank.apps))
        assert C.controller(bank, env) == C.CONTROLLER
        read = {d.serial: d for d in C.read(bank, env, T.serials_of(load_book(), "day"))}
        for d in C.truth(bank, load_book(), "day"):
            assert (read[d.serial].decision, read[d.serial].kind) == (d.decision, d.kind), d.serial
        assert C.subject(bank).startswith(bank.area) and f"before the {bank.cutoff} cutoff" in C.body(bank, read.values())
    finally:
        store.drop(episode.id)
