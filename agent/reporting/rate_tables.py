"""The paper's rate tables: overall, per domain, per difficulty, per task, the PM block, and
the pairwise comparisons."""
from __future__ import annotations

from .compare import WITHIN_NOISE, against_leader, compare, leader, overlap, pairs
from .load import slugify
from .stats import DIFFICULTY, EntryStats, Rates, domain_key
from .table import Column, Table

CI_NOTE = ("Brackets are 95% Wilson intervals with the task as the unit (n = scored tasks); "
           "pass^k is the unbiased estimator (the chance that k of a task's runs drawn without "
           "replacement all pass). Infrastructure errors are not graded; a task with fewer than "
           "k graded runs is not scored.")


def models(stats: list[EntryStats]) -> list[EntryStats]:
    """The entries compared side by side: the models, or every entry when there are none."""
    return [s for s in stats if not s.entry.is_baseline] or list(stats)


def k_label(stats: list[EntryStats]) -> str:
    ks = {s.k for s in stats}
    return f"pass^{ks.pop()}" if len(ks) == 1 else "pass^k"


def ci(r: Rates | None, metric: str):
    if r is None or getattr(r, metric) is None:
        return None
    return (getattr(r, metric), *getattr(r, f"{metric}_ci"))


def run_href(s: EntryStats, iid: str, n: int) -> str:
    return f"runs/{s.entry.slug}/{slugify(iid)}/{n}.html"


def run_marks(s: EntryStats, iid: str) -> list:
    record = s.records.get(iid)
    if record is None:
        return []
    return [("infra" if run.get("infra_error") else "pass" if run["passed"] else "fail",
             run_href(s, iid, n)) for n, run in enumerate(record["runs"], 1)]


def overall_table(stats: list[EntryStats]) -> Table:
    pk, mixed = k_label(stats), len({s.k for s in stats}) > 1
    top = leader(stats)
    columns = [Column("Model"), Column("#", "int")] + ([Column("k", "int")] if mixed else []) + [
        Column("pass^1 [95% CI]", "ci"), Column(f"{pk} [95% CI]", "ci"),
        Column(f"{pk} − pass^1", "delta"), Column("Tokens/run", "tokens"), Column("Cost", "usd"),
        Column(f"vs. leader ({pk})")]
    table = Table("overall", "Overall", f"Overall {pk} per model with the no-op and scripted "
                  f"baselines. {CI_NOTE} The {pk} − pass^1 drop is paired (same tasks); "
                  "between-model gaps count only when intervals separate.", columns)
    ordered = [s for s in stats if not s.entry.is_baseline] + [s for s in stats if s.entry.is_baseline]
    for n, s in enumerate(ordered):
        r, use = s.overall(), s.usage()
        if n and s.entry.is_baseline and not ordered[n - 1].entry.is_baseline:
            table.breaks.add(n)
        delta = None if r.passk is None else r.passk - r.pass1
        table.rows.append([s.entry.label, r.n] + ([s.k] if mixed else []) + [
            ci(r, "pass1"), ci(r, "passk"), delta, use["tokens_per_run"], use["cost"],
            against_leader(s, top)])
    return table


def _grouped(stats, pk, *, runs: bool = False) -> list[Column]:
    columns = []
    for s in stats:
        columns += [Column("n", "int", s.entry.label, csv_only=True),
                    Column("pass^1", "ci", s.entry.label, show_ci=False),
                    Column(pk, "ci", s.entry.label, show_ci=False)]
        if runs:
            columns.append(Column("runs", "runs", s.entry.label, latex=False))
    return columns


def _cells(r: Rates | None) -> list:
    return [None if r is None else r.n, ci(r, "pass1"), ci(r, "passk")]


