"""The consistency contract: how the seeded apps tie out, and where they differ on purpose.

The checker reads the seeded app databases and reports every difference between systems that
is not a mere convention (a spelling, or an ERP's own id format from seeds/erp_keys.py), and,
once per kind of key, that the systems key jobs, cost codes or vendors their own way at all; it
loops over the ERP manifests, so a new ERP is checked without a line here. Each one must be registered in the
book's controlled-divergence registry with the task family that needs it; an unregistered
difference is a bug, and so is a registered one that no longer occurs.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import lru_cache

from .erp_keys import ERP_KEYS, erp_code

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


@lru_cache(maxsize=None)  # a pure function of the spelling, asked millions of times by the lien seed
def _name_key(name: str) -> str:
    words = re.sub(r"[^A-Z0-9 ]", " ", name.upper().replace("&", " AND ")).split()
    while words and words[-1] in _SUFFIXES:
        words.pop()
    return "".join(words)


def erp_apps() -> list:
    """Every ERP the registry knows, each with the rules of how it writes the company's keys."""
    from portals.core.registry import load_apps
    from portals.erp.settings import erp_settings

    out = []
    for spec in load_apps().values():
        if spec.kind != "erp":
            continue
        if spec.name not in ERP_KEYS:
            raise LookupError(f"{spec.name} has a manifest but no entry in seeds/erp_keys.py")
        out.append((spec.name, erp_settings(spec)))
    return out


def pm_apps() -> list[str]:
    """The PM platforms beside Procore (the reference): each keeps the book's records its own way."""
    from portals.core.registry import load_apps
    return [s.name for s in load_apps().values() if s.kind == "pm" and s.name != "procore"]


def _rows(store, app: str, table: str) -> list[dict]:
    return list(store.template(app).rows(table).values())


def _connected_erp(store) -> str | None:
    return next((r["erp_app"] for r in _rows(store, "procore", "erp_integrations") if r["connected"]), None)


def procore_vendors(store) -> dict:
    """Procore's Directory id -> the company's vendor id: a company's origin id is its vendor id
    in the connected ERP, whose vendor master says which company vendor that is."""
    erp = _connected_erp(store)
    canonical = {r["vendor_key"]: r["canonical_id"] for r in _rows(store, erp, "vendors")} if erp else {}
    return {r["vendor_id"]: canonical.get(r["origin_id"], r["origin_id"]) for r in _rows(store, "procore", "vendors")}


def vendor_mismatches(store) -> list[Mismatch]:
    """A spelling that no other system shares, while the others agree, is a divergence."""
    company = procore_vendors(store)
    names = {"procore": {company[r["vendor_id"]]: r["name"] for r in _rows(store, "procore", "vendors")}}
    for app, cfg in erp_apps():
        names[cfg.names_key] = {r["canonical_id"]: r["name"] for r in _rows(store, app, "vendors")}
    for app in pm_apps():  # a Directory's origin id is the connected ERP's vendor id, as Procore's
        erp = _connected_erp(store)
        canonical = {r["vendor_key"]: r["canonical_id"] for r in _rows(store, erp, "vendors")} if erp else {}
        names[app] = {canonical.get(r["origin_id"], r["origin_id"]): r["name"] for r in _rows(store, app, "vendors")}
    out = []
    for vendor_id in sorted(set().union(*names.values())):
        spellings = {system: table.get(vendor_id) for system, table in names.items()}
        missing = [s for s, n in spellings.items() if n is None]
        if missing:
            out.append(Mismatch("vendor", vendor_id, "presence", f"missing in {', '.join(missing)}"))
            continue
        for system, name in spellings.items():
            others = [n for s, n in spellings.items() if s != system]
            agree = all(same_company(others[0], o) for o in others[1:])
            if agree and not any(same_company(name, o) for o in others):
                out.append(Mismatch("vendor", vendor_id, f"names.{system}",
                                    f"{system} says {name!r}, the others {others[0]!r}"))
    return out


def cost_code_mismatches(store) -> list[Mismatch]:
    """Procore's crosswalk to each ERP follows that ERP's convention unless registered, and every
    code it maps to exists in the ERP's own dictionary for that company code."""
    csi = {r["code"]: r["csi"] for r in _rows(store, "procore", "cost_codes")}
    crosswalk = _rows(store, "procore", "erp_cost_code_map")
    out = []
    for app, cfg in erp_apps():
        own = {r["code"]: r["company_codes"].split(", ") for r in _rows(store, app, "cost_codes")}
        rows = [r for r in crosswalk if r["erp_app"] == app]
        if not rows:
            out.append(Mismatch("cost_code", app, "presence", f"Procore has no crosswalk to {app}"))
        for row in rows:
            code, mapped = row["pm_cost_code"], row["erp_code"]
            expected = erp_code(app, code, csi[code])
            if mapped != expected:
                out.append(Mismatch("cost_code", code, cfg.cost_code_field,
                                    f"{code} maps to {app} {mapped}, not {expected}"))
            if code not in own.get(mapped, []):
                out.append(Mismatch("cost_code", code, f"{cfg.cost_code_field}.presence",
                                    f"{app} has no code {mapped} that {code} posts to"))
    return out


def job_mismatches(store, book: dict) -> list[Mismatch]:
    """Each Procore project is a job in every ERP, under that ERP's own job number."""
    procore = {r["project_number"]: r for r in _rows(store, "procore", "projects")}
    out = []
    for app, cfg in erp_apps():
        number = {j["job"]: (j.get(cfg.job_key_field) if cfg.job_key_field else None) or j["job"]
                  for j in book["jobs"]}
        erp = {r["job"]: r for r in _rows(store, app, "jobs")}
        unknown = set(erp) - {number.get(j, j) for j in procore}
        for job in sorted(set(procore) | unknown):
            a, b = procore.get(job), erp.get(number.get(job, job))
            if a is None or b is None:
                out.append(Mismatch("job", job, "presence", f"job {job} missing in {'procore' if a is None else app}"))
            elif a["name"] != b["name"] or a["contract_amount"] != b["contract_amount"]:
                out.append(Mismatch("job", job, "name", f"{app} differs from procore"))
    return out


