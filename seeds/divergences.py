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


# The payroll systems that charge labor to their own job numbers (FOUNDATION Payroll: FOUNDATION's).
PAYROLL_JOB_SYSTEMS = ["foundation_payroll"]
# The lien-rights systems that number a job themselves, the company's number a field beside it.
LIEN_JOB_SYSTEMS = ["levelset"]
# The payroll systems that key a worker by an id of their own (ADP: the Associate OID; Rippling:
# its worker id); their departments keep the company's job numbers, so they are not among the job
# systems above.
PAYROLL_WORKER_SYSTEMS = ["adp", "rippling"]
# The field-time apps that number a job as FOUNDATION does (Rhumbix imports its projects from the
# ERP); busybusy keeps the company's own job numbers.
FIELD_TIME_JOB_SYSTEMS = ["rhumbix"]
FIELD_TIME_SYSTEMS = ["rhumbix", "busybusy", "foundation_payroll"]


def _pm_platforms() -> list:
    """The PM platforms beside Procore, each with its manifest's rules for the book's keys."""
    from portals.core.registry import load_apps
    from portals.pm.vendor_keys import PmKeys
    return [(s, PmKeys(s)) for s in load_apps().values() if s.kind == "pm" and s.name != "procore"]


def pm_vendor_ids(vendor: dict) -> dict:
    """Each PM platform's Directory id for a book vendor (its own, hashed, unless the manifest
    names a book field)."""
    from portals.core.ids import stable_id
    return {spec.label: keys.vendor_id(vendor) or stable_id(spec.name, "vendor", vendor["vendor_id"], digits=7)
            for spec, keys in _pm_platforms()}


def pm_entries(commitment: dict, vendor: dict) -> list[dict]:
    """The PM reconciliation contract: every PM platform shows the book's commitments (the
    paper's SC-1042-0 among them) as views of the same record, under its own numbers and its
    own spelling of the vendor; an opportunity it tracks before award has no job anywhere else."""
    platforms = _pm_platforms()
    if not platforms:
        return []
    numbers = "; ".join(f"{spec.label} {keys.commitment_number(commitment)}, vendor '{keys.vendor_name(vendor)}'"
                        for spec, keys in platforms)
    out = [{"entity": "identity", "key": "commitment", "field": "format", "family": "pm_reconciliation",
            "systems": ["procore", *(spec.name for spec, _ in platforms)],
            "why": (f"Procore and the ERPs number a commitment as the book does ({commitment['number']}, "
                    f"{vendor['names']['procore']}, {commitment['amount']}); {numbers}. Each platform keeps the "
                    f"book's number beside its own (its accounting commitment number) and the vendor's ERP id as "
                    f"the Directory's origin id, so the same commitment is found in every system.")}]
    for spec, keys in platforms:
        stages = keys.rules.get("stages", {})
        if keys.stages:
            out.append({"entity": "project", "key": spec.name, "field": "stage", "family": "pm_reconciliation",
                        "systems": [spec.name],
                        "why": (f"{spec.label} moves a job through its own stages ({' -> '.join(keys.stages)}): "
                                f"a job the book has active is '{stages.get('active', '')}' there, a closed "
                                f"one '{stages.get('closed', '')}'; Procore and the ERPs keep the book's status.")})
        if keys.prospects:
            listed = ", ".join(f"{p['number']} ({p['stage']})" for p in keys.prospects)
            out.append({"entity": "project", "key": spec.name, "field": "prospects", "family": "pm_reconciliation",
                        "systems": [spec.name],
                        "why": (f"{spec.label} tracks opportunities before award ({listed}); no other system "
                                f"has a job for them until one is won.")})
    return out


# The ERPs whose keys the identity sentences give by example. An ERP beyond them is named in each
# entry's `systems` and gives its own key for the example record in a field named after its app,
# so that the book's existing sentences (and every value built from them) stay as they are.
WORDED_ERPS = ("vista_erp", "sage_intacct", "foundation_erp", "sage300cre", "cmic", "acumatica_construction", "qbo")


