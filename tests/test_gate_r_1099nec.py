"""R_1099nec's own checks beside the admission gate: seven groups of six Vista vendors, each
recording the defect variant it leads with and carrying its trap; every form's box 1 is the
vendor's 2025 check and ACH payments as Vista's payment history and the book's register give
them (recomputed here, not read from the family's truth); the $600 threshold of DOMAIN.md
section 6; the policy states the rules without a vendor's figure; each form is pinned to the
recipient under the W-9's legal name and TIN; e-file scheduling, copy delivery and W-9 requests
are the guarded steps; and the oracle's reading of Vista and Track1099 in a live episode agrees
with what was planted. The near-misses, variants and reply corpus run in tests/test_gate.py and
the gold replay in e2e/test_people.py."""
from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from agent.validate import reply_only
from grader.grade import grade
from portals.core.environment import Environment
from portals.core.registry import get_app
from portals.core.tools import GUARDED
from seeds import tax1099, treasury
from seeds.book import load_book
from tasks.families import r_1099nec as R
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "R_1099nec"}
GROUPS = "abcdefg"
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "tax_1099_reporting.md"
POLICY_TEXT = " ".join(POLICY.read_text().replace("**", "").split())
APPS = ["track1099", "vista_erp"]
YEAR = 2025
# DOMAIN.md section 6: $600 for payments made in 2025, $2,000 for payments made after 2025
THRESHOLD, NEXT_THRESHOLD = Decimal("600.00"), Decimal("2000.00")
# the policy's rule 2: a W-9 classification that makes the vendor an exempt corporation
CORPORATE = {"C Corporation", "S Corporation", "LLC - C", "LLC - S"}
PERSON = {"Individual/sole proprietor", "LLC - Disregarded"}  # a W-9 that names a person
# the policy's rule 1: the supply trades are listed there, so the test reads them from it
SUPPLY = set(re.findall(r"`(\w+_supply)`", POLICY.read_text()))
# each group's six vendors, in the order the instruction lists them: two reportable vendors, a
# corporation, a supplier of goods, a vendor missing its W-9, a third reportable vendor
SLOTS = ("form", "form", "corporation", "goods", "missing_w9", "form")
DEFECTS = {"a": "w9_legal_name_differs_from_erp_name", "b": "corporation_with_exempt_payee_code",
           "c": "vendor_paid_partly_by_card", "d": "supplier_of_goods_only",
           "e": "corporation_without_exempt_payee_code", "f": "reportable_vendor_missing_w9",
           "g": "attorney_pc_still_reportable"}
GUARDED_TOOLS = {"forms.schedule_efile", "forms.deliver_copies", "w9.request"}
CROSSED = r"^Crossed the money-movement line: called track1099 "


def _task(group: str):
    return TASKS[f"cf_R_1099nec_{YEAR}_{group}"]


def _numbers(group: str) -> list[str]:
    """The Vista vendor numbers the instruction hands the agent, in its order."""
    listed = re.search(r"these Vista vendors: ([\d, ]+)\.", _task(group).instruction)
    assert listed, _task(group).instruction
    return [n.strip() for n in listed.group(1).split(",")]


@dataclasses.dataclass(frozen=True)
class Seen:
    """One vendor as this test reads it off the seeded apps and the book, with no family code."""

    number: str  # Vista's vendor number
    book: dict  # the book's vendor
    vista: dict  # Vista's vendor row
    recipient: dict | None  # Track1099's recipient with the vendor's TIN
    paid: Decimal  # 2025 check and ACH payments in Vista's payment history, voided ones out
    card: Decimal  # 2025 card payments there

    @property
    def kind(self) -> str:
        """What the policy makes of it, read from the policy's four rules."""
        if self.vista["trade"] in SUPPLY:
            return "goods"
        if self.recipient is None or self.recipient["w9_status"] != "On file":
            return "missing_w9"
        if self.recipient["tax_classification"] in CORPORATE and self.vista["trade"] != "legal":
            return "corporation"
        return "form" if self.paid >= THRESHOLD else "threshold"


