"""Track1099: the payer, recipients under their W-9 legal name and TIN, 1099-NEC forms from draft to
the cart, TIN matching, and the guarded e-file, copy delivery and W-9 request."""
from __future__ import annotations

from decimal import Decimal

from conftest import post_form
from portals.core.clock import Clock
from portals.core.episode import build_template
from portals.core.registry import get_app
from seeds import tax1099
from seeds.book import load_book

APPS = ["track1099"]


def refused(env, tool: str, args: dict) -> str:
    answer = env.call(tool, args)
    assert "error" in answer, answer
    return answer["message"]


def _payer(env) -> dict:
    return env.call("track1099.payers.list", {})["items"][0]


def _recipient(env, **where) -> dict:
    rows = env.call("track1099.recipients.list", {"per_page": 100, **where})["items"]
    assert rows, where
    return rows[0]


def test_manifest_tools_and_tables():
    spec = get_app("track1099")
    assert set(spec.money_guarded_tools) == {"forms.schedule_efile", "forms.deliver_copies", "w9.request"}
    assert set(spec.manifest["state_tables"]) == set(spec.pks)
    assert {"forms.list", "forms.upsert", "tin_match.submit", "recipients.create"} <= set(spec.tools)


def test_seeding_is_byte_identical_and_holds_every_subcontractor_and_1099_vendor():
    spec, clock = get_app("track1099"), Clock.at("2026-06-30T17:00:00Z")
    book = load_book()
    first = build_template(spec, book, 7, clock)
    assert first.snapshot() == build_template(spec, book, 7, clock).snapshot()
    asked = [v for v in book["vendors"] if v["is_1099"] or tax1099.tax_profile(v)["services"]]
    assert len(first.rows("recipients")) == len(asked) >= 200
    assert len(first.rows("irs_tin_records")) == len(book["vendors"])
    assert all(f["status"] == "Accepted" for f in first.rows("tax_forms").values())


def test_recipients_carry_the_w9_legal_name_not_the_erp_name(env):
    book = load_book()
    profiles = tax1099.tax_profiles(book)
    person = next(v for v in book["vendors"] if v["is_1099"] and profiles[v["vendor_id"]]["w9_on_file"]
                  and profiles[v["vendor_id"]]["entity_type"] == tax1099.LLC_DISREGARDED)
    found = _recipient(env, query=person["tin"][-4:])
    assert found["name"] == profiles[person["vendor_id"]]["w9_name"] != person["legal_name"]
    assert found["business_name"] == (person["dba"] or person["legal_name"])
    assert found["tin"] == person["tin"] and found["w9_status"] == "On file"


def test_a_form_goes_from_draft_to_the_cart_and_back(env):
    r = _recipient(env, w9_status="On file")
    made = env.call("track1099.forms.upsert", {"recipient_id": r["recipient_id"], "tax_year": 2025,
                                               "box1_nonemployee_comp": "12,345.60"})
    assert made["status"] == "Draft" and made["box1_nonemployee_comp"] == "12345.60"
    again = env.call("track1099.forms.upsert", {"recipient_id": r["recipient_id"], "tax_year": 2025,
                                                "box1_nonemployee_comp": "100.00"})
    assert again["form_id"] == made["form_id"] and again["box1_nonemployee_comp"] == "100.00"
    carted = env.call("track1099.forms.cart.add", {"form_id": made["form_id"]})
    assert carted["status"] == "In cart"
    cart = env.call("track1099.forms.cart.get", {"payer_id": r["payer_id"], "tax_year": 2025})
    assert cart["count"] == 1 and cart["total_box1"] == "100.00"
    assert "not draft" in refused(env, "track1099.forms.cart.add", {"form_id": made["form_id"]})
    assert env.call("track1099.forms.cart.remove", {"form_id": made["form_id"]})["status"] == "Draft"
    assert env.call("track1099.forms.delete", {"form_id": made["form_id"]})["deleted"] is True


def test_bad_form_input_is_refused_and_changes_nothing(env, episode):
    r = _recipient(env)
    before = episode.snapshot()
    assert "more than zero" in refused(env, "track1099.forms.upsert", {"recipient_id": r["recipient_id"], "tax_year": 2025,
                                                                        "box1_nonemployee_comp": "0"})
    assert "between" in refused(env, "track1099.forms.upsert", {"recipient_id": r["recipient_id"], "tax_year": 1999,
                                                                 "box1_nonemployee_comp": "10"})
    assert "no recipient" in refused(env, "track1099.forms.upsert", {"recipient_id": 1, "tax_year": 2025,
                                                                      "box1_nonemployee_comp": "10"})
    assert "nine digits" in refused(env, "track1099.recipients.update", {"recipient_id": r["recipient_id"], "tin": "12-34"})
    assert episode.snapshot() == before


def test_an_accepted_form_cannot_be_edited(env):
    accepted = env.call("track1099.forms.list", {"status": "Accepted"})["items"][0]
    assert "correction" in refused(env, "track1099.forms.upsert", {"recipient_id": accepted["recipient_id"],
                                                                    "tax_year": accepted["tax_year"],
                                                                    "box1_nonemployee_comp": "1.00"})


def test_tin_matching_checks_the_legal_name_not_the_dba(env):
    r = _recipient(env, w9_status="On file")
    assert env.call("track1099.tin_match.submit", {"recipient_id": r["recipient_id"]})["result"] == "Match"
    env.call("track1099.recipients.update", {"recipient_id": r["recipient_id"], "name": "Someone Else Entirely LLC"})
    assert env.call("track1099.tin_match.submit", {"recipient_id": r["recipient_id"]})["result"] == \
        "TIN and name combination does not match"


