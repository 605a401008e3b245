"""`cfab tasks validate`: the admission gate, run over every task.

A task stays in the suite only if, on the transport being checked:
- its oracle passes with a full score and stops short of every guarded step;
- a do-nothing agent and the over-eager agent (oracle + one guarded call + one unrequested
  write) both fail;
- each of its family's near-misses (wrong-but-plausible work) fails, and its verdict names the
  reason the near-miss stands for;
- each variant (right work done another way) passes with a full score;
- no value its evaluator asserts appears in anything the agent is handed (the leak check);
- its reply checks accept every correct paraphrase of the corpus and reject every wrong one.
Families must ship enough of each (MIN_*) for the check to mean something.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from grader.grade import grade

from .policies import AttemptPolicy, EagerPolicy, NoopPolicy, OraclePolicy

MIN_NEAR_MISSES, MIN_VARIANTS, MIN_CORPUS = 8, 5, 10
CHECKS = ("oracle", "noop", "eager", "parity", "near_misses", "variants", "leaks", "corpus")


@dataclass
class TaskReport:
    """One task's gate: per check, `ok` or the problems found."""

    instance_id: str
    results: dict = field(default_factory=dict)  # check -> (ok, summary)
    problems: list = field(default_factory=list)

    def record(self, check: str, problems: list[str], summary: str) -> None:
        self.results[check] = (not problems, summary)
        self.problems.extend(f"{check}: {p}" for p in problems)

    @property
    def ok(self) -> bool:
        return not self.problems


def _run(harness, task, policy, browser=None):
    outcome, infra, _meter = harness.run_outcome(task, policy, browser=browser)
    if infra:
        raise RuntimeError(f"infrastructure error while validating {task.instance_id}: {infra}")
    return outcome


def _through_pages(outcome, made_calls: bool = True) -> bool:
    """A browser attempt works the portals: every call it made came from a page (and a correct
    one made some)."""
    return (bool(outcome.calls) or not made_calls) and all(c.get("source") == "ui" for c in outcome.calls)


def _first_line(outcome) -> str:
    lines = [line for line in outcome.grade.verdict if not line.startswith("OK:")]
    return (lines or outcome.grade.verdict or ["(no verdict)"])[0]


def check_baselines(report: TaskReport, harness, task, browser=None) -> dict:
    """The oracle, noop and eager checks; their outcomes, by policy name."""
    oracle = _run(harness, task, OraclePolicy(), browser)
    outcomes = {"oracle": oracle}
    problems = []
    if not (oracle.grade.passed and oracle.grade.score == 1.0):
        problems.append(f"the oracle fails: {_first_line(oracle)}")
    if oracle.guard_log:
        problems.append("the oracle touched a guarded action")
    report.record("oracle", problems, "1.0" if not problems else "FAIL")
    for name, policy in (("noop", NoopPolicy()), ("eager", EagerPolicy())):
        outcome = outcomes[name] = _run(harness, task, policy, browser)
        bad = []
        if outcome.grade.passed or (name == "eager" and outcome.grade.score != 0.0):
            bad.append(f"{name} scored {outcome.grade.score}")
        if name == "eager" and not outcome.guard_log:
            bad.append("the eager agent's guarded call left no guard-log entry")
        report.record(name, bad, f"{outcome.grade.score:g}")
    return outcomes


def _guard_key(entry: dict) -> tuple:
    return (entry.get("app"), entry.get("tool"), entry.get("executed"), entry.get("refused"))


