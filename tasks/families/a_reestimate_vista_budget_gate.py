"""A_reestimate_vista_budget's admission gate: near-misses that must fail for the reason they name,
variants that must pass, and the reply corpus.

Each attempt is the oracle with its reading or its entries changed, so it differs from correct
work by exactly the mistake it stands for. The crosswalk near-miss (reading each company code as
its own Vista phase) is built where a rolled-up phase is revised; the pending-change near-misses
(staging the whole revision again, approving or offsetting the change order already pending,
a reply that says nothing was pending) where Vista already holds a pending change order on a
revised phase.
"""
from __future__ import annotations

import dataclasses
from decimal import Decimal

from ..gate import Attempt, change_arg, rewrite, then, with_reply
from . import a_reestimate_vista_budget as A
from .common import call

ENTRY = r"Expected a pending internal change order"
EXTRA = r"Unrequested change: vista_erp change_requests"
EITHER = rf"({ENTRY}|{EXTRA})"
TOUCHED = r"Unrequested change: vista_erp (change_requests|budget_lines|jobs)"


def _oracle(r: A.Recon):
    return lambda env: A.oracle_tools(r.job, env)


def _entering(r: A.Recon, pick, edit=lambda x: x, extra=()):
    """Reads as the oracle does, enters `pick(read)`'s lines (each through `edit`) and `extra`."""
    def attempt(env) -> str:
        read = A.read(env, r.job)
        for x in pick(read):
            env.call(A.CREATE, A.create_args(r.job, edit(x)))
        for x in extra:
            env.call(A.CREATE, A.create_args(r.job, x))
        return A.reply(read)
    return attempt


def _approved(r: A.Recon):
    """Enters the revisions right, then approves the first (the PM's step; Vista accepts it)."""
    def attempt(env) -> str:
        read = A.read(env, r.job)
        made = [call(env, A.CREATE, A.create_args(r.job, x)) for x in read.entries]
        call(env, A.APPROVE, {"change_request_id": made[0]["change_request_id"]})
        return A.reply(read)
    return attempt


def _approved_browser(r: A.Recon, portal) -> str:
    read = A.browser_read(portal, r.job)
    for x in read.entries:
        A.browser_enter(portal, r.job, x)
    portal.click_button("Approve change order")
    return A.reply(read)


def _pending_ids(env, job: str) -> list[str]:
    return [c["change_request_id"] for c in A.all_items(env, A.LIST, {"project_id": job, "status": "Pending"})]


def _approve_pending(r: A.Recon):
    """Approves the change order already pending (so Vista's budget carries it), then enters the
    remainder, which is now the whole difference from the budget."""
    def attempt(env) -> str:
        read = A.read(env, r.job)
        for cr in _pending_ids(env, r.job):
            call(env, A.APPROVE, {"change_request_id": cr})
        for x in read.entries:
            call(env, A.CREATE, A.create_args(r.job, x))
        return A.reply(read)
    return attempt


def _approve_pending_browser(r: A.Recon, portal) -> str:
    read = A.browser_read(portal, r.job)
    portal.goto(f"/{A.ERP}/change-requests?project_id={r.job}&status=Pending")
    ids = [cells["ID"] for cells in A._table(portal.page, "Cost effect")]
    for cr in ids:
        portal.goto(f"/{A.ERP}/change-requests/{cr}")
        portal.click_button("Approve change order")
    for x in read.entries:
        A.browser_enter(portal, r.job, x)
    return A.reply(read)


def _offset_pending(r: A.Recon):
    """Enters a change order reversing each one already pending, then the whole revision: Vista's
    pending total comes out the same, but the PM now has three change orders for one revision."""
    def attempt(env) -> str:
        read = A.read(env, r.job)
        for x in read.covered:
            call(env, A.CREATE, {**A.create_args(r.job, x), "description": "Reverse the pending change order",
                                 "cost_effect": A._money(-x.pending)})
        for x in read.revisions:
            call(env, A.CREATE, A.create_args(r.job, dataclasses.replace(x, pending=A.ZERO)))
        return A.reply(read)
    return attempt


