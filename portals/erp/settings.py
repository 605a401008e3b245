"""What a vendor's manifest says about its keys: the archetype reads these, never the vendor name."""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ERPSettings:
    vendor_key_field: str  # the book's vendor field this product keys on
    names_key: str  # which spelling of the vendor name it shows
    cost_code_field: str  # the book's erp_cost_code_map field holding its cost codes
    job_key_field: str | None  # the book's jobs field holding its job numbers (None: the company's)
    vendor_id_pattern: str
    vendor_id_example: str
    cost_code_example: str

    def is_vendor_id(self, text: str) -> bool:
        return re.fullmatch(self.vendor_id_pattern, text) is not None


def erp_settings(spec) -> ERPSettings:
    erp = spec.manifest.get("erp", {})
    return ERPSettings(
        vendor_key_field=erp.get("vendor_key_field", "vendor_id"),
        names_key=erp.get("names_key", spec.name),
        cost_code_field=erp.get("cost_code_field", "procore_code"),
        job_key_field=erp.get("job_key_field"),
        vendor_id_pattern=erp.get("vendor_id_pattern", r".+"),
        vendor_id_example=erp.get("vendor_id_example", ""),
        cost_code_example=erp.get("cost_code_example", ""),
    )
