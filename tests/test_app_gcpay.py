"""GCPay: the owner pay application (G702/G703) drafted from the SOV and the period's progress,
change orders onto the SOV, the G702/G703 PDFs, AFPs with their guarded actions, and the pages."""
from __future__ import annotations

import base64
import io
from decimal import Decimal

import pytest
from pypdf import PdfReader

from conftest import post_form
from portals.core.registry import get_app
from portals.payapp.billing import Line, contract_rate, g702

APPS = ["gcpay"]
D = Decimal


def test_g702_reproduces_the_domain_primers_worked_example():
    """DOMAIN.md section 3, application #4 at 10%: line 8 is 130,500 and line 9 173,500."""
    lines = [Line(1, "General conditions", D(50000), D(30000), D(10000), D(0)),
             Line(2, "Concrete", D(150000), D(150000), D(0), D(0)),
             Line(3, "Framing", D(120000), D(40000), D(50000), D(10000)),
             Line(4, "MEP rough-in", D(180000), D(20000), D(40000), D(15000)),
             Line(5, "CO #1 footings", D(20000), D(0), D(20000), D(0))]
    g = g702(D(500000), D(20000), lines, D(10), D(10), D(216000))
    assert (g["contract_sum"], g["completed_stored"]) == (D("520000.00"), D("385000.00"))
    assert (g["retainage_work"], g["retainage_stored"], g["retainage_total"]) == (D(36000), D(2500), D(38500))
    assert (g["earned_less_retainage"], g["current_due"], g["balance_to_finish"]) == \
        (D("346500.00"), D("130500.00"), D("173500.00"))
    assert [r["percent"] for r in g["lines"]] == ["80.0", "100.0", "83.3", "41.7", "100.0"]
    # the reduction clause: 5% on everything once G reaches 50% of the contract sum
    assert contract_rate(D(10), D(5), D(50), D(385000), D(520000)) == D(5)
    assert contract_rate(D(10), D(5), D(50), D(250000), D(520000)) == D(10)
    assert contract_rate(D(10), None, None, D(385000), D(520000)) == D(10)


def _project_with_new_co(env):
    for p in env.call("gcpay.projects.list", {"per_page": 100})["items"]:
        sov = env.call("gcpay.project.sov.get", {"project_code": p["project_code"]})
        if any(c["status"] == "Approved" and not c["on_sov"] for c in sov["change_orders"]):
            return sov
    raise AssertionError("the book has no change order approved since the last pay application")


def test_history_ties_out_application_to_application(env):
    """Each application's line 7 is the prior one's line 6, and its D is the prior one's G."""
    apps = env.call("gcpay.pay_apps.list", {"project_code": "GC-3100", "per_page": 100})["items"]
    newest, prior = (env.call("gcpay.pay_app.get", {"pay_app_id": a["pay_app_id"]}) for a in apps[:2])
    assert newest["number"] == prior["number"] + 1 and newest["status"] == "Approved"
    assert newest["g702"]["previous_certificates"] == prior["g702"]["earned_less_retainage"]
    before = {l["item_no"]: l["completed_stored"] for l in prior["g703"]}
    assert all(l["previous"] == before.get(l["item_no"], "0.00") for l in newest["g703"])
    total = sum(D(l["completed_stored"]) for l in newest["g703"])
    assert str(total) == newest["g702"]["completed_stored"]


