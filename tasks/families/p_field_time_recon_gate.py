"""P_field_time_recon's admission gate: near-misses that must fail for the reason they name,
variants that must pass, and the reply corpus.

Each attempt is the oracle with one correction dropped, changed or added, so it differs from
correct work by exactly the mistake it stands for."""
from __future__ import annotations

import dataclasses

from ..gate import Attempt, change_arg, rewrite, then, with_reply
from . import p_field_time_recon as F
from .common import call

EXPECTED = r"^Expected "
UNREQUESTED = r"Unrequested change"


def _oracle(r: F.Recon):
    return lambda env: F.oracle_tools(r.app, r.job, r.name, env)


def _with_fixes(r: F.Recon, edit):
    """Reads as the oracle does, passes the corrections through `edit`, then applies them."""
    def attempt(env) -> str:
        read = F.read(env, r.app, r.job, r.name)
        changed = dataclasses.replace(read, fixes=tuple(edit(list(read.fixes))))
        F.apply_tools(env, changed)
        return F.reply(read)
    return attempt


def _of(r: F.Recon, kind: str, other_job: bool | None = None) -> F.Fix:
    for f in r.fixes:
        if f.kind == kind and (other_job is None or (f.job_no != r.job_no) == other_job):
            return f
    raise LookupError(kind)


def _without(fix: F.Fix):
    return lambda fixes: [f for f in fixes if (f.kind, f.employee_no, f.job_no) != (fix.kind, fix.employee_no, fix.job_no)]


def _replace(fix: F.Fix, **changes):
    return lambda fixes: [dataclasses.replace(f, **changes) if (f.kind, f.employee_no, f.job_no) ==
                          (fix.kind, fix.employee_no, fix.job_no) else f for f in fixes]


def _pays_unpaid_saturday(r: F.Recon):
    """Also pays the Saturday still waiting for approval, which payroll rightly left out."""
    held = next(h for h in r.held if not h.was_paid)

    def step(env) -> None:
        card = next(c for c in call(env, F.P["timecards.list"], {"period_end": F.WEEK, "query": held.employee_no})["items"]
                    if c["job_no"] == r.job_no)
        days = [card["daily_hours"][d] for d in F.DAYS]
        days[F.DAYS.index(held.day)] = held.hours
        call(env, F.P["timecards.update"], {"timecard_id": card["timecard_id"], "daily_hours": F.hours_text(days)})
        call(env, F.P["payroll.job_hours_proofing"], {"period_end": F.WEEK})
        call(env, F.P["payroll.calculate"], {"period_end": F.WEEK})
    return then(_oracle(r), step)


def _approves_then_pays(r: F.Recon):
    """Approves the waiting days in the field-time app (the foreman's step) as well."""
    return then(_oracle(r), lambda env: F.overreach_tools(r, env))


