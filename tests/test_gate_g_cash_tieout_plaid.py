"""G_cash_tieout_plaid's own checks beside the admission gate: the one instance ties the operating
account out at the clock date; the book's outstanding checks are the ones Plaid and Vista show
(Vista's open checks less those Plaid posted, the pending ones still outstanding); a reply that
takes a pending check as cleared, or flips Plaid's sign, fails; nothing the agent is given holds
an answer. The near-misses, variants and reply corpus run in the admission gate (cfab tasks
validate)."""
from __future__ import annotations

from decimal import Decimal

from grader.grade import grade
from portals.core.environment import Environment
from seeds.book import load_book
from tasks.families import g_cash_tieout_plaid as G
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "G_cash_tieout_plaid"}
APPS = ["plaid", "vista_erp"]


def test_the_instance_reads_plaid_and_vista_and_changes_nothing():
    assert sorted(TASKS) == ["cf_G_cash_tieout_plaid_operating"]
    t = TASKS["cf_G_cash_tieout_plaid_operating"]
    assert t.apps == ("plaid", "vista_erp") and t.policy_ref == "bank_reconciliation_plaid.md"
    assert t.evaluator["expected"] == [] and t.evaluator["forbidden"][0]["any_other_change"]


def test_the_books_outstanding_checks_are_what_the_apps_show(store):
    c = G.case(load_book())
    env = Environment(store.create(APPS), APPS)
    account, current = G.operating(env)
    got = G.outstanding(G.open_checks(env), G.all_items(env, G.TXNS, {"account_id": account}))
    assert got == [(x.number, x.amount) for x in c.outstanding] and current == c.current
    # the traps are in the data: open checks the bank cleared, pending ones, two old uncashed ones
    assert c.cleared_open and any(x.pending for x in c.outstanding) and not all(x.pending for x in c.outstanding)
    assert Decimal(c.available) < Decimal(c.current)
    assert c.adjusted == G.money(Decimal(c.current) - sum(Decimal(x.amount) for x in c.outstanding))


def test_no_answer_is_in_what_the_agent_is_given():
    c = G.case(load_book())
    shown = TASKS["cf_G_cash_tieout_plaid_operating"].instruction
    assert not any(v in shown for v in (c.total, c.adjusted, c.current, str(len(c.outstanding))))
    assert not any(x.number in shown for x in c.outstanding)


def test_the_oracle_passes_and_a_pending_check_taken_as_cleared_fails(store):
    t = TASKS["cf_G_cash_tieout_plaid_operating"]
    episode = store.create(APPS)
    said = t.oracle_tools(Environment(episode, APPS))
    assert grade(episode.diff(), episode.guard_log, said, t.evaluator, episode.calls).passed
    c = G.case(load_book())
    cleared = [(x.number, x.amount) for x in c.outstanding if not x.pending]
    wrong = G.reply(c.current, cleared)
    assert not grade(episode.diff(), episode.guard_log, wrong, t.evaluator, episode.calls).passed
    flipped = said.replace(c.adjusted, G.money(Decimal(c.current) + Decimal(c.total)))
    assert flipped != said and not grade(episode.diff(), episode.guard_log, flipped, t.evaluator, episode.calls).passed