def test_drafting_the_period_computes_g702_and_g703_to_the_cent(env, episode):
    sov = _project_with_new_co(env)
    code = sov["project_code"]
    co = next(c for c in sov["change_orders"] if c["status"] == "Approved" and not c["on_sov"])
    added = env.call("gcpay.sov.add_change_order", {"project_code": code, "co_id": co["co_id"]})
    assert added["added"]["scheduled_value"] == co["amount"]
    again = env.call("gcpay.sov.add_change_order", {"project_code": code, "co_id": co["co_id"]})
    assert "already on the schedule" in again["message"]
    last = env.call("gcpay.pay_apps.list", {"project_code": code, "per_page": 1})["items"][0]
    prior = env.call("gcpay.pay_app.get", {"pay_app_id": last["pay_app_id"]})
    first = prior["g703"][0]
    item, work, stored = first["item_no"], D("1000.00"), D("250.00")
    drafted = env.call("gcpay.pay_app.draft", {"project_code": code, "period_to": "2026-06-30",
                                                "lines": [f"{item}:{work}:{stored}", f"{added['added']['item_no']}:100.00"],
                                                "retainage_work_pct": "10", "retainage_stored_pct": "5"})
    assert drafted["status"] == "Draft" and drafted["number"] == prior["number"] + 1
    line = next(l for l in drafted["g703"] if l["item_no"] == item)
    to_date = D(first["completed_stored"]) + work + stored
    assert line["previous"] == first["completed_stored"] and line["completed_stored"] == str(to_date)
    assert line["retainage"] == str(((D(first["completed_stored"]) + work) * D("0.10")).quantize(D("0.01"))
                                    + (stored * D("0.05")).quantize(D("0.01")))
    g = drafted["g702"]
    assert D(g["net_change_orders"]) == D(prior["g702"]["net_change_orders"]) + D(co["amount"])
    assert D(g["current_due"]) == D(g["earned_less_retainage"]) - D(prior["g702"]["earned_less_retainage"])
    # a redraft replaces the draft rather than adding a second one
    redrafted = env.call("gcpay.pay_app.draft", {"project_code": code, "period_to": "2026-06-30", "lines": []})
    assert redrafted["pay_app_id"] == drafted["pay_app_id"] and redrafted["retainage_work_pct"] == prior["retainage_work_pct"]
    assert env.call("gcpay.pay_apps.list", {"project_code": code, "status": "Draft"})["total"] == 1


@pytest.mark.parametrize("args,fragment", [
    ({"lines": ["999:100"]}, "not a line of the schedule"),
    ({"lines": ["1:abc"]}, "not an amount"),
    ({"lines": ["1:100", "1:5"]}, "entered twice"),
    ({"lines": ["1:999999999"]}, "more than its scheduled value"),
    ({"lines": ["1:1"], "period_to": "2026-05-31"}, "already covers"),
    ({"lines": [], "retainage_work_pct": "120"}, "0 to 100"),
])
def test_a_bad_draft_is_refused_and_changes_nothing(env, episode, args, fragment):
    before = episode.snapshot()
    result = env.call("gcpay.pay_app.draft", {"project_code": "GC-3100", "period_to": "2026-06-30", **args})
    assert fragment in result["message"], result
    assert episode.snapshot() == before


def test_a_pending_change_order_cannot_go_on_the_sov(env):
    sov = env.call("gcpay.project.sov.get", {"project_code": "GC-3100"})
    pending = next(c for c in sov["change_orders"] if c["status"] == "Pending")
    result = env.call("gcpay.sov.add_change_order", {"project_code": "GC-3100", "co_id": pending["co_id"]})
    assert "only an approved change order" in result["message"]


def test_g702_and_g703_pdfs_read_back_with_the_figures(env):
    app = env.call("gcpay.pay_apps.list", {"project_code": "GC-3100", "per_page": 1})["items"][0]
    detail = env.call("gcpay.pay_app.get", {"pay_app_id": app["pay_app_id"]})
    for form, must in (("G702", f"{D(detail['g702']['current_due']):,.2f}"),
                       ("G703", f"{D(detail['g703'][0]['scheduled_value']):,.2f}")):
        first = env.call("gcpay.pay_app.download", {"pay_app_id": app["pay_app_id"], "form": form})
        again = env.call("gcpay.pay_app.download", {"pay_app_id": app["pay_app_id"], "form": form})
        assert first == again
        text = "".join(p.extract_text() for p in PdfReader(io.BytesIO(base64.b64decode(first["content_base64"]))).pages)
        assert must in text and "GC-3100" in text, text[:300]


