"""SmarteBuild's cost re-estimates (A_reestimate_vista_budget): the estimator's current cost to
build each active job, line by line on the company's cost codes and cost types, beside the BOQ
(book["boq"]["reestimates"]).

Each line starts from the job's current budget (original plus approved changes) and moves by a
little estimating noise (within 1.2 %, whole dollars), which no Vista phase's revision threshold
reaches (reestimate_policy.md: the greater of $5,000 and 5 % of the phase's current budget). The
public instances' jobs (REESTIMATE_CASES) carry planted moves, registered as divergences because
only SmarteBuild holds them:
  increase       one trade line re-estimated 8-18 % over its budget (a revision up)
  decrease       another re-estimated 6-12 % under (a revision down: a negative cost effect)
  crosswalk      a line on a company code Vista rolls into another code's phase (03-310 into
                 03300-000-), moved past the threshold of that phase's combined budget
  under_threshold  a line moved visibly, but by 55-85 % of its phase's threshold: left alone
  already_pending  a line moved 2.6-3.6 times past its phase's threshold, of which Vista already
                 holds a Pending internal change order for 30-50 % (entered earlier in June): only
                 the remainder is still to stage (book["erp_pending_changes"], pending_changes())
tasks/families/a_reestimate_vista_budget.py plants the same cases on other jobs for the private
split with these helpers.
"""
from __future__ import annotations

import random
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

from .util import money

ESTIMATED_ON = "2026-06-30"  # the estimator's June re-estimate, at the book's clock
FLOOR, SHARE = Decimal("5000"), Decimal("0.05")  # the policy's threshold: the greater of the two
# (job, the defect the instance leads with); both also get an increase and a decrease
REESTIMATE_CASES = (("2728", "rolled_up_phase"), ("6495", "under_threshold"), ("5222", "already_pending"))
REESTIMATE_JOBS = tuple(job for job, _d in REESTIMATE_CASES)
DOLLAR = Decimal("1")
PENDING_ERP = "vista_erp"  # the ERP whose budget the re-estimate is reconciled against
PENDING_ON = "2026-06-12"  # the PM staged the earlier part of an already_pending move mid-June


def _whole(value: Decimal) -> Decimal:
    return value.quantize(DOLLAR, rounding=ROUND_HALF_UP)


