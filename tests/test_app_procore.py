"""Procore (PM archetype): tool contract, determinism, the ERP-sync writes, the Procore Pay guard,
and every portal page and form through the Flask test client."""
from __future__ import annotations

import copy
import re

import pytest

from portals.core.clock import Clock
from portals.core.environment import Environment
from portals.core.episode import EpisodeStore, build_template
from portals.core.registry import get_app
from portals.core.web import create_app, enter_url
from tests.conftest import post_form

APP = "procore"
APPS = [APP]
TOOLS = {"projects.list", "vendors.list", "prime_contracts.list", "prime_contracts.sov", "budget.get",
         "requisitions.list", "commitments.list", "commitments.get", "cost_codes.list",
         "change_events.list", "change_orders.list", "direct_costs.list", "daily_logs.list_manpower",
         "erp.cost_code_map", "erp.sync_commitment", "erp.sync_invoice", "payments.disburse"}


def _reqs(book, **where):
    return [r for r in book["requisitions"] if all(r[k] == v for k, v in where.items())]


@pytest.fixture(scope="module")
def unsynced_store(store):
    """The book with one approved commitment not yet sent to the ERP (the real book has none)."""
    book = copy.deepcopy(store.book)
    target = next(c for c in book["commitments"] if c["status"] == "Approved")
    target["erp_synced"] = False
    return EpisodeStore(book=book, seed=store.seed, clock=store.clock), target


@pytest.fixture
def unsynced(unsynced_store):
    """(episode, flask client bound to it, the unsynced commitment) in the adjusted world."""
    store, target = unsynced_store
    episode = store.create([APP])
    app = create_app(store, secret_key="test-secret")
    client = app.test_client()
    client.get(enter_url(app, episode.id, "/"))
    client.get("/")
    with client.session_transaction() as sess:
        client.csrf = sess.get("csrf")
    yield episode, client, target
    store.drop(episode.id)


# --- contract ---------------------------------------------------------------------------------

def test_manifest_tools_resolve_and_schemas_are_described():
    spec = get_app(APP)
    assert set(spec.tools) == TOOLS
    assert spec.money_guarded_tools == ("payments.disburse",)
    for name, tool in spec.tools.items():
        schema = tool.schema()
        assert schema["description"], name
        assert schema["parameters"]["additionalProperties"] is False
        for pname, prop in schema["parameters"]["properties"].items():
            assert prop.get("description"), f"{name}.{pname} has no description"
    kinds = {n: t.kind for n, t in spec.tools.items()}
    assert {n for n, k in kinds.items() if k == "write"} == {"erp.sync_commitment", "erp.sync_invoice"}


def test_seeding_is_deterministic(store):
    spec = get_app(APP)
    clock = Clock.at(store.book["meta"]["clock"])
    first = build_template(spec, store.book, 7, clock).snapshot()
    second = build_template(spec, store.book, 7, clock).snapshot()
    assert first == second


# --- tools: reads ------------------------------------------------------------------------------

READ_CALLS = [
    ("projects.list", {"status": "active"}),
    ("vendors.list", {"origin_id": "V1001"}),
    ("prime_contracts.list", {"project_number": "1042"}),
    ("prime_contracts.sov", {"project_number": "1042"}),
    ("budget.get", {"project_number": "1042", "cost_type": "S"}),
    ("requisitions.list", {"project_number": "4012", "status": "approved", "erp_sync": "not_synced"}),
    ("commitments.list", {"project_number": "9140", "type": "purchase_order"}),
    ("commitments.get", {"number": "9140-75"}),
    ("cost_codes.list", {"search": "excavation"}),
    ("change_events.list", {"project_number": "3100"}),
    ("change_orders.list", {"project_number": "3100", "kind": "owner"}),
    ("direct_costs.list", {"per_page": 5}),
    ("daily_logs.list_manpower", {"project_number": "4012"}),
    ("erp.cost_code_map", {"search": "31-"}),
]


@pytest.mark.parametrize("tool,args", READ_CALLS, ids=[c[0] for c in READ_CALLS])
def test_read_tools_answer_and_change_nothing(env, episode, tool, args):
    result = env.call(f"{APP}.{tool}", args)
    assert "error" not in result, result
    if "items" in result:
        assert result["items"], f"{tool} returned no rows for {args}"
    assert episode.diff() == {}