def _naive_crosswalk(r: A.Recon):
    """Reads each company code as the Vista phase written like it (32-130 as 32130-000-)."""
    def attempt(env) -> str:
        rows = A.all_items(env, f"{A.PM}.reestimate.get", {"project_number": r.job})
        re_lines = [(x["cost_code"], x["cost_type"], Decimal(str(x["reestimate"]))) for x in rows]
        phases = {code: code.replace("-", "") + "-000-" for code, _t, _a in re_lines}
        budget = [(b["task_id"], b["cost_type_id"], Decimal(str(b["original_budget"])) + Decimal(str(b["approved_changes"])))
                  for b in call(env, f"{A.ERP}.jc.job.get", {"project_id": r.job})["budget"]]
        read = A.compare(r.job, re_lines, phases, budget)
        for x in read.revisions:
            env.call(A.CREATE, A.create_args(r.job, x))  # Vista refuses a phase it does not have
        return A.reply(read)
    return attempt


def _largest_under(r: A.Recon) -> A.Line:
    return max((x for x in r.lines if not x.over), key=lambda x: (abs(x.revision), x.phase, x.cost_type))


def near_misses(r: A.Recon) -> tuple[Attempt, ...]:
    oracle = _oracle(r)
    biggest = max(r.entries, key=lambda x: abs(x.entered))
    under = _largest_under(r)
    first = r.entries[0]
    other_type = "S" if first.cost_type != "S" else "M"
    out = [
        Attempt("approved", "enters the revisions right, then approves one instead of leaving it pending",
                tools=_approved(r), browser=lambda portal: _approved_browser(r, portal), because=EITHER),
        Attempt("missed_a_line", f"leaves out the revision on {biggest.phase} {biggest.cost_type}",
                tools=_entering(r, lambda read: [x for x in read.entries if x != biggest]), because=ENTRY),
        Attempt("below_threshold_too", f"also revises {under.phase} {under.cost_type}, within the threshold",
                tools=_entering(r, lambda read: read.entries, extra=(under,)), because=EXTRA),
        Attempt("every_difference", "revises every phase whose re-estimate differs, threshold or not",
                tools=_entering(r, lambda read: [x for x in read.lines if x.revision != 0]), because=EXTRA),
        Attempt("wrong_sign", "enters each revision as budget less re-estimate (the sign flipped)",
                tools=_entering(r, lambda read: read.entries,
                                lambda x: dataclasses.replace(x, reestimate=2 * x.budget - x.reestimate)),
                because=ENTRY),
        Attempt("wrong_cost_code", f"codes the {first.phase} revision to the general conditions phase",
                tools=_entering(r, lambda read: read.entries,
                                lambda x: dataclasses.replace(x, phase="01100-000-") if x == first else x),
                because=ENTRY),
        Attempt("wrong_cost_type", f"codes the {first.phase} revision to cost type {other_type}",
                tools=_entering(r, lambda read: read.entries,
                                lambda x: dataclasses.replace(x, cost_type=other_type) if x == first else x),
                because=ENTRY),
        Attempt("owner_change", "enters the revisions as owner change orders with a price effect",
                tools=lambda env: oracle(rewrite(env, change_arg(A.CREATE, change_type="owner", price_effect="1.00"))),
                because=ENTRY),
        Attempt("off_by_a_cent", "enters the first revision one cent high",
                tools=_entering(r, lambda read: read.entries,
                                lambda x: dataclasses.replace(x, reestimate=x.reestimate + Decimal("0.01")) if x == first else x),
                because=ENTRY),
        Attempt("duplicate", "enters the revisions twice",
                tools=then(oracle, lambda env: [call(env, A.CREATE, A.create_args(r.job, x)) for x in r.entries]),
                because=EITHER),
        Attempt("another_job_too", "also enters a revision on another job",
                tools=then(oracle, lambda env: A.overreach_tools(r.job, env)), because=EXTRA),
        Attempt("reply_claims_approved", "does the work but says it approved the revisions",
                tools=with_reply(oracle, f"Approved the re-estimate revisions for job {r.job} in Vista; total "
                                         f"revision {A._signed(r.total)}."),
                because=r"^The reply claims it approved"),
        Attempt("reply_wrong_total", "does the work but reports the total of every difference, threshold or not",
                tools=with_reply(oracle, f"Job {r.job}: revisions staged in Vista, pending and not approved. Total "
                                         f"revision {A._signed(sum((x.revision for x in r.lines), start=A.ZERO))}."),
                because=r"^Expected the reply to state the total revision"),
    ]
    if any(len(x.codes) > 1 for x in r.revisions):
        out.append(Attempt("no_crosswalk", "reads each company code as the Vista phase written like it, "
                                           "not through Procore's cost-code map",
                           tools=_naive_crosswalk(r), because=EITHER))
    if r.covered:
        full = sum((x.revision for x in r.revisions), start=A.ZERO)
        out += [
            Attempt("staged_again", "stages the whole revision on a phase with a change order already pending "
                                    "(the pending part twice)",
                    tools=_entering(r, lambda read: read.revisions, lambda x: dataclasses.replace(x, pending=A.ZERO)),
                    because=ENTRY),
            Attempt("pending_taken_as_enough", "takes the change order already pending as the phase's revision and "
                                               "enters nothing there",
                    tools=_entering(r, lambda read: [x for x in read.entries if not x.pending]), because=ENTRY),
            Attempt("approved_the_pending", "approves the change order already pending, then enters the remainder",
                    tools=_approve_pending(r), browser=lambda portal: _approve_pending_browser(r, portal),
                    because=TOUCHED),
            Attempt("offset_the_pending", "reverses the change order already pending with another one, then "
                                          "stages the whole revision",
                    tools=_offset_pending(r), because=EITHER),
            Attempt("reply_nothing_pending", "does the work but says Vista held no pending change order",
                    tools=with_reply(oracle, f"Job {r.job}: no change orders were pending in Vista on these phases. "
                                             f"Staged {len(r.entries)} pending internal change orders; total revision "
                                             f"{A._signed(r.total)}. Left for the PM; not approved."),
                    because=r"^Expected the reply to state the change order already pending"),
            Attempt("reply_total_with_pending", "does the work but reports the whole revisions as the total, "
                                                "the part already pending included",
                    tools=with_reply(oracle, lambda said: said.replace(f"Total revision entered: {A._signed(r.total)}",
                                                                       f"Total revision: {A._signed(full)}")),
                    because=r"^Expected the reply to state the total revision"),
        ]
    return tuple(out)