def threshold(budget: Decimal) -> Decimal:
    return max(FLOOR, (abs(budget) * SHARE).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def current(b: dict) -> Decimal:
    return Decimal(b["original_budget"]) + Decimal(b.get("approved_changes") or "0")


def build_reestimates(rng: random.Random, jobs: list[dict], budget: list[dict], cost_codes: list[dict],
                      erp_map: list[dict]) -> list[dict]:
    """Every active job's re-estimate with the noise, and the public cases planted."""
    desc = {c["code"]: c["description"] for c in cost_codes}
    active = {j["job"] for j in jobs if j["status"] == "active"}
    lines = []
    for b in sorted(budget, key=lambda b: (b["job"], b["cost_code"], b["cost_type"])):
        if b["job"] not in active:
            continue
        base = current(b)
        noise = Decimal(str(round(rng.uniform(-0.012, 0.012), 4)))
        lines.append({"job": b["job"], "cost_code": b["cost_code"], "cost_type": b["cost_type"],
                      "description": desc.get(b["cost_code"], ""), "estimated_on": ESTIMATED_ON,
                      "reestimate": money(_whole(base * (1 + noise)) if base else base)})
    for job, defect in REESTIMATE_CASES:
        if job in active:
            plant(lines, budget, erp_map, job, defect, rng)
    return lines


def phase_groups(budget: list[dict], erp_map: list[dict], job: str) -> dict[tuple[str, str], list[dict]]:
    """The job's budget lines by (Vista phase, cost type): Vista rolls company codes into phases."""
    phases = {m["code"]: m["vista_phase"] for m in erp_map}
    out = defaultdict(list)
    for b in budget:
        if b["job"] == job and phases.get(b["cost_code"]):
            out[(phases[b["cost_code"]], b["cost_type"])].append(b)
    return dict(out)


def _line(lines: list[dict], job: str, code: str, ctype: str) -> dict:
    return next(i for i in lines if i["job"] == job and i["cost_code"] == code and i["cost_type"] == ctype)


def plant(lines: list[dict], budget: list[dict], erp_map: list[dict], job: str, defect: str,
          rng: random.Random, figure=None) -> list[dict]:
    """Plant the increase, the decrease and the defect on one job's re-estimate; returns the lines
    planted, each marked with its case. `figure(low, high)` draws a move (whole dollars) where the
    private split salts them; left out, the rng does."""
    groups = phase_groups(budget, erp_map, job)
    total = {k: sum((current(b) for b in v), start=Decimal(0)) for k, v in groups.items()}
    # trade phases, each line's phase named after its own code, with a budget worth re-estimating
    single = sorted(k for k, v in groups.items() if len(v) == 1 and not k[0].startswith("01")
                    and v[0]["cost_code"].replace("-", "") == k[0][:5] and total[k] >= 60000)
    rolled = sorted(k for k, v in groups.items() if len(v) > 1 and total[k] >= 60000)
    draw = figure or (lambda low, high: Decimal(rng.randint(int(low), int(high))))
    picks = rng.sample(single, 3)
    planted = []

    def move(key: tuple[str, str], b: dict, delta: Decimal, case: str) -> None:
        item = _line(lines, job, b["cost_code"], b["cost_type"])
        # the other codes of the phase keep their noise; this one carries the phase's move
        others = sum((Decimal(_line(lines, job, o["cost_code"], o["cost_type"])["reestimate"])
                      for o in groups[key] if o is not b), start=Decimal(0))
        item["reestimate"] = money(total[key] + delta - others)
        item["case"] = case
        planted.append(item)

    up, down, under = picks
    move(up, groups[up][0], draw(max(threshold(total[up]) * Decimal("1.4"), total[up] * Decimal("0.08")),
                                 max(threshold(total[up]) * Decimal("2"), total[up] * Decimal("0.18"))), "increase")
    move(down, groups[down][0], -draw(max(threshold(total[down]) * Decimal("1.3"), total[down] * Decimal("0.06")),
                                      max(threshold(total[down]) * Decimal("1.8"), total[down] * Decimal("0.12"))),
         "decrease")
    if defect == "already_pending":
        sign = rng.choice((-1, 1))
        delta = draw(threshold(total[under]) * Decimal("2.6"), threshold(total[under]) * Decimal("3.6"))
        move(under, groups[under][0], sign * delta, "already_pending")
        # Vista already stages part of the move: a Pending internal change order the PM entered
        planted[-1]["vista_pending"] = money(sign * draw(delta * Decimal("0.3"), delta * Decimal("0.5")))
    elif defect == "rolled_up_phase":
        key = rng.choice(rolled)
        odd = next(b for b in groups[key] if b["cost_code"].replace("-", "") != key[0][:5])
        move(key, odd, draw(threshold(total[key]) * Decimal("1.4"), threshold(total[key]) * Decimal("2.2")), "rolled_up_phase")
    else:
        sign = rng.choice((-1, 1))
        move(under, groups[under][0],
             sign * draw(threshold(total[under]) * Decimal("0.55"), threshold(total[under]) * Decimal("0.85")),
             "under_threshold")
    return planted


def pending_changes(lines: list[dict]) -> list[dict]:
    """The Pending change orders Vista already holds for part of a re-estimated move (the
    already_pending case): book["erp_pending_changes"], which Vista's seed enters as they are."""
    return [{"erp": PENDING_ERP, "job": i["job"], "cost_code": i["cost_code"], "cost_type": i["cost_type"],
             "change_type": "internal", "description": f"Cost revision: {i['description'] or i['cost_code']}",
             "request_date": PENDING_ON, "cost_effect": i["vista_pending"], "price_effect": "0.00"}
            for i in sorted(lines, key=lambda i: (i["job"], i["cost_code"], i["cost_type"])) if i.get("vista_pending")]


def reestimate_entries(lines: list[dict], erp_map: list[dict]) -> list[dict]:
    """Each planted move is SmarteBuild's alone until someone stages it in Vista; where Vista
    already holds a Pending change order for part of it, that change order is Vista's alone."""
    phases = {m["code"]: m["vista_phase"] for m in erp_map}
    out = []
    for i in lines:
        if not i.get("case"):
            continue
        phase = phases[i["cost_code"]]
        staged = (f"a Pending change order stages {i['vista_pending']} of it" if i.get("vista_pending")
                  else "no pending change order revises it yet")
        out.append({"entity": "reestimate_line", "key": f"{i['job']}/{i['cost_code']}/{i['cost_type']}",
                    "field": f"smartbuild.{i['case']}", "systems": ["smartbuild", "vista_erp"],
                    "family": "A_reestimate_vista_budget",
                    "why": (f"SmarteBuild's re-estimate for job {i['job']} puts {i['cost_code']} {i['cost_type']} at "
                            f"{i['reestimate']}; Vista budgets phase {phase} {i['cost_type']} at its current "
                            f"budget, and {staged}.")})
        if i.get("vista_pending"):
            out.append({"entity": "change_request", "key": f"{i['job']}/{phase}/{i['cost_type']}",
                        "field": f"{PENDING_ERP}.pending", "systems": [PENDING_ERP],
                        "family": "A_reestimate_vista_budget",
                        "why": (f"Vista holds a Pending internal change order on job {i['job']}, phase {phase} "
                                f"{i['cost_type']}, for {i['vista_pending']} (part of the move SmarteBuild's "
                                f"re-estimate makes there); no other system has it.")})
    return out
