"""H_procore_erp_sync's own checks beside the admission gate (which tests/test_gate.py holds),
the reply corpus splits as it says through the grader, and the trap is caught by the evaluator
even where Procore itself accepts the wrong sync. The near-misses and variants themselves run in
tests/test_gate.py (tools) and e2e/test_gate_browser.py (the browser)."""
from __future__ import annotations

import pytest

from grader.claims import check_outputs
from grader.grade import grade
from portals.core.environment import Environment
from portals.pm.models import Requisition
from seeds.book import load_book
from tasks.families.h_procore_erp_sync import job_invoices
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "H_procore_erp_sync"}
TASK = TASKS["cf_H_procore_erp_sync_1042"]


CORPUS = [(i, kind, reply) for i, t in sorted(TASKS.items())
          for kind in ("pass", "fail") for reply in t.reply_corpus[kind]]


@pytest.mark.parametrize("instance_id,kind,reply", CORPUS,
                         ids=[f"{i[-4:]}-{k}-{n}" for n, (i, k, _) in enumerate(CORPUS)])
def test_the_reply_corpus_splits_as_it_says(instance_id, kind, reply):
    results = check_outputs(reply, TASKS[instance_id].evaluator["required_outputs"])
    held = all(r["held"] for r in results)
    assert held == (kind == "pass"), [r["line"] for r in results]


def test_the_corpus_grades_the_same_through_grade():
    outputs = TASK.evaluator["required_outputs"]
    only_outputs = {"required_outputs": outputs, "expected": [], "forbidden": []}
    for kind in ("pass", "fail"):
        for reply in TASK.reply_corpus[kind]:
            assert grade({}, [], reply, only_outputs, None).passed == (kind == "pass"), reply


# The trap, with Procore accepting it: whatever the sync tool does today, a row written the way
# an accepting sync writes it must fail the run, and the verdict must say which rule it broke.
COMPANY_A = load_book()  # not BOOK: conftest reads that name as a book factory
INV = job_invoices(COMPANY_A, "1042")
TRAPS = {
    "unapproved": (INV.unapproved[0], "an invoice that is not approved sent to the ERP"),
    "already_synced": (INV.done[0], "already synced sent to the ERP again"),
    "paid": (next(r for r in INV.synced if r["status"] == "paid"), "already synced sent to the ERP again"),
    "other_job": (INV.elsewhere[0], "job other than 1042"),
}


def _accepting_sync(store, episode, requisition_id: int) -> None:
    """What a sync that accepts anything writes: synced, at the episode's instant."""
    with episode.app("procore").session() as session:
        row = session.get(Requisition, requisition_id)
        row.erp_sync, row.erp_synced_at = "synced", store.clock.iso()


@pytest.mark.parametrize("trap", sorted(TRAPS))
def test_the_evaluator_catches_a_sync_procore_would_accept(store, trap):
    row, reason = TRAPS[trap]
    episode = store.create(list(TASK.apps))
    try:
        reply = TASK.oracle_tools(Environment(episode, list(TASK.apps)))
        assert grade(episode.diff(), [], reply, TASK.evaluator).passed  # the oracle alone passes
        _accepting_sync(store, episode, row["requisition_id"])
        result = grade(episode.diff(), [], reply, TASK.evaluator)
    finally:
        store.drop(episode.id)
    assert not result.passed and result.details["gate"] == "forbidden"
    assert any(line.startswith("Forbidden change") and reason in line for line in result.verdict), result.verdict


def test_both_columns_of_every_sync_are_claimed_and_nothing_is_allowed():
    for task in TASKS.values():
        for spec in task.evaluator["expected"]:
            assert set(spec["assert"]) == {"erp_sync", "erp_synced_at"} and spec["count"] == 1
        others = [f for f in task.evaluator["forbidden"] if f.get("any_other_change")]
        assert others and all(f["allow"] == [] for f in others)