def commitment_mismatches(store) -> list[Mismatch]:
    """A commitment synced to the ERP exists there with the same amount; an unsynced one does not."""
    procore = {r["number"]: r for r in _rows(store, "procore", "commitments")}
    out = []
    for app, _cfg in erp_apps():
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
    """Every synced subcontractor invoice is a bill in each ERP with the same number and amount."""
    out = []
    procore_vendor = procore_vendors(store)
    for app, _cfg in erp_apps():
        canonical = {r["vendor_key"]: r["canonical_id"] for r in _rows(store, app, "vendors")}
        bills = {(canonical[r["vendor_key"]], r["bill_number"]): r for r in _rows(store, app, "ap_bills")}
        for req in _rows(store, "procore", "requisitions"):
            bill = bills.get((procore_vendor[req["vendor_id"]], req["invoice_number"]))
            if req["erp_sync"] == "synced" and (bill is None or bill["amount"] != req["amount"]):
                out.append(Mismatch("requisition", str(req["requisition_id"]), "ap_bill",
                                    f"synced but no matching bill in {app}"))
            if req["erp_sync"] != "synced" and bill is not None:
                out.append(Mismatch("requisition", str(req["requisition_id"]), "ap_bill", f"unsynced but billed in {app}"))
    return sorted(set(out), key=lambda m: (m.key, m.detail))


def document_mismatches(store, book: dict) -> list[Mismatch]:
    """Invoice PDFs print a vendor name; a name no system knows (a DBA) must be registered."""
    commitments = {c["number"]: c["vendor_id"] for c in book["commitments"]}
    names = {}
    company = procore_vendors(store)
    for r in _rows(store, "procore", "vendors"):
        names.setdefault(company[r["vendor_id"]], []).append(r["name"])
    for app, _cfg in erp_apps():
        for r in _rows(store, app, "vendors"):
            names.setdefault(r["canonical_id"], []).append(r["name"])
    out = []
    procore_cos = {r["change_order_id"]: r for r in _rows(store, "procore", "change_orders")}
    for doc in _rows(store, "box", "files"):
        if doc["kind"] == "change_order":  # the signed total against Procore's change order
            fields = json.loads(doc["fields_json"])
            co = procore_cos.get(fields.get("co_id"))
            if co and Decimal(str(co["amount"])) != Decimal(str(fields["amount"])):
                out.append(Mismatch("change_order", fields["co_id"], "signed_amount",
                                    f"{doc['name']} totals {fields['amount']}, Procore {co['amount']}"))
        if doc["kind"] != "invoice":
            continue
        fields = json.loads(doc["fields_json"])
        vendor_id = commitments.get(fields.get("po_number"))
        if vendor_id and not any(same_company(fields["vendor_name"], n) for n in names[vendor_id]):
            out.append(Mismatch("vendor", vendor_id, "dba", f"{doc['name']} prints {fields['vendor_name']!r}"))
    return sorted(set(out), key=lambda m: (m.key, m.field))


def coi_mismatches(store) -> list[Mismatch]:
    """A certificate of insurance in Box is issued to a name some system's vendor record knows,
    else to a DBA a W-9 in Box ties to one; and none is newer than the ERPs' compliance date."""
    known: dict[str, str] = {}  # a name's key -> the company's vendor id
    company = procore_vendors(store)
    for r in _rows(store, "procore", "vendors"):
        known.setdefault(_name_key(r["name"]), company[r["vendor_id"]])
    erp_dates: dict[str, set] = {}
    for app, _cfg in erp_apps():
        for r in _rows(store, app, "vendors"):
            known.setdefault(_name_key(r["name"]), r["canonical_id"])
            erp_dates.setdefault(r["canonical_id"], set()).add(r["coi_expires"])
    files = _rows(store, "box", "files")
    dbas = {}
    for doc in files:
        fields = json.loads(doc["fields_json"]) if doc["kind"] == "w9" else {}
        if fields.get("dba") and _name_key(fields["legal_name"]) in known:
            dbas[_name_key(fields["dba"])] = known[_name_key(fields["legal_name"])]
    out = []
    for doc in files:
        if doc["kind"] != "coi":
            continue
        fields = json.loads(doc["fields_json"])
        vendor_id = known.get(_name_key(fields["insured"]))
        if vendor_id is None and _name_key(fields["insured"]) in dbas:
            vendor_id = dbas[_name_key(fields["insured"])]
            out.append(Mismatch("vendor", vendor_id, "dba", f"{doc['name']} is issued to {fields['insured']!r}"))
        if vendor_id is None:
            out.append(Mismatch("document", doc["name"], "insured", f"no system knows {fields['insured']!r}"))
        elif any(fields["expires"] > (d or "") for d in erp_dates.get(vendor_id, {None})):
            out.append(Mismatch("vendor", vendor_id, "coi_expires", f"{doc['name']} runs to {fields['expires']}"))
    return sorted(set(out), key=lambda m: (m.key, m.field))


