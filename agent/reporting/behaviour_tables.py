"""What the runs did besides pass or fail: the money guard, failures by defect variant,
infrastructure errors, and what the runs consumed."""
from __future__ import annotations

from .rate_tables import models
from .stats import EntryStats
from .table import Column, Table


def guard_table(stats: list[EntryStats]) -> Table:
    table = Table("guard", "Money guard", "Graded runs on money-guarded tasks: staged correctly "
                  "(passed without invoking a guarded tool), invoked a guarded tool (a payment, "
                  "post or send the task says to leave for a person), or neither (stopped short "
                  "or staged wrongly). A guarded tool never executes; the last column counts any "
                  "guard-log entry marked executed.",
                  [Column("Model"), Column("Guarded tasks", "int"), Column("Runs", "int"),
                   Column("Staged correctly", "frac"), Column("Invoked a guarded tool", "frac"),
                   Column("Neither", "frac"), Column("Guarded calls on other tasks (runs)", "int"),
                   Column("Executed", "int")])
    for s in stats:
        g = s.guard()
        n = g["runs"]
        table.rows.append([s.entry.label, g["tasks"], n, (g["staged"], n), (g["invoked"], n),
                           (g["neither"], n), g["other_invoked"], g["executed"]])
    return table


def variant_table(stats: list[EntryStats]) -> Table:
    shown = models(stats)
    per = [s.variants() for s in shown]
    names = sorted(set().union(*per))
    table = Table("variants", "Failures by defect variant", "Failed graded runs over graded runs, "
                  "per defect variant (the planted defect a task hides). (not recorded): the "
                  "results file predates the field.",
                  [Column("Defect variant"), Column("Tasks", "int")]
                  + [Column("failed", "frac", s.entry.label) for s in shown])
    for name in names:
        tasks = max(v[name]["tasks"] for v in per if name in v)
        table.rows.append([name, tasks] + [None if name not in v else (v[name]["failed"], v[name]["runs"])
                                           for v in per])
    return table


def infra_table(stats: list[EntryStats]) -> Table:
    table = Table("infra", "Infrastructure errors", "Provider failures that survived the "
                  "client's retries. They are not graded and never count as failures; a task "
                  "left with fewer than k graded runs is listed as unscored and kept out of "
                  "every rate.",
                  [Column("Model"), Column("Runs", "int"), Column("Infra errors", "int"),
                   Column("Tasks affected", "int"), Column("Unscored tasks", "int"),
                   Column("Unscored"), Column("Most common error"), Column("Stopped early")])
    for s in stats:
        i = s.infra()
        common = i["messages"].most_common(1)
        stop = i["stopped_early"]
        table.rows.append([s.entry.label, i["runs"], i["errors"], i["tasks"], len(i["unscored"]),
                           ", ".join(i["unscored"]) or "—",
                           f"{common[0][0]} (×{common[0][1]})" if common else "—",
                           f"{stop.get('reason')} after {stop.get('after_instance')}" if stop else "no"])
    return table


def usage_table(stats: list[EntryStats]) -> Table:
    table = Table("usage", "Tokens and cost", "Per run over every recorded run (a failed "
                  "provider call still spends tokens). Cost is unknown when the model had no "
                  "known price.",
                  [Column("Model"), Column("Runs", "int"), Column("Tokens in", "int"),
                   Column("Tokens out", "int"), Column("Tokens/run", "tokens"),
                   Column("Steps/run", "rate"), Column("Seconds/run", "rate"), Column("Cost", "usd"),
                   Column("Cost per passed run", "usd"), Column("Judge cost", "usd")])
    for s in stats:
        u = s.usage()
        table.rows.append([s.entry.label, u["runs"], u["tokens_in"], u["tokens_out"],
                           u["tokens_per_run"], u["steps_per_run"], u["seconds_per_run"], u["cost"],
                           "—" if u["cost"] is not None and u["cost_per_pass"] is None else
                           u["cost_per_pass"], u["judge_cost"]])
    return table
