"""LCPtracker: projects under the agency's contract number, the wage determination, payroll records
imported from payroll, validation, compliance notes, the WH-347 PDF, and the guarded certify-and-submit."""
from __future__ import annotations

import base64
import io
from decimal import Decimal

from pypdf import PdfReader

from conftest import post_form
from portals.core.clock import Clock
from portals.core.episode import build_template
from portals.core.registry import get_app
from seeds.book import load_book

APPS = ["lcptracker"]
LAST_WEEK = "2026-06-27"


def refused(env, tool: str, args: dict) -> str:
    answer = env.call(tool, args)
    assert "error" in answer, answer
    return answer["message"]


def _project(env, job: str) -> dict:
    """The project of a company job, found the way a person would: by its name."""
    name = next(j["name"] for j in load_book()["jobs"] if j["job"] == job)
    found = env.call("lcptracker.projects.list", {"query": name.split()[0]})["items"]
    return next(p for p in found if p["name"] == name)


def test_manifest_tools_and_tables():
    spec = get_app("lcptracker")
    assert spec.money_guarded_tools == ("cpr.certify_and_submit",)
    assert set(spec.manifest["state_tables"]) == set(spec.pks)
    assert {"project.wage_rates.get", "payroll_records.list", "cpr.validate", "reports.wh347"} <= set(spec.tools)


def test_seeding_is_byte_identical_and_dense():
    spec, clock = get_app("lcptracker"), Clock.at("2026-06-30T17:00:00Z")
    first = build_template(spec, load_book(), 7, clock)
    assert first.snapshot() == build_template(spec, load_book(), 7, clock).snapshot()
    book = load_book()
    assert len(first.rows("payroll_records")) == len(book["timecards"]) >= 800
    assert len(first.rows("employees")) >= 100
    assert len(first.rows("projects")) == len(book["wage_determinations"]) == 10  # 8 public works, 2 assisted


def test_projects_carry_the_agency_contract_number_not_the_job(env):
    book = load_book()
    wd = next(w for w in book["wage_determinations"] if w["job"] == "1042")
    project = _project(env, "1042")
    assert project["contract_number"] == wd["contract_number"] != "1042"
    listed = env.call("lcptracker.projects.list", {"query": wd["contract_number"]})["items"]
    assert [p["project_id"] for p in listed] == [project["project_id"]]
    assert env.call("lcptracker.projects.list", {"query": "1042"})["total"] == 0


def test_wage_rates_are_the_determination(env):
    wd = next(w for w in load_book()["wage_determinations"] if w["job"] == "2041")
    project = _project(env, "2041")
    rates = env.call("lcptracker.project.wage_rates.get", {"project_id": project["project_id"],
                                                           "classification": "Carpenter"})["rates"]
    carp = {(r["level"]): r for r in rates}
    book_j = next(r for r in wd["rates"] if r["classification"] == "Carpenter" and r["level"] == "J")
    assert carp["J"]["base_rate"] == book_j["base"] and carp["J"]["fringe_rate"] == book_j["fringe"]
    assert Decimal(carp["J"]["total_rate"]) == Decimal(book_j["base"]) + Decimal(book_j["fringe"])
    assert carp["A2"]["pct_of_journeyworker"] == 60 and carp["J"]["apprentice_ratio"] == "1:3"
    assert "not a classification" in refused(env, "lcptracker.project.wage_rates.get",
                                             {"project_id": project["project_id"], "classification": "Operator"})


def test_payroll_records_match_the_payroll_source(env):
    book = load_book()
    project = _project(env, "3100")
    cards = [t for t in book["timecards"] if t["job"] == "3100" and t["week_ending"] == LAST_WEEK]
    rows = env.call("lcptracker.payroll_records.list", {"project_id": project["project_id"], "week_ending": LAST_WEEK,
                                                        "per_page": 100})
    assert rows["total"] == len(cards)
    assert sorted(r["gross"] for r in rows["items"]) == sorted(t["gross"] for t in cards)
    by_gross = env.call("lcptracker.payroll_records.list", {"project_id": project["project_id"], "week_ending": LAST_WEEK,
                                                            "sort": "-gross", "per_page": 3})
    assert [r["gross"] for r in by_gross["items"]] == sorted((t["gross"] for t in cards), key=Decimal, reverse=True)[:3]
    assert "Saturday" in refused(env, "lcptracker.payroll_records.list", {"week_ending": "2026-06-26"})


def test_validation_passes_clean_payroll_and_catches_bad_arithmetic(env, episode):
    project = _project(env, "1990")
    result = env.call("lcptracker.cpr.validate", {"project_id": project["project_id"], "week_ending": LAST_WEEK})
    assert result["valid"] and result["status"] == "Draft" and result["records"] > 0
    record = env.call("lcptracker.payroll_records.list", {"project_id": project["project_id"],
                                                          "week_ending": LAST_WEEK})["items"][0]
    episode.app("lcptracker").conn.execute("UPDATE payroll_records SET gross = '1.00' WHERE record_id = ?",
                                           (record["record_id"],))
    broken = env.call("lcptracker.cpr.validate", {"project_id": project["project_id"], "week_ending": LAST_WEEK})
    assert {e["record_id"] for e in broken["errors"]} == {record["record_id"]}
    assert "Net wages" in " ".join(e["message"] for e in broken["errors"])


