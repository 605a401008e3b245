"""`cfab report`: results files in, a report folder out.

    DIR/index.html                     the leaderboard (sortable tables, plots, provenance)
    DIR/tables/<table>.{md,csv,tex}    each table; DIR/tables/report.md has them all
    DIR/plots/<plot>.{png,svg}         the figures
    DIR/runs/<model>/<instance>/<n>.html   one viewer page per run (n counts from 1)
    DIR/results/<model>.json           a copy of each results file read
"""
from __future__ import annotations

import shutil
from pathlib import Path

from . import behaviour_tables as behaviour
from . import rate_tables as rates
from .load import load_entries
from .pages import copy_assets, environment, table_context, write_index, write_runs
from .plots import write_plots
from .rate_tables import run_href
from .stats import EntryStats
from .table import latex, markdown, to_csv


def tables_for(stats: list[EntryStats]) -> list:
    """Every table, in the order the leaderboard shows them (the PM block only when present)."""
    built = [rates.overall_table(stats), rates.domain_table(stats), rates.difficulty_table(stats),
             rates.pm_table(stats), rates.comparison_table(stats), rates.contamination_table(stats),
             behaviour.guard_table(stats),
             behaviour.variant_table(stats), behaviour.infra_table(stats),
             behaviour.usage_table(stats), rates.task_table(stats)]
    return [t for t in built if t is not None]


def build_report(paths, out: str | Path) -> dict:
    """Write the whole report for `paths` into `out`; returns what was written."""
    out = Path(out)
    entries = load_entries(paths)
    stats = [EntryStats(e) for e in entries]
    tables = tables_for(stats)
    folder = out / "tables"
    folder.mkdir(parents=True, exist_ok=True)
    contexts = []
    for table in tables:
        (folder / f"{table.key}.md").write_text(markdown(table))
        (folder / f"{table.key}.csv").write_text(to_csv(table))
        (folder / f"{table.key}.tex").write_text(latex(table))
        contexts.append(table_context(table, {fmt: f"tables/{table.key}.{ext}" for fmt, ext in
                                              (("Markdown", "md"), ("CSV", "csv"), ("LaTeX", "tex"))}))
    (folder / "report.md").write_text("# CFAgentBench report\n\n" + "\n".join(markdown(t) for t in tables))
    plots = write_plots(stats, out / "plots")
    (out / "results").mkdir(parents=True, exist_ok=True)
    for entry in entries:
        shutil.copyfile(entry.path, out / "results" / f"{entry.slug}.json")
    copy_assets(out)
    env = environment()
    runs = sum(write_runs(out, env, entry) for entry in entries)
    first_runs = {}
    for s in stats:
        first = next((t for t in s.entry.tasks if t["runs"]), None)
        first_runs[s.entry.slug] = run_href(s, first["instance_id"], 1) if first else "#"
    index = write_index(out, env, entries=entries, table_list=contexts, first_runs=first_runs,
                        plots=[{"name": n, "title": t, "png": f"plots/{n}.png", "svg": f"plots/{n}.svg"}
                               for n, t in plots.items()])
    return {"index": str(index), "tables": [t.key for t in tables], "plots": list(plots),
            "runs": runs, "entries": [e.label for e in entries]}