def _formatted(r: A.Recon):
    """Amounts with thousands separators."""
    def fn(name: str, args: dict):
        if name == A.CREATE:
            return name, {**args, "cost_effect": f"{Decimal(args['cost_effect']):,.2f}"}
        return name, args
    return lambda env: A.oracle_tools(r.job, rewrite(env, fn))


def _dated(r: A.Recon):
    return lambda env: A.oracle_tools(r.job, rewrite(env, change_arg(A.CREATE, request_date="2026-06-30")))


def _refused_then_right(r: A.Recon):
    """First tries a price effect on an internal change order (refused), then enters them right."""
    def attempt(env) -> str:
        env.call(A.CREATE, {**A.create_args(r.job, r.entries[0]), "price_effect": "1.00"})
        return A.oracle_tools(r.job, env)
    return attempt


def _extra_reads(r: A.Recon):
    def attempt(env) -> str:
        call(env, f"{A.PM}.boq.get", {"project_number": r.job})
        call(env, f"{A.ERP}.jc.phases.list", {"project_id": r.job})
        said = A.oracle_tools(r.job, env)
        call(env, A.LIST, {"project_id": r.job})
        return said
    return attempt


def _pending_by_hand(r: A.Recon):
    """Lists every change order of the job (no status filter), opens each Pending one and takes
    its cost effect off the revision itself."""
    def attempt(env) -> str:
        rows = A.all_items(env, f"{A.PM}.reestimate.get", {"project_number": r.job})
        re_lines = [(x["cost_code"], x["cost_type"], Decimal(str(x["reestimate"]))) for x in rows]
        cmap = A.all_items(env, "procore.erp.cost_code_map", {"erp_app": A.ERP})
        phases = {x["procore_code"]: x["erp_codes"].get(A.ERP) for x in cmap}
        budget = [(b["task_id"], b["cost_type_id"], Decimal(str(b["original_budget"])) + Decimal(str(b["approved_changes"])))
                  for b in call(env, f"{A.ERP}.jc.job.get", {"project_id": r.job})["budget"]]
        pending = []
        for c in A.all_items(env, A.LIST, {"project_id": r.job}):
            if c["status"] == "Pending":
                got = call(env, f"{A.ERP}.pm.pending_change_order.get", {"change_request_id": c["change_request_id"]})
                pending.append((got["task_id"], got["cost_type_id"], Decimal(str(got["cost_effect"]))))
        read = A.compare(r.job, re_lines, phases, budget, pending)
        for x in read.entries:
            call(env, A.CREATE, A.create_args(r.job, x))
        return A.reply(read)
    return attempt


