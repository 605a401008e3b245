"""How each ERP writes the company's keys: data keyed by ERP app.

The book carries, for every ERP, that product's own vendor ids, vendor-name spelling, cost codes
and job numbers, in the book fields named here; the ERP's manifest (`[erp]`) names the same
fields, so the ERP seeds from them without knowing which product it is. The consistency checker
reads the same rules to tell a convention (Vista's phase mask) from a divergence (a code Vista
consolidates into a sibling phase). A new ERP is one more entry here, a manifest and a skin.

Rules:
- names: the key of its spelling in `vendors[].names`; `name_style` how it writes a legal name.
- vendor_ids: "company" (the company's own vendor id), "numbered" (sorted by its spelling, or by
  the company's vendor id with `"order": "company"`, `start + step * rank`, written by an optional
  `format` over {n}) or "name_code" (the first letters of the legal name and a sequence).
- cost_code: a template over the company code's parts {code}, {division}, {section},
  {csi_digits}, {csi_dashed}, {csi_section} (the CSI number's digits after the division);
  `consolidations` maps a company code to the sibling code it posts to.
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
    "sage300cre": {
        # Sage 300 CRE (Timberline): alphanumeric vendor ids of up to ten characters (the name's
        # first eight letters and a sequence), cost codes in a CSI mask XX-XXXX (division and
        # section digits; the category is separate) and jobs keyed as the start year and the job.
        "label": "Sage 300 CRE", "code_word": "cost code",
        "names": "sage300", "name_style": "legal",
        "vendor_field": "sage300_vendor", "vendor_ids": {"rule": "name_code", "letters": 8},
        "cost_code_field": "sage300_code", "cost_code": "{division}-{csi_section}",
        "job_field": "sage300_job", "job": "{start_yy}{job}",
    },
    "cmic": {
        # CMiC: a vendor is a Business Partner with a six-digit code numbered by its spelling, the
        # name kept in capitals with its punctuation; cost codes are the CSI division and section
        # joined by a dot (the category is separate) and jobs carry the four-digit start year.
        "label": "CMiC", "code_word": "cost code",
        "names": "cmic", "name_style": "caps",
        "vendor_field": "cmic_partner", "vendor_ids": {"rule": "numbered", "start": 300000, "step": 10},
        "cost_code_field": "cmic_code", "cost_code": "{division}.{csi_section}",
        "job_field": "cmic_job", "job": "20{start_yy}-{job}",
    },
    "acumatica_construction": {
        # Acumatica Construction Edition: vendor IDs auto-numbered V and six digits in the order the
        # vendors were created (the company's own vendor order), cost codes in the segments
        # XX-XXX-XX (the cost type is separate) and project IDs PRJ, the start year and the job.
        "label": "Acumatica", "code_word": "cost code",
        "names": "acumatica", "name_style": "legal",
        "vendor_field": "acumatica_vendor",
        "vendor_ids": {"rule": "numbered", "order": "company", "start": 100, "step": 3, "format": "V{n:06d}"},
        "cost_code_field": "acumatica_code", "cost_code": "{division}-{section}-00",
        "job_field": "acumatica_project", "job": "PRJ{start_yy}-{job}",
    },
    "qbo": {
        # QuickBooks Online: a vendor is its numeric Vendor.Id, given in the order the vendors were
        # created; there are no cost codes, so a class written Division:Section stands in (the
        # product/service is separate), and each project is named by the company's job number.
        "label": "QuickBooks Online", "code_word": "class",
        "names": "qbo", "name_style": "legal",
        "vendor_field": "qbo_vendor", "vendor_ids": {"rule": "numbered", "order": "company", "start": 55, "step": 1},
        "cost_code_field": "qbo_class", "cost_code": "{division}:{section}",
        "job_field": None, "job": "{job}",
    },
    "computerease": {
        # Deltek ComputerEase: a vendor # of the name's first four letters and a sequence, phases of
        # five digits, the company code's division and section (the category is separate), and job
        # numbers J, the two-digit start year and the job.
        "label": "ComputerEase", "code_word": "phase",
        "names": "computerease", "name_style": "legal",
        "vendor_field": "computerease_vendor", "vendor_ids": {"rule": "name_code", "letters": 4},
        "cost_code_field": "computerease_phase", "cost_code": "{division}{section}",
        "job_field": "computerease_job", "job": "J{start_yy}-{job}",
    },
}


def code_parts(code: str, csi: str) -> dict:
    division, section = code.split("-")
    return {"code": code, "division": division, "section": section, "csi_digits": re.sub(r"\D", "", csi),
            "csi_section": re.sub(r"\D", "", csi)[2:],
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
            if rule.get("order") == "company":
                ordered = sorted(vendors, key=lambda v: v["vendor_id"])
            else:
                ordered = sorted(vendors, key=lambda v: (v["names"][keys["names"]], v["vendor_id"]))
            for rank, v in enumerate(ordered):
                n = rule["start"] + rule["step"] * (rank + 1)
                v[field] = rule["format"].format(n=n) if "format" in rule else n
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