def domain_table(stats: list[EntryStats]) -> Table:
    shown, pk = models(stats), k_label(models(stats))
    tasks: dict[str, set] = {}
    for s in shown:
        for iid, record in s.records.items():
            tasks.setdefault(record.get("domain", "unknown"), set()).add(iid)
    per = [s.by(lambda t: t.get("domain", "unknown")) for s in shown]
    table = Table("domains", "Per domain", f"pass^1 / {pk} per domain (# = tasks in the domain). "
                  "Domains with few tasks are reported for completeness, not as evidence; the "
                  "CSV carries each cell's interval.", [Column("Domain"), Column("#", "int")]
                  + _grouped(shown, pk))
    for domain in sorted(tasks, key=domain_key):
        row = [domain, len(tasks[domain])]
        for by in per:
            row += _cells(by.get(domain))
        table.rows.append(row)
    table.breaks.add(len(table.rows))
    row = ["Overall", len(set().union(*tasks.values())) if tasks else 0]
    for s in shown:
        row += _cells(s.overall())
    table.rows.append(row)
    return table


def difficulty_table(stats: list[EntryStats]) -> Table:
    shown, pk = models(stats), k_label(models(stats))
    tasks: dict[int, set] = {}
    for s in shown:
        for iid, record in s.records.items():
            tasks.setdefault(record.get("difficulty"), set()).add(iid)
    per = [s.by(lambda t: t.get("difficulty")) for s in shown]
    table = Table("difficulty", "Per difficulty", f"pass^1 / {pk} by difficulty (equivalent "
                  "human time, n = tasks). Per-bucket n is small and uneven; read across rows "
                  "with care.", [Column("Difficulty (n)")] + _grouped(shown, pk))
    levels = sorted(set(DIFFICULTY) | {d for d in tasks if d is not None}) + \
        ([None] if None in tasks else [])
    for level in levels:
        label = "unknown" if level is None else f"{level} — {DIFFICULTY.get(level, '?')}"
        row = [f"{label} ({len(tasks.get(level, ()))})"]
        for by in per:
            row += _cells(by.get(level))
        table.rows.append(row)
    return table


def task_table(stats: list[EntryStats]) -> Table:
    pk = k_label(stats)
    records: dict[str, dict] = {}
    for s in stats:
        for iid, record in s.records.items():
            records.setdefault(iid, record)
    table = Table("tasks", "Per task", f"pass^1 / {pk} per task and model; ✓ passed, ✗ failed, "
                  "! infrastructure error (not graded). — : fewer than k graded runs.",
                  [Column("Task"), Column("Domain"), Column("D", "int"), Column("#apps", "int")]
                  + [c for c in _grouped(stats, pk, runs=True) if c.name != "n"])
    order = sorted(records, key=lambda i: (domain_key(records[i].get("domain", "")), i))
    for iid in order:
        record = records[iid]
        row = [iid, record.get("domain", "unknown"), record.get("difficulty"), len(record.get("apps", []))]
        for s in stats:
            r = s.task(iid)
            row += [ci(r, "pass1"), ci(r, "passk"), run_marks(s, iid)]
        table.rows.append(row)
    return table


def pm_table(stats: list[EntryStats]) -> Table | None:
    """The PM extension apart, the way the paper's PM table reports it: per policy or model, the
    block's pass^1 / pass^k, each platform's pass^1 and the cross-system block's pass^1 / pass^k
    (tasks/tags.py says which tasks those are); None when no file has a PM-platform task."""
    from tasks.tags import platform_label, pm_platforms

    blocks = [(s, s.pm_block()) for s in stats]
    blocks = [(s, b) for s, b in blocks if b is not None]
    if not blocks:
        return None
    shown = [s for s, _ in blocks]
    pk, mixed = k_label(shown), len({s.k for s in shown}) > 1
    present = {p for _, b in blocks for p in b.platforms}
    platforms = [p for p in pm_platforms() if p in present] + sorted(present - set(pm_platforms()))
    columns = [Column("Model"), Column("#", "int")] + ([Column("k", "int")] if mixed else []) + [
        Column("pass^1", "ci", "Overall"), Column(pk, "ci", "Overall")]
    columns += [Column(platform_label(p), "ci", "Per-platform pass^1", show_ci=False) for p in platforms]
    columns += [Column("#", "int", "Cross-system", csv_only=True), Column("pass^1", "ci", "Cross-system"),
                Column(pk, "ci", "Cross-system")]
    names = ", ".join(map(platform_label, platforms))
    table = Table("pm", "PM extension", f"The PM-platform tasks apart (those on {names}; the "
                  "reference PM product's own tasks are not in the block): overall pass^1 / "
                  f"{pk}, per-platform pass^1 and the cross-system block (PM tasks that also use "
                  f"another archetype's app) pass^1 / {pk}. {CI_NOTE}", columns)
    ordered = [(s, b) for s, b in blocks if not s.entry.is_baseline] + \
        [(s, b) for s, b in blocks if s.entry.is_baseline]
    for n, (s, block) in enumerate(ordered):
        if n and s.entry.is_baseline and not ordered[n - 1][0].entry.is_baseline:
            table.breaks.add(n)
        table.rows.append([s.entry.label, block.overall.n] + ([s.k] if mixed else [])
                          + [ci(block.overall, "pass1"), ci(block.overall, "passk")]
                          + [ci(block.platforms.get(p), "pass1") for p in platforms]
                          + [block.cross.n, ci(block.cross, "pass1"), ci(block.cross, "passk")])
    return table


