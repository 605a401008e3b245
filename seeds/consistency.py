"""The consistency contract: how the seeded apps tie out, and where they differ on purpose.

The checker reads the seeded app databases (not the book) and reports every difference
between systems that is not a mere spelling convention. Each one must be registered in the
book's controlled-divergence registry with the task family that needs it; an unregistered
difference is a bug, and so is a registered one that no longer occurs.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

_SUFFIXES = {"INC", "LLC", "CO", "CORP", "CORPORATION", "LTD", "COMPANY", "LP", "PLLC", "PC", "INCORPORATED"}


@dataclass(frozen=True)
class Mismatch:
    entity: str
    key: str
    field: str
    detail: str


def same_company(a: str, b: str) -> bool:
    """Two spellings of one name: case, punctuation, '&' and legal suffixes are conventions."""
    return _name_key(a) == _name_key(b)


def _name_key(name: str) -> str:
    words = re.sub(r"[^A-Z0-9 ]", " ", name.upper().replace("&", " AND ")).split()
    while words and words[-1] in _SUFFIXES:
        words.pop()
    return "".join(words)


def vista_phase_format(code: str) -> str:
    """The Vista mask for a company code: '31-200' -> '31200-000-'."""
    division, section = code.split("-")
    return f"{division}{section}-000-"


def _rows(store, app: str, table: str) -> list[dict]:
    return list(store.template(app).rows(table).values())


def vendor_mismatches(store) -> list[Mismatch]:
    names = {"procore": {r["origin_id"]: r["name"] for r in _rows(store, "procore", "vendors")},
             "vista": {r["canonical_id"]: r["name"] for r in _rows(store, "vista_erp", "vendors")},
             "intacct": {r["canonical_id"]: r["name"] for r in _rows(store, "sage_intacct", "vendors")}}
    out = []
    for vendor_id in sorted(set().union(*names.values())):
        spellings = {system: table.get(vendor_id) for system, table in names.items()}
        missing = [s for s, n in spellings.items() if n is None]
        if missing:
            out.append(Mismatch("vendor", vendor_id, "presence", f"missing in {', '.join(missing)}"))
            continue
        for system, name in spellings.items():
            others = [n for s, n in spellings.items() if s != system]
            if not any(same_company(name, o) for o in others) and same_company(*others):
                out.append(Mismatch("vendor", vendor_id, f"names.{system}",
                                    f"{system} says {name!r}, the others {others[0]!r}"))
    return out


def cost_code_mismatches(store) -> list[Mismatch]:
    out = []
    for row in _rows(store, "procore", "erp_cost_code_map"):
        if row["vista_phase"] != vista_phase_format(row["code"]):
            out.append(Mismatch("cost_code", row["code"], "vista_phase",
                                f"{row['code']} maps to {row['vista_phase']}, not {vista_phase_format(row['code'])}"))
        if row["intacct_task"] != row["code"]:
            out.append(Mismatch("cost_code", row["code"], "intacct_task",
                                f"{row['code']} maps to Intacct task {row['intacct_task']}"))
    return out


def job_mismatches(store) -> list[Mismatch]:
    procore = {r["project_number"]: r for r in _rows(store, "procore", "projects")}
    out = []
    for app in ("vista_erp", "sage_intacct"):
        erp = {r["job"]: r for r in _rows(store, app, "jobs")}
        for job in sorted(set(procore) | set(erp)):
            a, b = procore.get(job), erp.get(job)
            if a is None or b is None:
                out.append(Mismatch("job", job, "presence", f"job {job} missing in {'procore' if a is None else app}"))
            elif a["name"] != b["name"] or a["contract_amount"] != b["contract_amount"]:
                out.append(Mismatch("job", job, "name", f"{app} differs from procore"))
    return out


def commitment_mismatches(store) -> list[Mismatch]:
    """A commitment synced to the ERP exists there with the same amount; an unsynced one does not."""
    procore = {r["number"]: r for r in _rows(store, "procore", "commitments")}
    out = []
    for app in ("vista_erp", "sage_intacct"):
        erp = {r["number"]: r for r in _rows(store, app, "commitments")}
        for number, row in sorted(procore.items()):
            synced = row["erp_status"] == "synced"
            there = erp.get(number)
            if synced and (there is None or there["amount"] != row["grand_total"]):
                out.append(Mismatch("commitment", number, "amount", f"synced but not tied out in {app}"))
            if not synced and there is not None:
                out.append(Mismatch("commitment", number, "presence", f"unsynced but present in {app}"))
        for number in sorted(set(erp) - set(procore)):
            out.append(Mismatch("commitment", number, "presence", f"in {app} only"))
    return out


def invoice_mismatches(store) -> list[Mismatch]:
    """Every synced subcontractor invoice is an ERP bill with the same number and amount."""
    out = []
    procore_vendor = {r["vendor_id"]: r["origin_id"] for r in _rows(store, "procore", "vendors")}
    bills = {(r["vendor_key"], r["bill_number"]): r for r in _rows(store, "sage_intacct", "ap_bills")}
    for req in _rows(store, "procore", "requisitions"):
        key = (procore_vendor[req["vendor_id"]], req["invoice_number"])
        bill = bills.get(key)
        if req["erp_sync"] == "synced" and (bill is None or bill["amount"] != req["amount"]):
            out.append(Mismatch("requisition", str(req["requisition_id"]), "ap_bill", "synced but no matching bill"))
        if req["erp_sync"] != "synced" and bill is not None:
            out.append(Mismatch("requisition", str(req["requisition_id"]), "ap_bill", "unsynced but billed"))
    return out


def document_mismatches(store, book: dict) -> list[Mismatch]:
    """Invoice PDFs print a vendor name; a name no system knows (a DBA) must be registered."""
    commitments = {c["number"]: c["vendor_id"] for c in book["commitments"]}
    names = {}
    for app, column in (("procore", "origin_id"), ("vista_erp", "canonical_id"), ("sage_intacct", "canonical_id")):
        for r in _rows(store, app, "vendors"):
            names.setdefault(r[column], []).append(r["name"])
    out = []
    for doc in _rows(store, "box", "files"):
        if doc["kind"] != "invoice":
            continue
        fields = json.loads(doc["fields_json"])
        vendor_id = commitments.get(fields.get("po_number"))
        if vendor_id and not any(same_company(fields["vendor_name"], n) for n in names[vendor_id]):
            out.append(Mismatch("vendor", vendor_id, "dba", f"{doc['name']} prints {fields['vendor_name']!r}"))
    return sorted(set(out), key=lambda m: (m.key, m.field))


def all_mismatches(store, book: dict) -> list[Mismatch]:
    return (vendor_mismatches(store) + cost_code_mismatches(store) + job_mismatches(store)
            + commitment_mismatches(store) + invoice_mismatches(store) + document_mismatches(store, book))


def unregistered(mismatches: list[Mismatch], registry: list[dict]) -> list[Mismatch]:
    keys = {(d["entity"], d["key"], d["field"]) for d in registry}
    return [m for m in mismatches if (m.entity, m.key, m.field) not in keys]


def stale(mismatches: list[Mismatch], registry: list[dict]) -> list[dict]:
    seen = {(m.entity, m.key, m.field) for m in mismatches}
    return [d for d in registry if (d["entity"], d["key"], d["field"]) not in seen]