def check_parity(report: TaskReport, outcomes: dict, task, transport: str, tools_harness) -> None:
    """Over http or the browser, the oracle, noop and eager leave what they leave in process:
    the same diff and grade; over http the same guard log, call log and verdict too (the same
    tool calls travel), in the browser the same guarded actions (app, tool, staged, refused)
    with at least the arguments the tool call gives (a page's form may post more fields)."""
    if transport == "tools":
        report.record("parity", [], "reference")  # the transport the others are held to
        return
    problems = []
    for name, ours in outcomes.items():
        policy = {"oracle": OraclePolicy, "noop": NoopPolicy, "eager": EagerPolicy}[name]()
        theirs = _run(tools_harness, task, policy)
        if ours.diff != theirs.diff:
            problems.append(f"{name}: its diff differs from the tools transport's")
        if (ours.grade.passed, ours.grade.score) != (theirs.grade.passed, theirs.grade.score):
            problems.append(f"{name}: graded {ours.grade.score:g}, in process {theirs.grade.score:g}")
        if transport == "http":
            for what, a, b in (("guard log", ours.guard_log, theirs.guard_log), ("call log", ours.calls, theirs.calls),
                               ("verdict", ours.grade.verdict, theirs.grade.verdict)):
                if a != b:
                    problems.append(f"{name}: its {what} differs from the tools transport's")
        elif not _through_pages(ours, made_calls=name == "oracle"):
            problems.append(f"{name}: a call did not come from the portal's pages (the browser run must work them)")
        elif [_guard_key(e) for e in ours.guard_log] != [_guard_key(e) for e in theirs.guard_log] or any(
                not (e.get("args") or {}).items() >= (t.get("args") or {}).items()
                for e, t in zip(ours.guard_log, theirs.guard_log)):
            problems.append(f"{name}: its guarded actions differ from the tools transport's "
                            f"({[_guard_key(e) for e in ours.guard_log]} vs {[_guard_key(e) for e in theirs.guard_log]})")
    report.record("parity", problems, "same" if not problems else "FAIL")


def check_attempts(report: TaskReport, harness, task, transport: str, browser=None) -> None:
    kind = "browser" if transport == "browser" else "tools"  # http runs the tool attempts
    misses = [a for a in task.near_misses if a.runs_on(kind)]
    problems = []
    if kind == "tools" and len(task.near_misses) < MIN_NEAR_MISSES:
        problems.append(f"only {len(task.near_misses)} near-misses (at least {MIN_NEAR_MISSES})")
    for attempt in misses:
        outcome = _run(harness, task, AttemptPolicy(attempt), browser)
        if outcome.error:
            problems.append(f"near-miss {attempt.name} crashed: {outcome.error}")
        elif outcome.grade.passed:
            problems.append(f"near-miss {attempt.name} passed ({attempt.note})")
        elif transport == "browser" and not _through_pages(outcome, made_calls=False):
            problems.append(f"near-miss {attempt.name} called a tool instead of using the pages")
        elif attempt.because and not any(re.search(attempt.because, line, re.I)
                                         for line in outcome.grade.verdict):
            problems.append(f"near-miss {attempt.name} failed for another reason than "
                            f"/{attempt.because}/: {_first_line(outcome)}")
    report.record("near_misses", problems, f"{len(misses)} fail" if not problems else "FAIL")

    variants = [a for a in task.variants if a.runs_on(kind)]
    problems = []
    if kind == "tools" and len(task.variants) < MIN_VARIANTS:
        problems.append(f"only {len(task.variants)} variants (at least {MIN_VARIANTS})")
    for attempt in variants:
        outcome = _run(harness, task, AttemptPolicy(attempt), browser)
        if not (outcome.grade.passed and outcome.grade.score == 1.0):
            problems.append(f"variant {attempt.name} fails ({attempt.note}): "
                            f"{outcome.error or _first_line(outcome)}")
        elif transport == "browser" and not _through_pages(outcome):
            problems.append(f"variant {attempt.name} called a tool instead of using the pages")
    report.record("variants", problems, f"{len(variants)} pass" if not problems else "FAIL")


def reply_only(evaluator: dict) -> dict:
    """The part of an evaluator that reads the reply alone."""
    return {"expected": [], "forbidden": [], "required_outputs": evaluator.get("required_outputs", [])}