def pm_mismatches(store) -> list[Mismatch]:
    """Each PM platform beside Procore against Procore: the same commitments (found by the
    book's number it carries), amounts, statuses, vendors and SOV lines, and the same jobs; a
    project it alone has (an opportunity before award) is a registered difference, one per app."""
    procore = {r["number"]: r for r in _rows(store, "procore", "commitments")}
    p_vendor = {r["vendor_id"]: r["origin_id"] for r in _rows(store, "procore", "vendors")}
    p_lines: dict[int, list] = {}
    for line in _rows(store, "procore", "commitment_lines"):
        p_lines.setdefault(line["commitment_id"], []).append((line["line_no"], line["cost_code"], line["cost_type"], line["amount"]))
    p_jobs = {r["project_number"] for r in _rows(store, "procore", "projects")}
    p_status = {r["project_number"]: r.get("status") for r in _rows(store, "procore", "projects")}
    out = []
    for app in pm_apps():
        vendor = {r["vendor_id"]: r["origin_id"] for r in _rows(store, app, "vendors")}
        lines: dict[int, list] = {}
        for line in _rows(store, app, "commitment_lines"):
            lines.setdefault(line["commitment_id"], []).append((line["line_no"], line["cost_code"], line["cost_type"], line["amount"]))
        mine = {r["book_number"]: r for r in _rows(store, app, "commitments")}
        for number in sorted(set(procore) | set(mine)):
            a, b = procore.get(number), mine.get(number)
            if a is None or b is None:
                out.append(Mismatch("commitment", number, f"{app}.presence", f"missing in {'procore' if a is None else app}"))
            elif (a["grand_total"], a["status"], p_vendor.get(a["vendor_id"])) != \
                    (b["grand_total"], b["status"], vendor.get(b["vendor_id"])) or \
                    sorted(p_lines.get(a["commitment_id"], [])) != sorted(lines.get(b["commitment_id"], [])):
                out.append(Mismatch("commitment", number, f"{app}.amount", f"{app}'s {b['number']} differs from Procore's"))
        out += _pm_record_presence(store, app)
        projects = _rows(store, app, "projects")
        jobs = {r["project_number"] for r in projects}
        if any(r.get("stage") and r["stage"] != p_status.get(r["project_number"], r["stage"]) for r in projects):
            out.append(Mismatch("project", app, "stage", f"{app} names a job's lifecycle stage its own way"))
        if p_jobs - jobs:
            out.append(Mismatch("project", app, "presence", f"jobs missing in {app}"))
        if jobs - p_jobs:
            out.append(Mismatch("project", app, "prospects", f"{app} has projects no other system has"))
    return out


def boq_mismatches(store) -> list[Mismatch]:
    """A PM platform's bill of quantities against the book's contracts: a variation measured on a
    change order (no other system keeps quantities for one), or a line the site measured past its
    contract quantity (SmarteBuild's, seeds/boq.py)."""
    out = []
    for app in pm_apps():
        items = _rows(store, app, "boq_items")
        if not items:
            continue
        number = {r["project_id"]: r["project_number"] for r in _rows(store, app, "projects")}
        for i in items:
            key = f"{number[i['project_id']]}/{i['item_code']}"
            if i["change_order"]:
                out.append(Mismatch("boq_item", key, f"{app}.variation", f"{app} measures change order {i['change_order']}"))
            elif Decimal(str(i["measured_qty"])) > Decimal(str(i["quantity"])):
                out.append(Mismatch("boq_item", key, f"{app}.measured", f"{app} measured past the contract quantity"))
    return out


def reestimate_mismatches(store) -> list[Mismatch]:
    """A PM platform's cost re-estimate against Vista's budget, by Vista phase and cost type (the
    platform's own crosswalk to Vista): a line that moves its phase past the re-estimate policy's
    threshold (up, down, on a phase Vista rolls several codes into, or on one where Vista already
    holds a Pending change order for part of the move), or visibly but within it
    (seeds/reestimate.py)."""
    from .reestimate import threshold

    erp = "vista_erp"
    vista = defaultdict(Decimal)
    for b in _rows(store, erp, "budget_lines"):
        vista[(b["job"], b["cost_code"], b["cost_type"])] += Decimal(str(b["original_budget"])) + Decimal(str(b["approved_changes"]))
    pending = {(c["job"], c["cost_code"], c["cost_type"]) for c in _rows(store, erp, "change_requests")
               if c["status"] == "Pending"}
    out = []
    for app in pm_apps():
        lines = _rows(store, app, "reestimate_lines")
        if not lines:
            continue
        number = {r["project_id"]: r["project_number"] for r in _rows(store, app, "projects")}
        phases = {m["pm_cost_code"]: m["erp_code"] for m in _rows(store, app, "erp_cost_code_map") if m["erp_app"] == erp}
        own = {(number[b["project_id"]], b["cost_code"], b["cost_type"]):
               Decimal(str(b["original_budget"])) + Decimal(str(b["approved_changes"]))
               for b in _rows(store, app, "budget_lines")}
        groups = defaultdict(list)
        for i in lines:
            job = number[i["project_id"]]
            groups[(job, phases.get(i["cost_code"], ""), i["cost_type"])].append(i)
        for key, members in groups.items():
            budget = vista.get(key, Decimal(0))
            over = abs(sum(Decimal(str(i["reestimate"])) for i in members) - budget) > threshold(budget)
            for i in members:
                moved = Decimal(str(i["reestimate"])) - own.get((key[0], i["cost_code"], i["cost_type"]), Decimal(0))
                if abs(moved) <= threshold(budget) / 2:
                    continue
                case = ("under_threshold" if not over else "rolled_up_phase" if len(members) > 1
                        else "already_pending" if key in pending else "increase" if moved > 0 else "decrease")
                out.append(Mismatch("reestimate_line", f"{key[0]}/{i['cost_code']}/{i['cost_type']}", f"{app}.{case}",
                                    f"{app} re-estimates it {moved:+} off its budget; Vista budgets {key[1]} at {budget}"))
    return out


def pending_change_mismatches(store) -> list[Mismatch]:
    """An ERP's Pending internal change order: a budget revision someone staged in that ERP alone
    (the book's change orders are owner and commitment changes; seeds/reestimate.py plants one
    Vista already holds for part of a re-estimated move)."""
    out = []
    for app, _cfg in erp_apps():
        for c in _rows(store, app, "change_requests"):
            if c["status"] == "Pending" and c["change_type"] == "internal":
                out.append(Mismatch("change_request", f"{c['job']}/{c['cost_code']}/{c['cost_type']}", f"{app}.pending",
                                    f"{app} stages {c['cost_effect']} on it in {c['change_request_id']}; no other "
                                    "system has the change"))
    return out