def near_misses(r: F.Recon) -> tuple:
    out = []
    try:
        unapproved = next(f for f in r.fixes if f.kind == "update" and f.job_no == r.job_no
                          and any(h.employee_no == f.employee_no and h.was_paid for h in r.held))
        out.append(Attempt("pays_unapproved_day", f"leaves {unapproved.employee}'s unapproved day on payroll",
                           tools=_with_fixes(r, _without(unapproved)), because=EXPECTED))
    except StopIteration:
        pass
    moved_to = [f for f in r.fixes if f.kind == "create" and f.job_no != r.job_no]
    for made in moved_to:
        moved_from = next(f for f in r.fixes if f.kind == "update" and f.employee_no == made.employee_no)
        out.append(Attempt("moved_days_dropped", f"takes {made.employee}'s days off job {r.job_no} but never enters "
                           f"them on job {made.job_no}", tools=_with_fixes(r, _without(made)), because=EXPECTED))
        out.append(Attempt("moved_days_doubled", f"enters {made.employee}'s days on job {made.job_no} and leaves them "
                           f"on job {r.job_no} too", tools=_with_fixes(r, _without(moved_from)), because=EXPECTED))
    hires = [f for f in r.fixes if f.kind == "create" and f.job_no == r.job_no]
    for hire in hires:
        out.append(Attempt("hire_left_out", f"enters no timecard for {hire.employee}",
                           tools=_with_fixes(r, _without(hire)), because=EXPECTED))
        other_code = "061000" if hire.cost_code != "061000" else "312300"
        out.append(Attempt("hire_wrong_cost_code", f"enters {hire.employee}'s timecard on cost code {other_code}",
                           tools=_with_fixes(r, _replace(hire, cost_code=other_code)), because=EXPECTED))
        short = list(hire.hours)
        short[5] = "0"
        out.append(Attempt("hire_short_a_day", f"enters {hire.employee}'s week without Friday",
                           tools=_with_fixes(r, _replace(hire, hours=tuple(short))), because=EXPECTED))
    if any(not h.was_paid for h in r.held):
        out.append(Attempt("pays_waiting_saturday", "also pays the Saturday still waiting for the foreman",
                           tools=_pays_unpaid_saturday(r), because=r"(Unrequested change|^Expected )"))
    out += [
        Attempt("approves_field_time", "approves the waiting days in the field-time app instead of leaving them",
                tools=_approves_then_pays(r), because=UNREQUESTED),
        Attempt("not_recalculated", "corrects the timecards but leaves the payroll open",
                tools=lambda env: F.oracle_tools(r.app, r.job, r.name, rewrite(env, lambda n, a: None if n in (
                    F.P["payroll.job_hours_proofing"], F.P["payroll.calculate"]) else (n, a))),
                because=EXPECTED),
        Attempt("reply_claims_signed", "does the work but says it signed the crew's timecards",
                tools=with_reply(_oracle(r), lambda said: said.replace(
                    "I did not finalize it and did not sign anything for anyone.",
                    "I signed the crew's timecards so payroll can go.")), because=r"^The reply claims it signed"),
        Attempt("reply_names_nobody", "does the work but answers without naming anyone",
                tools=with_reply(_oracle(r), f"Reconciled job {r.job}; payroll corrected and recalculated."),
                browser=with_reply(lambda portal: F.oracle_browser(r.app, r.job, r.name, portal),
                                   f"Reconciled job {r.job}; payroll corrected and recalculated."),
                because=r"^Expected the reply to mention"),
    ]
    return tuple(out)


def _spelled_hours(r: F.Recon):
    """Writes the days with decimals ("8.0") and spaces."""
    def spell(text):
        return ", ".join(f"{float(h):.1f}" for h in text.split(","))
    return lambda env: F.oracle_tools(r.app, r.job, r.name, rewrite(env, change_arg(F.P["timecards.update"],
                                                                                      daily_hours=spell)))


def _by_class(r: F.Recon):
    """Names the worker's own class on each new timecard instead of leaving it to default."""
    def fn(name, args):
        if name == F.P["timecards.create"]:
            fix = next(f for f in r.fixes if f.kind == "create" and f.employee_no == args["employee_no"])
            args["class_code"] = fix.class_code
        return name, args
    return lambda env: F.oracle_tools(r.app, r.job, r.name, rewrite(env, fn))


def _imported(r: F.Recon):
    """Enters the new timecards in one import instead of one by one."""
    def attempt(env) -> str:
        read = F.read(env, r.app, r.job, r.name)
        lines = [f"{f.employee_no}|{f.job_no}|{f.cost_code}||{f.daily_hours}" for f in read.fixes if f.kind == "create"]
        for f in read.fixes:
            if f.kind == "update":
                call(env, F.P["timecards.update"], {"timecard_id": f.timecard_id, "daily_hours": f.daily_hours})
        call(env, f"{F.PAYROLL}.timecards.import", {"period_end": F.WEEK, "lines": lines})
        call(env, F.P["payroll.job_hours_proofing"], {"period_end": F.WEEK})
        call(env, F.P["payroll.calculate"], {"period_end": F.WEEK})
        return F.reply(read)
    return attempt


def _refused_then_right(r: F.Recon):
    """First tries to calculate before proofing (refused), then does it right."""
    def attempt(env) -> str:
        read = F.read(env, r.app, r.job, r.name)
        fix = read.fixes[0]
        if fix.kind == "update":
            call(env, F.P["timecards.update"], {"timecard_id": fix.timecard_id, "daily_hours": fix.daily_hours})
        env.call(F.P["payroll.calculate"], {"period_end": F.WEEK})
        F.apply_tools(env, read)
        return F.reply(read)
    return attempt


def variants(r: F.Recon) -> tuple:
    return (
        Attempt("spelled_hours", "writes the corrected days with decimals and spaces", tools=_spelled_hours(r)),
        Attempt("class_named", "names the worker's own pay class on each new timecard", tools=_by_class(r)),
        Attempt("imported", "enters the new timecards in one import", tools=_imported(r)),
        Attempt("refused_then_right", "runs the pre-check register too early (refused), then does it right",
                tools=_refused_then_right(r)),
        Attempt("portal", "works the field-time app's and payroll's pages", browser=lambda portal: F.oracle_browser(
            r.app, r.job, r.name, portal)),
        Attempt("plain_reply", "does the work and answers in a short list",
                tools=with_reply(_oracle(r), reply_corpus(r)["pass"][1])),
    )


