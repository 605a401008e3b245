"""How each ERP writes the company's keys: data keyed by ERP app.

The book carries, for every ERP, that product's own vendor ids, vendor-name spelling, cost codes
and job numbers, in the book fields named here; the ERP's manifest (`[erp]`) names the same
fields, so the ERP seeds from them without knowing which product it is. The consistency checker
reads the same rules to tell a convention (Vista's phase mask) from a divergence (a code Vista
consolidates into a sibling phase). A new ERP is one more entry here, a manifest and a skin.

Rules:
- names: the key of its spelling in `vendors[].names`; `name_style` how it writes a legal name.
- vendor_ids: "company" (the company's own vendor id), "numbered" (sorted by its spelling,
  `start + step * rank`) or "name_code" (the first letters of the legal name and a sequence).
- cost_code: a template over the company code's parts {code}, {division}, {section},
  {csi_digits}, {csi_dashed}; `consolidations` maps a company code to the sibling code it posts to.
- job: a template over {job} and {start_yy} (the two-digit year the job started); `job_field`
  names the book field holding it (None: the ERP keeps the company's job number).
"""
from __future__ import annotations

import re

from .reference import VISTA_CONSOLIDATIONS

# Order matters only for the order of `systems` in the divergence registry.
ERP_KEYS = {
    "vista_erp": {
        "label": "Vista", "code_word": "phase",
        "names": "vista", "name_style": "upper",
        "vendor_field": "vista_vendor", "vendor_ids": {"rule": "numbered", "start": 20000, "step": 5},
        "cost_code_field": "vista_phase", "cost_code": "{division}{section}-000-",
        "consolidations": VISTA_CONSOLIDATIONS,
        "job_field": None, "job": "{job}",
    },
    "sage_intacct": {
        "label": "Sage Intacct", "code_word": "task",
        "names": "intacct", "name_style": "plain",
        "vendor_field": "vendor_id", "vendor_ids": {"rule": "company"},
        # Tasks are the CSI MasterFormat section written with dashes ("31-23-00"); the cost type
        # is a dimension of its own. Projects carry a "P-" prefix ("P-1042").
        "cost_code_field": "intacct_task", "cost_code": "{csi_dashed}",
        "job_field": "intacct_project", "job": "P-{job}",
    },
    "foundation_erp": {
        "label": "FOUNDATION", "code_word": "cost code",
        "names": "foundation", "name_style": "legal",
        "vendor_field": "foundation_vendor", "vendor_ids": {"rule": "name_code", "letters": 6},
        "cost_code_field": "foundation_code", "cost_code": "{csi_digits}",
        "job_field": "foundation_job", "job": "{start_yy}-{job}",
    },
}


def code_parts(code: str, csi: str) -> dict:
    division, section = code.split("-")
    return {"code": code, "division": division, "section": section, "csi_digits": re.sub(r"\D", "", csi),
            "csi_dashed": "-".join(csi.split())}


def erp_code(app: str, code: str, csi: str) -> str:
    """The ERP's code for a company code by its convention, before any consolidation."""
    return ERP_KEYS[app]["cost_code"].format(**code_parts(code, csi))


def erp_job(app: str, job: dict) -> str:
    """The ERP's job number for a book job."""
    return ERP_KEYS[app]["job"].format(job=job["job"], start_yy=job["start_date"][2:4])


def name_code(legal: str, letters: int) -> str:
    """The letters a name-coded vendor id starts with: "J.S. Morales Excavating, Inc." -> "JSMORA"."""
    return re.sub(r"[^A-Z]", "", legal.upper())[:letters]


def assign_vendor_ids(vendors: list[dict]) -> None:
    """Give every vendor each ERP's own id (in place), before any spelling diverges."""
    for keys in ERP_KEYS.values():
        rule, field = keys["vendor_ids"], keys["vendor_field"]
        if rule["rule"] == "company":
            continue
        if rule["rule"] == "numbered":
            ordered = sorted(vendors, key=lambda v: (v["names"][keys["names"]], v["vendor_id"]))
            for rank, v in enumerate(ordered):
                v[field] = rule["start"] + rule["step"] * (rank + 1)
        elif rule["rule"] == "name_code":
            seen: dict[str, int] = {}
            for v in sorted(vendors, key=lambda v: v["vendor_id"]):
                stem = name_code(v["legal_name"], rule["letters"])
                seen[stem] = seen.get(stem, 0) + 1
                v[field] = f"{stem}{seen[stem]:02d}"
        else:
            raise ValueError(f"unknown vendor id rule {rule['rule']!r}")


def assign_job_numbers(jobs: list[dict]) -> None:
    """Give every job the number each ERP that numbers jobs its own way keeps (in place)."""
    for app, keys in ERP_KEYS.items():
        if keys["job_field"]:
            for j in jobs:
                j[keys["job_field"]] = erp_job(app, j)
