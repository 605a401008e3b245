"""The controlled-divergence registry: every intentional cross-system mismatch, and why."""
from __future__ import annotations

from .erp_keys import ERP_KEYS
from .reference import COI_DBA_VENDOR, JSM_INVOICE, JSM_VENDOR, META, RENEWED_COI_VENDOR

PM_ERP = META["pm_erp_app"]  # the ERP Procore's integration is connected to


def gcpay_project_code(job: str) -> str:
    """GCPay keys a project by its own code, not the company's job number."""
    return f"GC-{job}"


def jsm_dba_entry(vendor: dict) -> dict:
    return {
        "entity": "vendor", "key": JSM_VENDOR, "field": "dba",
        "systems": ["box", "outlook", "procore", *ERP_KEYS], "family": "C_invoice_code",
        "why": (f"The vendor's invoice PDFs (e.g. {JSM_INVOICE}.pdf in Box) and its emails print the DBA "
                f"'{vendor['dba']}'; Sage Intacct lists the legal name '{vendor['names']['intacct']}', "
                f"Procore '{vendor['names']['procore']}', and every other ERP its own spelling of it."),
    }


def coi_entries(vendors: dict, documents: list[dict]) -> list[dict]:
    """C_coi_hold's two conflicts between Box's certificates and the ERPs' compliance records."""
    dba, renewed = vendors[COI_DBA_VENDOR], vendors[RENEWED_COI_VENDOR]
    newest = max(d["fields"]["expires"] for d in documents
                 if d["kind"] == "coi" and d["fields"]["insured"] == renewed["legal_name"])
    return [
        {"entity": "vendor", "key": COI_DBA_VENDOR, "field": "dba",
         "systems": ["box", *ERP_KEYS], "family": "C_coi_hold",
         "why": (f"Its certificates of insurance in Box are issued to the DBA '{dba['dba']}', which no "
                 f"ERP's vendor master carries (they list '{dba['legal_name']}' in their own spelling); "
                 f"its W-9 in Box names both.")},
        {"entity": "vendor", "key": RENEWED_COI_VENDOR, "field": "coi_expires",
         "systems": ["box", *ERP_KEYS], "family": "C_coi_hold",
         "why": (f"The ERPs' compliance record says its certificate expired {renewed['coi_expires']}; Box "
                 f"also holds the renewal, in force to {newest}, that nobody entered.")},
    ]


def identity_entries(job: dict, code: dict, vendor: dict, wd: dict) -> list[dict]:
    """One entry per kind of key the systems write their own way (seeds/erp_keys.py), with the
    four-app task's records as the example: the job, the commitment line's code and the vendor;
    LCPtracker's project is the first prevailing-wage job's (``wd``, its wage determination)."""
    def said(keys: dict) -> str:
        return "; ".join(f"{system} {value}" for system, value in keys.items())

    jobs = {"Procore": job["job"], **{k["label"]: job.get(k["job_field"]) or job["job"] for k in ERP_KEYS.values()},
            "GCPay": gcpay_project_code(job["job"])}
    codes = {"Procore": code["procore_code"], **{k["label"]: code[k["cost_code_field"]] for k in ERP_KEYS.values()}}
    vendors = {"Procore": f"{vendor['procore_vendor_id']} (origin id {vendor[ERP_KEYS[PM_ERP]['vendor_field']]})",
               **{k["label"]: vendor[k["vendor_field"]] for k in ERP_KEYS.values()}}
    own_jobs = [app for app, k in ERP_KEYS.items() if k["job_field"]]
    own_codes = [app for app, k in ERP_KEYS.items() if code[k["cost_code_field"]] != code["procore_code"]]
    own_vendors = [app for app, k in ERP_KEYS.items() if vendor[k["vendor_field"]] != vendor["vendor_id"]]
    entry = {"entity": "identity", "field": "format", "family": "C_invoice_code"}
    return [
        {**entry, "key": "job", "systems": ["procore", *own_jobs, "gcpay", "lcptracker"],
         "why": (f"Each system numbers a job its own way ({said(jobs)}): carrying work from Procore "
                 f"into an ERP means finding that ERP's own job or project, and GCPay's project "
                 f"carries the job number beside its own code. LCPtracker files each prevailing-wage "
                 f"project under the awarding agency's contract number alone (job {wd['job']} is "
                 f"{wd['contract_number']}); its name and location are the job's.")},
        {**entry, "key": "cost_code", "systems": ["procore", *own_codes],
         "why": (f"Each system writes a cost code its own way ({said(codes)}); the cost type is a "
                 f"separate field everywhere. Procore's ERP cost-code map is the crosswalk.")},
        {**entry, "key": "vendor", "systems": ["procore", *own_vendors],
         "why": (f"Each system keys a vendor its own way ({said(vendors)}); Procore's Directory "
                 f"links a company to the connected ERP's vendor by its origin id.")},
    ]


