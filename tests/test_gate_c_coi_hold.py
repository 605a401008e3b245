"""C_coi_hold's own checks beside the admission gate: the instances are the book's lapsed vendors
and the renewed one, every instance ships a full gate, the evaluator pins one hold or none, and
dates are read as the documents give them. The near-misses, variants and reply corpus themselves
run in tests/test_gate.py (tools, every instance) and e2e/test_gate_browser.py (the browser).
"""
from __future__ import annotations

import re

import pytest

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import c_coi_hold as C
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "C_coi_hold"}


def test_the_instances_are_the_books_lapsed_vendors_and_the_renewed_one():
    assert sorted(TASKS) == [f"cf_C_coi_hold_{v}" for v in ("V1000", "V1002", "V1003", "V1005", "V1006", "V1007")] + [
        f"cf_C_coi_hold_sharepoint_{v}" for v in C.SHAREPOINT_VENDORS]
    defects = {t.instance_id.rsplit("_", 1)[1]: t.defect_variant for t in TASKS.values()}
    assert defects["V1003"] == "coi_issued_to_dba" and defects["V1005"] == "renewed_coi_newer_than_erp"
    assert defects["V1109"] == "coi_lapses_before_a_later_run" and defects["V1313"] == "coi_in_force_through_the_run"


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_portal_form_is_one_of_its_variants(instance_id):
    """Beside the gate every task ships (tests/test_gate.py): the portal's own form passes."""
    assert any(a.name == "portal_form" and a.browser for a in TASKS[instance_id].variants)


@pytest.mark.parametrize("instance_id", sorted(TASKS))
def test_the_evaluator_pins_one_hold_or_none_and_nothing_else(instance_id):
    task = TASKS[instance_id]
    sharepoint = "_sharepoint_" in instance_id
    c = C.case(load_book(), instance_id.rsplit("_", 1)[1], *(("sharepoint", C.SHAREPOINT_CHECK_DATE) if sharepoint else ()))
    (other,) = task.evaluator["forbidden"]
    assert other["any_other_change"] is True and other["allow"] == []
    kinds = [o["claim"] for o in task.evaluator["required_outputs"]]
    if c.lapsed:
        (spec,) = task.evaluator["expected"]
        assert spec["table"] == "payment_holds" and spec["where"] == {"vendor_key": c.vista} and spec["count"] == 1
        assert kinds == ["id", "regex", "id", "denies"]
    else:
        assert task.evaluator["expected"] == [] and kinds == ["id", "regex", "regex", "denies"]


def test_the_dates_the_documents_give():
    """The five lapsed before the check date by Box and the ERP alike; the renewal in Box runs a
    year past the ERP's lapsed date; the DBA vendor's certificates name only its DBA."""
    book = load_book()
    cases = {v: C.case(book, v) for v in C.VENDORS}
    for vid in C.EXPIRED_COI_VENDORS:
        assert cases[vid].lapsed and cases[vid].expires == cases[vid].erp_expires < C.CHECK_DATE
    renewed = cases[C.RENEWED_COI_VENDOR]
    assert renewed.erp_expires < C.CHECK_DATE < renewed.expires and not renewed.lapsed
    dba = cases[C.COI_DBA_VENDOR]
    assert dba.insured == ("Summit Roofing",) and dba.name == "Blue Ridge Roofing Co."


def test_the_sharepoint_company_checks_a_later_run_on_either_side_of_its_date():
    """SharePoint's two vendors for the August 7 run: one whose only certificate ran out four days
    before it (a hold), one whose certificate runs to the day after it (in force: no hold); each
    reads its certificates in SharePoint and nowhere else."""
    lapsed, covered = (TASKS[f"cf_C_coi_hold_sharepoint_{v}"] for v in C.SHAREPOINT_VENDORS)
    book = load_book()
    before, after = (C.case(book, v, "sharepoint", C.SHAREPOINT_CHECK_DATE) for v in C.SHAREPOINT_VENDORS)
    assert before.expires < C.SHAREPOINT_CHECK_DATE < after.expires
    assert before.lapsed and not after.lapsed and not C.case(book, before.vendor_id).lapsed
    for task in (lapsed, covered):
        assert task.apps == ("sharepoint", C.ERP) and "August 7, 2026" in task.instruction
    assert [s["app"] for s in lapsed.evaluator["expected"]] == [C.ERP] and covered.evaluator["expected"] == []


def test_a_date_is_read_in_the_forms_people_write_it():
    pattern = re.compile(C.date_pattern("2026-04-06"), re.I)
    for said in ("2026-04-06", "4/6/2026", "04/06/26", "April 6, 2026", "Apr. 6th 2026", "6 April 2026"):
        assert pattern.search(f"expired {said}."), said
    for said in ("2026-04-16", "4/16/2026", "April 16, 2026", "2025-04-06", "14/6/2026", "2026-04-061"):
        assert not pattern.search(f"expired {said}."), said


def test_vista_refuses_a_second_hold_and_a_company_vendor_id(store):
    """The ERP keeps one active hold a vendor and only its own vendor numbers: a repeated hold or
    the company's V-number changes nothing."""
    task = TASKS["cf_C_coi_hold_V1000"]
    episode = store.create(list(task.apps))
    try:
        env = Environment(episode, list(task.apps))
        task.oracle_tools(env)
        again = env.call(C.HOLD, {"vendor_id": "20210", "reason": "COI expired again"})
        assert again.get("error")
        assert env.call(C.HOLD, {"vendor_id": "V1000", "reason": "COI expired"}).get("error")
        added = episode.diff()["vista_erp"]["payment_holds"]["added"]
        assert [h["vendor_key"] for h in added] == ["20210"]
    finally:
        store.drop(episode.id)
