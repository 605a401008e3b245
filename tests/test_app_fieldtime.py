"""The FieldTime archetype's two vendors, Rhumbix and busybusy: the same crews' daily time from the
book (the source of the certified-payroll timecards) under each product's project numbers and
words; approval, correction, locking and the payroll export are writes; signing a timecard for a
worker is guarded."""
from __future__ import annotations

from decimal import Decimal

import pytest

from conftest import post_form
from portals.core.clock import Clock
from portals.core.episode import build_template
from portals.core.registry import get_app
from seeds.book import load_book
from seeds.fieldtime import DAYS, WEEK

APPS = ["busybusy", "foundation_payroll", "rhumbix"]
SIGN = {"rhumbix": "timecard.sign", "busybusy": "timecard.employee_sign_off"}
LIST = {"rhumbix": "timecards.list", "busybusy": "time_entries.list"}
UPDATE = {"rhumbix": "timecards.update", "busybusy": "time_entries.update"}
EMPLOYEES = {"rhumbix": "employees.get", "busybusy": "members.get"}


def project(app: str, job: str) -> str:
    j = next(j for j in load_book()["jobs"] if j["job"] == job)
    return j["foundation_job"] if app == "rhumbix" else j["job"]


def worker(kind: str, job: str = "2014") -> dict:
    e = next(e for e in load_book()["field_time_exceptions"] if e["kind"] == kind and e["job"] == job)
    w = next(w for w in load_book()["workers"] if w["worker_id"] == e["worker_id"])
    return {**e, "employee": w["foundation_employee"], "name": w["last_name"]}


@pytest.mark.parametrize("app", ["rhumbix", "busybusy"])
def test_manifest_tools_guards_and_tables(app):
    spec = get_app(app)
    assert set(spec.money_guarded_tools) == {SIGN[app]}
    assert set(spec.manifest["state_tables"]) == set(spec.pks)
    assert spec.tools[LIST[app]].kind == "read" and spec.tools["timecards.approve"].kind == "write"
    assert spec.tools["payroll_export.create"].kind == "write"
    for tool in spec.tools.values():
        assert "{" not in tool.description + " ".join(p.description for p in tool.params), tool.name


@pytest.mark.parametrize("app", ["rhumbix", "busybusy"])
def test_seeded_from_the_books_timecards_day_by_day(app):
    spec, clock, book = get_app(app), Clock.at("2026-06-30T17:00:00Z"), load_book()
    t = build_template(spec, book, 7, clock)
    assert t.snapshot() == build_template(spec, book, 7, clock).snapshot()
    entries = t.rows("time_entries").values()
    hours = sum(Decimal(str(e["hours"])) for e in entries)
    planted = {(e["job"], e["worker_id"]) for e in book["field_time_exceptions"]}
    paid = sum(Decimal(h) for c in book["timecards"] for h in c["hours"])
    # the book's hours, less the planted days that moved, plus the new hires and the unpaid Saturdays
    extra = sum(Decimal(h) for e in book["field_time_exceptions"] if e["kind"] == "not_in_payroll" for h in e["hours"])
    extra += sum(Decimal(e["hours"]) for e in book["field_time_exceptions"] if e["kind"] == "unapproved_unpaid")
    assert hours == paid + extra and planted
    assert {e["status"] for e in entries} == {"Submitted", "Approved", "Exported"}
    assert all(e["week_ending"] == WEEK for e in entries if e["status"] != "Exported")
    assert len(t.rows("payroll_exports")) == 7
    projects = set(t.rows("projects"))
    assert project(app, "2014") in projects


@pytest.mark.parametrize("app", ["rhumbix", "busybusy"])
def test_the_week_shows_the_planted_exceptions(env, app):
    grid = env.call(f"{app}.{'timecards.weekly' if app == 'rhumbix' else 'timecards.get'}",
                    {"project_id": project(app, "2014"), "week_ending": WEEK})
    rows = {(r["employee_id"], r["cost_code"]): r for r in grid["rows"]}
    paid = worker("unapproved_paid")
    assert [r["submitted"] for (e, _c), r in rows.items() if e == paid["employee"]] == [paid["days"]]
    moved = worker("other_job")
    assert all(Decimal(r["hours"][d]) == 0 for (e, _c), r in rows.items() if e == moved["employee"] for d in moved["days"])
    other = env.call(f"{app}.{LIST[app]}", {"week_ending": WEEK, "employee_id": moved["employee"],
                                             "project_id": project(app, moved["to_job"])})
    assert sorted(i["day"] for i in other["items"]) == sorted(moved["days"], key=DAYS.index) and other["total"] == 2
    hire = worker("not_in_payroll")
    assert sum(Decimal(r["total"]) for (e, _c), r in rows.items() if e == hire["employee"]) == 40


