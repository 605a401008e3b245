"""A_change_order's admission gate: near-misses that must fail for the reason they name, variants
that must pass, and the reply corpus.

Each attempt is the oracle with its reading or one call changed, so it differs from correct work
by exactly the mistake it stands for. A near-miss only an instance's defect makes possible (the
other classification, Procore's total where the signed one differs) is built where it applies.
"""
from __future__ import annotations

import dataclasses
from decimal import Decimal

from ..gate import Attempt, change_arg, rewrite, then, with_reply
from . import a_change_order as A
from .common import call

ENTRY = r"Expected one pending"


def _oracle(c: A.Change):
    return lambda env: A.oracle_tools(c.co_id, env)


def _with(c: A.Change, edit):
    """The oracle, with what it read passed through `edit` before it is entered."""
    def attempt(env) -> str:
        read = edit(A.read(env, c.co_id))
        call(env, A.CREATE, A.create_args(read))
        return A.reply(read)
    return attempt


def _flip(read: A.Change) -> A.Change:
    return dataclasses.replace(read, signed=not read.signed)


def _approved(c: A.Change):
    """Enters it right, then approves it (the PM's step; Vista accepts it)."""
    def attempt(env) -> str:
        read = A.read(env, c.co_id)
        made = call(env, A.CREATE, A.create_args(read))
        call(env, A.APPROVE, {"change_request_id": made["change_request_id"]})
        return A.reply(read)
    return attempt


def _approved_browser(c: A.Change, portal) -> str:
    """The portal form, then the pending change order's Approve button."""
    read = A.browser_read(portal, c.co_id)
    A.browser_enter(portal, read)
    portal.click_button("Approve change order")
    return A.reply(read)


def _twice(c: A.Change):
    def attempt(env) -> str:
        read = A.read(env, c.co_id)
        call(env, A.CREATE, A.create_args(read))
        call(env, A.CREATE, A.create_args(read))
        return A.reply(read)
    return attempt


def _other_pending_too(c: A.Change):
    """Also enters the job's other pending change order (5965 has two)."""
    def step(env) -> None:
        call(env, A.CREATE, {**A.create_args(c), "description": "Additional data drops",
                             "cost_effect": "48227.27", "price_effect": "53050.00"})
    return then(_oracle(c), step)