def test_guarded_actions_stage_and_change_nothing(env, episode):
    afp = env.call("gcpay.afps.list", {"status": "In Review", "per_page": 1})["items"][0]
    before = episode.snapshot()
    assert env.call("gcpay.afp.approve_step", {"afp_id": afp["afp_id"]})["status"] == "pending_human_approval"
    paid = env.call("gcpay.afps.list", {"status": "Paid", "per_page": 1})["items"][0]
    assert "no step waiting" in env.call("gcpay.afp.approve_step", {"afp_id": paid["afp_id"]})["message"]
    assert episode.snapshot() == before and len(episode.guard_log) == 2


def test_return_for_revision_is_a_write_with_a_reason(env, episode):
    afp = env.call("gcpay.afps.list", {"status": "In Review", "per_page": 1})["items"][0]
    assert "Say why" in env.call("gcpay.afp.return_for_revision", {"afp_id": afp["afp_id"], "reason": "  "})["message"]
    done = env.call("gcpay.afp.return_for_revision", {"afp_id": afp["afp_id"], "reason": "Need a bill of sale."})
    assert done["status"] == "Returned"
    assert episode.diff()["gcpay"]["afps"]["changed"][0]["after"]["status"] == "Returned"


def test_lists_search_filter_sort_and_page(env):
    everything = env.call("gcpay.afps.list", {"per_page": 100})
    assert everything["total"] > 1000
    by_amount = env.call("gcpay.afps.list", {"sort": "-amount", "per_page": 5})["items"]
    assert [D(a["amount"]) for a in by_amount] == sorted((D(a["amount"]) for a in by_amount), reverse=True)
    one = env.call("gcpay.afps.list", {"project_code": "GC-3100", "status": "Paid", "per_page": 100})
    assert one["total"] and all(a["project_code"] == "GC-3100" and a["status"] == "Paid" for a in one["items"])
    assert env.call("gcpay.projects.list", {"search": "3100"})["items"][0]["project_code"] == "GC-3100"
    assert "Sort by one of" in env.call("gcpay.projects.list", {"sort": "bogus"})["message"]


def test_pages_draft_a_pay_app_and_the_submit_button_is_guarded(client, env, episode):
    home = client.get("/gcpay/")
    assert home.status_code == 200 and b"GC-3100" in home.data
    page = client.get("/gcpay/projects/GC-3100")
    assert b"Owner Pay Applications" in page.data and b"Schedule of Values" in page.data
    form = client.get("/gcpay/projects/GC-3100/pay-apps/new")
    assert b'for="f-work_1"' in form.data
    bad = post_form(client, "/gcpay/projects/GC-3100/pay-apps", {"period_to": "2026-06-30", "work_1": "lots"})
    assert bad.status_code == 422 and b"not an amount" in bad.data
    made = post_form(client, "/gcpay/projects/GC-3100/pay-apps", {"period_to": "2026-06-30", "work_1": "1000"})
    assert made.status_code == 302
    shown = client.get(made.headers["Location"])
    assert b"Draft saved" in shown.data and b"Current payment due" in shown.data
    pay_app_id = made.headers["Location"].split("/pay-apps/")[1].split("?")[0]
    before = episode.snapshot()
    staged = post_form(client, f"/gcpay/pay-apps/{pay_app_id}/submit", {})
    assert b"Pending human approval" in staged.data and episode.snapshot() == before
    assert episode.guard_log[-1]["tool"] == "pay_app.submit"
    pdf = client.get(f"/gcpay/pay-apps/{pay_app_id}/G702.pdf")
    assert pdf.mimetype == "application/pdf" and pdf.data.startswith(b"%PDF")


def test_no_tool_description_carries_a_figure():
    for tool in get_app("gcpay").tools.values():
        text = str(tool.schema())
        assert "GC-3100" not in text