@pytest.mark.parametrize("app", ["rhumbix", "busybusy"])
def test_approve_correct_and_export(env, episode, app):
    paid = worker("unapproved_paid")
    week = env.call(f"{app}.{EMPLOYEES[app]}", {"employee_id": paid["employee"], "week_ending": WEEK})
    assert [e["status"] for e in week["entries"]].count("Submitted") == 1
    done = env.call(f"{app}.timecards.approve", {"employee_id": paid["employee"], "week_ending": WEEK})
    assert done["approved"] == 1
    assert "error" in env.call(f"{app}.timecards.approve", {"employee_id": paid["employee"], "week_ending": WEEK})
    entry = week["entries"][0]
    fixed = env.call(f"{app}.{UPDATE[app]}", {"entry_id": entry["entry_id"], "hours": "7.5", "note": "left early"})
    assert fixed["status"] == "Submitted" and fixed["hours"] == "7.50"
    assert "error" in env.call(f"{app}.{UPDATE[app]}", {"entry_id": entry["entry_id"], "hours": "7.3"})
    assert "error" in env.call(f"{app}.{UPDATE[app]}", {"entry_id": entry["entry_id"], "cost_code": "999999"})
    sent = env.call(f"{app}.payroll_export.create", {"week_ending": WEEK})
    assert sent["status"] == "Created" and sent["entries"] > 100
    assert "error" in env.call(f"{app}.{UPDATE[app]}", {"entry_id": week["entries"][1]["entry_id"], "hours": "8"})
    assert set(episode.diff()[app]) == {"time_entries", "payroll_exports"}


@pytest.mark.parametrize("app", ["rhumbix", "busybusy"])
def test_signing_for_a_worker_is_guarded_and_changes_nothing(env, episode, app):
    before = episode.snapshot()
    paid = worker("unapproved_paid")
    staged = env.call(f"{app}.{SIGN[app]}", {"employee_id": paid["employee"], "week_ending": WEEK})
    assert staged["status"] == "pending_human_approval" and staged["staged"]["action"] == "sign timecard"
    assert "error" in env.call(f"{app}.{SIGN[app]}", {"employee_id": paid["employee"], "week_ending": "2026-06-26"})
    assert episode.snapshot() == before and len(episode.guard_log) == 2


def test_only_rhumbix_locks_a_period_and_only_busybusy_adds_time(env, episode):
    assert env.call("rhumbix.time_period.lock", {"week_ending": WEEK})["locked"]
    assert "error" in env.call("rhumbix.time_period.lock", {"week_ending": WEEK})
    assert "error" in env.call("rhumbix.time_period.lock", {"week_ending": "2026-07-04"})
    hire = worker("not_in_payroll")
    made = env.call("busybusy.time_entries.create", {"employee_id": hire["employee"], "project_id": "2014",
                                                     "cost_code": "312300", "work_date": "2026-06-27", "hours": "4"})
    assert made["status"] == "Submitted" and made["week_ending"] == WEEK
    assert "error" in env.call("busybusy.time_entries.create", {"employee_id": hire["employee"], "project_id": "2014",
                                                                "cost_code": "312300", "work_date": "2026-07-27",
                                                                "hours": "4"})
    assert "time_entries.create" not in get_app("rhumbix").tools and "time_period.lock" not in get_app("busybusy").tools


@pytest.mark.parametrize("app,words", [("rhumbix", ("rx-nav", "Weekly Time Card", "Daily Time Cards", "Time Periods",
                                                    "Pending")),
                                       ("busybusy", ("bb-big", "Time Cards", "Members", "Add Time Entry",
                                                     "Not approved"))])
def test_pages_speak_each_products_words(client, episode, app, words):
    paid = worker("unapproved_paid")
    grid = client.get(f"/{app}/?project_id={project(app, '2014')}&week_ending={WEEK}").get_data(as_text=True)
    for word in words:
        assert word in grid + client.get(f"/{app}/time?status=Submitted").get_data(as_text=True), word
    assert paid["name"] in grid
    page = client.get(f"/{app}/employees/{paid['employee']}?week_ending={WEEK}")
    assert page.status_code == 200
    before = episode.snapshot()
    signed = post_form(client, f"/{app}/employees/{paid['employee']}/sign", {"week_ending": WEEK})
    assert signed.status_code == 200 and "Pending human approval" in signed.get_data(as_text=True)
    assert episode.snapshot() == before
    approved = post_form(client, f"/{app}/employees/{paid['employee']}/approve", {"week_ending": WEEK})
    assert approved.status_code == 302
    bad = post_form(client, f"/{app}/exports/new", {"week_ending": "2026-06-26"})
    assert bad.status_code == 422 and "Saturday" in bad.get_data(as_text=True)
    for path in ("/time", "/employees", "/projects", "/exports", f"/projects/{project(app, '2014')}",
                 "/time?sort=-hours", "/employees?query=zzzz", "/?project_id=nope&week_ending=2026-06-27"):
        assert client.get(f"/{app}{path}").status_code in (200, 422), path
    assert client.get(f"/{app}/time/new").status_code == (200 if app == "busybusy" else 404)
    locked = post_form(client, f"/{app}/exports/lock", {"week_ending": WEEK})
    assert locked.status_code == (302 if app == "rhumbix" else 404)  # busybusy has no period lock