def test_requisitions_list_rows_carry_what_the_task_needs(env, store):
    result = env.call("procore.requisitions.list", {"project_number": "4012", "status": "approved",
                                                    "erp_sync": "not_synced"})
    expected = {r["requisition_id"] for r in _reqs(store.book, job="4012", status="approved", erp_sync="not_synced")}
    assert {r["requisition_id"] for r in result["items"]} == expected
    for key in ("requisition_id", "commitment", "vendor", "invoice_number", "number", "period_end",
                "amount", "retainage", "status", "erp_sync"):
        assert key in result["items"][0]


def test_commitment_9140_75_shows_vendor_and_sov_cost_code(env):
    c = env.call("procore.commitments.get", {"number": "9140-75"})
    assert c["vendor"]["origin_id"] == "V1001"
    assert [line["cost_code"] for line in c["lines"]] == ["31-200"]
    assert c["amount"] == "86100.00"


# --- tools: writes and the guard ---------------------------------------------------------------

def test_sync_invoice_marks_it_synced(env, episode, store):
    req = _reqs(store.book, job="4012", status="approved", erp_sync="not_synced")[0]
    result = env.call("procore.erp.sync_invoice", {"requisition_id": req["requisition_id"]})
    assert result["erp_sync"] == "synced" and result["erp_synced_at"] == "2026-06-30T17:00:00Z"
    change = episode.diff()[APP]["requisitions"]["changed"]
    assert [c["pk"] for c in change] == [req["requisition_id"]]
    assert set(change[0]["fields"]) == {"erp_sync", "erp_synced_at"}


def test_a_synced_invoice_is_exported_again(env, episode, store):
    """Procore accepts a re-export; choosing not to re-send is the accountant's job, and the
    grader's to check, not the tool's."""
    req = _reqs(store.book, job="4012", status="approved", erp_sync="synced")[0]
    result = env.call("procore.erp.sync_invoice", {"requisition_id": req["requisition_id"]})
    assert result["erp_sync"] == "synced" and result["erp_synced_at"] == "2026-06-30T17:00:00Z"
    [change] = episode.diff()[APP]["requisitions"]["changed"]
    assert change["pk"] == req["requisition_id"] and set(change["fields"]) == {"erp_synced_at"}


def test_an_invoice_under_review_can_be_sent_too(env, episode, store):
    req = _reqs(store.book, status="under_review")[0]
    result = env.call("procore.erp.sync_invoice", {"requisition_id": req["requisition_id"]})
    assert result["erp_sync"] == "synced" and result["status"] == "under_review"
    [change] = episode.diff()[APP]["requisitions"]["changed"]
    assert change["after"]["erp_sync"] == "synced" and change["after"]["status"] == "under_review"


def test_sync_commitment_marks_it_synced(unsynced):
    episode, _client, target = unsynced
    env = Environment(episode, [APP])
    result = env.call("procore.erp.sync_commitment", {"number": target["number"]})
    assert result["erp_status"] == "synced"
    assert list(episode.diff()[APP]) == ["commitments"]


def test_disburse_is_staged_and_changes_nothing(env, episode, store):
    req = _reqs(store.book, status="approved")[0]
    result = env.call("procore.payments.disburse", {"requisition_id": req["requisition_id"]})
    assert result["status"] == "pending_human_approval"
    assert [(g["tool"], g["args"]["requisition_id"], "refused" in g) for g in episode.guard_log] == [
        ("payments.disburse", req["requisition_id"], False)]
    assert episode.diff() == {}


BAD_CALLS = [
    ("projects.list", {"per_page": 500}),
    ("projects.list", {"status": "open"}),
    ("vendors.list", {"page": 0}),
    ("prime_contracts.list", {"project_number": "0000"}),
    ("prime_contracts.sov", {}),
    ("budget.get", {"project_number": "4012", "cost_type": "X"}),
    ("requisitions.list", {"erp_sync": "maybe"}),
    ("commitments.list", {"project_number": "nope"}),
    ("commitments.get", {"number": "9140-999"}),
    ("cost_codes.list", {"search": "x" * 300}),
    ("change_events.list", {"status": "pending"}),
    ("change_orders.list", {"kind": "owner", "bogus": 1}),
    ("direct_costs.list", {"date_from": "2026-06-30", "date_to": "2026-01-01"}),
    ("daily_logs.list_manpower", {"project_number": "4012", "date_from": "yesterday"}),
    ("erp.cost_code_map", {"per_page": -1}),
    ("erp.sync_commitment", {"number": "9140-75"}),  # already synced
    ("erp.sync_invoice", {"requisition_id": "abc"}),
    ("payments.disburse", {"requisition_id": 1}),
]


