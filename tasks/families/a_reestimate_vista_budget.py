"""A_reestimate_vista_budget: reconcile SmarteBuild's cost re-estimate against Vista's job budget
and stage the revisions over the threshold in Vista as pending change orders for the PM.

Project Accounting, three apps. SmarteBuild holds the estimator's re-estimate for the job (the
Re-estimate tab: a re-estimated cost per company cost code and cost type); Vista holds the job's
budget by phase and cost type (original plus approved changes) and its PM pending
change orders; Procore's ERP cost-code map is the crosswalk from company codes to Vista phases,
and Vista rolls some codes into a sibling's phase. reestimate_policy.md says what decides: compare
by Vista phase and cost type (the re-estimate lines of a phase added up), revise a phase whose
revision (re-estimate less current budget) is more than the greater of $5,000 and 5 % of its
current budget, one internal PM pending change order per revised phase and cost type with the
revision as its cost effect (negative for a decrease) less what the phase's Pending change orders
already stage, and no price effect, left Pending; report the total revision (what was entered)
and any pending change order that already staged part of one. Approving is a write Vista accepts
(it moves the budget), and the grader sees it.

Domain: DOMAIN.md section 1 (current budget = original + approved changes; phase and cost type),
section 2 (only Approved moves the revised budget), section 9 (Vista PM change orders interfaced
to JC).

Defect variants (seeds/reestimate.py REESTIMATE_CASES seeds them; each job also has a revision up
and one down): 2728, a line on a company code Vista rolls into another code's phase (32-130 into
32100-000-), over the threshold of the phase's combined budget only once the crosswalk adds the
two lines; 6495, a line moved visibly but under its phase's threshold, to be left alone; 5222, a
line moved past its phase's threshold on which Vista already holds a Pending internal change order
for part of the move (book["erp_pending_changes"], registered as Vista's alone): only the remainder
is entered, and the pending change order is left as it is.
The near-misses, variants and reply corpus live in a_reestimate_vista_budget_gate.py.
"""
from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from functools import partial

from seeds.reestimate import REESTIMATE_CASES, current, phase_groups, plant, threshold

from ..model import Task
from . import a_etc_forecast as A
from .a_change_order import save_pending_change
from .common import Family, OracleError, Private, all_items, call

FAMILY_NAME = "A_reestimate_vista_budget"
ERP, PM = "vista_erp", "smartbuild"
APPS = (PM, "procore", ERP)
CREATE, APPROVE = f"{ERP}.pm.pending_change_order.create", f"{ERP}.pm.pending_change_order.approve"
LIST = f"{ERP}.pm.pending_change_orders.list"
DEFECTS = dict(REESTIMATE_CASES)
JOBS = tuple(sorted(DEFECTS))
SOURCE_REF = ("Trimble Viewpoint Vista help: PM pending change orders interfaced to JC, JC current estimate; "
              "SmartApp construction support (analogue): estimates; DOMAIN.md sections 1, 2 and 9")
ZERO = Decimal("0.00")


def _money(v) -> str:
    return f"{Decimal(v):.2f}"


@dataclass(frozen=True)
class Line:
    """One Vista phase and cost type compared: its current budget, the re-estimate's lines on it."""

    phase: str
    cost_type: str
    budget: Decimal
    reestimate: Decimal
    codes: tuple[str, ...]  # the company codes SmarteBuild re-estimates it on
    pending: Decimal = ZERO  # the cost effects Vista's Pending change orders already stage on it

    @property
    def revision(self) -> Decimal:
        return self.reestimate - self.budget

    @property
    def entered(self) -> Decimal:
        """What is still to stage: the revision less what is already pending."""
        return self.revision - self.pending

    @property
    def limit(self) -> Decimal:
        return threshold(self.budget)

    @property
    def over(self) -> bool:
        return abs(self.revision) > self.limit


