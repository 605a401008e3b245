"""H_levelset_notice_holds' own checks beside the admission gate: the four new notices Levelset
holds are the four the family instantiates, one per job; the DBA-named one is registered; each
situation (no waiver, conditional only, through a month too early, covered) is what the tools
show; the policy names no claimant, sub or job. The near-misses, variants and reply corpus run in
tests/test_gate.py."""
from __future__ import annotations

from pathlib import Path

from portals.core.environment import Environment
from seeds import levelset
from seeds.book import load_book
from tasks.families import h_levelset_notice_holds as H
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "H_levelset_notice_holds"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "lien_notice_waivers.md"
APPS = ["levelset", "vista_erp"]


def test_four_instances_one_per_situation_on_four_jobs():
    book = load_book()
    cases = [H.case(book, k) for k in levelset.KINDS]
    assert sorted(TASKS) == sorted(f"cf_H_levelset_notice_holds_{c.job}" for c in cases)
    assert len({c.job for c in cases}) == 4 and len({c.vista for c in cases}) == 4
    assert [c.due for c in cases] == [True, True, True, False]
    registered = {d["key"] for d in book["divergences"] if d["entity"] == "lien_notice"}
    assert registered == {H.case(book, "dba").vendor_id}
    dba = H.case(book, "dba")
    assert dba.hired_by != dba.sub_name and dba.hired_by == next(v["dba"] for v in book["vendors"]
                                                                  if v["vendor_id"] == dba.vendor_id)
    for task in TASKS.values():
        assert task.money_movement_guard and task.policy_ref == POLICY.name
        assert not any(n in task.instruction for c in cases for n in (c.claimant, c.sub_name, c.vista, c.hired_by))


def test_the_policy_names_no_party_and_no_answer():
    text = POLICY.read_text()
    book = load_book()
    for kind in levelset.KINDS:
        c = H.case(book, kind)
        assert c.claimant not in text and c.sub_name not in text and c.hired_by not in text and c.period_end not in text
    assert "Unconditional Progress" in text and "conditional" in text and "draft" in text


def test_what_levelset_shows_decides_each_case(episode):
    env = Environment(episode, APPS)
    book = load_book()
    for kind in levelset.KINDS:
        c = H.case(book, kind)
        notice = H.tool_notice(env, c)
        assert notice["notice_id"] == c.notice_id and notice["claimant"] == c.claimant
        assert H.covered(notice["waivers"], c.period_end) is (not c.due)
        assert H.tool_vendor(env, c.job, notice)["vendor_id"] == c.vista