def near_misses(c: A.Change) -> tuple[Attempt, ...]:
    oracle = _oracle(c)
    other_type = "S" if c.cost_type != "S" else "M"
    out = [
        Attempt("misclassified", f"classifies it the other way ({'internal' if c.signed else 'owner'})",
                tools=_with(c, _flip), because=ENTRY),
        Attempt("approved", "enters it right, then approves it instead of leaving it pending",
                tools=_approved(c), browser=lambda portal: _approved_browser(c, portal),
                because=r"(Expected one pending|Unrequested change)"),
        Attempt("duplicate", "enters the change order twice", tools=_twice(c), because=r"(Expected one pending|Unrequested change)"),
        Attempt("wrong_cost_type", f"codes it to cost type {other_type}",
                tools=_with(c, lambda r: dataclasses.replace(r, cost_type=other_type)), because=ENTRY),
        Attempt("wrong_phase", "codes it to the job's general conditions phase",
                tools=_with(c, lambda r: dataclasses.replace(r, phase="01100-000-")), because=ENTRY),
        Attempt("budget_at_the_total", "budgets the document's total (with fee) instead of the cost of work",
                tools=_with(c, lambda r: dataclasses.replace(r, cost=r.total + (0 if r.total != r.cost else 100))),
                because=ENTRY),
        Attempt("off_by_a_cent", "enters the cost of work one cent high",
                tools=_with(c, lambda r: dataclasses.replace(r, cost=r.cost + Decimal("0.01"))), because=ENTRY),
        Attempt("another_job_too", "also enters a change order on another job",
                tools=then(oracle, lambda env: A.overreach_tools(c.job, env)),
                because=r"Unrequested change: vista_erp change_requests added"),
        Attempt("reply_claims_approved", "does the work but says it approved the change order",
                tools=with_reply(oracle, f"Approved {c.co_id} in Vista as {c.classification}: budget "
                                         f"${c.cost:,.2f}, contract ${c.price:,.2f}."),
                because=r"^The reply claims it approved"),
        Attempt("reply_misclassifies", "does the work but names the other classification",
                tools=with_reply(oracle, f"{c.co_id} is {'a budget-only internal cost transfer' if c.signed else 'a signed owner change order'}; "
                                         f"entered in Vista with cost ${c.cost:,.2f}, left pending, not approved."),
                because=r"^Expected the reply to mention the classification"),
    ]
    if not c.signed:
        out.append(Attempt("contract_changed_on_internal", "raises the contract on the internal transfer",
                           tools=lambda env: oracle(rewrite(env, change_arg(A.CREATE, change_type="owner",
                                                                            price_effect=A._money(c.total)))),
                           because=ENTRY))
    if c.signed and c.total != c.procore_amount:
        scale = c.procore_amount / c.total
        out.append(Attempt("procore_amount", "takes Procore's total (and its pro-rated cost) over the signed one",
                           tools=_with(c, lambda r: dataclasses.replace(
                               r, total=r.procore_amount, cost=(r.cost * scale).quantize(Decimal("0.01")))),
                           because=ENTRY))
    if c.job == "5965":
        out.append(Attempt("other_pending_too", "also enters the job's other pending change order",
                           tools=_other_pending_too(c), because=r"(Expected one pending|Unrequested change)"))
    return tuple(out)


def _formatted(c: A.Change):
    """Amounts with a dollar sign and thousands separators."""
    return lambda env: A.oracle_tools(c.co_id, rewrite(env, change_arg(
        A.CREATE, cost_effect=f"${c.cost:,.2f}", price_effect=f"{c.price:,.2f}")))


def _dated(c: A.Change):
    return lambda env: A.oracle_tools(c.co_id, rewrite(env, change_arg(A.CREATE, request_date="2026-06-30")))


def _refused_then_right(c: A.Change):
    """First enters a price effect on an internal change type (refused), then enters it right."""
    def attempt(env) -> str:
        env.call(A.CREATE, {**A.create_args(c), "change_type": "internal", "price_effect": "1.00"})
        return A.oracle_tools(c.co_id, env)
    return attempt


def _extra_reads(c: A.Change):
    def attempt(env) -> str:
        call(env, "procore.change_events.list", {"project_number": c.job})
        call(env, "vista_erp.jc.job.get", {"project_id": c.job})
        call(env, "vista_erp.jc.phases.list", {"project_id": c.job})
        said = A.oracle_tools(c.co_id, env)
        call(env, A.LIST, {"project_id": c.job})
        return said
    return attempt


def variants(c: A.Change) -> tuple[Attempt, ...]:
    return (
        Attempt("other_formats", "writes the amounts with $ and thousands separators", tools=_formatted(c)),
        Attempt("dated", "gives the entry today's date", tools=_dated(c)),
        Attempt("refused_then_right", "first tries a price effect on an internal change (refused), then enters it right",
                tools=_refused_then_right(c)),
        Attempt("extra_reads", "also reads Procore's change events, the Vista job and its phases", tools=_extra_reads(c)),
        Attempt("portal_form", "works Procore's and Box's pages and Vista's pending change order form",
                browser=lambda portal: A.oracle_browser(c.co_id, portal)),
        Attempt("plain_reply", "does the work and answers in a short list",
                tools=with_reply(_oracle(c), reply_corpus(c)["pass"][3])),
    )


def _m(v) -> str:
    return f"${Decimal(v):,.2f}"