def comparison_table(stats: list[EntryStats]) -> Table:
    table = Table("comparisons", "Comparisons", "Every pair (the oracle aside) on pass^1 and "
                  "pass^k, over the tasks both scored: a gap counts only when the task-level 95% "
                  "intervals separate.",
                  [Column("Model A"), Column("Model B"), Column("Tasks", "int"), Column("Metric"),
                   Column("A", "ci"), Column("B", "ci"), Column("A − B", "delta"), Column("Verdict")])
    for a, b in pairs(stats):
        for metric in ("pass1", "passk"):
            result = compare(a, b, metric)
            name = "pass^1" if metric == "pass1" else (f"pass^{a.k}" if a.k == b.k else "pass^k")
            diff = None if result.a is None else getattr(result.a, metric) - getattr(result.b, metric)
            table.rows.append([a.entry.label, b.entry.label, result.n, name, ci(result.a, metric),
                               ci(result.b, metric), diff, result.verdict])
    return table


CONTAMINATION_NOTE = ("The same model on the public corpus and on the private split (CFAgentBench-Pro: "
                      "salted instances of the same families, scored by the maintainer's server). The "
                      "task sets differ, so the two rates are compared by their task-level 95% Wilson "
                      "intervals: a public rate above a private one whose intervals separate is the "
                      "contamination signal; overlapping intervals are within noise.")


def contamination_table(stats: list[EntryStats]) -> Table | None:
    """Public vs private per model (the paper's contamination signal); None unless some model
    has results on both."""
    groups: dict[str, dict[str, EntryStats]] = {}
    for s in stats:
        if s.entry.is_oracle:
            continue
        key = s.entry.model or s.entry.policy
        groups.setdefault(key, {}).setdefault(s.entry.split, s)  # the first file of each split
    both = {key: g for key, g in groups.items() if {"public", "private"} <= set(g)}
    if not both:
        return None
    columns = [Column("Model"), Column("#", "int", "Public"), Column("pass^1", "ci", "Public"),
               Column("#", "int", "Private"), Column("pass^1", "ci", "Private"),
               Column("private − public pass^1", "delta"), Column("pass^k", "ci", "Public"),
               Column("pass^k", "ci", "Private"), Column("private − public pass^k", "delta"),
               Column("Signal")]
    table = Table("contamination", "Public vs. private", CONTAMINATION_NOTE, columns)
    for key, g in both.items():
        pub, pri = g["public"].overall(), g["private"].overall()
        d1 = None if pub.pass1 is None or pri.pass1 is None else pri.pass1 - pub.pass1
        same_k = g["public"].k == g["private"].k
        dk = None if not same_k or pub.passk is None or pri.passk is None else pri.passk - pub.passk
        table.rows.append([g["public"].entry.model or g["public"].entry.label, pub.n, ci(pub, "pass1"), pri.n,
                           ci(pri, "pass1"), d1, ci(pub, "passk") if same_k else None,
                           ci(pri, "passk") if same_k else None, dk, contamination_signal(pub, pri)])
    return table


def contamination_signal(pub: Rates, pri: Rates) -> str:
    if pub.pass1 is None or pri.pass1 is None:
        return "not comparable (a split has no scored task)"
    if overlap(pub.pass1_ci, pri.pass1_ci):
        return WITHIN_NOISE
    if pub.pass1 > pri.pass1:
        return "public ahead (intervals separate): contamination signal"
    return "private ahead (intervals separate)"