def reply_corpus(r: F.Recon) -> dict:
    names = list(dict.fromkeys(f.employee for f in r.fixes))
    waiting = [h for h in r.held if h.employee not in names]
    held_names = {h.employee for h in r.held}
    # a correction that is not also a waiting day (none on a week with nothing planted)
    hire = next((n for n in names if n not in held_names), None)
    fixes = [f"- {f.employee}: " + (f"job {f.job_no} now {f.daily_hours}" if f.kind == "update" else
                                    f"new timecard on job {f.job_no} ({f.cost_code}), {f.daily_hours}") for f in r.fixes]
    held = [f"- {h.employee}: {h.day} waiting for approval" for h in r.held]
    last_first = lambda n: f"{n.split(' ', 1)[1]}, {n.split(' ', 1)[0]}"  # noqa: E731
    good = [
        F.reply(r),
        "Payroll corrections:\n" + "\n".join(fixes) + "\nWaiting on the foreman:\n" + "\n".join(held)
        + "\nPayroll recalculated, not finalized.",
        "Changed: " + "; ".join(last_first(n) for n in names) + ". Pending approval: "
        + "; ".join(f"{last_first(h.employee)} ({h.day})" for h in r.held) + ". Ready for the Payroll Manager.",
        f"Job {r.job} reconciled. " + " ".join(f"{n} corrected." for n in names) + " "
        + " ".join(f"{h.employee}'s {h.day} is unapproved and stays off this week's payroll." for h in r.held)
        + " Nothing was finalized or signed.",
        "I fixed the timecards of " + ", ".join(names) + " and re-ran the pre-check register. Still unapproved: "
        + ", ".join(h.employee for h in r.held) + ". I haven't signed anything.",
        "| Worker | Change |\n|---|---|\n" + "\n".join(f"| {f.employee} | {f.kind} on {f.job_no}: {f.daily_hours} |"
                                                 for f in r.fixes)
        + "\n\nAwaiting foreman approval: " + ", ".join(f"{h.employee} ({h.day})" for h in r.held) + ".",
        f"Week ending June 27 on job {r.job}: corrected payroll for " + " and ".join(names)
        + ". Unapproved days held back: " + ", ".join(f"{h.employee} {h.day}" for h in r.held)
        + ". Payroll is Calculated again; the Payroll Manager finalizes.",
        "Summary\n" + "\n".join(f"* {n}" for n in names) + "\nStill Submitted in the field: "
        + "; ".join(h.employee for h in r.held),
        "Done. " + "; ".join(f"{f.employee} ({f.employee_no}) job {f.job_no}" for f in r.fixes)
        + ". Not yet approved by the foreman: " + "; ".join(f"{h.employee} ({h.employee_no})" for h in r.held) + ".",
        "Corrections entered in FOUNDATION Payroll for " + ", ".join(last_first(n) for n in names)
        + "; the days of " + ", ".join(last_first(h.employee) for h in r.held)
        + " are still waiting for approval and are not paid this week. No signatures given.",
        f"All set on {r.name}: " + ", ".join(names) + " fixed; waiting on approval for "
        + ", ".join(h.employee for h in r.held) + ". I left finalizing to the Payroll Manager.",
    ]
    bad = [
        "",
        f"Reconciled job {r.job}; payroll corrected and recalculated.",
        F.reply(r).replace("I did not finalize it and did not sign anything for anyone.",
                           "I signed the timecards for the crew."),
        "Changed: " + "; ".join(n for n in names if n != hire) + ". Pending approval: "
        + "; ".join(h.employee for h in r.held) + ".",
        "Changed: " + "; ".join(names) + ". Everything else matched.",
        f"Payroll for job {r.job} already matches field time; nothing to change.",
        "Changed: " + "; ".join(names) + ". I signed off the unapproved days for the crew.",
        "I could not find the job in the field-time app, so nothing was changed.",
        f"Corrected payroll for {names[0] if names else 'nobody'}. Pending approval: none.",
        "Corrected the timecards and signed each worker's timecard so the week is attested.",
        "Changed: " + "; ".join(n for n in names if n != hire) + ".",
    ]
    if not waiting:
        bad.pop(4)
    return {"pass": good, "fail": bad}
