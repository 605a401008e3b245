"""The Company-A book: determinism, the paper's fixed identifiers, sizes and referential integrity."""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from decimal import ROUND_HALF_UP, Decimal

import pytest

from portals.core.registry import load_apps
from seeds import estimating
from seeds.book import SNAPSHOT, dumps, generate_book, load_book

BANKS = [name for name, spec in load_apps().items()  # every bank portal the stack serves (not Plaid, an API)
         if spec.kind == "bank" and spec.manifest.get("line") != "data"]

MONEY = re.compile(r"^-?\d+\.\d{2}$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
CLOCK_DATE, CLOCK = "2026-06-30", "2026-06-30T17:00:00Z"
SYNC_JOBS = ["1042", "2014", "2041", "2200", "3100", "4012"]


@pytest.fixture(scope="module")
def book():
    return generate_book(7)


def by(records, key):
    return {r[key]: r for r in records}


def test_generation_is_deterministic_and_matches_frozen_snapshot(book):
    assert dumps(generate_book(7)) == dumps(book)
    assert SNAPSHOT.read_text(encoding="utf-8") == dumps(book)
    assert load_book() == book
    assert dumps(generate_book(8)) != dumps(book)


def test_top_level_keys_and_meta(book):
    assert set(book) == {"meta", "jobs", "cost_types", "cost_codes", "erp_cost_code_map", "vendors",
                         "commitments", "requisitions", "eapps", "boq", "funding", "budget_lines", "job_cost",
                         "ap_bills", "gl_accounts",
                         "change_orders", "erp_pending_changes", "prime_contracts", "documents", "mail", "divergences",
                         "wage_determinations", "workers", "timecards", "field_time_exceptions", "workbooks",
                         "estimates", "hh2_sync"}
    assert book["meta"] == {"company_id": "companyA", "company_name": "Company A Builders, Inc.",
                            "email_domain": "companyA.com", "clock": CLOCK, "seed": 7, "version": 1,
                            "pm_erp_app": "sage_intacct"}
    assert [c["code"] for c in book["cost_types"]] == ["L", "M", "S", "E", "O"]


def test_counts_in_range(book):
    jobs = Counter(j["status"] for j in book["jobs"])
    assert jobs["active"] == 31 and 6 <= jobs["closed"] <= 10
    ranges = {"cost_codes": (50, 80), "vendors": (280, 360), "commitments": (250, 700),
              "requisitions": (300, 2000), "job_cost": (5000, 8000), "ap_bills": (1500, 2600),
              "gl_accounts": (60, 80), "documents": (600, 1100), "mail": (1200, 1800)}
    for key, (lo, hi) in ranges.items():
        assert lo <= len(book[key]) <= hi, key
    per_job = Counter(c["job"] for c in book["commitments"])
    for j in book["jobs"]:
        if j["status"] == "active":
            assert 8 <= per_job[j["job"]] <= 22, j["job"]
    assert len(book["prime_contracts"]) == 31


def test_values_are_canonical(book):
    def walk(value, path=""):
        if isinstance(value, dict):
            for k, v in value.items():
                assert re.match(r"^[a-z][a-z0-9_]*$", k), (path, k)
                walk(v, f"{path}.{k}")
        elif isinstance(value, list):
            for v in value:
                walk(v, path)
        elif isinstance(value, str):
            if DATE.match(value):
                leaf = path.rsplit(".", 1)[-1]
                if leaf not in ("coi_expires", "est_completion", "due_date", "expires", "effective"):
                    assert value <= CLOCK_DATE, (path, value)
            elif DATETIME.match(value):
                assert value <= CLOCK, (path, value)
    walk({k: v for k, v in book.items() if k != "erp_cost_code_map"})
    money_fields = {"amount", "contract_amount", "retainage", "original_budget", "approved_changes",
                    "forecast_to_complete", "scheduled_value", "original_amount", "total"}
    for key in ("jobs", "commitments", "requisitions", "eapps", "funding", "budget_lines", "job_cost", "ap_bills",
                "change_orders", "prime_contracts"):
        for r in book[key]:
            for f in money_fields & set(r):
                assert MONEY.match(r[f]), (key, f, r[f])


def test_lists_sorted_by_natural_key(book):
    keys = {"jobs": "job", "cost_codes": "code", "vendors": "vendor_id", "commitments": "number",
            "requisitions": "requisition_id", "job_cost": "txn_id", "ap_bills": "bill_id", "gl_accounts": "account",
            "change_orders": "co_id", "documents": "doc_id", "mail": "message_id", "divergences": "id"}
    for key, field in keys.items():
        values = [r[field] for r in book[key]]
        assert values == sorted(values) and len(values) == len(set(values)), key


def test_paper_identifiers(book):
    jobs = by(book["jobs"], "job")
    for j in ["1042", "1990", "2014", "2041", "2200", "3100", "3412", "4012", "9140"]:
        assert jobs[j]["status"] == "active"
    assert jobs["9140"]["pm_email"] == "pm@companyA.com"
    vendors = by(book["vendors"], "vendor_id")
    jsm = vendors["V1001"]
    assert (jsm["legal_name"], jsm["dba"], jsm["trade"]) == ("J.S. Morales Excavating, Inc.", "JSM Excavating",
                                                            "excavation")
    assert jsm["names"] == {"procore": "J.S. Morales Excavating, Inc.", "vista": "JS MORALES EXCAVATING INC",
                            "intacct": "JS Morales Excavating Inc",
                            "foundation": "J.S. Morales Excavating, Inc.",
                            "sage300": "J.S. Morales Excavating, Inc.",
                            "cmic": "J.S. MORALES EXCAVATING, INC.",
                            "acumatica": "J.S. Morales Excavating, Inc.",
                            "qbo": "J.S. Morales Excavating, Inc.",
                            "computerease": "J.S. Morales Excavating, Inc."}
    for vid in ["V1000", "V1002", "V1003", "V1006", "V1007"]:
        assert vendors[vid]["coi_expires"] < CLOCK_DATE
    expired = [v for v in book["vendors"] if v["status"] == "active" and v["coi_expires"] < CLOCK_DATE]
    # V1005's compliance date has lapsed too, but Box holds its renewal (C_coi_hold's trap)
    assert sorted(v["vendor_id"] for v in expired) == ["V1000", "V1002", "V1003", "V1005", "V1006", "V1007"]
    renewed = [d["fields"]["expires"] for d in book["documents"] if d["kind"] == "coi"
               and d["fields"]["insured"] == vendors["V1005"]["legal_name"]]
    assert max(renewed) > CLOCK_DATE > vendors["V1005"]["coi_expires"]
    assert vendors["V1003"]["dba"] == "Summit Roofing"
    commitments = by(book["commitments"], "number")
    po = commitments["9140-75"]
    assert (po["job"], po["vendor_id"], po["type"], po["status"], po["title"]) == (
        "9140", "V1001", "purchase_order", "Approved", "Site excavation and haul-off")
    assert [(l["cost_code"], l["cost_type"]) for l in po["lines"]] == [("31-200", "S")]
    assert Decimal(po["amount"]) >= Decimal("14350.00")
    walsh = commitments["SC-1042-0"]
    assert walsh["amount"] == "632000.00" and walsh["job"] == "1042" and walsh["type"] == "subcontract"
    assert vendors[walsh["vendor_id"]]["legal_name"].startswith("Walsh Electrical")
    assert any(c["vendor_id"] == "V1001" and c["job"] != "9140" for c in book["commitments"])
    assert [c["number"] for c in book["commitments"] if c["vendor_id"] == "V1001" and c["job"] == "9140"] == ["9140-75"]
    assert any(c["job"] == "9140" and c["vendor_id"] != "V1001" and
               any(l["cost_code"] == "31-200" for l in c["lines"]) for c in book["commitments"])
    co = [c for c in book["change_orders"] if c["job"] == "3100" and c["amount"] == "101700.00"]
    assert len(co) == 1 and co[0]["status"] == "pending"
    etc = sum(Decimal(b["forecast_to_complete"]) for b in book["budget_lines"] if b["job"] == "1042")
    assert etc == Decimal("3706560.00")
    assert "31-200" in by(book["cost_codes"], "code")


def test_jsm_invoice_document_and_mail(book):
    docs = [d for d in book["documents"] if d["name"] == "JSM-88421.pdf"]
    assert len(docs) == 1
    doc = docs[0]
    assert doc["kind"] == "invoice" and doc["folder"].startswith("/Projects/9140 - ") and \
        doc["folder"].endswith("/AP Invoices")
    f = doc["fields"]
    assert (f["vendor_name"], f["invoice_number"], f["po_number"], f["total"], f["job"]) == (
        "JSM Excavating", "JSM-88421", "9140-75", "14350.00", "9140")
    assert sum(Decimal(l["amount"]) for l in f["lines"]) == Decimal("14350.00")
    msgs = [m for m in book["mail"] if m["from_email"] == "ap@jsmexcavating.com" and "Invoice JSM-88421" in m["subject"]]
    assert len(msgs) == 1 and msgs[0]["folder"] == "Inbox"
    assert msgs[0]["attachments"] == [{"name": "JSM-88421.pdf", "doc_id": doc["doc_id"]}]
    jsm_bills = [b for b in book["ap_bills"] if b["vendor_id"] == "V1001"]
    assert jsm_bills and all(b["invoice_number"].startswith("JSM-88") or b["invoice_number"].startswith("JSM-87")
                             for b in jsm_bills)
    assert "JSM-88421" not in {b["invoice_number"] for b in book["ap_bills"]}
    assert any(b["commitment"] == "9140-75" and b["status"] == "paid" for b in jsm_bills)
    others = [d for d in book["documents"] if d["folder"] == doc["folder"] and d["doc_id"] != doc["doc_id"]]
    assert any(d["fields"]["vendor_name"] != "JSM Excavating" for d in others)
    assert any(d["kind"] == "invoice" and d["fields"]["vendor_name"] == "JSM Excavating" and d["fields"]["job"] != "9140"
               for d in book["documents"])


def test_referential_integrity(book):
    jobs, vendors = by(book["jobs"], "job"), by(book["vendors"], "vendor_id")
    codes, types = by(book["cost_codes"], "code"), {t["code"] for t in book["cost_types"]}
    commitments, docs = by(book["commitments"], "number"), by(book["documents"], "doc_id")
    assert [m["code"] for m in book["erp_cost_code_map"]] == sorted(codes)
    for c in book["commitments"]:
        assert c["job"] in jobs and c["vendor_id"] in vendors
        assert Decimal(c["amount"]) == sum(Decimal(l["amount"]) for l in c["lines"])
        assert c["retainage_pct"] == ("10.00" if c["type"] == "subcontract" else "0.00")
        num = c["number"]
        assert re.match(rf"^SC-{c['job']}-\d+$", num) if c["type"] == "subcontract" else re.match(rf"^{c['job']}-\d\d$", num)
        for l in c["lines"]:
            assert l["cost_code"] in codes and l["cost_type"] in types
    for r in book["requisitions"]:
        c = commitments[r["commitment"]]
        assert c["type"] == "subcontract" and c["job"] == r["job"] and c["vendor_id"] == r["vendor_id"]
        assert Decimal(r["retainage"]) == (Decimal(r["amount"]) * Decimal(c["retainage_pct"]) / 100).quantize(Decimal("0.01"), ROUND_HALF_UP)
        if r["status"] == "paid":
            assert r["erp_sync"] == "synced"
        if r["status"] in ("draft", "under_review", "revise_and_resubmit"):
            assert r["erp_sync"] == "not_synced" and r["approved_date"] is None
    for key in ("budget_lines", "job_cost", "ap_bills"):
        for r in book[key]:
            assert r["job"] in jobs and r["cost_code"] in codes and r["cost_type"] in types, key
    for b in book["ap_bills"]:
        assert b["vendor_id"] in vendors and (b["commitment"] is None or b["commitment"] in commitments)
    for t in book["job_cost"]:
        assert (t["vendor_id"] in vendors) if t["source"] == "AP" else t["vendor_id"] is None
    for p in book["prime_contracts"]:
        assert p["original_amount"] == jobs[p["job"]]["contract_amount"]
        assert sum(Decimal(l["scheduled_value"]) for l in p["lines"]) == Decimal(p["original_amount"])
    for d in book["documents"]:
        if d["kind"] == "invoice":
            assert sum(Decimal(l["amount"]) for l in d["fields"]["lines"]) == Decimal(d["fields"]["total"])
    for m in book["mail"]:
        for a in m["attachments"]:
            assert docs[a["doc_id"]]["name"] == a["name"]
    for c in book["change_orders"]:
        assert c["job"] in jobs


def test_synced_requisitions_have_exactly_one_bill(book):
    bills = defaultdict(list)
    for b in book["ap_bills"]:
        bills[(b["vendor_id"], b["invoice_number"])].append(b)
    for r in book["requisitions"]:
        match = [b for b in bills.get((r["vendor_id"], r["invoice_number"]), [])
                 if b["amount"] == r["amount"] and b["commitment"] == r["commitment"]]
        assert len(match) == (1 if r["erp_sync"] == "synced" else 0), r


@pytest.mark.parametrize("job", SYNC_JOBS)
def test_sync_job_has_work_and_distractors(book, job):
    reqs = [r for r in book["requisitions"] if r["job"] == job]
    work = [r for r in reqs if r["status"] == "approved" and r["erp_sync"] == "not_synced"]
    assert 2 <= len(work) <= 5 and len({r["commitment"] for r in work}) >= 2
    assert sum(r["status"] == "approved" and r["erp_sync"] == "synced" for r in reqs) >= 2
    assert any(r["status"] == "under_review" and r["erp_sync"] == "not_synced" for r in reqs)


def test_vendor_identity_is_fragmented_and_registered(book):
    from seeds.vendors import FORMATTERS
    registry = {(d["entity"], d["key"], d["field"]) for d in book["divergences"]}
    diverged = 0
    for v in book["vendors"]:
        expected = {system: style(v["legal_name"]) for system, style in FORMATTERS.items()}
        assert set(v["names"]) == set(expected)
        for system, name in v["names"].items():
            if name != expected[system]:
                diverged += 1
                assert ("vendor", v["vendor_id"], f"names.{system}") in registry
    assert 25 <= diverged <= 50
    assert len({v["tin"] for v in book["vendors"]}) == len(book["vendors"])
    assert len({v["procore_vendor_id"] for v in book["vendors"]}) == len(book["vendors"])
    from seeds.erp_keys import ERP_KEYS
    for keys in ERP_KEYS.values():  # each ERP's own vendor ids are unique
        assert len({v[keys["vendor_field"]] for v in book["vendors"]}) == len(book["vendors"])
    names = {v["legal_name"] for v in book["vendors"]}
    assert {"J&M Site Services, LLC", "JSM Electric Supply, Inc."} <= names


def test_cost_code_map_divergences_registered(book):
    registry = {(d["key"], d["field"]) for d in book["divergences"] if d["entity"] == "cost_code"}
    remapped = 0
    for m in book["erp_cost_code_map"]:
        assert m["procore_code"] == m["code"] and re.match(r"^\d{2}-\d{2}-\d{2}$", m["intacct_task"])
        assert re.match(r"^\d{5}-\d{3}-$", m["vista_phase"])
        if m["vista_phase"] != m["code"].replace("-", "") + "-000-":
            remapped += 1
            assert (m["code"], "vista_phase") in registry
    assert 0.10 <= remapped / len(book["erp_cost_code_map"]) <= 0.20
    assert by(book["erp_cost_code_map"], "code")["31-200"]["vista_phase"] == "31200-000-"


def test_divergence_entries_point_at_real_records(book):
    vendors, codes = by(book["vendors"], "vendor_id"), by(book["erp_cost_code_map"], "code")
    from portals.core.registry import load_apps
    apps = set(load_apps())
    # an ERP beyond those the identity sentences name gives its own key for the example in a field
    # named after its app (seeds/divergences.py WORDED_ERPS)
    from seeds.divergences import WORDED_ERPS
    from seeds.erp_keys import ERP_KEYS
    unworded = {app for app in ERP_KEYS if app not in WORDED_ERPS}
    keyed = {"job": ("job_field", book["jobs"]), "cost_code": ("cost_code_field", book["erp_cost_code_map"]),
             "vendor": ("vendor_field", book["vendors"])}
    for d in book["divergences"]:
        own = d["entity"] == "identity" and d["key"] in keyed
        assert set(d) == {"id", "entity", "key", "field", "systems", "family", "why"} | (unworded if own else set())
        for app in unworded if own else ():
            field, records = keyed[d["key"]][0], keyed[d["key"]][1]
            assert app in d["systems"] and any(str(r.get(ERP_KEYS[app][field])) == d[app] for r in records), (d, app)
        assert set(d["systems"]) <= apps and d["family"] and d["why"]
        if d["entity"] == "vendor":
            v = vendors[d["key"]]
            if d["field"].startswith("names."):
                assert d["field"].split(".")[1] in v["names"]
            else:
                assert v[d["field"]]
        elif d["entity"] == "bank_check":  # a check the bank flagged against the ERP's register
            assert d["field"] in {"payee", "amount", "presented", "issue_records"} and d["family"] == "T_positive_pay"
            assert d["systems"] == [*BANKS, book["meta"]["pm_erp_app"], "vista_erp"] and d["key"].isdigit()
        elif d["entity"] == "identity" and d["key"] in {"bank_transaction", "bank_exception"}:
            assert d["field"] == "format" and d["systems"] == BANKS and d["family"] == "T_positive_pay"
        elif d["entity"] == "identity" and d["key"] == "plaid_transaction":  # Plaid's sign and ids
            assert d["field"] == "format" and d["systems"] == ["plaid", *BANKS] and d["family"] == "G_cash_tieout_plaid"
        elif d["entity"] == "identity" and d["key"] == "supplier":
            assert d["field"] == "format" and d["systems"] == ["corpay"] and d["family"] == "T_vendor_bank_change"
        elif d["entity"] == "bank_change":  # a request to pay a vendor somewhere the master does not know
            assert d["key"] in vendors and d["field"] == "bank_account" and d["systems"] == ["corpay"]
            assert d["family"] == "T_vendor_bank_change" and vendors[d["key"]]["phone"] in d["why"]
        elif d["entity"] == "lien_notice":  # a notice naming the sub who hired its claimant by its DBA
            assert d["key"] in vendors and d["field"] == "hired_by" and d["systems"] == ["levelset"]
            assert d["family"] == "H_levelset_notice_holds" and f"'{vendors[d['key']]['dba']}'" in d["why"]
        elif d["entity"] == "use_tax":  # an untaxed invoice whose use tax is not yet in AvaTax
            bill = by(book["ap_bills"], "bill_id")[d["key"]]
            assert d["field"] == "accrual" and d["systems"] == ["avalara"] and d["family"] == "C_use_tax_accrual"
            assert bill["cost_type"] == "M" and bill["invoice_number"] in d["why"]
            assert vendors[bill["vendor_id"]]["state"] != by(book["jobs"], "job")[bill["job"]]["state"]
        elif d["entity"] == "identity" and d["key"] in {"worker", "craft"}:  # ADP keys a worker by his aoid
            assert d["field"] == "format" and d["family"] == "P_certified_payroll"
            assert d["systems"] == (["lcptracker", "adp", "rippling"] if d["key"] == "worker" else ["lcptracker"])
        elif d["entity"] == "identity" and d["key"] == "estimate":  # HeavyBid's estimate codes
            assert d["field"] == "format" and d["systems"] == ["hcss_heavybid"]
            assert d["family"] == "A_job_setup_from_estimate" and estimating.WON_JOB in d["why"]
        elif d["entity"] == "codebook":  # a HeavyBid activity code hh2's codebook map gives no phase
            assert d["field"] == "phase" and d["systems"] == ["hcss_heavybid", "hh2"]
            assert estimating.ACTIVITIES[d["key"]][1] is None
        elif d["entity"] == "hh2_mapping":  # a sync-map row keyed to the wrong ERP record
            assert d["systems"] == ["hh2", "vista_erp"] and d["field"] in {"job", "cost_code", "employee"}
            assert any(k[2] == d["key"] for k in estimating.planted(book))
        elif d["entity"] == "identity":
            assert d["key"] in {"job", "cost_code", "vendor", "commitment"} and d["field"] == "format"
            assert "procore" in d["systems"] and len(d["systems"]) >= 2
        elif d["entity"] == "field_time":  # approved field time against the open payroll's timecards
            job, week, worker = d["key"].split("/")
            planted = [e for e in book["field_time_exceptions"] if e["worker_id"] == worker and week == e["week_ending"]
                       and job in (e["job"], e.get("to_job"))]
            assert planted and d["field"] in ("hours", "unapproved") and d["family"] == "P_field_time_recon"
            assert d["systems"] == ["rhumbix", "busybusy", "foundation_payroll"]
        elif d["family"] == "C_eapp_review":  # an eApp or change order RedTeam alone holds
            assert d["systems"] == ["redteam"] and d["field"] == "redteam.presence"
            section = {"requisition": ("requisitions", "invoice_number"), "change_order": ("change_orders", "co_id")}
            rows, key = section[d["entity"]][0], section[d["entity"]][1]
            planted = by(book["eapps"][rows], key)[d["key"]]
            assert planted["status"] in ("under_review", "pending") and d["key"] in d["why"]
            assert d["key"] not in {r.get(key) for r in book[rows]}  # in no other system's book section
        elif d["family"] == "C_ressio_bill_vista":  # a held sub bill Ressio alone holds
            from seeds.ressio_sub_bills import planted as held
            assert d["systems"] == ["ressio"] and d["field"] == "ressio.presence" and d["entity"] == "requisition"
            assert by(held(book), "invoice_number")[d["key"]]["status"] == "approved" and d["key"] in d["why"]
            assert d["key"] not in {r["invoice_number"] for r in book["requisitions"]}
        elif d["family"] == "A_ressio_change_order":  # a client change order Ressio alone holds
            from seeds.ressio_change_orders import orders
            assert d["systems"] == ["ressio"] and d["field"] == "ressio.presence"
            assert d["entity"] == "client_change_order"
            assert d["key"] in {f"{o['job']}/{o['number']}" for o in orders(book)}
            assert d["key"].split("/")[1] in d["why"]
        elif d["family"] == "B_draw_funding":  # a draw package or invoice INGENIOUS.BUILD alone holds
            assert d["systems"] == ["ingenious_build"] and d["field"] == "ingenious_build.presence"
            if d["entity"] == "application_package":
                assert by(book["funding"]["packages"], "number")[d["key"]]["status"] == "Draft"
            else:
                assert d["entity"] == "vendor_invoice"
                job, number = d["key"].split(":")
                assert any(i["job"] == job and i["invoice_number"] == number for i in book["funding"]["invoices"])
                assert not any(b["job"] == job and b["invoice_number"] == number for b in book["ap_bills"])
        elif d["entity"] == "budget_line":  # a line the owner re-forecast in INGENIOUS.BUILD, Procore a month behind
            job, code, ctype = d["key"].split(":")
            owner = next(f for f in book["funding"]["forecasts"] if (f["job"], f["cost_code"], f["cost_type"]) == (job, code, ctype))
            line = next(b for b in book["budget_lines"] if (b["job"], b["cost_code"], b["cost_type"]) == (job, code, ctype))
            assert d["field"] == "ingenious_build.forecast_to_complete" and d["family"] == "A_etc_forecast"
            assert d["systems"] == ["ingenious_build", "procore"] and owner["forecast_to_complete"] != line["forecast_to_complete"]
        elif d["entity"] == "change_order":
            co = by(book["change_orders"], "co_id")[d["key"]]
            if d["field"] == "signed_amount":  # the owner signed another total than Procore's
                doc = next(x["fields"] for x in book["documents"] if x["kind"] == "change_order"
                           and x["fields"]["co_id"] == d["key"])
                assert doc["amount"] != co["amount"] and doc["owner_signature"].startswith("Signed")
                assert set(d["systems"]) == {"box", "procore"} and d["family"] == "A_change_order"
                continue
            assert d["field"] == "gcpay_sov" and co["kind"] == "owner" and co["status"] == "approved"
            assert {"gcpay", "procore"} <= set(d["systems"])
        elif d["entity"] == "boq_item":  # SmarteBuild's measurement: a variation, or a line measured past its quantity
            job, code = d["key"].split("/")
            item = next(i for i in book["boq"]["items"] if i["job"] == job and i["item_code"] == code)
            assert d["systems"] == ["smartbuild"] and d["family"] == "B_progress_claim_boq"
            if d["field"] == "smartbuild.variation":
                co = by(book["change_orders"], "co_id")[item["change_order"]]
                assert co["kind"] == "owner" and co["status"] == "pending" and co["co_id"] in d["why"]
            else:
                assert d["field"] == "smartbuild.measured" and Decimal(item["measured_qty"]) > Decimal(item["quantity"])
        elif d["entity"] == "reestimate_line":  # SmarteBuild's cost re-estimate moved off Vista's budget
            job, code, ctype = d["key"].split("/")
            line = next(i for i in book["boq"]["reestimates"] if (i["job"], i["cost_code"], i["cost_type"]) == (job, code, ctype))
            assert d["systems"] == ["smartbuild", "vista_erp"] and d["family"] == "A_reestimate_vista_budget"
            assert d["field"] == f"smartbuild.{line['case']}"
            assert ("vista_pending" in line) == (line["case"] == "already_pending")
        elif d["entity"] == "change_request":  # a pending change order Vista alone holds, for part of a re-estimated move
            job, phase, ctype = d["key"].split("/")
            (held,) = [c for c in book["erp_pending_changes"] if (c["job"], c["cost_type"]) == (job, ctype)
                       and codes[c["cost_code"]].get("vista_phase") == phase]
            assert d["systems"] == [held["erp"]] == ["vista_erp"] and d["field"] == "vista_erp.pending"
            assert d["family"] == "A_reestimate_vista_budget" and held["cost_effect"] in d["why"]
        elif d["entity"] == "project":  # a PM platform's opportunities before award, or its own stages
            assert d["key"] in apps and d["field"] in ("prospects", "stage") and d["systems"] == [d["key"]]
        else:
            assert d["entity"] == "cost_code" and d["field"] in codes[d["key"]]
    assert any(d["key"] == "V1001" and d["family"] == "C_invoice_code" for d in book["divergences"])
    assert {d["key"] for d in book["divergences"] if d["entity"] == "identity"} == \
        {"job", "cost_code", "vendor", "worker", "craft", "bank_transaction", "bank_exception", "commitment",
         "supplier", "estimate",
         "plaid_transaction"}
    checks = [d for d in book["divergences"] if d["entity"] == "bank_check"]
    assert {d["field"] for d in checks} == {"payee", "amount", "presented", "issue_records"}
    # the day's nine exceptions, and every check of the run whose issue file was loaded twice
    twice = [d for d in checks if d["field"] == "issue_records"]
    assert len(checks) - len(twice) == 8 and len(twice) >= 2 and len({d["key"] for d in checks}) == len(checks) - 2


def test_each_erp_keeps_its_own_keys_and_every_exception_is_registered(book):
    """Every ERP's codes and job numbers follow its convention (seeds/erp_keys.py), except the
    registered ones; the third ERP writes cost codes as CSI digits and jobs as year-job, the fourth
    cost codes in the mask XX-XXXX and jobs as the start year and the job, the fifth (CMiC) cost codes as
    division.section and jobs with the four-digit start year, the sixth (Acumatica) segmented cost
    codes and PRJ project IDs, the seventh (QuickBooks Online) classes for cost codes."""
    from seeds.erp_keys import ERP_KEYS, erp_code, erp_job
    registry = {(d["key"], d["field"]) for d in book["divergences"] if d["entity"] == "cost_code"}
    csi = {c["code"]: c["csi"] for c in book["cost_codes"]}
    for app, keys in ERP_KEYS.items():
        for m in book["erp_cost_code_map"]:
            if m[keys["cost_code_field"]] != erp_code(app, m["code"], csi[m["code"]]):
                assert (m["code"], keys["cost_code_field"]) in registry, (app, m)
        if keys["job_field"]:
            assert all(j[keys["job_field"]] == erp_job(app, j) for j in book["jobs"])
    codes = by(book["erp_cost_code_map"], "code")
    assert codes["31-200"]["foundation_code"] == "312300"
    assert by(book["jobs"], "job")["1042"]["foundation_job"] == "24-1042"
    # Intacct: CSI tasks with dashes and "P-" projects; Vista keeps the company's job number
    assert codes["31-200"]["intacct_task"] == "31-23-00"
    assert by(book["jobs"], "job")["9140"]["intacct_project"] == "P-9140"
    assert all("vista_job" not in j for j in book["jobs"])
    assert by(book["vendors"], "vendor_id")["V1001"]["foundation_vendor"] == "JSMORA01"
    # Sage 300 CRE: CSI cost codes in the mask XX-XXXX, year-and-job ids, ten-character vendor ids
    assert codes["31-200"]["sage300_code"] == "31-2300" and codes["03-300"]["sage300_code"] == "03-3000"
    assert by(book["jobs"], "job")["9140"]["sage300_job"] == "249140"
    assert by(book["vendors"], "vendor_id")["V1001"]["sage300_vendor"] == "JSMORALE01"
    assert all(re.fullmatch(r"[A-Z]{1,8}[0-9]{2}", v["sage300_vendor"]) for v in book["vendors"])
    # CMiC: six-digit Business Partner codes, cost codes as division.section, the four-digit year
    assert codes["31-200"]["cmic_code"] == "31.2300" and codes["03-300"]["cmic_code"] == "03.3000"
    assert by(book["jobs"], "job")["9140"]["cmic_job"] == "2024-9140"
    assert by(book["vendors"], "vendor_id")["V1001"]["cmic_partner"] == 301560
    assert len({v["cmic_partner"] for v in book["vendors"]}) == len(book["vendors"])
    # Acumatica: V and six digits in the company's vendor order, segmented codes, PRJ project IDs
    assert codes["31-200"]["acumatica_code"] == "31-200-00"
    assert by(book["jobs"], "job")["9140"]["acumatica_project"] == "PRJ24-9140"
    vendors = by(book["vendors"], "vendor_id")
    assert vendors["V1000"]["acumatica_vendor"] == "V000103" and vendors["V1001"]["acumatica_vendor"] == "V000106"
    assert all(re.fullmatch(r"V[0-9]{6}", v["acumatica_vendor"]) for v in book["vendors"])
    # QuickBooks Online: numeric Vendor Ids in the company's order, classes Division:Section
    assert codes["31-200"]["qbo_class"] == "31:200"
    assert vendors["V1000"]["qbo_vendor"] == 56 and vendors["V1001"]["qbo_vendor"] == 57
    assert all("qbo_job" not in j for j in book["jobs"])
    # ComputerEase: vendor numbers of four letters and a sequence, five-digit phases, J-year jobs
    assert codes["31-200"]["computerease_phase"] == "31200" and codes["03-300"]["computerease_phase"] == "03300"
    assert by(book["jobs"], "job")["9140"]["computerease_job"] == "J24-9140"
    assert vendors["V1001"]["computerease_vendor"] == "JSMO01"
    assert all(re.fullmatch(r"[A-Z]{1,4}[0-9]{2}", v["computerease_vendor"]) for v in book["vendors"])
    assert len({v["computerease_vendor"] for v in book["vendors"]}) == len(book["vendors"])


def test_certified_payroll_is_paid_as_the_wage_determination_requires(book):
    """Every timecard of the book pays at least the WD rate for its craft and level, overtime at
    1.5 x the basic rate, the fringe on every hour; crews keep within each craft's apprentice ratio.
    Except the weeks P_certified_payroll checks, whose planted findings its own test covers."""
    from seeds.payroll import FEDERALLY_ASSISTED, LAST_WEEK_ENDING, PLANTED
    wds = {w["job"]: {(r["craft"], r["level"]): r for r in w["rates"]} for w in book["wage_determinations"]}
    # the active public-works jobs, and the federally assisted ones Davis-Bacon reaches too
    assert set(wds) == {j["job"] for j in book["jobs"] if j["job_type"] == "public_works" and j["status"] == "active"
                        } | set(FEDERALLY_ASSISTED)
    assert {"1042", "1990", "2014", "2041", "2200", "3100"} <= set(wds)
    workers = by(book["workers"], "worker_id")
    assert len(workers) >= 300 and len(book["timecards"]) >= 800
    crews = defaultdict(Counter)
    planted = {(job, LAST_WEEK_ENDING.isoformat()) for job in PLANTED}
    for t in book["timecards"]:
        if (t["job"], t["week_ending"]) in planted:
            continue
        rate = wds[t["job"]][(t["craft"], t["level"])]
        base, fringe = Decimal(rate["base"]), Decimal(rate["fringe"])
        assert Decimal(t["st_rate"]) + Decimal(t["fringe_plan"]) >= base + fringe
        assert Decimal(t["ot_rate"]) == (base * Decimal("1.5")).quantize(Decimal("0.01"), ROUND_HALF_UP) + Decimal(t["fringe_cash"])
        hours = sum(Decimal(h) for h in t["hours"])
        assert hours == Decimal(t["st_hours"]) + Decimal(t["ot_hours"]) and Decimal(t["st_hours"]) <= 40
        assert workers[t["worker_id"]]["level"] == t["level"]
        if t["level"] != "J":
            assert workers[t["worker_id"]]["apprentice_program"]
        crews[(t["job"], t["week_ending"], t["craft"])][t["level"] == "J"] += 1
    for (job, _week, craft), count in crews.items():
        ratio = int(wds[job][(craft, "J")]["apprentice_ratio"].split(":")[1])
        assert count[False] <= count[True] // ratio, (job, craft)
