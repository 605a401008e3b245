"""How one PM product writes the company's keys, read from its manifest's `[pm]` table.

A product may keep the book's spelling of a vendor (`names_key`, the key of its spelling in the
book's `vendors[].names`) or spell the legal name in a style of its own (`name_style`); key its
Directory by a book field (`vendor_id_field`) or by hashed ids of its own; and number
commitments, customer invoices and bid packages by templates over the book's parts. Stages map
the book's job status to the product's lifecycle stage. The divergence registry reads the same
rules (seeds/divergences.py), so what the app shows is what the registry says it shows.
"""
from __future__ import annotations

import re
from portals.core.registry import AppSpec

_SEQ = re.compile(r"(\d+)$")


def plain_name(name: str) -> str:
    """Punctuation dropped, case kept ("Walsh Electrical Inc")."""
    return re.sub(r"\s+", " ", re.sub(r"[.,']", "", name)).strip()


_SUFFIX = re.compile(r",?\s+(Inc|LLC|L\.L\.C|Co|Corp|Corporation|Company|Ltd|LP|PLLC)\.?$", re.I)


def short_name(name: str) -> str:
    """The legal name without its corporate suffix ("Walsh Electrical"), as an owner types it."""
    return _SUFFIX.sub("", name.strip()).strip() or name


NAME_STYLES = {"legal": lambda s: s, "plain": plain_name, "upper": lambda s: plain_name(s).upper(),
               "short": short_name}


class PmKeys:
    def __init__(self, spec: AppSpec):
        self.rules = dict(spec.manifest.get("pm", {}))

    # -- vendors --------------------------------------------------------------------------------
    def vendor_name(self, v: dict) -> str:
        key = self.rules.get("names_key")
        if key:
            return (v.get("names") or {}).get(key) or v.get("dba") or v["legal_name"]
        return NAME_STYLES[self.rules.get("name_style", "legal")](v["legal_name"])

    def vendor_id(self, v: dict) -> int | None:
        field = self.rules.get("vendor_id_field")
        return int(v[field]) if field and v.get(field) else None

    # -- numbers --------------------------------------------------------------------------------
    def format(self, rule: str, **parts) -> str:
        return self.rules.get(rule, "{job}-{seq:03d}").format(**parts)

    def commitment_number(self, c: dict) -> str:
        """The product's number for a book commitment ("SC-9999-9" and "9999-99" in the book)."""
        template = self.rules.get("commitment_number")
        if not template:
            return c["number"]
        kind = self.rules.get("commitment_kinds", {}).get(c["type"], c["type"].upper())
        return template.format(kind=kind, job=c["job"], seq=int(_SEQ.search(c["number"]).group(1)))

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def stages(self) -> list[str]:
        return list(self.rules.get("stage_order", []))

    def stage(self, job: dict) -> str:
        return self.rules.get("stages", {}).get(job.get("status", ""), "")

    @property
    def prospects(self) -> list[dict]:
        return list(self.rules.get("prospects", []))

    @property
    def customer_invoices(self) -> bool:
        return bool(self.rules.get("customer_invoices"))

    @property
    def customer_invoice_months(self) -> int:
        return int(self.rules.get("customer_invoice_months", 6))

    @property
    def eapps(self) -> bool:
        """Whether the product holds the eApps subs submit through its own portal (the book's
        `eapps` section, seeds/eapps.py)."""
        return bool(self.rules.get("eapps"))

    @property
    def boq(self) -> bool:
        """Whether the product bills from a bill of quantities (the book's `boq` section)."""
        return bool(self.rules.get("boq"))

    @property
    def bid_packages(self) -> bool:
        return bool(self.rules.get("bid_packages"))


    @property
    def funding(self) -> bool:
        """Whether the product keeps an owner's funding: sources, invoices' approval paths and
        application packages (the book's `funding` section, seeds/funding.py)."""
        return bool(self.rules.get("funding"))