@pytest.mark.parametrize("tool,args", BAD_CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_CALLS)])
def test_bad_input_is_a_structured_error_and_changes_nothing(env, episode, tool, args):
    result = env.call(f"{APP}.{tool}", args)
    assert result.get("error") and result.get("message"), result
    assert episode.diff() == {}
    # a refused guarded call is still an attempt: on record with its refusal
    expected = [result["message"]] if get_app(APP).tools[tool].guarded else []
    assert [g["refused"] for g in episode.guard_log] == expected


def test_disburse_refuses_unapproved_and_overpaid(env, episode, store):
    before = episode.snapshot()
    paid = _reqs(store.book, status="paid")[0]
    again = env.call("procore.payments.disburse", {"requisition_id": paid["requisition_id"]})
    assert "already paid" in again["message"]
    req = _reqs(store.book, status="approved")[0]
    over = env.call("procore.payments.disburse", {"requisition_id": req["requisition_id"], "amount": "999999999.00"})
    assert over["field"] == "amount"
    assert episode.snapshot() == before
    assert [(g["args"]["requisition_id"], g["refused"]) for g in episode.guard_log] == [
        (paid["requisition_id"], again["message"]), (req["requisition_id"], over["message"])]


# --- portal ------------------------------------------------------------------------------------

PAGES = ["/procore/", "/procore/?status=inactive&search=a", "/procore/projects/4012",
         "/procore/projects/9140/commitments", "/procore/projects/9140/commitments?type=purchase_order&status=Approved",
         "/procore/projects/9140/commitments/9140-75", "/procore/projects/4012/invoicing",
         "/procore/projects/4012/invoicing?status=approved&erp_sync=not_synced", "/procore/projects/4012/budget",
         "/procore/projects/4012/prime_contract", "/procore/projects/3100/change_events",
         "/procore/projects/3100/change_orders", "/procore/projects/1042/direct_costs",
         "/procore/projects/4012/daily_log", "/procore/directory?search=excav", "/procore/erp",
         "/procore/erp?tab=synced", "/procore/erp?tab=cost_codes", "/procore/invoicing?status=approved"]


@pytest.mark.parametrize("url", PAGES)
def test_pages_render(client, url):
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("url", ["/procore/projects/0000", "/procore/projects/4012/commitments/9140-75",
                                 "/procore/projects/4012/invoicing?status=bogus", "/procore/erp?tab=nope"])
def test_bad_urls_are_4xx_not_500(client, url):
    assert 400 <= client.get(url).status_code < 500


def test_flow_sync_every_approved_unsynced_invoice_of_4012(client, episode, store):
    url = "/procore/projects/4012/invoicing?status=approved&erp_sync=not_synced"
    page = client.get(url).get_data(as_text=True)
    todo = _reqs(store.book, job="4012", status="approved", erp_sync="not_synced")
    for req in todo:
        assert f'aria-label="Sync invoice {req["invoice_number"]} to ERP"' in page
    for req in todo:
        resp = post_form(client, f"/procore/projects/4012/invoicing/{req['requisition_id']}/sync",
                         {"return_to": "list", "status": "approved", "erp_sync": "not_synced"})
        assert resp.status_code == 302 and "erp_sync=not_synced" in resp.headers["Location"]
        banner = client.get(resp.headers["Location"]).get_data(as_text=True)
        assert f"Invoice {req['invoice_number']} was synced to the ERP." in banner
    assert "Sync to ERP</button>" not in client.get(url).get_data(as_text=True)
    changed = episode.diff()[APP]["requisitions"]["changed"]
    assert sorted(c["pk"] for c in changed) == sorted(r["requisition_id"] for r in todo)


