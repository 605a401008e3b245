"""Levelset: the book's jobs under Levelset's own ids with their furnishing dates, the deadlines the
state's rules give each private job (none on a public one), preliminary notices received from
sub-tier suppliers with the waivers on file, Monthly Notice Control, and the guarded waiver
request, signature, notice order and lien filing."""
from __future__ import annotations

from datetime import date

from conftest import post_form
from portals.core.registry import get_app
from seeds import levelset
from seeds.book import load_book

APPS = ["levelset"]
TODAY = date(2026, 6, 30)


def call(env, name: str, args: dict | None = None) -> dict:
    return env.call(f"levelset.{name}", args or {})


def job_of(env, number: str) -> dict:
    rows = call(env, "jobs.list", {"query": number, "per_page": 100})["items"]
    return next(r for r in rows if r["customer_job_number"] == number)


def test_manifest_guards_every_send_signature_order_and_filing():
    spec = get_app("levelset")
    assert set(spec.money_guarded_tools) == {"waiver.request", "waiver.sign", "notice.order", "lien.file"}
    assert {"jobs.list", "job.deadlines.get", "waivers.list", "monthly_notice.cancel"} <= set(spec.tools)
    assert spec.tools["waiver_request.draft"].kind == "write" and spec.tools["monthly_notice.cancel"].kind == "write"
    assert set(spec.manifest["state_tables"]) == set(spec.pks)


def test_jobs_carry_levelset_ids_beside_the_company_number(env):
    book = load_book()
    jobs = call(env, "jobs.list", {"per_page": 100})
    assert jobs["total"] == len(book["jobs"])
    assert all(str(j["job_id"]) != j["customer_job_number"] for j in jobs["items"])
    public = next(j for j in book["jobs"] if levelset.is_public(j))
    row = job_of(env, public["job"])
    assert row["project_type"] == "Public" and not row["lien_rights"]
    assert call(env, "job.deadlines.get", {"job_id": row["job_id"], "view": "All"})["deadlines"] == []


def test_deadlines_follow_the_state_rules(env):
    book = load_book()
    for state, days in (("NC", 120), ("SC", 90)):
        job = next(j for j in book["jobs"] if j["state"] == state and j["status"] == "active" and not levelset.is_public(j))
        got = call(env, "job.deadlines.get", {"job_id": job_of(env, job["job"])["job_id"], "view": "All"})["deadlines"]
        last, _ = levelset.last_furnished(job, TODAY)
        lien = got[0]
        assert (date.fromisoformat(lien["due_date"]) - last).days == days and lien["estimated"]
    va = next(j for j in book["jobs"] if j["state"] == "VA")
    memo = call(env, "job.deadlines.get", {"job_id": job_of(env, va["job"])["job_id"]})["deadlines"][0]
    last, _ = levelset.last_furnished(va, TODAY)
    assert memo["document"].startswith("Memorandum") and 90 <= (date.fromisoformat(memo["due_date"]) - last).days <= 150
    soon = call(env, "deadlines.list", {"within_days": 200, "per_page": 100})["items"]
    assert soon and all(0 <= d["days_left"] <= 200 for d in soon)
    assert "error" in call(env, "deadlines.list", {"within_days": -1})


def test_the_new_notices_and_their_waivers(env):
    planted = {n["kind"]: n for n in levelset.planted(load_book())}
    open_ = call(env, "notices.list", {"status": "Open", "per_page": 100})["items"]
    assert sorted(n["claimant"] for n in open_) == sorted(n["claimant"] for n in planted.values())
    by_claimant = {n["claimant"]: n for n in open_}
    dba = by_claimant[planted["dba"]["claimant"]]
    assert dba["hired_by"] == planted["dba"]["hired_by"]
    assert call(env, "notice.get", {"notice_id": dba["notice_id"]})["waivers"] == []
    cond = call(env, "notice.get", {"notice_id": by_claimant[planted["conditional"]["claimant"]]["notice_id"]})
    assert [w["waiver_type"] for w in cond["waivers"]] == ["Conditional Progress"]
    short = call(env, "notice.get", {"notice_id": by_claimant[planted["short"]["claimant"]]["notice_id"]})
    assert short["waivers"][0]["through_date"] < planted["short"]["period_end"]
    assert call(env, "notices.list", {"status": "Resolved", "per_page": 1})["total"] > 20


def test_draft_request_then_guarded_send(env, episode):
    notice = call(env, "notices.list", {"status": "Open"})["items"][0]
    bad = call(env, "waiver_request.draft", {"notice_id": notice["notice_id"], "waiver_type": "Unconditional Progress",
                                             "through_date": "2027-01-31"})
    assert "error" in bad and "through" in bad["message"]
    made = call(env, "waiver_request.draft", {"notice_id": notice["notice_id"], "waiver_type": "Unconditional Progress",
                                              "through_date": "2026-05-31"})
    assert made["status"] == "Draft" and made["party"] == notice["claimant"]
    again = call(env, "waiver_request.draft", {"notice_id": notice["notice_id"], "waiver_type": "Unconditional Progress",
                                               "through_date": "2026-05-31"})
    assert "error" in again
    before = episode.snapshot()
    staged = call(env, "waiver.request", {"waiver_id": made["waiver_id"]})
    assert staged.get("status") == "pending_human_approval" or "staged" in staged, staged
    assert episode.snapshot() == before


def test_monthly_notice_cancel_until_ten_central(env):
    scheduled = call(env, "monthly_notices.list", {"status": "Scheduled"})["items"]
    assert len(scheduled) == 3
    done = call(env, "monthly_notice.cancel", {"order_id": scheduled[0]["order_id"]})
    assert done["status"] == "Cancelled"
    assert "error" in call(env, "monthly_notice.cancel", {"order_id": scheduled[0]["order_id"]})


def test_a_public_job_cannot_be_liened(env):
    public = next(j for j in load_book()["jobs"] if levelset.is_public(j))
    got = call(env, "lien.file", {"job_id": job_of(env, public["job"])["job_id"], "amount": "1000"})
    assert "error" in got or "refused" in str(got).lower()


def test_pages_render_and_forms_show_errors(client, env):
    for path in ("/levelset/", "/levelset/?view=all", "/levelset/jobs?state=NC&sort=-amount", "/levelset/deadlines?within_days=90",
                 "/levelset/notices?status=Open&sort=claimant", "/levelset/waivers?sort=-through", "/levelset/orders"):
        assert client.get(path).status_code == 200, path
    notice = call(env, "notices.list", {"status": "Open"})["items"][0]
    page = client.get(f"/levelset/notices/{notice['notice_id']}").get_data(as_text=True)
    assert notice["hired_by"] in page and "Save draft request" in page
    resp = post_form(client, f"/levelset/notices/{notice['notice_id']}/waiver-request",
                     {"waiver_type": "Unconditional Progress", "through_date": "not a date"})
    assert resp.status_code == 422 and "date" in resp.get_data(as_text=True)
    job = client.get(f"/levelset/jobs/{notice['job_id']}?view=all").get_data(as_text=True)
    assert "Deadlines" in job and notice["claimant"] in job and "Order document" in job
