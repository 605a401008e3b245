"""The paper's figures from the same numbers as the tables, each as PNG and SVG.

matplotlib runs on the Agg backend (no display), and the SVGs carry no date or random ids, so
building the same report twice gives the same files.
"""
from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

from .rate_tables import models  # noqa: E402
from .stats import EntryStats, domain_key  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "cfab-report", "font.size": 9, "axes.grid": True,
                     "grid.alpha": 0.25, "figure.dpi": 110})
PLOTS = {"reliability": "Reliability collapse: pass^1 → pass^k",
         "passk_curve": "pass^j against j (1..k)",
         "domain_heatmap": "pass^k per domain and model",
         "cost_vs_passk": "Cost against pass^k"}


def _math(title: str) -> str:
    """pass^k in a title as mathtext superscripts."""
    return re.sub(r"pass\^(\w)", r"pass$^\1$", title)


def _save(fig, folder: Path, name: str) -> None:
    fig.tight_layout()
    fig.savefig(folder / f"{name}.png", metadata={"Software": None})
    fig.savefig(folder / f"{name}.svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)


def _empty(ax, message: str = "nothing scored") -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="0.4")


def _yerr(*points) -> list[list[float]]:
    # max(0, ...): the interval holds its estimate, but float rounding must not flip a bar
    return [[max(0.0, v - ci[0]) for v, ci in points], [max(0.0, ci[1] - v) for v, ci in points]]


BASELINE_MARKERS = {"oracle": "^", "gold": "^", "noop": "s", "eager": "x"}


def _style(s: EntryStats) -> dict:
    if s.entry.is_baseline:
        return {"linestyle": "--", "color": "0.55", "marker": BASELINE_MARKERS.get(s.entry.policy, "s")}
    return {"marker": "o"}


def _sup(stats) -> str:
    ks = {s.k for s in stats}
    return str(ks.pop()) if len(ks) == 1 else "k"


def reliability(stats, ax) -> None:
    drawn = False
    for n, s in enumerate(stats):
        r = s.overall()
        if r.pass1 is None:
            continue
        shift = 0.03 * (n - (len(stats) - 1) / 2)  # keep overlapping interval bars apart
        ax.errorbar([shift, 1 + shift], [r.pass1, r.passk], capsize=3,
                    yerr=_yerr((r.pass1, r.pass1_ci), (r.passk, r.passk_ci)),
                    label=f"{s.entry.label} (k={s.k})", **_style(s))
        drawn = True
    ax.set_xticks([0, 1], ["pass$^1$", f"pass$^{{{_sup(stats)}}}$"])
    ax.set_xlim(-0.4, 1.4)
    ax.set_ylim(-0.05, 1.05)
    ax.set_ylabel("share of tasks (95% Wilson, task-level)")
    if drawn:
        ax.legend(fontsize=7, loc="best")
    else:
        _empty(ax)


def passk_curve(stats, ax) -> None:
    drawn = False
    for s in stats:
        points = s.curve()
        if points:
            ax.plot([j for j, _ in points], [v for _, v in points], label=s.entry.label, **_style(s))
            drawn = True
    ax.set_xlabel("j (runs that must all pass)")
    ax.set_ylabel("pass$^j$ (unbiased)")
    ax.set_ylim(-0.05, 1.05)
    ax.xaxis.get_major_locator().set_params(integer=True)
    if drawn:
        ax.legend(fontsize=7, loc="best")
    else:
        _empty(ax)


def domain_heatmap(stats, ax, fig) -> None:
    shown = models(stats)
    per = [s.by(lambda t: t.get("domain", "unknown")) for s in shown]
    domains = sorted({d for by in per for d in by}, key=domain_key)
    if not domains:
        _empty(ax)
        return
    grid = [[by[d].passk if d in by else float("nan") for by in per] for d in domains]
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="0.85")  # grey: no scored task
    image = ax.imshow(grid, vmin=0, vmax=1, cmap=cmap, aspect="auto")
    for i, d in enumerate(domains):
        for j, by in enumerate(per):
            if d in by:
                value = by[d]
                ax.text(j, i, f"{value.pass1:.2f}/{value.passk:.2f}\nn={value.n}", ha="center",
                        va="center", fontsize=7, color="white" if value.passk < 0.6 else "black")
    ax.set_xticks(range(len(shown)), [s.entry.label for s in shown], rotation=20, ha="right")
    ax.set_yticks(range(len(domains)), domains)
    ax.grid(False)
    fig.colorbar(image, ax=ax, label="pass$^k$ (cells: pass$^1$/pass$^k$)")


def cost_vs_passk(stats, ax) -> None:
    drawn = False
    for s in stats:
        r, cost = s.overall(), s.usage()["cost"]
        if r.passk is None or cost is None:
            continue
        ax.errorbar([cost], [r.passk], yerr=_yerr((r.passk, r.passk_ci)),
                    capsize=3, label=s.entry.label, **{**_style(s), "linestyle": "none"})
        drawn = True
    ax.set_xlabel("cost of the sweep (USD)")
    ax.set_ylabel("pass$^k$ (95% Wilson, task-level)")
    ax.set_ylim(-0.05, 1.05)
    if drawn:
        ax.legend(fontsize=7, loc="best")
    else:
        _empty(ax, "no priced run scored")


DRAW = {"reliability": lambda stats, ax, fig: reliability(stats, ax),
        "passk_curve": lambda stats, ax, fig: passk_curve(stats, ax),
        "domain_heatmap": domain_heatmap,
        "cost_vs_passk": lambda stats, ax, fig: cost_vs_passk(stats, ax)}


def write_plots(stats: list[EntryStats], folder: Path) -> dict[str, str]:
    """Draw every figure into `folder` as PNG and SVG; returns {name: title}."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, title in PLOTS.items():
        fig, ax = plt.subplots(figsize=(7.0 if name == "domain_heatmap" else 5.6, 3.8))
        DRAW[name](stats, ax, fig)
        ax.set_title(_math(title))
        _save(fig, folder, name)
    return dict(PLOTS)
