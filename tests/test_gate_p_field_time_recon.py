"""P_field_time_recon's own checks beside the admission gate: one instance on each field-time app,
each job's planted exceptions are the ones the book registers and the ground truth corrects; the
policy states the rules without naming a worker or an hour; every field payroll determines is
asserted. The near-misses, variants and reply corpus run in tests/test_gate.py."""
from __future__ import annotations

import re
from pathlib import Path

from seeds.book import load_book
from tasks.families import p_field_time_recon as F
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "P_field_time_recon"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "field_time_payroll.md"


def test_one_instance_on_each_field_time_app():
    assert sorted(TASKS) == ["cf_P_field_time_recon_busybusy_2041", "cf_P_field_time_recon_rhumbix_2014"]
    for task in TASKS.values():
        assert task.apps[1] == "foundation_payroll" and task.apps[0] in ("rhumbix", "busybusy")
        assert task.money_movement_guard and task.policy_ref == POLICY.name
        assert task.defect_variant == "unapproved_time_paid"


def test_the_truth_corrects_exactly_the_planted_exceptions():
    book = load_book()
    workers = {w["worker_id"]: w for w in book["workers"]}
    for app, job in F.INSTANCES.items():
        r = F.truth(book, app, job)
        planted = {e["kind"]: e for e in book["field_time_exceptions"] if e["job"] == job}
        emp = {k: workers[e["worker_id"]]["foundation_employee"] for k, e in planted.items()}
        kinds = sorted((f.kind, f.employee_no, f.job_no == r.job_no) for f in r.fixes)
        assert kinds == sorted([("update", emp["unapproved_paid"], True), ("update", emp["other_job"], True),
                                ("create", emp["other_job"], False), ("create", emp["not_in_payroll"], True)])
        assert {(h.employee_no, h.was_paid) for h in r.held} == {(emp["unapproved_paid"], True),
                                                                 (emp["unapproved_unpaid"], False)}
        moved = next(f for f in r.fixes if f.kind == "create" and f.job_no != r.job_no)
        assert [d for d, h in zip(F.DAYS, moved.hours) if h != "0"] == planted["other_job"]["days"]
        hire = next(f for f in r.fixes if f.kind == "create" and f.job_no == r.job_no)
        assert hire.total == 40 and hire.class_code == f"{planted['not_in_payroll']['craft']}-J"
        assert len(r.untouched) >= 8  # the rest of the crew matches and is left alone
        registered = {d["key"] for d in book["divergences"] if d["family"] == "P_field_time_recon"}
        assert {k.split("/")[0] for k in registered} >= {job, planted["other_job"]["to_job"]}


def test_the_policy_names_no_worker_and_no_figure():
    text = " ".join(POLICY.read_text().replace("**", "").split())
    for rule in ("Unapproved time is not paid", "another job", "no payroll timecard", "Do not finalize",
                 "Never sign", "pre-check register", "found by its name"):
        assert rule in text, rule
    assert not re.search(r"\d{2}", text)  # the numbered rules aside, no hour, date or id
    book = load_book()
    named = {f"{w['first_name']} {w['last_name']}" for w in book["workers"]}
    assert not [n for n in named if n in text]


def test_every_field_payroll_determines_is_asserted():
    for task in TASKS.values():
        specs = task.evaluator["expected"]
        cards = [s for s in specs if s["table"] == "timecards"]
        assert len(cards) == 4
        for s in cards:
            assert {"daily_hours", "reg_hours", "ot_hours", "cost_code", "class_code", "reg_rate", "ot_rate",
                    "earnings"} <= set(s["assert"])
            assert s["count"] == 1
        assert [s["assert"] for s in specs if s["table"] == "pay_runs"] == [{"status": "Calculated"}]
        # the instruction names the job but no worker, day or hour
        assert not re.search(r"\b\d{5}\b|\bhours?\b \d", task.instruction)


def test_the_private_split_plants_another_job_on_each_app():
    import copy
    import random

    book = copy.deepcopy(load_book())
    book["meta"] = {**book["meta"], "private_split": "test"}
    params = F.private_salt(book, random.Random(5), set())
    assert sorted(p["app"] for p in params) == ["busybusy", "rhumbix"]
    assert not {p["job"] for p in params} & set(F.INSTANCES.values())
    for p in params:
        r = F.truth(book, p["app"], p["job"])
        assert len(r.fixes) == 4 and len(r.held) == 2