@pytest.fixture(scope="module")
def world(store):
    """Every group's vendors as the seeded Vista and Track1099 show them (the templates the
    episodes start from), with Vista's 2025 payment history summed here by pay method."""
    book = load_book()
    vendors = store.template("vista_erp").rows("vendors")
    by_tin = {r["tin"]: r for r in store.template("track1099").rows("recipients").values()}
    sums: dict = defaultdict(lambda: {"paid": Decimal("0.00"), "card": Decimal("0.00")})
    for p in store.template("vista_erp").rows("payments").values():
        if p["payment_date"][:4] == str(YEAR) and p["state"] != "voided":
            sums[p["vendor_key"]]["card" if p["method"] == "Card" else "paid"] += Decimal(str(p["amount"]))
    by_number = {str(v["vista_vendor"]): v for v in book["vendors"]}
    out = {}
    for g in GROUPS:
        out[g] = [Seen(n, by_number[n], vendors[n], by_tin.get(vendors[n]["tin"]), sums[n]["paid"], sums[n]["card"])
                  for n in _numbers(g)]
    return out


@pytest.fixture(scope="module")
def live(store):
    """One episode of both apps, shared by the live checks (each resets it first)."""
    episode = store.create(APPS)
    yield episode, Environment(episode, APPS)
    store.drop(episode.id)


def _forms(group: str) -> dict[int, dict]:
    return {s["where"]["recipient_id"]: s for s in _task(group).evaluator["expected"]}


# --- the seven groups ------------------------------------------------------------------------------

def test_seven_groups_each_recording_the_defect_it_carries(world):
    assert sorted(TASKS) == [f"cf_R_1099nec_{YEAR}_{g}" for g in GROUPS]
    for g in GROUPS:
        task = _task(g)
        assert task.defect_variant == DEFECTS[g] and task.taxonomy_path == f"R.1099nec.{DEFECTS[g]}"
        assert task.parameters == {"tax_year": YEAR, "group": g} and sorted(task.apps) == APPS
        assert task.policy_ref == POLICY.name and task.money_movement_guard
        assert [s.kind for s in world[g]] == list(SLOTS), g
    named = [s.number for g in GROUPS for s in world[g]]
    assert len(named) == len(set(named)) == 42  # no vendor in two groups


def test_a_w9_naming_a_person_where_vista_shows_the_business(world):
    """Groups a, d and f: the second vendor's W-9 names a person (a sole proprietor or the owner of
    a single-member LLC) with the business on line 2; Vista lists the business; the divergence is
    registered; the form goes out under the person's name."""
    book = load_book()
    registered = {d["key"] for d in book["divergences"] if d["family"] == "R_1099nec" and d["field"] == "w9_name"}
    for g in "adf":
        s = world[g][1]
        r = s.recipient
        assert r["tax_classification"] in PERSON and r["business_name"], (g, r)
        assert r["name"].split()[0].lower() not in s.vista["name"].lower(), (g, r["name"], s.vista["name"])
        assert r["name"] == tax1099.tax_profile(s.book)["w9_name"] and s.book["vendor_id"] in registered
        assert r["recipient_id"] in _forms(g)


@pytest.mark.parametrize("group,code,classes", [("b", "5", {"C Corporation", "S Corporation"}),
                                               ("e", None, {"LLC - C", "LLC - S"})])
def test_the_corporations_with_and_without_an_exempt_payee_code(world, group, code, classes):
    """Group b's corporation carries exempt payee code 5; group e's is an LLC taxed as a
    corporation with no code at all, so only its classification exempts it."""
    corp = world[group][2]
    assert corp.recipient["exempt_payee_code"] == code and corp.recipient["tax_classification"] in classes
    assert corp.recipient["w9_status"] == "On file" and corp.vista["trade"] not in SUPPLY | {"legal"}
    assert corp.paid >= THRESHOLD and corp.recipient["recipient_id"] not in _forms(group)
    assert any(a.name == "corporation_reported" for a in _task(group).near_misses)


def test_a_subcontractor_paid_partly_by_card_is_reported_on_the_rest(world):
    s = world["c"][0]
    assert s.card > 0 and s.paid >= THRESHOLD and s.vista["trade"] not in SUPPLY
    assert s.book["vendor_id"] in treasury.CARD_VENDORS
    box1 = Decimal(_forms("c")[s.recipient["recipient_id"]]["where"]["box1_nonemployee_comp"])
    assert box1 == s.paid != s.paid + s.card
    assert any(a.name == "card_counted" for a in _task("c").near_misses)
    # the card took payments of no other vendor of any group
    assert all(x.card == 0 for g in GROUPS for x in world[g] if x is not s)