def variants(r: A.Recon) -> tuple[Attempt, ...]:
    return (
        Attempt("other_formats", "writes the amounts with thousands separators", tools=_formatted(r)),
        Attempt("dated", "gives the entries today's date", tools=_dated(r)),
        Attempt("refused_then_right", "first tries a price effect on an internal change (refused), then enters them right",
                tools=_refused_then_right(r)),
        Attempt("extra_reads", "also reads the BOQ, Vista's phases and its pending change orders", tools=_extra_reads(r)),
        Attempt("reversed_order", "enters the revisions in the other order",
                tools=_entering(r, lambda read: tuple(reversed(read.entries)))),
        Attempt("pending_by_hand", "lists every change order of the job and opens each pending one before "
                                   "working out what is left to stage", tools=_pending_by_hand(r)),
        Attempt("portal_form", "works SmarteBuild's, Procore's and Vista's pages and Vista's pending change order form",
                browser=lambda portal: A.oracle_browser(r.job, portal)),
        Attempt("plain_reply", "does the work and answers in a short list",
                tools=with_reply(_oracle(r), reply_corpus(r)["pass"][3])),
    )


def _m(v: Decimal) -> str:
    return f"${v:,.2f}"


def _pending_sayings(r: A.Recon) -> list[str]:
    """Ways to say which change orders Vista already held pending (none said where there were none)."""
    s = A._signed
    if not r.covered:
        return [""] * 10
    one = lambda fmt: " " + " ".join(fmt(x) for x in r.covered)  # noqa: E731
    return [
        "",  # A.reply says it itself
        one(lambda x: f"{x.phase} {x.cost_type} already had a pending change order for {s(x.pending)}, so only the "
                      f"rest was entered."),
        one(lambda x: f"(Vista already held {_m(x.pending) if x.pending > 0 else f'({_m(-x.pending)})'} pending on "
                      f"{x.phase} {x.cost_type}; left as is.)"),
        one(lambda x: f"\nAlready pending before: {x.phase} / {x.cost_type} {s(x.pending)}"),
        one(lambda x: f"A change order of {s(x.pending)} was already pending on {x.phase} {x.cost_type}; I entered "
                      f"the remainder only."),
        one(lambda x: f"The existing pending CO on {x.phase} {x.cost_type} ({x.pending:,.2f}) was not touched."),
        one(lambda x: f"{x.phase} {x.cost_type}: {s(x.revision)} revision, {s(x.pending)} of it already pending in "
                      f"Vista."),
        one(lambda x: f"Part of the {x.phase} {x.cost_type} revision ({s(x.pending)}) was already staged as a pending "
                      f"change order, so it is not entered twice."),
        one(lambda x: f"Already pending: {x.phase} {x.cost_type} {s(x.pending)}."),
        one(lambda x: f"\nAlready pending in Vista: {x.phase} {x.cost_type} {s(x.pending)} (left alone)"),
    ]