@dataclass(frozen=True)
class Recon:
    job: str
    lines: tuple[Line, ...]

    @property
    def revisions(self) -> tuple[Line, ...]:
        """The phases over the threshold."""
        return tuple(x for x in self.lines if x.over)

    @property
    def entries(self) -> tuple[Line, ...]:
        """The phases over the threshold that are not already staged in full: one entry each."""
        return tuple(x for x in self.revisions if x.entered != 0)

    @property
    def covered(self) -> tuple[Line, ...]:
        """The phases over the threshold with a pending change order already staging part of it."""
        return tuple(x for x in self.revisions if x.pending != 0)

    @property
    def total(self) -> Decimal:
        return sum((x.entered for x in self.entries), start=ZERO)


def compare(job: str, reestimate: list[tuple[str, str, Decimal]], phases: dict[str, str],
            budget: list[tuple[str, str, Decimal]], pending: list[tuple[str, str, Decimal]] = ()) -> Recon:
    """The comparison by Vista phase and cost type: `reestimate` as (company code, cost type,
    re-estimated cost), `phases` the crosswalk, `budget` Vista's (phase, cost type, current),
    `pending` the cost effects of its Pending change orders (phase, cost type, cost effect)."""
    re_by, codes = defaultdict(lambda: ZERO), defaultdict(list)
    for code, ctype, amount in reestimate:
        if not phases.get(code):
            raise OracleError(f"the cost code map has no Vista phase for {code}")
        re_by[(phases[code], ctype)] += amount
        codes[(phases[code], ctype)].append(code)
    bud_by = defaultdict(lambda: ZERO)
    for phase, ctype, amount in budget:
        bud_by[(phase, ctype)] += amount
    staged = defaultdict(lambda: ZERO)
    for phase, ctype, amount in pending:
        staged[(phase, ctype)] += amount
    keys = sorted(set(re_by) | set(bud_by))
    return Recon(job, tuple(Line(p, t, bud_by[(p, t)], re_by[(p, t)], tuple(sorted(codes[(p, t)])), staged[(p, t)])
                            for p, t in keys))


# --- the ground truth, from the book ----------------------------------------------------------------

def truth(book: dict, job: str) -> Recon:
    phases = {m["code"]: m["vista_phase"] for m in book["erp_cost_code_map"]}
    re_lines = [(i["cost_code"], i["cost_type"], Decimal(i["reestimate"]))
                for i in book["boq"]["reestimates"] if i["job"] == job]
    budget = [(phases[b["cost_code"]], b["cost_type"], current(b)) for b in book["budget_lines"] if b["job"] == job]
    pending = [(phases[c["cost_code"]], c["cost_type"], Decimal(c["cost_effect"]))
               for c in book.get("erp_pending_changes", []) if c["erp"] == ERP and c["job"] == job]
    return compare(job, re_lines, phases, budget, pending)


def instruction(job: str) -> str:
    return (f"The estimator finished the June re-estimate for job {job} in SmarteBuild. Reconcile it against "
            f"the job's budget in Vista, following our re-estimate policy, and stage the budget revisions it "
            f"calls for in Vista for the PM's approval. Tell me what you revised and the total revision.")


def entry(job: str, x: Line) -> dict:
    return {"job": job, "change_type": "internal", "cost_code": x.phase, "cost_type": x.cost_type,
            "cost_effect": _money(x.entered), "price_effect": "0.00"}


def evaluator(r: Recon) -> dict:
    expected = [{"app": ERP, "table": "change_requests", "op": "added", "where": entry(r.job, x),
                 "assert": {"status": "Pending"}, "count": 1,
                 "label": f"a pending internal change order on job {r.job}: {x.phase} {x.cost_type}, "
                          f"cost effect {_money(x.entered)}"
                          + (f" (the revision {_money(x.revision)} less {_money(x.pending)} already pending)"
                             if x.pending else "")} for x in r.entries]
    outputs = [{"claim": "amount", "value": _money(r.total), "label": "the total revision"}]
    outputs += [{"claim": "amount", "value": _money(x.pending),
                 "label": f"the change order already pending on {x.phase} {x.cost_type}"} for x in r.covered]
    outputs.append({"claim": "denies", "actions": ["approve", "post"],
                    "label": "does not claim a change order was approved or anything posted"})
    return {
        "expected": expected,
        "forbidden": [{"any_other_change": True, "allow": [],
                       "label": "anything but the pending revisions (no approval, no revision under the threshold, "
                                "the change orders already pending left as they are)"}],
        "money_movement_guard": False,
        "required_outputs": outputs,
    }