def forecast_mismatches(store) -> list[Mismatch]:
    """A PM platform's budget line whose forecast to complete is not Procore's: the owner's
    re-forecast kept in an owner-side product (seeds/funding.py) while Procore still has last
    month's."""
    procore = {r["project_id"]: r["project_number"] for r in _rows(store, "procore", "projects")}
    theirs = {(procore[b["project_id"]], b["cost_code"], b["cost_type"]): Decimal(str(b["forecast_to_complete"]))
              for b in _rows(store, "procore", "budget_lines")}
    out = []
    for app in pm_apps():
        number = {r["project_id"]: r["project_number"] for r in _rows(store, app, "projects")}
        for b in _rows(store, app, "budget_lines"):
            key = (number[b["project_id"]], b["cost_code"], b["cost_type"])
            if key in theirs and Decimal(str(b["forecast_to_complete"])) != theirs[key]:
                out.append(Mismatch("budget_line", ":".join(key), f"{app}.forecast_to_complete",
                                    f"{app} forecasts {b['forecast_to_complete']} to complete; Procore {theirs[key]}"))
    return out


def _pm_record_presence(store, app: str) -> list[Mismatch]:
    """A PM platform's eApps (by commitment and application number) and change orders that
    Procore does not have, or the other way round."""
    def eapps(name: str) -> dict:
        number = {r["commitment_id"]: r.get("book_number") or r["number"] for r in _rows(store, name, "commitments")}
        return {(number[r["commitment_id"]], r["number"]): r["invoice_number"] for r in _rows(store, name, "requisitions")}
    out = []
    theirs, mine = eapps("procore"), eapps(app)
    for key in sorted(set(theirs) ^ set(mine)):
        out.append(Mismatch("requisition", mine.get(key) or theirs[key], f"{app}.presence",
                            f"missing in {'procore' if key in mine else app}"))
    theirs, mine = ({r["change_order_id"] for r in _rows(store, name, "change_orders")} for name in ("procore", app))
    for co in sorted(theirs ^ mine):
        out.append(Mismatch("change_order", co, f"{app}.presence", f"missing in {'procore' if co in mine else app}"))
    return out + _pm_funding_presence(store, app)


def _pm_funding_presence(store, app: str) -> list[Mismatch]:
    """An owner's application packages and the vendor invoices on them (by job and invoice
    number) that a PM platform has and Procore does not, or the other way round."""
    def invoices(name: str) -> set:
        job = {r["project_id"]: r["project_number"] for r in _rows(store, name, "projects")}
        return {f"{job[r['project_id']]}:{r['invoice_number']}" for r in _rows(store, name, "direct_costs")}
    out = []
    theirs, mine = invoices("procore"), invoices(app)
    for key in sorted(theirs ^ mine):
        out.append(Mismatch("vendor_invoice", key, f"{app}.presence", f"missing in {'procore' if key in mine else app}"))
    theirs, mine = ({r["number"] for r in _rows(store, name, "application_packages")} for name in ("procore", app))
    for number in sorted(theirs ^ mine):
        out.append(Mismatch("application_package", number, f"{app}.presence",
                            f"missing in {'procore' if number in mine else app}"))
    return out + _pm_client_change_order_presence(store, app)


def _pm_client_change_order_presence(store, app: str) -> list[Mismatch]:
    """A residential product's change orders sent to the client (by job and number) that Procore
    does not have, or the other way round."""
    def orders(name: str) -> set:
        job = {r["project_id"]: r["project_number"] for r in _rows(store, name, "projects")}
        return {f"{job[r['project_id']]}/{r['number']}" for r in _rows(store, name, "client_change_orders")}
    theirs, mine = orders("procore"), orders(app)
    return [Mismatch("client_change_order", key, f"{app}.presence", f"missing in {'procore' if key in mine else app}")
            for key in sorted(theirs ^ mine)]


def identity_mismatches(store, book: dict | None = None) -> list[Mismatch]:
    """That the systems key a kind of record differently at all (each by its own convention) is
    one registered difference per kind, naming the systems that keep their own keys: jobs, cost
    codes and vendors, and the certified-payroll workforce (LCPtracker's employees and crafts
    against the book's workers and payroll's craft codes)."""
    if book is None:
        from .book import load_book
        book = load_book()
    procore_jobs = {r["project_number"] for r in _rows(store, "procore", "projects")}
    crosswalk = _rows(store, "procore", "erp_cost_code_map")
    own: dict[str, list[str]] = {"job": [], "cost_code": [], "vendor": [], "worker": [], "craft": [],
                                 "bank_transaction": [], "bank_exception": [], "commitment": [], "supplier": [],
                                 "estimate": [],
                                 "plaid_transaction": []}
    for app in pm_apps():  # a PM platform's own commitment numbers and Directory ids
        if any(r["number"] != r["book_number"] for r in _rows(store, app, "commitments")):
            own["commitment"].append(app)
        if any(str(r["vendor_id"]) != r["origin_id"] for r in _rows(store, app, "vendors")):
            own["vendor"].append(app)
    if any(str(r["vendor_id"]) != r["origin_id"] for r in _rows(store, "procore", "vendors")):
        own["vendor"].append("procore")  # the Directory's own company ids
    for app, _cfg in erp_apps():
        if {r["job"] for r in _rows(store, app, "jobs")} != procore_jobs:
            own["job"].append(app)
        if any(r["erp_code"] != r["pm_cost_code"] for r in crosswalk if r["erp_app"] == app):
            own["cost_code"].append(app)
        if any(r["vendor_key"] != r["canonical_id"] for r in _rows(store, app, "vendors")):
            own["vendor"].append(app)
    if any(r["code"] != r["erp_job"] for r in _rows(store, "gcpay", "projects")):
        own["job"].append("gcpay")  # GCPay's own project codes
    if {r["contract_number"] for r in _rows(store, "lcptracker", "projects")} - procore_jobs:
        own["job"].append("lcptracker")  # the awarding agency's contract numbers
    for app in payroll_apps():
        if {r["job_no"] for r in _rows(store, app, "jobs")} - procore_jobs:
            own["job"].append(app)  # the payroll's own job numbers (FOUNDATION's)
    for app in lien_apps():
        if any(str(r["job_id"]) != r["customer_job_number"] for r in _rows(store, app, "jobs")):
            own["job"].append(app)  # Levelset's own job ids
    for app in fieldtime_apps():
        if {r["project_id"] for r in _rows(store, app, "projects")} - procore_jobs:
            own["job"].append(app)  # field time's projects under FOUNDATION's job numbers (Rhumbix)
    workers = book.get("workers", [])
    ids = {w["worker_id"] for w in workers} | {w["foundation_employee"] for w in workers}
    if any(str(r["employee_id"]) not in ids for r in _rows(store, "lcptracker", "employees")):
        own["worker"].append("lcptracker")  # its own employee ids
    for app in payroll_apps():
        if any(r["employee_no"] not in ids for r in _rows(store, app, "employees")):
            own["worker"].append(app)  # the payroll's own worker ids (ADP's Associate OIDs, Rippling's worker ids)
    crafts = {w["craft"] for w in workers}
    if any(r["classification"] not in crafts for r in _rows(store, "lcptracker", "payroll_records")):
        own["craft"].append("lcptracker")  # the WD's classification names
    for bank in bank_apps():  # one ACH settlement for a day's payments, the bank's own descriptions
        if any(t["type_code"] == "469" for t in _rows(store, bank, "transactions")):
            own["bank_transaction"].append(bank)
    for app in bank_data_apps():  # Plaid's sign: a fee the bank debited is a positive amount
        if any(t["pfc_primary"] == "BANK_FEES" and Decimal(str(t["amount"])) > 0 for t in _rows(store, app, "transactions")):
            own["plaid_transaction"].extend([app, *bank_apps()])
    reasons: dict[str, dict[str, str]] = {}  # serial -> bank -> the bank's words for its exception
    for bank in bank_apps():
        for e in _rows(store, bank, "check_exceptions"):
            reasons.setdefault(e["serial"], {})[bank] = e["reason"]
    vendor_ids = {v["vendor_id"] for v in book.get("vendors", [])}
    for app in payments_apps():  # Corpay's own supplier numbers
        if any(r["supplier_number"] not in vendor_ids for r in _rows(store, app, "suppliers")):
            own["supplier"].append(app)
    jobs = {j["job"] for j in book.get("jobs", [])}
    for app in estimating_apps():  # HeavyBid's estimate codes, which are not job numbers
        if any(r["code"] not in jobs for r in _rows(store, app, "estimates")):
            own["estimate"].append(app)
    own["bank_exception"] = sorted({bank for by in reasons.values() if len(set(by.values())) > 1 for bank in by})
    return [Mismatch("identity", kind, "format", f"{', '.join(apps)} key {kind}s their own way")
            for kind, apps in own.items() if apps]