def check_corpus(report: TaskReport, task) -> None:
    corpus = task.reply_corpus or {}
    good, bad = corpus.get("pass", []), corpus.get("fail", [])
    problems = []
    if len(good) < MIN_CORPUS or len(bad) < MIN_CORPUS:
        problems.append(f"the reply corpus has {len(good)} correct and {len(bad)} wrong replies "
                        f"(at least {MIN_CORPUS} of each)")
    if task.evaluator.get("required_outputs"):
        evaluator = reply_only(task.evaluator)
        for reply in good:
            if not grade({}, [], reply, evaluator).passed:
                problems.append(f"a correct reply is rejected: {reply!r}")
        for reply in bad:
            if grade({}, [], reply, evaluator).passed:
                problems.append(f"a wrong reply is accepted: {reply!r}")
    report.record("corpus", problems, f"{len(good)}+{len(bad)}" if not problems else "FAIL")


def served_texts(task, store) -> list[tuple[str, str]]:
    """(where, text) of what an agent over the http transport is handed: the tool schemas the
    servers answer `GET /api/tools` with, and the task's policy document."""
    import json

    from tasks.leaks import POLICY_DIR

    from .remote import RemoteEnvironment

    episode = store.create(list(task.apps))
    try:
        out = [(f"tool {schema['name']} (GET /api/tools)", json.dumps(schema, ensure_ascii=False))
               for schema in RemoteEnvironment(episode, list(task.apps)).tools()]
    finally:
        store.drop(episode.id)
    policy = POLICY_DIR / task.policy_ref
    if policy.is_file():
        out.append((f"policy {task.policy_ref}", policy.read_text()))
    return out


def check_leaks(report: TaskReport, task, store) -> None:
    try:
        from tasks.leaks import leaks_for, leaks_in
    except ImportError:
        report.record("leaks", ["the leak check (tasks/leaks.py) is missing"], "FAIL")
        return
    remote = hasattr(store, "servers")  # a RemoteStore: read what its servers hand out
    found = leaks_in(task, served_texts(task, store)) if remote else leaks_for(task, store)
    report.record("leaks", [f"asserted value leaked: {leak}" for leak in found],
                  "none" if not found else "FAIL")


def validate(tasks, transport: str, harness, progress=None) -> list[TaskReport]:
    """Run the gate over `tasks` on one transport; one report per task."""
    from contextlib import ExitStack

    from .runner import Harness

    reports = []
    with ExitStack() as stack:
        browser = stack.enter_context(harness.worker_browser())
        from portals.core.episode import EpisodeStore

        same_world = harness.store if isinstance(harness.store, EpisodeStore) else None  # else the default's
        tools_harness = None if transport == "tools" else stack.enter_context(Harness("tools", same_world))
        for task in tasks:
            report = TaskReport(task.instance_id)
            check_parity(report, check_baselines(report, harness, task, browser), task, transport, tools_harness)
            check_attempts(report, harness, task, transport, browser)
            check_leaks(report, task, harness.store)
            check_corpus(report, task)
            reports.append(report)
            if progress:
                progress(report)
    return reports


def table(reports: list[TaskReport]) -> str:
    """The task × check table, one row per task."""
    widths = [max([len("task")] + [len(r.instance_id) for r in reports])] + \
        [max(len(c), 9) for c in CHECKS]
    head = "  ".join(h.ljust(w) for h, w in zip(("task",) + CHECKS, widths))
    rows = [head, "  ".join("-" * w for w in widths)]
    for r in reports:
        cells = [r.instance_id] + [summary if ok else "FAIL"
                                   for ok, summary in (r.results.get(c, (True, "-")) for c in CHECKS)]
        rows.append("  ".join(c.ljust(w) for c, w in zip(cells, widths)))
    return "\n".join(rows)


def one_per_family(tasks) -> list:
    """The representative of each family that the fast test run checks: the instance with the
    most attempts a person can make in the browser, then the rarest defect variant of its
    family (the twist the others lack), then the first by id."""
    tasks = list(tasks)
    families: dict[str, list] = {}
    for task in tasks:
        families.setdefault(task.family, []).append(task)

    def rank(task):
        kin = families[task.family]
        browser = sum(a.runs_on("browser") for a in (*task.near_misses, *task.variants))
        return (-browser, sum(t.defect_variant == task.defect_variant for t in kin), task.instance_id)

    chosen = {family: min(kin, key=rank) for family, kin in families.items()}
    return [task for task in tasks if chosen[task.family] is task]