def test_a_note_is_recorded_on_its_record_and_nothing_else(env, episode):
    project = _project(env, "2200")
    record = env.call("lcptracker.payroll_records.list", {"project_id": project["project_id"]})["items"][0]
    before = episode.snapshot()
    env.call("lcptracker.payroll_records.add_note", {"record_id": record["record_id"], "category": "Overtime",
                                                    "note": "OT paid on base plus fringe"})
    diff = episode.diff()
    assert list(diff) == ["lcptracker"] and list(diff["lcptracker"]) == ["record_notes"]
    (added,) = diff["lcptracker"]["record_notes"]["added"]
    assert added["record_id"] == record["record_id"] and added["category"] == "Overtime"
    got = env.call("lcptracker.payroll_records.get", {"record_id": record["record_id"]})
    assert [n["note"] for n in got["notes"]] == ["OT paid on base plus fringe"]
    for bad in ({"record_id": record["record_id"], "category": "Nope", "note": "x"},
                {"record_id": record["record_id"], "category": "Other", "note": "   "},
                {"record_id": 1, "category": "Other", "note": "x"}):
        refused(env, "lcptracker.payroll_records.add_note", bad)
    assert len(episode.diff()["lcptracker"]["record_notes"]["added"]) == 1 and before != episode.snapshot()


def test_wh347_is_a_pdf_that_reads_back(env):
    project = _project(env, "2014")
    report = env.call("lcptracker.reports.wh347", {"project_id": project["project_id"], "week_ending": LAST_WEEK})
    data = base64.b64decode(report["content_base64"])
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)
    assert project["contract_number"] in text and "STATEMENT OF COMPLIANCE" in text and "not certified" in text
    record = env.call("lcptracker.payroll_records.list", {"project_id": project["project_id"],
                                                          "week_ending": LAST_WEEK})["items"][0]
    assert f"xxx-xx-{record['ssn_last4']}" in text and f"{Decimal(record['gross']):,.2f}" in text
    assert project["contract_number"] in report["text"] and report["name"].endswith(".pdf")


def test_certify_and_submit_is_staged_never_done(env, episode):
    project = _project(env, "1042")
    before = episode.snapshot()
    staged = env.call("lcptracker.cpr.certify_and_submit", {"project_id": project["project_id"],
                                                            "week_ending": LAST_WEEK, "signer_name": "Renee Albright"})
    assert staged["status"] == "pending_human_approval" and episode.snapshot() == before
    assert episode.guard_log[-1]["tool"] == "cpr.certify_and_submit" and episode.guard_log[-1]["executed"] is False
    submitted = env.call("lcptracker.projects.get", {"project_id": project["project_id"]})["cprs"][0]["week_ending"]
    assert "already submitted" in refused(env, "lcptracker.cpr.certify_and_submit", {
        "project_id": project["project_id"], "week_ending": submitted, "signer_name": "Renee Albright"})
    assert episode.guard_log[-1]["refused"] and episode.snapshot() == before


def test_pages_show_the_week_and_take_a_note(client, env, episode):
    project = _project(env, "2041")
    base = f"/lcptracker/projects/{project['project_id']}"
    page = client.get(base).get_data(as_text=True)
    assert project["contract_number"] in page and "Wage and fringe rates" in page
    week = client.get(f"{base}/payroll/{LAST_WEEK}?validate=1").get_data(as_text=True)
    assert "records passed validation" in week and "Certify and submit" in week
    record = env.call("lcptracker.payroll_records.list", {"project_id": project["project_id"],
                                                          "week_ending": LAST_WEEK})["items"][0]
    assert f"/lcptracker/records/{record['record_id']}" in week
    bad = post_form(client, f"/lcptracker/records/{record['record_id']}/notes", {"category": "Other", "note": " "})
    assert bad.status_code == 422 and episode.diff() == {}
    ok = post_form(client, f"/lcptracker/records/{record['record_id']}/notes", {"category": "Fringe benefits",
                                                                             "note": "Fringe short"})
    assert ok.status_code == 302
    assert "Fringe short" in client.get(ok.headers["Location"]).get_data(as_text=True)
    pdf = client.get(f"{base}/payroll/{LAST_WEEK}/wh347.pdf")
    assert pdf.status_code == 200 and pdf.data.startswith(b"%PDF")
    assert client.get("/lcptracker/projects/999").status_code == 404


def test_a_filter_or_sort_swaps_only_the_results_table(client):
    """The lists' search forms and column headers ask htmx for the results section alone: it
    renders with its own sort links and pager, filtered as asked."""
    hx = {"HX-Request": "true", "HX-Target": "results"}
    for url, shown in [("/lcptracker/?state=NC&sort=-name", "Contract number"),
                       ("/lcptracker/?state=SC&query=zzzz", "No projects match."),
                       ("/lcptracker/employees?sort=name", "Employee"),
                       ("/lcptracker/records?sort=-week_ending", "Week ending")]:
        response = client.get(url, headers=hx)
        html = response.get_data(as_text=True)
        assert response.status_code == 200, url
        assert html.lstrip().startswith('<section id="results"') and shown in html, url
