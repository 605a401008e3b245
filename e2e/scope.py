"""How much of the suite the browser tests play: `make test` plays one representative instance
per family (agent.validate.one_per_family) and, where a test walks every app, one app per
archetype; `make validate` sets CFAB_E2E_ALL=1 and plays every instance and every app, so the
fast run stays fast as families and vendors grow while the gate still sees everything."""
from __future__ import annotations

import os

from agent.validate import one_per_family
from tasks.registry import all_tasks

EVERY_INSTANCE = os.environ.get("CFAB_E2E_ALL") == "1"


def representative_ids() -> set[str]:
    return {t.instance_id for t in one_per_family(all_tasks())}


def pick(items, instance_id, family) -> list:
    """Every item under CFAB_E2E_ALL; otherwise one per family: the family's representative
    when it is among the items, else the family's first item."""
    items = list(items)
    if EVERY_INSTANCE:
        return items
    chosen: dict[str, object] = {}
    preferred = representative_ids()
    for item in items:
        fam = family(item)
        if fam not in chosen or (instance_id(item) in preferred
                                 and instance_id(chosen[fam]) not in preferred):
            chosen[fam] = item
    return [item for item in items if item in chosen.values()]


# Each archetype's reference product: the one the other vendors of its archetype are data over.
REFERENCE_APPS = {"erp": "vista_erp", "pm": "procore", "bank": "bofa_cashpro", "payroll": "foundation_payroll",
                  "compliance": "lcptracker", "docs": "box", "office": "outlook", "fieldtime": "rhumbix",
                  "payapp": "gcpay", "integration": "hh2"}


def pick_apps(apps: dict) -> list[str]:
    """Every app under CFAB_E2E_ALL; otherwise each archetype's reference app (its first app
    when the archetype has no reference named)."""
    if EVERY_INSTANCE:
        return list(apps)
    chosen: dict[str, str] = {}
    for name, spec in apps.items():
        if spec.kind not in chosen or REFERENCE_APPS.get(spec.kind) == name:
            chosen[spec.kind] = name
    return [name for name in apps if name in chosen.values()]