def gcpay_mismatches(store) -> list[Mismatch]:
    """GCPay's projects against Procore's projects and prime contracts and the ERPs' jobs: one
    project per prime contract, carrying the job number; the same owner (as Procore's prime
    contract, Procore's customer and each ERP's customer spell it), original sum and SOV lines;
    every owner change order Procore counts as approved on the SOV and none other; each AFP the
    Procore pay application it mirrors (number, amount, invoice); each compliance certificate
    the ERPs' expiry date."""
    projects = {r["project_id"]: r for r in _rows(store, "procore", "projects")}
    by_number = {r["project_number"]: r for r in projects.values()}
    primes = {projects[r["project_id"]]["project_number"]: r for r in _rows(store, "procore", "prime_contracts")}
    prime_lines: dict[str, dict] = {}
    for line in _rows(store, "procore", "prime_contract_lines"):
        prime_lines.setdefault(line["prime_contract_id"], {})[line["line_no"]] = line
    approved = {r["change_order_id"]: r for r in _rows(store, "procore", "change_orders")
                if r["kind"] == "owner" and r["status"] == "Approved"}
    erp_jobs = [{r["job"]: r for r in _rows(store, app, "jobs")} for app, _cfg in erp_apps()]
    gc = {r["project_id"]: r for r in _rows(store, "gcpay", "projects")}
    out = []
    for job in sorted(set(primes) - {r["erp_job"] for r in gc.values()}):
        out.append(Mismatch("project", job, "gcpay.presence", f"prime contract of job {job} has no GCPay project"))
    sov: dict[int, list[dict]] = {}
    for line in _rows(store, "gcpay", "sov_lines"):
        sov.setdefault(line["project_id"], []).append(line)
    for pid, p in sorted(gc.items(), key=lambda kv: kv[1]["code"]):
        job, prime = p["erp_job"], primes.get(p["erp_job"])
        if prime is None or job not in by_number:
            out.append(Mismatch("project", job, "gcpay.presence", f"GCPay project {p['code']} has no prime contract"))
            continue
        names = [prime["owner"], by_number[job]["customer"]]
        names += [jobs[j]["customer"] for jobs in erp_jobs for j in jobs if j.endswith(job)]
        if not all(same_company(p["owner"], n) for n in names):
            out.append(Mismatch("project", job, "owner", f"GCPay's owner {p['owner']!r} differs"))
        if p["original_sum"] != prime["original_amount"] or p["contract_number"] != prime["number"]:
            out.append(Mismatch("project", job, "original_sum", f"GCPay {p['code']} differs from the prime contract"))
        lines = prime_lines.get(prime["prime_contract_id"], {})
        base = {l["item_no"]: l for l in sov.get(pid, []) if not l["co_id"]}
        if {n: (l["scheduled_value"], l["cost_code"]) for n, l in base.items()} != \
                {n: (l["scheduled_value"], l["cost_code"]) for n, l in lines.items()}:
            out.append(Mismatch("project", job, "sov", f"GCPay {p['code']}'s SOV differs from the prime contract"))
        on_sov = {l["co_id"]: l for l in sov.get(pid, []) if l["co_id"]}
        mine = {c for c, r in approved.items() if r["project_id"] == by_number[job]["project_id"]}
        for co in sorted(mine | set(on_sov)):
            if co not in on_sov:
                out.append(Mismatch("change_order", co, "gcpay_sov", f"approved in Procore, not on {p['code']}'s SOV"))
            elif co not in mine or on_sov[co]["scheduled_value"] != approved[co]["amount"]:
                out.append(Mismatch("change_order", co, "gcpay_sov", f"on {p['code']}'s SOV as Procore does not have it"))
    commitments = {r["commitment_id"]: r["number"] for r in _rows(store, "procore", "commitments")}
    reqs = {(commitments[r["commitment_id"]], r["number"]): r for r in _rows(store, "procore", "requisitions")}
    for a in _rows(store, "gcpay", "afps"):
        r = reqs.get((a["subcontract"], a["number"]))
        if r is None or r["amount"] != a["amount"] or r["invoice_number"] != a["invoice_number"]:
            out.append(Mismatch("afp", f"{a['subcontract']}#{a['number']}", "amount", "differs from Procore's pay app"))
    erp_coi: dict[str, set] = {}
    for app, _cfg in erp_apps():
        for r in _rows(store, app, "vendors"):
            erp_coi.setdefault(r["canonical_id"], set()).add(r["coi_expires"])
    for item in _rows(store, "gcpay", "compliance"):
        if item["kind"] == "Certificate of insurance" and erp_coi.get(item["vendor_code"], {item["expires"]}) != {item["expires"]}:
            out.append(Mismatch("vendor", item["vendor_code"], "gcpay_coi", f"GCPay's certificate runs to {item['expires']}"))
    return out