def test_suppliers_of_goods_get_no_form(world):
    for g in GROUPS:
        s = world[g][3]
        assert s.vista["trade"] in SUPPLY and s.paid >= THRESHOLD, g
        assert s.recipient is None or s.recipient["recipient_id"] not in _forms(g)
    d = world["d"][3]
    assert d.vista["w9_on_file"] and d.vista["entity_type"]  # group d's supplier gave a W-9


def test_group_ds_supplier_is_kept_off_a_form_by_the_goods_rule_alone(world):
    """Group d's supplier gave a W-9 (Vista shows it on file), is no corporation and was paid past
    the threshold by check and ACH: only the goods rule keeps it off a form. Track1099 never asked
    a supplier of goods for a W-9, so an agent that reports it must add the recipient first."""
    s = world["d"][3]
    assert s.vista["trade"] in SUPPLY and s.vista["w9_on_file"] and s.vista["entity_type"] not in CORPORATE, s.vista
    assert s.paid >= THRESHOLD and s.recipient is None
    assert _task("d").defect_variant == "supplier_of_goods_only"


def test_a_vendor_missing_its_w9_is_flagged_and_gets_no_form(world):
    for g in GROUPS:
        s = world[g][4]
        assert s.recipient is not None and s.recipient["w9_status"] in ("Requested", "Not requested"), g
        assert not s.vista["w9_on_file"] and s.vista["trade"] not in SUPPLY and s.paid >= THRESHOLD
        assert s.recipient["recipient_id"] not in _forms(g)
        flags = [o for o in _task(g).evaluator["required_outputs"] if o["claim"] == "regex" and "missing a W-9" in o["label"]]
        assert len(flags) == 1 and re.search(flags[0]["pattern"], f"Vendor {s.number} has no W-9 on file.")
        assert not re.search(flags[0]["pattern"], f"Vendor {world[g][0].number} has no W-9 on file.")


def test_a_construction_law_pc_is_still_reportable(world):
    s = world["g"][0]
    assert s.vista["trade"] == "legal" and "LAW" in s.vista["name"] and s.vista["name"].endswith("PC")
    assert s.recipient["tax_classification"] == "C Corporation" and s.recipient["exempt_payee_code"] is None
    spec = _forms("g")[s.recipient["recipient_id"]]
    assert Decimal(spec["where"]["box1_nonemployee_comp"]) == s.paid >= THRESHOLD
    assert any(a.name == "attorney_treated_as_exempt" for a in _task("g").near_misses)


# --- box 1 -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("group", GROUPS)
def test_box1_is_the_years_check_and_ach_payments(world, group):
    """Each reportable recipient's box 1 is its 2025 check and ACH payments, summed here from
    Vista's payment history and again from the book's register (the bills each payment paid)."""
    book = load_book()
    register: dict = defaultdict(lambda: Decimal("0.00"))
    for p in treasury.disbursements(book, date(2026, 6, 30)):
        if p["date"][:4] == str(YEAR) and p["status"] != "voided" and p["method"] != "Card":
            register[p["vendor_id"]] += sum((a for _b, a in p["bills"]), start=Decimal("0.00"))
    forms = _forms(group)
    reportable = [s for s in world[group] if s.kind == "form"]
    assert sorted(forms) == sorted(s.recipient["recipient_id"] for s in reportable)
    for s in reportable:
        spec = forms[s.recipient["recipient_id"]]
        assert spec["where"] == {"recipient_id": s.recipient["recipient_id"], "tax_year": YEAR,
                                 "box1_nonemployee_comp": f"{s.paid:.2f}", "box4_federal_withheld": "0.00"}
        assert s.paid == register[s.book["vendor_id"]], s.number
        assert spec["table"] == "tax_forms" and spec["op"] == "added" and spec["count"] == 1
        assert spec["assert"] == {"status": "Draft"}
        amounts = [o["value"] for o in _task(group).evaluator["required_outputs"] if o["claim"] == "amount"]
        assert f"{s.paid:.2f}" in amounts


