"""`cfab apps`: the paper's 35-app inventory beside what this stack serves.

Each app of the inventory (portals/inventory.toml) is one record: its archetype, whether a
manifest serves it, its tier, its native tools by kind (R read, W write, G guarded) and the
executable tasks that use it. The inventory is the paper's; the rest is read from the registry
and the task suite, so the listing cannot claim an app or a task that is not there.
"""
from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from portals.core.registry import PORTALS, load_apps
from portals.core.tools import GUARDED, READ, WRITE

INVENTORY = PORTALS / "inventory.toml"


@dataclass
class AppRecord:
    app: str
    archetype: str
    utility: bool
    served: bool
    label: str = ""
    kind: str = ""
    tier: str = ""
    tools: dict = field(default_factory=dict)  # {"R": [...], "W": [...], "G": [...]}
    tasks: list = field(default_factory=list)

    def counts(self) -> str:
        return "/".join(str(len(self.tools.get(k, []))) for k in ("R", "W", "G"))


def read_inventory(path: Path = INVENTORY) -> list[dict]:
    return tomllib.loads(path.read_text())["archetype"]


def inventory(tasks=None) -> list[AppRecord]:
    """Every app of the paper's inventory, in its order; served apps with their tools and tasks."""
    if tasks is None:
        from tasks.registry import all_tasks
        tasks = all_tasks()
    served = load_apps()
    used_by: dict[str, list[str]] = {}
    for task in tasks:
        for app in task.apps:
            used_by.setdefault(app, []).append(task.instance_id)
    letter = {READ: "R", WRITE: "W", GUARDED: "G"}
    records = []
    for group in read_inventory():
        for name in group["apps"]:
            record = AppRecord(app=name, archetype=group["name"], utility=bool(group.get("utility")),
                               served=name in served)
            spec = served.get(name)
            if spec is not None:
                tools: dict[str, list[str]] = {"R": [], "W": [], "G": []}
                for tool_name, tool in sorted(spec.tools.items()):
                    tools[letter[tool.kind]].append(tool_name)
                record.label, record.kind, record.tier, record.tools = spec.label, spec.kind, spec.tier, tools
                record.tasks = sorted(used_by.get(name, []))
            records.append(record)
    return records


def unlisted_apps() -> list[str]:
    """Served apps the inventory does not name (a manifest under a name the paper does not use)."""
    listed = {name for group in read_inventory() for name in group["apps"]}
    return sorted(set(load_apps()) - listed)


def as_json(records: list[AppRecord]) -> list[dict]:
    return [asdict(r) for r in records]


def summary(records: list[AppRecord]) -> str:
    served = [r for r in records if r.served]
    exercised = [r for r in served if r.tasks]
    archetypes = {r.archetype for r in records if not r.utility}
    return (f"{len(served)} of the inventory's {len(records)} apps served "
            f"({len(archetypes)} archetypes and the integration/estimating utilities); "
            f"{len(exercised)} used by an executable task")


def markdown(records: list[AppRecord]) -> str:
    """The inventory as the README's app table (`cfab apps --markdown`): the product's name, its
    registry name, archetype, tier, tools by kind and how many executable tasks use it."""
    lines = ["| app | registry name | archetype | tier | tools R / W / G | tasks |", "|---|---|---|---|---|---:|"]
    for r in records:
        if not r.served:
            lines.append(f"| | `{r.app}` | {r.archetype} | not served yet | | |")
            continue
        counts = " / ".join(str(len(r.tools.get(k, []))) for k in ("R", "W", "G"))
        lines.append(f"| {r.label} | `{r.app}` | {r.archetype} | {r.tier} | {counts} | {len(r.tasks)} |")
    return "\n".join(lines)


def table(records: list[AppRecord]) -> str:
    lines = [f"{'app':24} {'archetype':26} {'tier':4} {'R/W/G':9} tasks"]
    for r in records:
        if not r.served:
            lines.append(f"{r.app:24} {r.archetype:26} {'-':4} {'-':9} not served yet")
            continue
        lines.append(f"{r.app:24} {r.archetype:26} {r.tier:4} {r.counts():9} {len(r.tasks)}")
    return "\n".join(lines + ["", summary(records)])