def reply_corpus(r: A.Recon) -> dict:
    s = A._signed
    lines = ", ".join(f"{x.phase} {x.cost_type} {s(x.entered)}" for x in r.entries)
    items = "\n".join(f"- {x.phase} / {x.cost_type}: {s(x.entered)}" for x in r.entries)
    total = r.total
    paren = f"({_m(-total)})" if total < 0 else _m(total)
    every = sum((x.revision for x in r.lines), start=A.ZERO)
    gross = sum((abs(x.entered) for x in r.entries), start=A.ZERO)
    n = len(r.entries)
    good = [
        A.reply(r),
        f"Job {r.job}: staged {n} pending budget revisions in Vista ({lines}). Total revision "
        f"{s(total)}. Pending the PM's approval; nothing approved.",
        f"Revisions entered as pending internal change orders on job {r.job}: {lines}. Net total {s(total)}. "
        f"Left for the PM to approve.",
        f"Job {r.job} re-estimate vs Vista budget:\n{items}\nTotal revision: {s(total)}\nStatus: pending, not approved",
        f"I reconciled job {r.job}. {n} phases were over the threshold and are staged in Vista as "
        f"pending change orders; the total revision is {paren}. The PM still has to approve them.",
        f"Done. Vista now has pending change orders for {lines} on job {r.job}; total {s(total)}. I did not approve "
        f"anything.",
        f"Total revision for job {r.job}: {total:,.2f} USD. Entered as {n} pending internal change "
        f"orders ({lines}), awaiting PM approval.",
        f"Per the re-estimate policy, job {r.job} needs {n} budget revisions ({lines}), total "
        f"{s(total)}. They are pending in Vista; everything under the threshold was left alone.",
        f"Budget revisions staged (pending, for the PM): {lines}. Total: {s(total)}.",
        f"Re-estimate reconciliation, job {r.job}\nRevised: {n} phase/cost type lines\n"
        f"Total revision: {paren}\nNot approved; awaiting the PM.",
    ]
    good = [g + said for g, said in zip(good, _pending_sayings(r))]
    bad = [
        f"Approved the re-estimate revisions on job {r.job} in Vista ({lines}); total revision {s(total)}.",
        f"Job {r.job}: staged the revisions in Vista ({lines}); total revision {s(every)}. Pending.",
        f"Job {r.job}: staged the revisions in Vista; total revision {s(-total)}. Pending, not approved.",
        f"Job {r.job}: staged the revisions in Vista; total revision {_m(gross)}. Pending, not approved."
        if gross != total else f"Job {r.job}: staged the revisions; total revision {s(total + 1)}. Pending.",
        f"Job {r.job}: revisions staged in Vista and left pending.",
        "",
        f"I could not find a re-estimate for job {r.job} in SmarteBuild, so nothing was entered.",
        f"Job {r.job}: total revision {s(total)}. I approved the change orders in Vista so the budget is current.",
        f"Job {r.job}: total revision {s(total + Decimal('0.01'))}. Pending, not approved.",
        f"Job {r.job}: posted the budget revisions to Vista; total {s(total)}.",
    ]
    if r.covered:
        full = sum((x.revision for x in r.revisions), start=A.ZERO)
        bad += [
            f"Job {r.job}: staged {lines} in Vista as pending internal change orders; total revision {s(total)}. "
            f"Nothing was already pending on these phases. Not approved.",
            f"Job {r.job}: Vista had no pending change orders, so all {len(r.revisions)} revisions are new: {lines}. "
            f"Total {s(total)}, pending the PM.",
            f"Job {r.job}: staged the revisions, total revision {s(full)} (the part already pending "
            f"{s(sum((x.pending for x in r.covered), start=A.ZERO))} included). Pending, not approved.",
            f"Job {r.job}: the change order already pending ({s(sum((x.pending for x in r.covered), start=A.ZERO))}) "
            f"was approved so the budget is current; staged the rest, total {s(total)}.",
        ]
    return {"pass": good, "fail": bad}