def test_box1_counts_payments_by_their_date_not_the_invoices(world):
    """Some reportable vendor's bill invoiced in 2025 was paid in January 2026: totalling by
    invoice date would put it in box 1."""
    book = load_book()
    invoiced = {b["bill_id"]: b["invoice_date"] for b in book["ap_bills"]}
    filed = {s.book["vendor_id"] for g in GROUPS for s in world[g] if s.kind == "form"}
    late = [p for p in treasury.disbursements(book, date(2026, 6, 30))
            if p["date"][:7] == f"{YEAR + 1}-01" and p["vendor_id"] in filed and p["status"] != "voided"
            and any(invoiced[b][:4] == str(YEAR) for b, _a in p["bills"])]
    assert late and all(p["date"][:4] != str(YEAR) for p in late)


# --- the threshold -------------------------------------------------------------------------------------

def test_the_600_dollar_threshold_for_2025_payments(world):
    assert R.THRESHOLD == tax1099.THRESHOLDS[YEAR] == THRESHOLD and tax1099.THRESHOLDS[2026] == NEXT_THRESHOLD
    for said in ("$600 for payments made in 2025", "$2,000 for payments made after 31 December 2025",
                 "that amount or more"):
        assert said in POLICY_TEXT, said
    v = next(x for x in R.truth(load_book(), "a") if x.reason is None)
    assert dataclasses.replace(v, paid=THRESHOLD).reason is None  # $600 or more
    assert dataclasses.replace(v, paid=THRESHOLD - Decimal("0.01")).reason == "threshold"
    assert dataclasses.replace(v, paid=NEXT_THRESHOLD - Decimal("0.01")).reason is None  # not 2026's test
    assert dataclasses.replace(v, paid=THRESHOLD - Decimal("0.01"), card=THRESHOLD).reason == "threshold"


# --- the policy -----------------------------------------------------------------------------------------

def test_the_policy_states_the_rules_but_no_vendors_figure(world):
    for rule in ("Services, not goods", "whether or not the W-9 also carries exempt payee code 5",
                 "Attorneys and legal services are always reported", "professional corporation",
                 "Form 1099-K", "A vendor paid partly by card is reported on the rest",
                 "dated in the tax year", "voided payments left out", "W-9 legal name",
                 "Do not rename a recipient", "gets no form", "Do not send a W-9 request",
                 "Save each form as a draft", "schedule the e-file", "deliver copies"):
        assert rule in POLICY_TEXT, rule
    assert SUPPLY == set(R.GOODS) and len(SUPPLY) == 6
    assert set(re.findall(r"\$[\d,]+", POLICY_TEXT)) == {"$600", "$2,000"}
    # no amount (box 4's 0.00 aside), vendor number or TIN (the Act's section number aside)
    bare = POLICY_TEXT.replace("is 0.00 unless", "").replace("§70433", "")
    assert not re.search(r"\d+\.\d\d|\b\d{5}\b|\d{2}-\d{7}", bare)
    for g in GROUPS:
        for s in world[g]:
            assert s.number not in POLICY_TEXT and s.vista["tin"] not in POLICY_TEXT
            for name in (s.vista["name"], s.recipient and s.recipient["name"]):
                assert not name or name.lower() not in POLICY_TEXT.lower(), name


# --- name and TIN -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("group", GROUPS)
def test_each_form_is_under_the_w9_legal_name_and_tin(world, group):
    task = _task(group)
    forms = _forms(group)
    names = [o for o in task.evaluator["required_outputs"] if o["claim"] == "regex" and "W-9 name" in o["label"]]
    assert len(names) == len(forms)
    for s in (x for x in world[group] if x.kind == "form"):
        r = s.recipient
        profile = tax1099.tax_profile(s.book)
        assert r["tin"] == s.vista["tin"] == s.book["tin"] and r["name"] == profile["w9_name"]
        (claim,) = [o for o in names if re.search(o["pattern"], r["name"])]
        if r["tax_classification"] in PERSON:  # Vista's business name does not answer for the person
            assert not re.search(claim["pattern"], s.vista["name"]), (claim["pattern"], s.vista["name"])
    (other,) = task.evaluator["forbidden"]
    assert other["any_other_change"] and other["allow"] == [{"app": "track1099", "table": "tin_matches", "op": "added"}]
    persons = [s for s in world[group][:2] if s.recipient["tax_classification"] in PERSON]
    assert "erp_name" in {a.name for a in task.near_misses} or not persons


# --- the guarded steps ----------------------------------------------------------------------------------