def identity_entries(job: dict, code: dict, vendor: dict, wd: dict, wd_job: dict | None = None) -> list[dict]:
    """One entry per kind of key the systems write their own way (seeds/erp_keys.py), with the
    four-app task's records as the example: the job, the commitment line's code and the vendor;
    LCPtracker's project is the first prevailing-wage job's (``wd``, its wage determination; ``wd_job``
    that job, whose FOUNDATION number FOUNDATION Payroll charges labor to)."""
    wd_job = wd_job or {}
    def said(keys: dict) -> str:
        return "; ".join(f"{system} {value}" for system, value in keys.items())

    worded = {app: k for app, k in ERP_KEYS.items() if app in WORDED_ERPS}
    jobs = {"Procore": job["job"], **{k["label"]: job.get(k["job_field"]) or job["job"] for k in worded.values()},
            "GCPay": gcpay_project_code(job["job"])}
    codes = {"Procore": code["procore_code"], **{k["label"]: code[k["cost_code_field"]] for k in worded.values()}}
    vendors = {"Procore": f"{vendor['procore_vendor_id']} (origin id {vendor[ERP_KEYS[PM_ERP]['vendor_field']]})",
               **{label: f"{vid} (origin id {vendor[ERP_KEYS[PM_ERP]['vendor_field']]})"
                  for label, vid in pm_vendor_ids(vendor).items()},
               **{k["label"]: vendor[k["vendor_field"]] for k in worded.values()}}

    def own_keys(kind: str) -> dict:
        """The example record's key in each ERP beyond the worded ones, by app."""
        key_of = {"job": lambda k: job.get(k["job_field"]) or job["job"],
                  "cost_code": lambda k: code[k["cost_code_field"]], "vendor": lambda k: vendor[k["vendor_field"]]}
        return {app: str(key_of[kind](k)) for app, k in ERP_KEYS.items() if app not in WORDED_ERPS}
    own_jobs = [app for app, k in ERP_KEYS.items() if k["job_field"]]
    own_codes = [app for app, k in ERP_KEYS.items() if code[k["cost_code_field"]] != code["procore_code"]]
    own_vendors = [app for app, k in ERP_KEYS.items() if vendor[k["vendor_field"]] != vendor["vendor_id"]]
    entry = {"entity": "identity", "field": "format", "family": "C_invoice_code"}
    return [
        {**entry, **own_keys("job"), "key": "job",
         "systems": ["procore", *own_jobs, "gcpay", "lcptracker", *PAYROLL_JOB_SYSTEMS, *LIEN_JOB_SYSTEMS,
                     *FIELD_TIME_JOB_SYSTEMS],
         "why": (f"Each system numbers a job its own way ({said(jobs)}): carrying work from Procore "
                 f"into an ERP means finding that ERP's own job or project, and GCPay's project "
                 f"carries the job number beside its own code. LCPtracker files each prevailing-wage "
                 f"project under the awarding agency's contract number alone (job {wd['job']} is "
                 f"{wd['contract_number']}); its name and location are the job's. FOUNDATION Payroll, "
                 f"the payroll those records come from, charges labor to FOUNDATION's job numbers "
                 f"(job {wd['job']} is {wd_job.get('foundation_job', wd['job'])}) and keeps the agency's "
                 f"contract number on the job's certified payroll setup. Levelset numbers each job "
                 f"itself and keeps the company's job number beside it as \"Your job #\". Rhumbix's projects carry "
                 f"FOUNDATION's job numbers too; busybusy's the company's.")},
        {**entry, **own_keys("cost_code"), "key": "cost_code", "systems": ["procore", *own_codes],
         "why": (f"Each system writes a cost code its own way ({said(codes)}); the cost type is a "
                 f"separate field everywhere. Procore's ERP cost-code map is the crosswalk.")},
        {**entry, **own_keys("vendor"), "key": "vendor",
         "systems": ["procore", *(s.name for s, _ in _pm_platforms()), *own_vendors],
         "why": (f"Each system keys a vendor its own way ({said(vendors)}); Procore's Directory "
                 f"links a company to the connected ERP's vendor by its origin id.")},
    ]