def payroll_entries(wds: list[dict], workers: list[dict]) -> list[dict]:
    """P_certified_payroll's identities (APPS.md identity facts 4 and 6): a worker has one id per
    system, and payroll's craft codes are not the wage determination's classifications."""
    worker = workers[0]
    entry = {"entity": "identity", "field": "format", "family": "P_certified_payroll", "systems": ["lcptracker"]}
    return [
        {**entry, "key": "worker",
         "why": (f"A worker has one id per system: the company's {worker['worker_id']}, payroll's employee "
                 f"number {worker['foundation_employee']}, and in LCPtracker an employee id of its own; "
                 f"the same person is found by name and the last four of the SSN ({worker['ssn'][-4:]}).")},
        {**entry, "key": "craft",
         "why": ("Payroll pays by its craft code (CARP, OPER, ...); LCPtracker names the wage "
                 "determination's classification (Carpenter; Power Equipment Operator: Backhoe/Excavator).")},
    ]


def finalize(entries: list[dict]) -> list[dict]:
    """Sort by (entity, key, field) and number DIV-0001.."""
    out = sorted(entries, key=lambda e: (e["entity"], e["key"], e["field"]))
    keys = [(e["entity"], e["key"], e["field"]) for e in out]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate divergence entries")
    return [{"id": f"DIV-{i:04d}", **e} for i, e in enumerate(out, start=1)]


def change_order_entries(change_orders: list[dict]) -> list[dict]:
    """A_change_order's difference: the change order the owner signed in Box for another total
    than Procore's (the signed document governs, change_management.md)."""
    from decimal import Decimal

    from .reference import CHANGE_ORDER_CASES

    by_id = {co["co_id"]: co for co in change_orders}
    return [{"entity": "change_order", "key": co_id, "field": "signed_amount", "systems": ["box", "procore"],
             "family": "A_change_order",
             "why": (f"The owner signed change order {co_id} on job {by_id[co_id]['job']} for {case['signed_amount']}; "
                     f"Procore still carries {by_id[co_id]['amount']}.")}
            for co_id, case in sorted(CHANGE_ORDER_CASES.items())
            if case.get("signed_amount") and by_id.get(co_id, {}).get("status") == "pending"
            and by_id[co_id]["kind"] == "owner"
            and Decimal(case["cost_of_work"]) + Decimal(case["fee"]) == Decimal(case["signed_amount"])]


def gcpay_entries(jobs: list[dict], prime_contracts: list[dict], change_orders: list[dict]) -> list[dict]:
    """B_aia_g702's difference: an owner change order approved since a project's last pay
    application is approved in Procore and the ERPs but is not yet a line of GCPay's schedule of
    values (GCPay's contract sum to date lags theirs until someone adds it)."""
    from .contracts import last_pay_app_period, unbilled_owner_cos
    from .util import parse

    today = parse(META["clock"][:10])
    job_map = {j["job"]: j for j in jobs}
    out = []
    for pc in sorted(prime_contracts, key=lambda p: p["job"]):
        job = job_map[pc["job"]]
        last = last_pay_app_period(job, today)
        for co in unbilled_owner_cos(job, change_orders, today):
            since = f"since pay application period {last}" if last else "before the first pay application"
            out.append({"entity": "change_order", "key": co["co_id"], "field": "gcpay_sov",
                        "systems": ["gcpay", "procore", *ERP_KEYS], "family": "B_aia_g702",
                        "why": (f"Owner change order #{co['number']} on job {co['job']} ({co['amount']}) was "
                                f"approved {since}: Procore and the ERPs count it, GCPay's project "
                                f"{gcpay_project_code(co['job'])} does not have it on its schedule of values "
                                f"until it is added there.")})
    return out
