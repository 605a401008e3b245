"""A task's PM platform and tags, derived from the apps it uses (never listed by hand).

The paper reports its PM extension apart (its PM table): the tasks on the PM platforms other than
the reference product, Procore. Both come from the app registry: the PM archetype's apps are those
of the inventory's "PM" archetype (portals/inventory.toml) that a manifest serves, and an
archetype's reference product is the first app the inventory lists for it (the paper's order; for
PM that is Procore, the product the other PM vendors' records are reconciled against).

    platform   the PM platform a task works on (its first such app), or None
    tags       "pm" and "pm:<platform>" for every PM platform it uses, and "cross-system" when a
               PM-block task also uses an app of another archetype (the paper's multi-app block)

Tasks outside the PM block carry no tags. A results file records both per task
(agent/runner.py); agent/reporting/stats.py derives them the same way for a file that does not.
"""
from __future__ import annotations

import tomllib
from functools import lru_cache

PM_ARCHETYPE = "PM"
PM_TAG = "pm"
CROSS_SYSTEM_TAG = "cross-system"


@lru_cache(maxsize=1)
def _inventory() -> tuple[tuple[str, tuple[str, ...]], ...]:
    from portals.core.registry import PORTALS

    groups = tomllib.loads((PORTALS / "inventory.toml").read_text())["archetype"]
    return tuple((group["name"], tuple(group["apps"])) for group in groups)


@lru_cache(maxsize=1)
def archetypes() -> dict[str, str]:
    """app -> its archetype: the inventory's, else (a served app it does not list) its manifest's kind."""
    from portals.core.registry import load_apps

    out = {app: name for name, apps in _inventory() for app in apps}
    for name, spec in load_apps().items():
        out.setdefault(name, spec.kind)
    return out


def archetype_of(app: str) -> str:
    return archetypes().get(app, app)


@lru_cache(maxsize=1)
def pm_reference() -> str:
    """The PM archetype's reference product (the inventory's first PM app)."""
    return dict(_inventory())[PM_ARCHETYPE][0]


@lru_cache(maxsize=1)
def pm_platforms() -> tuple[str, ...]:
    """The served PM-archetype apps other than the reference, in the inventory's order."""
    from portals.core.registry import load_apps

    served = load_apps()
    return tuple(app for app in dict(_inventory())[PM_ARCHETYPE] if app != pm_reference() and app in served)


def platform_label(platform: str) -> str:
    """The product's own name ("RedTeam Flex"), or the registry name when no manifest serves it."""
    from portals.core.registry import load_apps

    spec = load_apps().get(platform)
    return spec.label if spec is not None else platform


def platform_of(apps) -> str | None:
    """The PM platform a task on `apps` works on: its first PM-platform app, or None."""
    platforms = pm_platforms()
    return next((app for app in apps if app in platforms), None)


def tags_of(apps) -> list[str]:
    """The tags of a task on `apps` (see the module docstring)."""
    apps = list(apps)
    platforms = [app for app in apps if app in pm_platforms()]
    if not platforms:
        return []
    tags = [PM_TAG] + [f"{PM_TAG}:{app}" for app in dict.fromkeys(platforms)]
    if any(archetype_of(app) != PM_ARCHETYPE for app in apps):
        tags.append(CROSS_SYSTEM_TAG)
    return tags


def known_tags() -> list[str]:
    """Every tag a task can carry."""
    return [PM_TAG] + [f"{PM_TAG}:{app}" for app in pm_platforms()] + [CROSS_SYSTEM_TAG]