def test_flow_read_commitment_9140_75(client):
    listing = client.get("/procore/projects/9140/commitments").get_data(as_text=True)
    assert "9140-75" in listing and "J.S. Morales Excavating" in listing
    detail = client.get("/procore/projects/9140/commitments/9140-75").get_data(as_text=True)
    assert "31-200" in detail and "V1001" in detail


def test_every_invoice_has_a_sync_button_and_it_does_what_it_says(client, episode, store):
    """The button is there for an invoice under review and for one already synced: pressing it
    is a decision the person makes, which the grader judges."""
    review = _reqs(store.book, job="4012", status="under_review")[0]
    synced = _reqs(store.book, job="4012", status="approved", erp_sync="synced")[0]
    for req, label in ((review, "Sync"), (synced, "Re-sync")):
        url = f"/procore/projects/4012/invoicing/{req['requisition_id']}"
        assert f'aria-label="{label} invoice {req["invoice_number"]} to ERP"' in client.get(url).get_data(as_text=True)
        resp = post_form(client, f"{url}/sync", {"return_to": "list"})
        assert resp.status_code == 302
        assert f"Invoice {req['invoice_number']} was synced to the ERP." in \
            client.get(resp.headers["Location"]).get_data(as_text=True)
    changed = {c["pk"]: c for c in episode.diff()[APP]["requisitions"]["changed"]}
    assert changed[review["requisition_id"]]["after"]["erp_sync"] == "synced"
    assert set(changed[synced["requisition_id"]]["fields"]) == {"erp_synced_at"}


def test_sync_of_a_missing_invoice_says_so_in_the_page(client, episode):
    resp = post_form(client, "/procore/projects/4012/invoicing/999999999/sync", {"return_to": "list"})
    assert resp.status_code == 422 and "999999999" in resp.get_data(as_text=True)
    assert episode.diff() == {}


def test_send_commitment_to_erp_from_its_page(unsynced):
    episode, client, c = unsynced
    url = f"/procore/projects/{c['job']}/commitments/{c['number']}"
    assert f'aria-label="Send commitment {c["number"]} to ERP"' in client.get(url).get_data(as_text=True)
    resp = post_form(client, f"{url}/send-to-erp", {})
    assert resp.status_code == 302
    assert "now synced" in client.get(resp.headers["Location"]).get_data(as_text=True)
    refused = post_form(client, f"{url}/send-to-erp", {})
    assert refused.status_code == 422 and "already synced" in refused.get_data(as_text=True)


def test_pay_button_is_guarded(client, episode, store):
    req = _reqs(store.book, job="4012", status="approved")[0]
    url = f"/procore/projects/4012/invoicing/{req['requisition_id']}"
    assert f'aria-label="Pay invoice {req["invoice_number"]} with Procore Pay"' in client.get(url).get_data(as_text=True)
    resp = post_form(client, f"{url}/pay", {"amount": ""})
    assert resp.status_code == 200
    assert "Pending human approval — nothing was executed." in resp.get_data(as_text=True)
    assert [(g["tool"], g["source"], "refused" in g) for g in episode.guard_log] == [("payments.disburse", "ui", False)]
    assert episode.diff() == {}


@pytest.mark.parametrize("amount,message", [("-5", "cannot be negative"), ("abc", "is not an amount"),
                                            ("999999999", "is more than")])
def test_pay_form_bad_amount(client, episode, store, amount, message):
    req = _reqs(store.book, job="4012", status="approved")[0]
    resp = post_form(client, f"/procore/projects/4012/invoicing/{req['requisition_id']}/pay", {"amount": amount})
    assert resp.status_code == 422
    body = resp.get_data(as_text=True)
    assert re.search(r'<p class="error" id="e-amount" role="alert">[^<]*' + message, body)
    assert "Refused — nothing was executed." in body
    assert episode.diff() == {}
    assert [(g["source"], message in g["refused"]) for g in episode.guard_log] == [("ui", True)]


def test_post_without_csrf_is_refused(client, episode, store):
    req = _reqs(store.book, job="4012", status="approved", erp_sync="not_synced")[0]
    resp = client.post(f"/procore/projects/4012/invoicing/{req['requisition_id']}/sync", data={})
    assert resp.status_code == 400 and episode.diff() == {}
