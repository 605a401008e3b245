"""The controlled-divergence registry: every intentional cross-system mismatch, and why."""
from __future__ import annotations

from .erp_keys import ERP_KEYS
from .reference import JSM_INVOICE, JSM_VENDOR


def jsm_dba_entry(vendor: dict) -> dict:
    return {
        "entity": "vendor", "key": JSM_VENDOR, "field": "dba",
        "systems": ["box", "outlook", "procore", *ERP_KEYS], "family": "C_invoice_code",
        "why": (f"The vendor's invoice PDFs (e.g. {JSM_INVOICE}.pdf in Box) and its emails print the DBA "
                f"'{vendor['dba']}'; Sage Intacct lists the legal name '{vendor['names']['intacct']}', "
                f"Procore '{vendor['names']['procore']}', and every other ERP its own spelling of it."),
    }


def finalize(entries: list[dict]) -> list[dict]:
    """Sort by (entity, key, field) and number DIV-0001.."""
    out = sorted(entries, key=lambda e: (e["entity"], e["key"], e["field"]))
    keys = [(e["entity"], e["key"], e["field"]) for e in out]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate divergence entries")
    return [{"id": f"DIV-{i:04d}", **e} for i, e in enumerate(out, start=1)]
