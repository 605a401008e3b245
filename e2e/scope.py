"""How much of the suite the browser tests play: `make test` plays one representative instance
per family (agent.validate.one_per_family); `make validate` sets CFAB_E2E_ALL=1 and plays every
instance, so the fast run stays fast as families grow while the gate still sees everything."""
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