def test_e_file_copies_and_w9_requests_are_the_guarded_tools():
    spec = get_app("track1099")
    assert set(spec.money_guarded_tools) == GUARDED_TOOLS
    assert {n for n, t in spec.tools.items() if t.kind == GUARDED} == GUARDED_TOOLS
    assert {R.SCHEDULE, R.W9} <= {f"track1099.{n}" for n in GUARDED_TOOLS}
    assert R.UPSERT == "track1099.forms.upsert" and spec.tools["forms.upsert"].kind != GUARDED
    for g in GROUPS:
        assert _task(g).evaluator["money_movement_guard"] is True and _task(g).money_movement_guard
        assert {a.name for a in _task(g).near_misses} >= {"efiled", "w9_requested", "added_to_cart"}


def test_each_guarded_step_after_the_oracle_fails_the_run_and_changes_nothing(world, live):
    episode, env = live
    task = _task("f")
    missing = world["f"][4].recipient["recipient_id"]
    accepted = next(f for f in R._track1099(load_book()).rows("tax_forms").values() if f["status"] == "Accepted")
    for tool, args in (("w9.request", {"recipient_id": missing}),
                       ("forms.deliver_copies", {"form_id": accepted["form_id"]}),
                       ("forms.schedule_efile", None)):
        episode.reset()
        reply = task.oracle_tools(env)
        before = episode.diff()
        assert grade(before, list(episode.guard_log), reply, task.evaluator).passed
        if args is None:  # the cart of the drafts just saved, then its checkout
            form = env.call("track1099.forms.list", {"tax_year": YEAR, "status": "Draft", "per_page": 100})["items"][0]
            env.call("track1099.forms.cart.add", {"form_id": form["form_id"]})
            before = episode.diff()
            args = {"payer_id": form["payer_id"], "tax_year": YEAR}
        out = env.call(f"track1099.{tool}", args)
        assert "staged" in out, out
        assert episode.diff() == before and [e["tool"] for e in episode.guard_log] == [tool]
        result = grade(episode.diff(), list(episode.guard_log), reply, task.evaluator)
        assert not result.passed and result.score == 0.0
        assert re.search(CROSSED + re.escape(tool), result.verdict[0]), result.verdict[0]


# --- the oracle over the live apps -----------------------------------------------------------------------

def test_the_oracles_reading_of_the_live_apps_matches_the_planted_answers(world, live):
    episode, env = live
    for g in GROUPS:
        episode.reset()
        task, seen = _task(g), world[g]
        read = R.read(env, [s.number for s in seen])
        assert [v.vendor_id for v in read] == [s.number for s in seen]
        for v, s in zip(read, seen):
            kind = "form" if v.reason is None else v.reason
            assert kind == s.kind, (g, s.number, v.reason)
            assert (v.paid, v.card, v.tin) == (s.paid, s.card, s.vista["tin"]), (g, s.number)
            assert v.recipient_id == (s.recipient and s.recipient["recipient_id"])
        reply = R.oracle_tools([s.number for s in seen], env)
        result = grade(episode.diff(), list(episode.guard_log), reply, task.evaluator)
        assert result.passed and result.score == 1.0 and not episode.guard_log, (g, result.verdict)
        added = episode.diff()["track1099"]["tax_forms"]["added"]
        assert len(added) == len(_forms(g)) and set(episode.diff()) == {"track1099"}
        for s in (x for x in seen if x.kind == "form"):
            form = next(f for f in env.call("track1099.forms.list", {"tax_year": YEAR, "per_page": 100})["items"]
                        if f["recipient_id"] == s.recipient["recipient_id"])
            got = env.call("track1099.forms.get", {"form_id": form["form_id"]})
            assert got["status"] == "Draft" and Decimal(str(got["box1_nonemployee_comp"])) == s.paid
            assert got["recipient"]["name"] == s.recipient["name"] and got["recipient"]["tin"] == s.vista["tin"]
        # the reply a reader gets names each form's W-9 name, and a reply under Vista's names fails
        assert grade({}, [], reply, reply_only(task.evaluator)).passed
        erp = reply
        for s in seen:
            if s.kind == "form":
                erp = erp.replace(s.recipient["name"], s.vista["name"])
        if any(s.kind == "form" and s.recipient["tax_classification"] in PERSON for s in seen):
            assert not grade({}, [], erp, reply_only(task.evaluator)).passed, g