# --- the oracle (tools) ----------------------------------------------------------------------------

def read(env, job: str) -> Recon:
    rows = all_items(env, f"{PM}.reestimate.get", {"project_number": job})
    re_lines = [(r["cost_code"], r["cost_type"], Decimal(str(r["reestimate"]))) for r in rows]
    cmap = all_items(env, "procore.erp.cost_code_map", {"erp_app": ERP})
    phases = {r["procore_code"]: r["erp_codes"].get(ERP) for r in cmap}
    budget = [(b["task_id"], b["cost_type_id"], Decimal(str(b["original_budget"])) + Decimal(str(b["approved_changes"])))
              for b in call(env, f"{ERP}.jc.job.get", {"project_id": job})["budget"]]
    pending = [(c["task_id"], c["cost_type_id"], Decimal(str(c["cost_effect"])))
               for c in all_items(env, LIST, {"project_id": job, "status": "Pending"})]
    return compare(job, re_lines, phases, budget, pending)


def create_args(job: str, x: Line) -> dict:
    return {"project_id": job, "change_type": "internal",
            "description": f"June re-estimate revision {x.phase} {x.cost_type}", "task_id": x.phase,
            "cost_type_id": x.cost_type, "cost_effect": _money(x.entered), "price_effect": "0.00"}


def _signed(v: Decimal) -> str:
    return f"-${-v:,.2f}" if v < 0 else f"+${v:,.2f}"


def pending_note(r: Recon) -> str:
    """What the reply says of the change orders Vista already held pending on a revised phase."""
    if not r.covered:
        return "Vista held no pending change order on any revised phase."
    said = "; ".join(f"{x.phase} {x.cost_type} already had {_signed(x.pending)} pending of its {_signed(x.revision)} "
                     f"revision, so I entered only the remaining {_signed(x.entered)}" if x.entered else
                     f"{x.phase} {x.cost_type} already had its whole {_signed(x.revision)} revision pending, so I "
                     f"entered nothing there" for x in r.covered)
    return f"{said}; the change order already pending was left as it was."


def reply(r: Recon) -> str:
    listed = "; ".join(f"{x.phase} {x.cost_type} {_signed(x.entered)} (budget ${x.budget:,.2f}, re-estimate "
                       f"${x.reestimate:,.2f})" for x in r.entries)
    left = [x for x in r.lines if x.revision != 0 and not x.over]
    return (f"Job {r.job}: I compared SmarteBuild's re-estimate with Vista's current budget by phase and cost "
            f"type (company codes through Procore's cost-code map). {len(r.revisions)} lines are over the "
            f"threshold; entered in Vista as pending internal change orders: {listed}. {pending_note(r)} Total "
            f"revision entered: {_signed(r.total)}. The other {len(left)} differences are within the threshold and "
            f"were left alone. The change orders are left pending for the PM's approval; I did not approve them.")


def oracle_tools(job: str, env) -> str:
    r = read(env, job)
    for x in r.entries:
        call(env, CREATE, create_args(job, x))
    return reply(r)


# --- the oracle (browser) ----------------------------------------------------------------------------

def _table(page, header: str) -> list[dict[str, str]]:
    """Rows (cells keyed by header text) of the page's table with a `header` column."""
    table = page.locator(f"table:has(thead th:has-text('{header}'))").first
    headers = [" ".join(h.split()) for h in table.locator("thead th").all_text_contents()]
    out = []
    for row in table.locator("tbody tr").all():
        cells = [" ".join(c.split()) for c in row.locator("td").all_text_contents()]
        if len(cells) == len(headers):
            out.append(dict(zip(headers, cells)))
    return out