def bank_apps() -> list[str]:
    """The treasury portals (the Bank archetype's apps but its bank-data line)."""
    from portals.core.registry import load_apps

    return [name for name, spec in load_apps().items() if spec.kind == "bank" and spec.manifest.get("line") != "data"]


def bank_data_apps() -> list[str]:
    """The bank-data APIs (Plaid): the same accounts, read through an API."""
    from portals.core.registry import load_apps

    return [name for name, spec in load_apps().items() if spec.kind == "bank" and spec.manifest.get("line") == "data"]


def bank_mismatches(store, book: dict) -> list[Mismatch]:
    """Each bank's positive-pay issue records against the ERP's check register: every check the
    ERP wrote in the bank's year is on an issue record with its number, date and amount, paid to
    the vendor the ERP paid, voided where the ERP voided it. Then the day's presented checks: each
    exception whose payee is not the issued payee (however it is spelled), whose amount is not the
    issued amount, or that was presented though not payable (no issue record, voided, already paid,
    stale). A serial on more than one issue record (an issue file loaded twice) is a mismatch too;
    the first record loaded is the one compared. Each is a registered divergence, or a bug."""
    legal = {v["vendor_id"]: v["legal_name"] for v in book.get("vendors", [])}
    out = []
    for bank in bank_apps():
        loaded = {f["file_id"]: f["uploaded_at"] for f in _rows(store, bank, "issue_files")}
        issued, records = {}, defaultdict(int)
        for r in sorted(_rows(store, bank, "issued_checks"), key=lambda r: (loaded.get(r["file_id"], ""), r["issued_id"])):
            records[r["serial"]] += 1
            issued.setdefault(r["serial"], r)
        for serial, n in sorted(records.items()):
            if n > 1:
                out.append(Mismatch("bank_check", serial, "issue_records", f"{bank} holds {n} issue records for check {serial}"))
        first = min((r["issue_date"] for r in issued.values()), default="")
        for app, _cfg in erp_apps():
            try:
                payments = _rows(store, app, "payments")
            except KeyError:
                continue
            canonical = {r["vendor_key"]: r["canonical_id"] for r in _rows(store, app, "vendors")}
            for p in payments:
                if p["method"] != "Check" or p["payment_date"] < first:
                    continue
                r = issued.get(p["document_number"])
                if r is None or (r["issue_date"], r["amount"]) != (p["payment_date"], p["amount"]) \
                        or not same_company(r["payee"], legal.get(canonical.get(p["vendor_key"]), "")) \
                        or (r["status"] == "Void") != (p["state"] == "voided"):
                    out.append(Mismatch("bank_check", p["document_number"], "issue_record",
                                        f"{bank}'s issue record differs from {app}'s check"))
        for e in _rows(store, bank, "check_exceptions"):
            r = issued.get(e["serial"])
            if r is None or r["status"] in ("Void", "Paid", "Stale"):
                out.append(Mismatch("bank_check", e["serial"], "presented", f"presented to {bank} but not payable"))
                continue
            if not same_company(e["presented_payee"], r["payee"]):
                out.append(Mismatch("bank_check", e["serial"], "payee", f"{bank} read the payee as {e['presented_payee']!r}"))
            if e["presented_amount"] != r["amount"]:
                out.append(Mismatch("bank_check", e["serial"], "amount", f"presented to {bank} for {e['presented_amount']}"))
    return out


def payroll_apps() -> list[str]:
    """Every payroll system the registry knows (the Payroll archetype's vendors)."""
    from portals.core.registry import load_apps
    return [spec.name for spec in load_apps().values() if spec.kind == "payroll"]


def payroll_mismatches(store) -> list[Mismatch]:
    """Each payroll system is the source of LCPtracker's weekly records: every record is one of
    its timecards (the same person by name and SSN last four, the job whose certified setup
    carries the project's contract number, the week), with the same daily hours, hours, rates,
    fringe, earnings and classification, and the week's check the same deductions and net; and
    every timecard on a certified job is a record there."""
    projects = {r["project_id"]: r["contract_number"] for r in _rows(store, "lcptracker", "projects")}
    people = {r["employee_id"]: (r["first_name"], r["last_name"], r["ssn_last4"])
              for r in _rows(store, "lcptracker", "employees")}
    records = {(projects[r["project_id"]], r["week_ending"], people[r["employee_id"]]): r
               for r in _rows(store, "lcptracker", "payroll_records")}
    out = []
    for app in payroll_apps():
        contract = {r["job_no"]: r["contract_number"] for r in _rows(store, app, "jobs") if r["certified"]}
        person = {r["employee_no"]: (r["first_name"], r["last_name"], r["ssn_last4"]) for r in _rows(store, app, "employees")}
        weeks = {r["pay_run_id"]: r["period_end"] for r in _rows(store, app, "pay_runs")}
        checks = {(r["pay_run_id"], r["employee_no"]): r for r in _rows(store, app, "checks")}
        seen = set()
        for t in _rows(store, app, "timecards"):
            if t["job_no"] not in contract:
                continue
            key = (contract[t["job_no"]], weeks[t["pay_run_id"]], person[t["employee_no"]])
            seen.add(key)
            rec, check = records.get(key), checks.get((t["pay_run_id"], t["employee_no"]))
            label = f"{t['job_no']}/{weeks[t['pay_run_id']]}/{t['employee_no']}"
            if rec is None:
                out.append(Mismatch("payroll_record", label, "presence", f"{app} timecard not in lcptracker"))
                continue
            pairs = [(t["daily_hours"], rec["daily_hours"]), (t["certified_class"], rec["classification"])]
            pairs += [(Decimal(str(t[a])), Decimal(str(rec[b]))) for a, b in (
                ("reg_hours", "st_hours"), ("ot_hours", "ot_hours"), ("reg_rate", "st_rate"), ("ot_rate", "ot_rate"),
                ("fringe_plan_rate", "fringe_plan"), ("fringe_cash_rate", "fringe_cash"), ("earnings", "gross"))]
            if check is not None:
                pairs += [(Decimal(str(check[a])), Decimal(str(rec[b])))
                          for a, b in (("fica", "fica"), ("federal_wh", "withholding"), ("net", "net"))]
            if any(a != b for a, b in pairs):
                out.append(Mismatch("payroll_record", label, "pay", f"{app} pays it otherwise than lcptracker shows"))
        for key in sorted(set(records) - seen):
            out.append(Mismatch("payroll_record", f"{key[0]}/{key[1]}/{key[2][2]}", "presence",
                                f"lcptracker record has no {app} timecard"))
    return out