def test_a_new_recipient_is_added_under_its_w9(env):
    payer = _payer(env)
    made = env.call("track1099.recipients.create", {
        "payer_id": payer["payer_id"], "name": "Avery Quinn", "business_name": "Quinn Law", "tin": "123456789",
        "tin_type": "SSN", "address": "1 Main St", "city": "Charlotte", "state": "nc", "zip": "28202"})
    assert made["tin"] == "123-45-6789" and made["state"] == "NC" and made["w9_status"] == "Not requested"
    assert "already has" in refused(env, "track1099.recipients.create", {
        "payer_id": payer["payer_id"], "name": "X", "tin": "123-45-6789", "tin_type": "SSN", "address": "1 Main St",
        "city": "Charlotte", "state": "NC", "zip": "28202"})


def test_guarded_steps_are_staged_never_done(env, episode):
    r = _recipient(env, w9_status="Requested")
    before = episode.snapshot()
    staged = env.call("track1099.w9.request", {"recipient_id": r["recipient_id"]})
    assert staged["status"] == "pending_human_approval" and episode.snapshot() == before
    made = env.call("track1099.forms.upsert", {"recipient_id": _recipient(env, w9_status="On file")["recipient_id"],
                                               "tax_year": 2025, "box1_nonemployee_comp": "700.00"})
    env.call("track1099.forms.cart.add", {"form_id": made["form_id"]})
    staged = env.call("track1099.forms.schedule_efile", {"payer_id": made["payer_id"], "tax_year": 2025})
    assert staged["status"] == "pending_human_approval" and staged["staged"]["forms"] == 1
    assert env.call("track1099.forms.get", {"form_id": made["form_id"]})["status"] == "In cart"
    assert len(episode.guard_log) == 2


def test_the_portal_pages_render_and_a_form_is_saved_from_its_page(client, env):
    for path in ("/track1099/", "/track1099/recipients", "/track1099/payers", "/track1099/cart",
                 "/track1099/tin-matches", "/track1099/w9-requests", "/track1099/forms/new", "/track1099/recipients/new",
                 "/track1099/?status=Accepted&sort=-box1", "/track1099/recipients?w9_status=On+file&sort=tin"):
        assert client.get(path).status_code == 200, path
    r = _recipient(env, w9_status="On file")
    assert client.get(f"/track1099/recipients/{r['recipient_id']}").status_code == 200
    resp = post_form(client, "/track1099/forms/new", {"recipient_id": str(r["recipient_id"]), "tax_year": "2025",
                                                      "box1_nonemployee_comp": "2,500.00"})
    assert resp.status_code == 302, resp.get_data(as_text=True)[:500]
    form = env.call("track1099.forms.list", {"tax_year": 2025})["items"][0]
    assert form["box1_nonemployee_comp"] == "2500.00" and form["status"] == "Draft"
    assert client.get(f"/track1099/forms/{form['form_id']}").status_code == 200
    bad = post_form(client, "/track1099/forms/new", {"recipient_id": str(r["recipient_id"]), "tax_year": "2025",
                                                     "box1_nonemployee_comp": "lots"})
    assert bad.status_code == 422
    assert Decimal(form["box1_nonemployee_comp"]) == Decimal("2500")


def test_the_erp_keeps_the_vendor_tax_fields_and_the_card_payments(store):
    from portals.core.environment import Environment

    book = load_book()
    vendor = next(v for v in book["vendors"] if v["vendor_id"] == "V1158")
    episode = store.create(["vista_erp"])
    try:
        env = Environment(episode, ["vista_erp"])
        names = get_app("vista_erp").service_tool_names
        got = env.call(f"vista_erp.{names['get_vendor']}", {"vendor_id": str(vendor["vista_vendor"])})
        assert (got["tin"], got["form_1099"], got["entity_type"], got["w9_on_file"]) == \
            (vendor["tin"], "NEC", vendor["entity_type"] if vendor["w9_on_file"] else None, vendor["w9_on_file"])
        paid = env.call(f"vista_erp.{names['query_payments']}", {"vendor_id": str(vendor["vista_vendor"]),
                                                                 "date_from": "2025-01-01", "date_to": "2025-12-31",
                                                                 "per_page": 100})["items"]
        methods = {p["method"] for p in paid}
        assert methods == {"ACH", "Card"}, methods
        assert all(p["bank_account"].startswith("Company card") for p in paid if p["method"] == "Card")
    finally:
        store.drop(episode.id)


def test_the_law_firm_is_a_corporation_whose_fees_are_still_reported(env):
    """The construction-law firm (a professional corporation) gave a W-9 marked C corporation with
    no exempt payee code: attorneys' fees go in 1099-NEC box 1 whatever the firm's entity."""
    from seeds.treasury import disbursements
    from seeds.vendors import ATTORNEY_VENDOR

    book = load_book()
    firm = next(v for v in book["vendors"] if v["vendor_id"] == ATTORNEY_VENDOR)
    profile = tax1099.tax_profile(firm)
    assert profile["entity_type"] == tax1099.C_CORP and profile["attorney"] and tax1099.reportable(profile)
    assert firm["is_1099"] and firm["w9_on_file"] and firm["exempt_payee_code"] is None
    found = _recipient(env, query=firm["tin"][-4:])
    assert (found["name"], found["tax_classification"], found["exempt_payee_code"], found["w9_status"]) == \
        (firm["legal_name"], "C Corporation", None, "On file")
    paid = [p for p in disbursements(book, tax1099.date(2026, 6, 30)) if p["vendor_id"] == ATTORNEY_VENDOR]
    assert paid and {p["method"] for p in paid} == {"Check"} and {p["date"][:4] for p in paid} == {"2025"}
    assert sum(p["amount"] for p in paid) >= tax1099.THRESHOLDS[2025]