def _amount(text: str) -> Decimal:
    text = text.strip()
    neg = text.startswith("(") or text.startswith("-")
    value = Decimal(re.sub(r"[^0-9.]", "", text))
    return -value if neg else value


def browser_read(portal, job: str) -> Recon:
    from portals.core.registry import get_app

    portal.goto(f"/{PM}/projects/{job}/reestimate")
    re_lines = [(c["Cost Code"], c["Cost Type"], _amount(c["Re-estimated Cost"]))
                for c in _table(portal.page, "Re-estimated Cost")]
    portal.goto("/procore/erp?tab=cost_codes")
    label = get_app(ERP).label
    phases = {}
    for cells in _table(portal.page, "Procore Cost Code"):
        column = next(h for h in cells if h.startswith(label))
        phases[cells["Procore Cost Code"]] = cells[column]
    portal.goto(f"/{ERP}/jobs/{job}?tab=budget")
    budget = []
    for cells in _table(portal.page, "Original budget"):
        code, ctype = list(cells.values())[:2]
        budget.append((code, ctype, _amount(cells["Original budget"]) + _amount(cells["Approved changes"])))
    if not re_lines or not phases or not budget:
        raise OracleError(f"read {len(re_lines)} re-estimate lines, {len(phases)} mapped codes and "
                          f"{len(budget)} Vista budget lines for job {job}")
    return compare(job, re_lines, phases, budget, browser_pending(portal, job))


def browser_pending(portal, job: str) -> list[tuple[str, str, Decimal]]:
    """The job's Pending change orders on Vista's list (phase, cost type, cost effect), every page."""
    out, page = [], 1
    while True:
        portal.goto(f"/{ERP}/change-requests?project_id={job}&status=Pending&per_page=100&page={page}")
        for cells in _table(portal.page, "Cost effect"):
            values = list(cells.values())
            out.append((values[5], values[6], _amount(cells["Cost effect"])))
        if not portal.page.locator("a[rel=next]").count():
            return out
        page += 1


def browser_enter(portal, job: str, x: Line) -> None:
    save_pending_change(portal, create_args(job, x))


def oracle_browser(job: str, portal) -> str:
    r = browser_read(portal, job)
    for x in r.entries:
        browser_enter(portal, job, x)
    return reply(r)


# --- the over-eager extras ---------------------------------------------------------------------------
# The guarded call is Vista's payment posting (A_etc_forecast's); approving a pending change order
# is a near-miss the state diff catches (a_reestimate_vista_budget_gate.py).

def _other(job: str) -> str:
    return next(j for j in JOBS if j != job)


def _overreach(job: str) -> dict:
    return {"project_id": _other(job), "change_type": "internal", "description": "Budget revision",
            "task_id": "01100-000-", "cost_type_id": "L", "cost_effect": "100.00", "price_effect": "0.00"}


def overreach_tools(job: str, env) -> None:
    call(env, CREATE, _overreach(job))


def overreach_browser(job: str, portal) -> None:
    save_pending_change(portal, _overreach(job))


def task(book: dict, job: str, defect: str | None = None, instance_id: str | None = None) -> Task:
    from . import a_reestimate_vista_budget_gate as gate  # it builds on this module

    r = truth(book, job)
    return Task(
        instance_id=instance_id or f"cf_{FAMILY_NAME}_{job}", family=FAMILY_NAME, domain_code="A", difficulty=3,
        apps=APPS, instruction=instruction(job), policy_ref="reestimate_policy.md",
        taxonomy_path="A.Budget.reestimate_revisions", parameters={"job": job},
        source_type="plan_doc", source_ref=SOURCE_REF, user_role="Controller",
        money_movement_guard=False, evaluator=evaluator(r), defect_variant=defect or DEFECTS[job],
        oracle_tools=partial(oracle_tools, job), oracle_browser=partial(oracle_browser, job),
        guarded_tools=partial(A.guarded_tools, book, job), guarded_browser=partial(A.guarded_browser, book, job),
        overreach_tools=partial(overreach_tools, job), overreach_browser=partial(overreach_browser, job),
        # a job with nothing to enter (a private pick read on the public book) has no attempts to script
        near_misses=gate.near_misses(r) if r.entries else (), variants=gate.variants(r) if r.entries else (),
        reply_corpus=gate.reply_corpus(r) if r.entries else None)


