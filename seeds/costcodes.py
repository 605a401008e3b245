"""The company cost-code book and its per-ERP map (Procore, Vista phase, Intacct task)."""
from __future__ import annotations

from .reference import COST_CODES, VISTA_CONSOLIDATIONS


def vista_phase(code: str) -> str:
    """Vista phase in the mask XXXXX-XXX-: "31-200" -> "31200-000-"."""
    division, section = code.split("-")
    return f"{division}{section}-000-"


def build_cost_codes() -> list[dict]:
    return sorted(({"code": code, "csi": csi, "division": code[:2], "description": desc}
                   for code, csi, desc in COST_CODES), key=lambda c: c["code"])


def build_erp_map(divergences: list[dict]) -> list[dict]:
    """One row per company code; Vista consolidates some codes into a sibling phase."""
    rows = []
    descriptions = {code: desc for code, _, desc in COST_CODES}
    for code, _, _ in COST_CODES:
        target = VISTA_CONSOLIDATIONS.get(code, code)
        rows.append({"code": code, "procore_code": code, "vista_phase": vista_phase(target),
                     "intacct_task": code})
        if target != code:
            divergences.append({
                "entity": "cost_code", "key": code, "field": "vista_phase",
                "systems": ["procore", "vista_erp"], "family": "H_procore_erp_sync",
                "why": (f"Vista has no phase for {code} ({descriptions[code]}); its costs post to the "
                        f"sibling phase {vista_phase(target)} ({descriptions[target]}), so the map is "
                        f"not {vista_phase(code)}."),
            })
    return sorted(rows, key=lambda r: r["code"])
