"""A table of typed cells, written as Markdown, CSV, LaTeX (booktabs) or HTML cells.

Cells hold raw values; the column's kind decides how each format shows them, so the CSV keeps
full-precision numbers (an interval as three columns) while Markdown and LaTeX read like the
paper's tables.
"""
from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

DASH = "—"
RUN_MARK = {"pass": "✓", "fail": "✗", "infra": "!"}


@dataclass
class Column:
    name: str
    kind: str = "text"  # text | int | rate | delta | ci | frac | usd | tokens | runs
    group: str | None = None
    show_ci: bool = True  # False: the interval goes to the CSV and the HTML tooltip only
    csv_only: bool = False
    latex: bool = True

    @property
    def numeric(self) -> bool:
        return self.kind != "text"


@dataclass
class Table:
    key: str
    title: str
    caption: str
    columns: list[Column]
    rows: list[list] = field(default_factory=list)
    breaks: set = field(default_factory=set)  # a rule goes above these row indexes
    notes: list[str] = field(default_factory=list)

    def shown(self, fmt: str) -> list[int]:
        return [i for i, c in enumerate(self.columns)
                if (fmt == "csv" or not c.csv_only) and (fmt != "tex" or c.latex)]


def _rate(v) -> str:
    return DASH if v is None else f"{v:.2f}"


def text(column: Column, value, fmt: str = "md") -> str:
    """A cell as display text (fmt "md", "tex" or "html")."""
    kind = column.kind
    if value is None:
        return "unknown" if kind == "usd" else DASH
    if isinstance(value, str) and kind != "text":  # a note in place of a number
        return value
    if kind == "rate":
        return _rate(value)
    if kind == "delta":
        return f"{value:+.2f}"
    if kind == "ci":
        rate, lo, hi = value
        if rate is None:
            return DASH
        if not column.show_ci:
            return _rate(rate)
        if fmt == "tex":
            return f"{rate:.2f} {{\\scriptsize[{_short(lo)},{_short(hi)}]}}"
        return f"{rate:.2f} [{lo:.2f}, {hi:.2f}]"
    if kind == "frac":
        return f"{value[0]}/{value[1]}"
    if kind == "usd":
        return f"${value:.4f}" if 0 < value < 0.01 else f"${value:.2f}"
    if kind == "tokens":
        return f"{value / 1000:.1f}k" if value >= 1000 else f"{value:.0f}"
    if kind == "runs":
        return "".join(RUN_MARK[status] for status, _href in value) or DASH
    return str(value)


def _short(x: float) -> str:
    return f"{x:.2f}".removeprefix("0") if x < 1 else f"{x:.2f}"


def sort_key(column: Column, value) -> str:
    """What the leaderboard's sorter compares (a number, or lower-case text)."""
    if value is None or (isinstance(value, str) and column.numeric):
        return "-1" if column.numeric else ""
    kind = column.kind
    if kind in ("ci",):
        return "-1" if value[0] is None else repr(value[0])
    if kind == "frac":
        return repr(value[0] / value[1]) if value[1] else "-1"
    if kind == "runs":
        return repr(sum(s == "pass" for s, _ in value) / len(value)) if value else "-1"
    if column.numeric:
        return repr(float(value))
    return str(value).lower()


def _header(column: Column, sep: str = " · ") -> str:
    return f"{column.group}{sep}{column.name}" if column.group else column.name


def markdown(table: Table) -> str:
    cols = table.shown("md")
    lines = [f"### {table.title}", "", f"*{table.caption}*", "",
             "| " + " | ".join(_header(table.columns[i]) for i in cols) + " |",
             "|" + "|".join("---:" if table.columns[i].numeric else ":---" for i in cols) + "|"]
    for row in table.rows:
        cells = [text(table.columns[i], row[i]).replace("|", "\\|") for i in cols]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [""] + [f"> {note}" for note in table.notes] + ([""] if table.notes else [])
    return "\n".join(lines) + "\n"