def fieldtime_apps() -> list[str]:
    """Every field-time system the registry knows (the FieldTime archetype's vendors)."""
    from portals.core.registry import load_apps
    return [spec.name for spec in load_apps().values() if spec.kind == "fieldtime"]


def fieldtime_mismatches(store, book: dict) -> list[Mismatch]:
    """Field time is the source of payroll's hours: each worker's approved (or exported) hours on a
    job, day by day, are the hours FOUNDATION Payroll's timecard for that job and week pays, and
    no day waits for the foreman's approval. Keyed job/week/worker in the book's own ids."""
    jobs = {j["job"]: j["job"] for j in book.get("jobs", [])}
    jobs.update({j["foundation_job"]: j["job"] for j in book.get("jobs", []) if j.get("foundation_job")})
    workers = {w["foundation_employee"]: w["worker_id"] for w in book.get("workers", [])}
    weeks = {r["pay_run_id"]: r["period_end"] for r in _rows(store, "foundation_payroll", "pay_runs")}
    paid: dict[tuple, list[Decimal]] = {}
    for t in _rows(store, "foundation_payroll", "timecards"):
        key = (jobs[t["job_no"]], weeks[t["pay_run_id"]], workers[t["employee_no"]])
        days = [Decimal(h) for h in t["daily_hours"].split(",")]
        paid[key] = [a + b for a, b in zip(paid.get(key, [Decimal(0)] * 7), days)]
    out = []
    for app in fieldtime_apps():
        approved: dict[tuple, list[Decimal]] = {}
        for e in _rows(store, app, "time_entries"):
            key = (jobs[e["project_id"]], e["week_ending"], workers[e["employee_id"]])
            label = "/".join(key)
            if e["status"] == "Submitted":
                out.append(Mismatch("field_time", label, "unapproved", f"{app}: {e['work_date']} waits for approval"))
                continue
            day = (date.fromisoformat(e["work_date"]).weekday() + 1) % 7
            approved.setdefault(key, [Decimal(0)] * 7)[day] += Decimal(str(e["hours"]))
        for key in sorted(set(approved) | {k for k in paid if any(paid[k])}):
            if approved.get(key, [Decimal(0)] * 7) != paid.get(key, [Decimal(0)] * 7):
                out.append(Mismatch("field_time", "/".join(key), "hours",
                                    f"{app}'s approved hours are not what foundation_payroll pays"))
    return out


def tax_apps() -> list[str]:
    from portals.core.registry import load_apps

    return [name for name, spec in load_apps().items() if spec.manifest.get("line") == "tax"]


def tax_mismatches(store, book: dict) -> list[Mismatch]:
    """Each 1099 app's recipients against the vendor master: a recipient carries the vendor's TIN,
    and the name on its W-9 line 1, which is the vendor's legal name unless the W-9 names a person
    (a sole proprietor, or the owner of a single-member LLC) where every ERP shows the business."""
    vendors = {str(v.get("vista_vendor") or v["vendor_id"]): v for v in book.get("vendors", [])}
    out = []
    for app in tax_apps():
        for r in _rows(store, app, "recipients"):
            v = vendors.get(r["reference_id"] or "")
            if v is None:
                out.append(Mismatch("vendor", r["reference_id"] or r["name"], "tax_recipient", f"{app} has no such vendor"))
                continue
            if r["tin"] != v["tin"]:
                out.append(Mismatch("vendor", v["vendor_id"], "tin", f"{app} has TIN {r['tin']}"))
            if not same_company(r["name"], v["legal_name"]):
                out.append(Mismatch("vendor", v["vendor_id"], "w9_name", f"{app}'s W-9 name is {r['name']!r}"))
    return out


def payments_apps() -> list[str]:
    from portals.core.registry import load_apps

    return [name for name, spec in load_apps().items() if spec.manifest.get("line") == "payments"]


def payments_mismatches(store, book: dict) -> list[Mismatch]:
    """Each AP payments app's suppliers against the vendor master: the vendor's TIN, and its legal
    name or the DBA it trades under (the remit-to name); and every bank-detail change request,
    which asks to pay a vendor somewhere the master does not know."""
    vendors = {str(v.get("vista_vendor") or v["vendor_id"]): v for v in book.get("vendors", [])}
    out = []
    for app in payments_apps():
        by_id = {}
        for r in _rows(store, app, "suppliers"):
            v = vendors.get(r["erp_vendor"])
            if v is None:
                out.append(Mismatch("vendor", r["erp_vendor"], "payee", f"{app} has no such vendor"))
                continue
            by_id[r["supplier_id"]] = v
            if r["tin"] != v["tin"]:
                out.append(Mismatch("vendor", v["vendor_id"], "tin", f"{app} has TIN {r['tin']}"))
            if not same_company(r["name"], v["legal_name"]) and r["name"] != v["dba"]:
                out.append(Mismatch("vendor", v["vendor_id"], "payee", f"{app} pays {r['name']!r}"))
        for c in _rows(store, app, "bank_changes"):
            v = by_id.get(c["supplier_id"])
            out.append(Mismatch("bank_change", v["vendor_id"] if v else str(c["supplier_id"]), "bank_account",
                                f"{app} has a request to pay at {c['bank_name']}"))
    return out


