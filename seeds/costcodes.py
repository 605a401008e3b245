"""The company cost-code book and its map to every ERP's own codes (seeds/erp_keys.py)."""
from __future__ import annotations

from .erp_keys import ERP_KEYS, erp_code
from .reference import COST_CODES


def build_cost_codes() -> list[dict]:
    return sorted(({"code": code, "csi": csi, "division": code[:2], "description": desc}
                   for code, csi, desc in COST_CODES), key=lambda c: c["code"])


def build_erp_map(divergences: list[dict]) -> list[dict]:
    """One row per company code with each ERP's code; an ERP may consolidate a code into a
    sibling, so its map is not the convention - and that is registered."""
    descriptions = {code: desc for code, _, desc in COST_CODES}
    csi = {code: c for code, c, _ in COST_CODES}
    rows = []
    for code, _, _ in COST_CODES:
        row = {"code": code, "procore_code": code}
        for app, keys in ERP_KEYS.items():
            target = keys.get("consolidations", {}).get(code, code)
            row[keys["cost_code_field"]] = erp_code(app, target, csi[target])
            if target != code:
                word, own = keys["code_word"], erp_code(app, code, csi[code])
                divergences.append({
                    "entity": "cost_code", "key": code, "field": keys["cost_code_field"],
                    "systems": ["procore", app], "family": "H_procore_erp_sync",
                    "why": (f"{keys['label']} has no {word} for {code} ({descriptions[code]}); its costs "
                            f"post to the sibling {word} {row[keys['cost_code_field']]} "
                            f"({descriptions[target]}), so the map is not {own}."),
                })
        rows.append(row)
    return sorted(rows, key=lambda r: r["code"])