def to_csv(table: Table) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header, cols = [], table.shown("csv")
    for i in cols:
        column = table.columns[i]
        name = _header(column, " ").replace(" [95% CI]", "")
        header += [name, f"{name} ci_low", f"{name} ci_high"] if column.kind == "ci" else \
            [name, f"{name} n"] if column.kind == "frac" else [name]
    writer.writerow(header)
    for row in table.rows:
        cells = []
        for i in cols:
            column, value = table.columns[i], row[i]
            if column.kind == "ci":
                cells += ["", "", ""] if value is None or value[0] is None else list(value)
            elif column.kind == "frac":
                cells += ["", ""] if value is None else list(value)
            elif column.kind == "runs":
                cells.append("".join(s[0].upper() for s, _ in value))
            else:
                cells.append("" if value is None else value)
        # 10 places: full precision without float noise such as 0.9999999999999999
        writer.writerow([round(c, 10) if isinstance(c, float) else c for c in cells])
    return out.getvalue()


TEX_SYMBOLS = {"—": "---", "−": r"\(-\)", "×": r"\(\times\)", "→": r"\(\to\)", "~": r"\textasciitilde{}"}


def _tex_plain(value: str) -> str:
    value = re.sub(r"([&%$#_{}])", r"\\\1", value.replace("\\", "\x00"))
    value = value.replace("\x00", r"\textbackslash{}").replace("^", r"\^{}")
    for symbol, tex in TEX_SYMBOLS.items():
        value = value.replace(symbol, tex)
    return value


def tex_escape(value: str) -> str:
    """Plain text as LaTeX: specials escaped, pass^k as math, a few symbols pdflatex lacks."""
    parts = re.split(r"pass\^(\w+)", value)  # text, exponent, text, exponent, ...
    return "".join(_tex_plain(part) if i % 2 == 0 else rf"\(\mathrm{{pass}}^{{{part}}}\)"
                   for i, part in enumerate(parts))


def _tex_name(name: str) -> str:
    return rf"\textbf{{{tex_escape(name)}}}"


def latex(table: Table) -> str:
    cols = table.shown("tex")
    spec = "".join("r" if table.columns[i].numeric else "l" for i in cols)
    lines = ["% needs \\usepackage{booktabs}", "\\begin{table}[t]", "\\centering",
             f"\\caption{{{tex_escape(table.caption)}}}", f"\\label{{tab:{table.key}}}", "\\small",
             f"\\begin{{tabular}}{{{spec}}}", "\\toprule"]
    groups = [table.columns[i].group for i in cols]
    if any(groups):
        spans, rules, start = [], [], 0
        while start < len(cols):
            end = start
            while end + 1 < len(cols) and groups[end + 1] == groups[start]:
                end += 1
            width = end - start + 1
            if groups[start]:
                spans.append(f"\\multicolumn{{{width}}}{{c}}{{\\textbf{{{tex_escape(groups[start])}}}}}")
                rules.append(f"\\cmidrule(lr){{{start + 1}-{end + 1}}}")
            else:
                spans += [""] * width
            start = end + 1
        lines += [" & ".join(spans) + " \\\\", "".join(rules)]
    lines.append(" & ".join(_tex_name(table.columns[i].name) for i in cols) + " \\\\")
    lines.append("\\midrule")
    for n, row in enumerate(table.rows):
        if n in table.breaks:
            lines.append("\\midrule")
        cells = []
        for i in cols:
            cell = text(table.columns[i], row[i], "tex")
            cells.append(cell if table.columns[i].kind == "ci" and row[i] else tex_escape(cell))
        lines.append(" & ".join(cells) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    return "\n".join(lines) + "\n"


def html_rows(table: Table) -> tuple[list[dict], list[list[dict]]]:
    """Header and body cells for the page template: text, sort key, tooltip, run links."""
    cols = table.shown("html")
    head = [{"text": _header(table.columns[i]), "numeric": table.columns[i].numeric} for i in cols]
    body = []
    for n, row in enumerate(table.rows):
        cells = []
        for i in cols:
            column, value = table.columns[i], row[i]
            cell = {"text": text(column, value, "html"), "sort": sort_key(column, value),
                    "title": "", "links": [], "break": n in table.breaks}
            if column.kind == "ci" and value and value[0] is not None:
                cell["title"] = f"95% Wilson interval [{value[1]:.2f}, {value[2]:.2f}]"
            if column.kind == "runs":
                cell["links"] = [{"text": RUN_MARK[s], "href": href, "status": s,
                                  "title": f"run {j + 1}: {s}"} for j, (s, href) in enumerate(value)]
            cells.append(cell)
        body.append(cells)
    return head, body