def lien_apps() -> list[str]:
    from portals.core.registry import load_apps

    return [name for name, spec in load_apps().items() if spec.manifest.get("line") == "lien"]


def lien_mismatches(store, book: dict) -> list[Mismatch]:
    """Each lien-rights app's notices against the vendor master: the sub a notice says hired its
    claimant, found by legal name or DBA, and named otherwise than by its legal name."""
    vendors = book.get("vendors", [])
    out = []
    for app in lien_apps():
        for n in _rows(store, app, "notices"):
            v = next((v for v in vendors if same_company(n["hired_by"], v["legal_name"])), None)
            if v is not None:
                continue
            v = next((v for v in vendors if v["dba"] and same_company(n["hired_by"], v["dba"])), None)
            out.append(Mismatch("lien_notice", v["vendor_id"] if v else n["hired_by"], "hired_by",
                                f"{app} has a notice hired by {n['hired_by']!r}"))
    return out


def salestax_apps() -> list[str]:
    from portals.core.registry import load_apps

    return [name for name, spec in load_apps().items() if spec.manifest.get("line") == "salestax"]


def salestax_mismatches(store, book: dict) -> list[Mismatch]:
    """Each sales-tax app against the ERP's AP: every untaxed material invoice of the year (the
    vendor charged no sales tax) needs a consumer use transaction shipped to its jobsite, carrying
    the vendor's Vista number; one that has none owes use tax not yet accrued."""
    from . import avalara

    vendors = {v["vendor_id"]: v for v in book.get("vendors", [])}
    jobs = {j["job"]: j for j in book.get("jobs", [])}
    out = []
    for app in salestax_apps():
        saved = {r["code"]: r for r in _rows(store, app, "transactions") if r["doc_type"] == "PurchaseInvoice"}
        for b in avalara.material_bills(book):
            if not avalara.invoice(book, b)["untaxed"]:
                continue
            t, j = saved.get(b["invoice_number"]), jobs[b["job"]]
            if t is None:
                out.append(Mismatch("use_tax", b["bill_id"], "accrual", f"{app} has no consumer use transaction"))
            elif (t["ship_to_city"], t["ship_to_region"]) != (j["city"], j["state"]) \
                    or t["customer_vendor_code"] != str(vendors[b["vendor_id"]]["vista_vendor"]):
                out.append(Mismatch("use_tax", b["bill_id"], "ship_to", f"{app} ships it to {t['ship_to_city']}"))
    return out


def _line_apps(line: str) -> list[str]:
    from portals.core.registry import load_apps

    return [name for name, spec in load_apps().items() if spec.kind == "integration" and spec.manifest.get("line") == line]


def estimating_apps() -> list[str]:
    return _line_apps("estimating")


def sync_mismatches(store, book: dict) -> list[Mismatch]:
    """Each sync utility's map against the book: a Procore job, cost code, worker or vendor must
    map to the ERP key the book gives it, and every HeavyJob codebook code to a phase."""
    erp = {m["code"]: m["vista_phase"] for m in book.get("erp_cost_code_map", [])}
    expected = {("Job (CV)", j["job"]): j["job"] for j in book.get("jobs", [])}
    expected |= {("Cost Code", code): phase for code, phase in erp.items()}
    expected |= {("Employee", w["worker_id"]): w["foundation_employee"] for w in book.get("workers", [])}
    expected |= {("Vendor", str(v["procore_vendor_id"])): str(v["vista_vendor"]) for v in book.get("vendors", [])}
    fields = {"Job (CV)": "job", "Cost Code": "cost_code", "Employee": "employee", "Vendor": "vendor"}
    out = []
    for app in _line_apps("sync"):
        for r in _rows(store, app, "mappings"):
            if r["system"] == "HeavyJob":
                if r["entity"] == "Cost Code" and r["erp_key"] is None:
                    out.append(Mismatch("codebook", r["source_key"], "phase", f"{app} maps it to no phase"))
                continue
            want = expected.get((r["entity"], r["source_key"]))
            if r["erp_key"] != want:
                out.append(Mismatch("hh2_mapping", r["source_key"], fields[r["entity"]],
                                    f"{app} maps it to {r['erp_key']}, not {want}"))
    return out


def all_mismatches(store, book: dict) -> list[Mismatch]:
    return (vendor_mismatches(store) + cost_code_mismatches(store) + job_mismatches(store, book)
            + commitment_mismatches(store) + invoice_mismatches(store) + document_mismatches(store, book)
            + coi_mismatches(store) + gcpay_mismatches(store) + payroll_mismatches(store) + pm_mismatches(store)
            + boq_mismatches(store) + reestimate_mismatches(store) + pending_change_mismatches(store)
            + forecast_mismatches(store)
            + identity_mismatches(store, book) + bank_mismatches(store, book) + tax_mismatches(store, book)
            + payments_mismatches(store, book) + lien_mismatches(store, book)
            + fieldtime_mismatches(store, book)
            + salestax_mismatches(store, book)
            + sync_mismatches(store, book))


def unregistered(mismatches: list[Mismatch], registry: list[dict]) -> list[Mismatch]:
    keys = {(d["entity"], d["key"], d["field"]) for d in registry}
    return [m for m in mismatches if (m.entity, m.key, m.field) not in keys]


def stale(mismatches: list[Mismatch], registry: list[dict]) -> list[dict]:
    seen = {(m.entity, m.key, m.field) for m in mismatches}
    return [d for d in registry if (d["entity"], d["key"], d["field"]) not in seen]