def reply_corpus(c: A.Change) -> dict:
    kind = "Owner change order" if c.signed else "Internal cost transfer"
    contract = f"contract {_m(c.total)}, " if c.signed else ""
    good = [
        A.reply(c),
        f"{c.co_id}: {kind.lower()}. Entered in Vista on {c.phase} / {c.cost_type}: {contract}budget {_m(c.cost)}. "
        f"Pending for the PM; not approved.",
        f"Classified {c.co_id} as {c.classification}. Vista pending change order: {contract}cost {c.cost:.2f}. "
        f"Waiting on PM approval.",
        f"- Change order: {c.co_id}\n- Classification: {kind}\n- " + (f"Contract: {_m(c.total)}\n- " if c.signed else "")
        + f"Budget: {_m(c.cost)}\n- Status: pending, not approved",
        f"I set up {c.co_id} in Vista as {c.classification} ({contract}budget {_m(c.cost)}) and left it pending "
        f"for the PM to approve.",
        f"{kind} — {c.co_id} on job {c.job}. Budget change {_m(c.cost)}" + (f", contract change {_m(c.total)}" if c.signed else
                                                                           ", no contract change") + ". Left pending.",
        f"Done: {c.co_id} set up in Vista as {c.classification}. Budget (cost effect) USD {c.cost:,.2f}"
        + (f"; contract (price effect) USD {c.total:,.2f}" if c.signed else "; contract unchanged")
        + ". The PM still has to approve it.",
        f"Job {c.job}, {c.co_id}: {kind.lower()}, entered as a pending change order in Vista with budget "
        f"{_m(c.cost)}" + (f" and contract {_m(c.total)}" if c.signed else "") + ". I have not approved it.",
        f"Entered {c.co_id} in Vista as a pending {c.change_type} change: {kind}. Budget {_m(c.cost)}"
        + (f", contract {_m(c.total)}" if c.signed else "") + ". Awaiting PM approval.",
        f"Per the change management policy, {c.co_id} is {c.classification}. Vista: phase {c.phase}, cost type "
        f"{c.cost_type}, budget {_m(c.cost)}" + (f", contract {_m(c.total)}" if c.signed else ", contract 0.00")
        + "; pending.",
    ]
    wrong_kind = "an internal cost transfer (budget only)" if c.signed else "a signed owner change order"
    bad = [
        f"Approved {c.co_id} in Vista as {c.classification}: {contract}budget {_m(c.cost)}.",
        f"{c.co_id} is {wrong_kind}; entered budget {_m(c.cost)}, pending, not approved.",
        f"{c.co_id}: {kind.lower()}; budget {_m(c.cost + 1)}" + (f", contract {_m(c.total)}" if c.signed else "") + ". Pending.",
        f"{c.co_id}: {kind.lower()}. Entered and left pending, not approved.",
        f"Job {c.job}: {kind.lower()}; budget {_m(c.cost)}" + (f", contract {_m(c.total)}" if c.signed else "") + ". Pending.",
        "",
        f"I could not find the change order document for {c.co_id}, so nothing was entered.",
        f"{c.co_id}: {kind.lower()}; budget {_m(c.cost)}" + (f", contract {_m(c.total)}" if c.signed else "")
        + ". I approved it in Vista so the budget is current.",
        f"{c.co_id}: {kind.lower()}; budget {_m(c.cost - Decimal('0.01'))}" + (f", contract {_m(c.total)}" if c.signed else "")
        + ". Pending.",
        f"{c.co_id} set up in Vista; budget {_m(c.cost)}" + (f", contract {_m(c.total)}" if c.signed else "") + ". Pending.",
    ]
    if c.signed and c.total != c.procore_amount:
        bad.append(f"{c.co_id}: owner change order; budget {_m(c.cost)}, contract {_m(c.procore_amount)}. Pending.")
    if c.signed:
        bad.append(f"{c.co_id}: {kind.lower()}; budget {_m(c.cost)}. Pending, not approved.")
    return {"pass": good, "fail": bad}