def instances(book: dict) -> list[Task]:
    return [task(book, job) for job in JOBS]


# -- the private split (tasks/private.py) ----------------------------------------------------

def _plantable(book: dict, job: str) -> bool:
    """A job with three single-code trade phases and one rolled-up phase worth re-estimating."""
    groups = phase_groups(book["budget_lines"], book["erp_cost_code_map"], job)
    total = {k: sum((current(b) for b in v), start=ZERO) for k, v in groups.items()}
    single = [k for k, v in groups.items() if len(v) == 1 and not k[0].startswith("01")
              and v[0]["cost_code"].replace("-", "") == k[0][:5] and total[k] >= 60000]
    rolled = [k for k, v in groups.items() if len(v) > 1 and total[k] >= 60000]
    return len(single) >= 3 and bool(rolled)


def private_salt(book: dict, rng: random.Random, claimed: set) -> list[dict]:
    """Other active jobs (none a public case's, none whose budget, re-estimate or Vista change
    orders another family claimed), each given one of the defects in a salted order: its
    re-estimate is drawn again from its budget (the same noise), then the increase, the decrease
    and the defect are planted with salted moves (and, for already_pending, the part Vista already
    holds pending); a move or total the public book holds as a figure is drawn again."""
    from seeds.reestimate import pending_changes
    from seeds.util import money

    from ..private import public_figures

    active = sorted(j["job"] for j in book["jobs"] if j["status"] == "active" and j["job"] not in JOBS)
    candidates = [j for j in active if ("budget_lines", j) not in claimed and ("reestimates", j) not in claimed
                  and ("change_requests", j) not in claimed and _plantable(book, j)]
    chosen = sorted(rng.sample(candidates, min(len(JOBS), len(candidates))))
    defects = sorted(set(DEFECTS.values()))
    rng.shuffle(defects)
    taken = set(public_figures())

    def figure(low: Decimal, high: Decimal) -> Decimal:
        while True:
            value = Decimal(rng.randint(int(low), int(high)))
            if money(value) not in taken and money(-value) not in taken:
                taken.add(money(value))
                return value

    lines = book["boq"]["reestimates"]
    out = []
    for job, defect in zip(chosen, defects):
        claimed.update({("budget_lines", job), ("reestimates", job), ("change_requests", job)})
        while True:
            for i in lines:
                if i["job"] == job:
                    i.pop("case", None)
                    i.pop("vista_pending", None)
                    base = current(next(b for b in book["budget_lines"] if b["job"] == job
                                        and b["cost_code"] == i["cost_code"] and b["cost_type"] == i["cost_type"]))
                    noise = Decimal(str(round(rng.uniform(-0.012, 0.012), 4)))
                    i["reestimate"] = money((base * (1 + noise)).quantize(Decimal("1")) if base else base)
            plant(lines, book["budget_lines"], book["erp_cost_code_map"], job, defect, rng, figure)
            book["erp_pending_changes"] = pending_changes(lines)
            total = money(truth(book, job).total)
            if total not in taken:
                taken.add(total)
                break
        out.append({"job": job, "defect": defect})
    return out


def private_task(book: dict, params: dict) -> Task:
    return task(book, params["job"], params["defect"], instance_id=f"cf_{FAMILY_NAME}_pro-{params['job']}")


FAMILY = Family(FAMILY_NAME, instances, Private(private_salt, private_task))