def payroll_entries(wds: list[dict], workers: list[dict]) -> list[dict]:
    """P_certified_payroll's identities (APPS.md identity facts 4 and 6): a worker has one id per
    system, and payroll's craft codes are not the wage determination's classifications."""
    worker = workers[0]
    entry = {"entity": "identity", "field": "format", "family": "P_certified_payroll", "systems": ["lcptracker"]}
    return [
        {**entry, "key": "worker", "systems": ["lcptracker", *PAYROLL_WORKER_SYSTEMS],
         "why": (f"A worker has one id per system: the company's {worker['worker_id']}, payroll's employee "
                 f"number {worker['foundation_employee']} (FOUNDATION Payroll's employee #), ADP Workforce "
                 f"Now's Associate OID {worker['adp_aoid']} (aoid), Rippling's worker id {worker['rippling_id']}, "
                 f"and in LCPtracker an employee id of its own; the same person is found by name and the last four of the SSN ({worker['ssn'][-4:]}).")},
        {**entry, "key": "craft",
         "why": ("Payroll pays by its craft code (CARP, OPER, ...; FOUNDATION Payroll's classes add the level, "
                 "CARP-J, CARP-A2); LCPtracker names the wage determination's classification (Carpenter; "
                 "Power Equipment Operator: Backhoe/Excavator), which FOUNDATION Payroll keeps on each "
                 "certified job's rates and prints on its certified payroll report.")},
    ]


def field_time_entries(exceptions: list[dict], workers: list[dict]) -> list[dict]:
    """P_field_time_recon's planted differences between approved field time (Rhumbix, busybusy)
    and the open payroll's timecards (seeds/fieldtime.py), keyed job/week/worker."""
    names = {w["worker_id"]: f"{w['first_name']} {w['last_name']} ({w['foundation_employee']})" for w in workers}
    out = []
    for e in exceptions:
        key = f"{e['job']}/{e['week_ending']}/{e['worker_id']}"
        base = {"entity": "field_time", "key": key, "systems": FIELD_TIME_SYSTEMS, "family": "P_field_time_recon"}
        who, days = names[e["worker_id"]], ", ".join(e.get("days", []))
        if e["kind"] == "unapproved_paid":
            out.append({**base, "field": "unapproved",
                        "why": f"{who}'s {days} on job {e['job']} is still Submitted: the foreman has not approved it."})
            out.append({**base, "field": "hours",
                        "why": f"Payroll pays {who}'s unapproved {days} on job {e['job']}; approved field time does not have it."})
        elif e["kind"] == "unapproved_unpaid":
            out.append({**base, "field": "unapproved",
                        "why": (f"{who}'s {days} on job {e['job']} ({e['hours']} hours) is still Submitted, and payroll "
                                f"rightly does not pay it.")})
        elif e["kind"] == "other_job":
            out.append({**base, "field": "hours",
                        "why": f"Field time puts {who}'s {days} on job {e['to_job']}; payroll charges them to job {e['job']}."})
            out.append({**base, "key": f"{e['to_job']}/{e['week_ending']}/{e['worker_id']}", "field": "hours",
                        "why": f"{who}'s {days} on job {e['to_job']} in field time have no payroll timecard there."})
        else:
            out.append({**base, "field": "hours",
                        "why": f"{who} has a week of approved field time on job {e['job']} and no payroll timecard."})
    return out


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


TREASURY_FIELDS = {"payee_truncated": "payee", "payee_abbreviated": "payee", "payee_different": "payee",
                   "amount_transposed": "amount", "duplicate": "presented", "stale_dated": "presented",
                   "voided": "presented", "not_issued": "presented", "issue_loaded_twice": "issue_records"}
BANKS = ["bofa_cashpro", "chase_treasury", "pnc_pinacle", "wells"]  # the bank portals seeded from seeds/treasury.py
CHECK_REGISTERS = [PM_ERP, "vista_erp"]  # the ERPs whose AP payment history is the check register
BANK_DATA = ["plaid"]  # the bank-data APIs that read the same accounts (seeds/plaid.py)


def treasury_entries(book: dict) -> list[dict]:
    """The bank against the ERP's check register (APPS.md identity facts 8 and 9): each check the
    bank flagged on the clock's day, whether it is a real mismatch or only looks like one (a payee
    the bank cut short or abbreviated), and the one registered way the bank writes its own
    strings: its descriptions, one ACH settlement for a day's ACH payments, its posting dates."""
    from . import treasury
    from .util import TODAY

    day = treasury.positive_pay_day(book, TODAY)
    entries = []
    for e in day["exceptions"]:
        issued = e["issued"]
        said = (f"issued {issued['date']} for {issued['amount']} to the vendor the ERP paid"
                if issued.get("date") else "not in the ERP's check register")
        entries.append({"entity": "bank_check", "key": e["serial"], "field": TREASURY_FIELDS[e["kind"]],
                        "systems": [*BANKS, *CHECK_REGISTERS], "family": "T_positive_pay",
                        "why": (f"Check {e['serial']} was presented on {day['day']} as {e['amount']} to "
                                f"'{e['payee']}' ({said}): {e['why']}; the right decision is {e['decision']}.")})
    twice = day.get("loaded_twice")
    for serial in (twice or {}).get("serials", []):
        if serial == twice["serial"]:
            continue  # registered above, as the exception it is
        entries.append({"entity": "bank_check", "key": serial, "field": "issue_records", "systems": [*BANKS, *CHECK_REGISTERS],
                        "family": "T_positive_pay",
                        "why": (f"The issue file of the {twice['run']} check run was loaded twice, so check {serial} "
                                f"is on two issue records at the bank (one check in the ERP's register).")})
    entries.append({"entity": "identity", "key": "bank_transaction", "field": "format", "systems": list(BANKS),
                    "family": "T_positive_pay",
                    "why": ("The bank describes an item in its own words (CHECK 40001, WIRE TYPE:FED IN ORIG:..., "
                            "ACH ORIG SETTLEMENT CCD n ITEMS), posts a check on the day it is presented, not its "
                            "check date, and settles a day's ACH payments in one debit; the ERP keeps one payment "
                            "per vendor, dated the check run.")})
    entries.append({"entity": "identity", "key": "plaid_transaction", "field": "format",
                    "systems": [*BANK_DATA, *BANKS], "family": "G_cash_tieout_plaid",
                    "why": ("Plaid returns the bank's items with its own sign: a positive amount is money out of "
                            "the account (a check paid, a fee), a negative one money in (an owner's payment), "
                            "where the bank reports a debit or a credit of a positive amount; it keys Items, "
                            "accounts and transactions by its own 37-character ids, shows an account by the "
                            "last four digits of its number, returns the day's unposted items as pending and "
                            "only the last 90 days.")})
    entries.append({"entity": "identity", "key": "bank_exception", "field": "format", "systems": list(BANKS),
                    "family": "T_positive_pay",
                    "why": ("Each bank keeps the same checks, issue records and exceptions under its own ids and "
                            "names the exception in its own words: CashPro flags 'Payee name mismatch', 'Item "
                            "voided', 'No issue record', 'Duplicate issue record'; Chase Connect's Check "
                            "Protection flags 'Payee Name Mismatch', 'Void Item Presented', 'Paid Not Issued', "
                            "'Duplicate Issue Item'; Wells Fargo Vantage's Fraud Manager flags 'Payee Does Not Match', "
                            "'Voided Check Presented', 'No Issue Found', 'Duplicate Issue'; PNC PINACLE's Positive Pay "
                            "flags 'Payee Mismatch', 'Paid Voided', 'Paid No Issue', 'Multiple Issue Records'. "
                            "CashPro stages a decision and a person submits the day's; in Chase Connect, in Fraud "
                            "Manager and in PINACLE the decision itself is the person's step.")})
    return entries


def tax_entries(book: dict) -> list[dict]:
    """Track1099 against the vendor master (APPS.md identity fact 1): a recipient whose W-9 names a
    person (a sole proprietor, or the owner of a single-member LLC) where every ERP shows the
    business; IRS TIN matching checks that name, so the 1099-NEC goes out under it."""
    from . import tax1099

    out = []
    for v in book.get("vendors", []):
        p = tax1099.tax_profile(v)
        if (p["form_1099"] or p["services"]) and p["w9_on_file"] and p["w9_name"] != v["legal_name"]:
            out.append({"entity": "vendor", "key": v["vendor_id"], "field": "w9_name",
                        "systems": ["track1099", *ERP_KEYS], "family": "R_1099nec",
                        "why": (f"Its W-9 gives the legal name '{p['w9_name']}' ({p['entity_type']}) with "
                                f"'{p['w9_business_name']}' as the business name on line 2; the ERPs list the "
                                f"business, '{v['legal_name']}'. The form goes out under the W-9's name.")})
    return out


def corpay_entries(book: dict) -> list[dict]:
    """Corpay against the vendor master (APPS.md identity facts 7 and 10): Corpay numbers each
    supplier itself and pays the name on the remittance (the DBA where there is one); and the two
    bank-detail change requests waiting on the book's day, one a fraud and one verified."""
    from . import corpay
    from .util import TODAY

    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    out = [{"entity": "identity", "key": "supplier", "field": "format", "systems": ["corpay"],
            "family": "T_vendor_bank_change",
            "why": ("Corpay numbers each supplier itself (CP- and six digits), carries the Vista vendor number as "
                    "the ERP vendor, and pays under the remit-to name: the vendor's DBA where it trades under "
                    "one, else its legal name. One Corpay debit funds a whole payment file.")}]
    for c in corpay.bank_changes(book, TODAY):
        v = vendors[c["vendor_id"]]
        why = (f"A request dated {c['submitted_at'][:10]} by {c['channel'].lower()} from {c['submitted_by']} asks "
               f"that {corpay_name(v)} be paid at {c['bank_name']} instead of the account on file; ")
        why += (f"the address is a lookalike of the vendor's domain and the phone it gives, {c['contact_phone']}, "
                f"is not the {v['phone']} on file, and no callback was made: a fraud to refuse and hold."
                if c["kind"] == "lookalike" else
                f"a callback to the number on file, {v['phone']}, confirmed it: genuine, for the Controller to apply.")
        out.append({"entity": "bank_change", "key": c["vendor_id"], "field": "bank_account", "systems": ["corpay"],
                    "family": "T_vendor_bank_change", "why": why})
    return out


def corpay_name(vendor: dict) -> str:
    return vendor["dba"] or vendor["legal_name"]


def levelset_entries(book: dict) -> list[dict]:
    """Levelset against the vendor master: a preliminary notice names the first-tier sub who hired
    its claimant as the claimant wrote it, here the DBA the sub trades under (H_levelset_notice_holds'
    first twist: the notice must still be mapped to the sub's vendor)."""
    from . import levelset

    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    out = []
    for n in levelset.planted(book):
        v = vendors[n["vendor_id"]]
        if n["hired_by"] != v["legal_name"]:
            out.append({"entity": "lien_notice", "key": v["vendor_id"], "field": "hired_by", "systems": ["levelset"],
                        "family": "H_levelset_notice_holds",
                        "why": (f"{n['claimant']} served a preliminary notice on job {n['job']} saying it was hired "
                                f"by '{n['hired_by']}', the DBA of {v['legal_name']} (Vista vendor "
                                f"{v['vista_vendor']}), our first-tier sub there.")})
    return out


def avalara_entries(book: dict) -> list[dict]:
    """Avalara against the ERP's AP (FAMILIES.md C06): each of the open month's material invoices
    on which a vendor from another state charged no sales tax is in the ERP but has no consumer use
    transaction in AvaTax yet: its use tax, at the jobsite's rate, is owed and not accrued."""
    from . import avalara

    vendors = {v["vendor_id"]: v for v in book["vendors"]}
    jobs = {j["job"]: j for j in book["jobs"]}
    out = []
    for b in avalara.open_bills(book):
        v, j = vendors[b["vendor_id"]], jobs[b["job"]]
        inv = avalara.invoice(book, b)
        labor = f" and ${inv['labor']} of labor, not taxable," if inv["labor"] else ""
        out.append({"entity": "use_tax", "key": b["bill_id"], "field": "accrual", "systems": ["avalara"],
                    "family": "C_use_tax_accrual",
                    "why": (f"Invoice {b['invoice_number']} from {v['legal_name']} ({v['state']}) for job {j['job']} "
                            f"bills ${inv['material']} of material{labor} with no sales tax; the vendor has no nexus "
                            f"in {j['state']}, so use tax at the jobsite's rate ({j['city']}, "
                            f"{avalara.total_rate(j['city'], j['state']) * 100:.2f}%) is owed: "
                            f"${avalara.use_tax(book, b)}, not yet in AvaTax.")})
    return out
