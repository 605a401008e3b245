"""The consistency contract: systems tie out, except where the registry says they must not."""
from __future__ import annotations

from seeds import consistency
from seeds.book import load_book


def test_every_difference_between_the_seeded_apps_is_registered(store):
    book = load_book()
    found = consistency.all_mismatches(store, book)
    assert found, "the book is meant to carry controlled divergences"
    assert consistency.unregistered(found, book["divergences"]) == []


def test_every_registered_divergence_actually_occurs(store):
    book = load_book()
    assert consistency.stale(consistency.all_mismatches(store, book), book["divergences"]) == []


def test_the_checker_catches_an_unregistered_difference(store):
    book = load_book()
    found = consistency.all_mismatches(store, book)
    dropped = book["divergences"][0]
    registry = [d for d in book["divergences"] if d is not dropped]
    missing = consistency.unregistered(found, registry)
    assert [(m.entity, m.key, m.field) for m in missing] == \
        [(dropped["entity"], dropped["key"], dropped["field"])] * len(missing) and missing


def test_the_families_that_need_the_divergences_are_named():
    families = {d["family"] for d in load_book()["divergences"]}
    assert {"C_invoice_code", "H_procore_erp_sync"} <= families


def test_spelling_conventions_are_not_divergences():
    assert consistency.same_company("J.S. Morales Excavating, Inc.", "JS MORALES EXCAVATING INC")
    assert consistency.same_company("J&M Site Services, LLC", "J AND M SITE SERVICES")
    assert not consistency.same_company("JSM Excavating", "JS Morales Excavating Inc")

def test_each_erps_own_format_is_a_convention_not_a_divergence():
    from seeds.erp_keys import erp_code, erp_job
    assert erp_code("vista_erp", "31-200", "31 23 00") == "31200-000-"
    assert erp_code("sage_intacct", "31-200", "31 23 00") == "31-23-00"
    assert erp_job("sage_intacct", {"job": "9140", "start_date": "2024-04-22"}) == "P-9140"
    assert erp_job("vista_erp", {"job": "1042", "start_date": "2024-03-01"}) == "1042"
    assert erp_code("foundation_erp", "31-200", "31 23 00") == "312300"
    assert erp_job("foundation_erp", {"job": "1042", "start_date": "2024-03-01"}) == "24-1042"
    assert erp_code("sage300cre", "31-200", "31 23 00") == "31-2300"
    assert erp_job("sage300cre", {"job": "1042", "start_date": "2024-03-01"}) == "241042"
    assert erp_code("cmic", "31-200", "31 23 00") == "31.2300"
    assert erp_job("cmic", {"job": "1042", "start_date": "2024-03-01"}) == "2024-1042"
    assert erp_code("acumatica_construction", "31-200", "31 23 00") == "31-200-00"
    assert erp_job("acumatica_construction", {"job": "1042", "start_date": "2024-03-01"}) == "PRJ24-1042"
    assert erp_code("qbo", "31-200", "31 23 00") == "31:200"
    assert erp_job("qbo", {"job": "1042", "start_date": "2024-03-01"}) == "1042"
    assert erp_code("computerease", "31-200", "31 23 00") == "31200"
    assert erp_job("computerease", {"job": "1042", "start_date": "2024-03-01"}) == "J24-1042"


def test_every_erp_manifest_is_checked(store):
    """The checker loops over the registry's ERPs: each one's tables are read, and a difference
    planted in any one of them is caught."""
    from portals.core.registry import load_apps
    erps = {s.name for s in load_apps().values() if s.kind == "erp"}
    assert {app for app, _cfg in consistency.erp_apps()} == erps and {"foundation_erp", "sage300cre", "cmic", "acumatica_construction", "qbo",
                                                                            "computerease"} <= erps
    book = load_book()
    episode = store.create(sorted(erps | {"procore"}))
    try:
        live = _EpisodeTemplates(episode)
        assert consistency.job_mismatches(live, book) == []
        for app in sorted(erps):
            conn = episode.app(app).conn
            conn.execute("UPDATE jobs SET name = name || ' (old)' WHERE job = (SELECT MIN(job) FROM jobs)")
            planted = consistency.job_mismatches(live, book)
            assert [(m.entity, m.field, m.detail) for m in planted] == [
                ("job", "name", f"{app} differs from procore")], app
            episode.reset()
    finally:
        store.drop(episode.id)


class _EpisodeTemplates:
    """An episode's live tables behind the checker's store interface (template(app).rows)."""

    def __init__(self, episode):
        self.episode = episode

    def template(self, app):
        from portals.core.db import read_table
        inst = self.episode.app(app)

        class Live:
            def rows(self, table):
                pk = inst.spec.pks[table]
                return {r[pk]: r for r in read_table(inst.conn, table, pk)}
        return Live()


def test_each_kind_of_key_the_systems_write_their_own_way_is_registered_once(store):
    """Jobs, cost codes and vendors are keyed differently across the systems (Intacct's "P-"
    projects and CSI tasks, Vista's numbered vendors and phases, FOUNDATION's year-jobs, Procore's
    own company ids); the checker finds each kind, and the registry names the same systems."""
    book = load_book()
    found = {m.key: m.detail for m in consistency.identity_mismatches(store)}
    registry = {d["key"]: d for d in book["divergences"] if d["entity"] == "identity"}
    assert set(found) == set(registry) == {"job", "cost_code", "vendor", "worker", "craft", "bank_transaction", "bank_exception", "commitment",
                                                  "supplier", "estimate",
                                                  "plaid_transaction"}
    for kind, detail in found.items():
        named = set(detail.split(" key ")[0].split(", "))
        expected = named if kind in {"worker", "craft", "bank_transaction", "bank_exception", "supplier", "estimate",
                                     "plaid_transaction"} else named | {"procore"}
        assert expected == set(registry[kind]["systems"]), (kind, detail)
    assert "sage_intacct" in registry["job"]["systems"] and "vista_erp" not in registry["job"]["systems"]
    assert {"gcpay", "lcptracker"} <= set(registry["job"]["systems"])
    assert registry["craft"]["systems"] == ["lcptracker"]
    assert registry["worker"]["systems"] == ["lcptracker", "adp", "rippling"]  # ADP: the aoid; Rippling: its worker id
    assert "sage_intacct" not in registry["vendor"]["systems"]  # Procore's origin ids are Intacct's


def test_gcpay_ties_out_to_procore_and_the_erps_except_its_registered_change_orders(store):
    """GCPay's projects carry the job number beside their own code, the owner, sum and SOV of
    Procore's prime contract, and Procore's pay apps as AFPs; an owner change order approved
    since the last pay application is the one registered difference (B_aia_g702's), and it goes
    away once the change order is added to the SOV. A difference planted in GCPay is caught."""
    from portals.core.environment import Environment

    book = load_book()
    registered = {d["key"] for d in book["divergences"] if d["field"] == "gcpay_sov"}
    assert registered and {d["family"] for d in book["divergences"] if d["field"] == "gcpay_sov"} == {"B_aia_g702"}
    assert {m.key for m in consistency.gcpay_mismatches(store)} == registered
    erps = [app for app, _cfg in consistency.erp_apps()]
    episode = store.create(sorted({"gcpay", "procore", *erps}))
    try:
        live = _EpisodeTemplates(episode)
        co = sorted(registered)[0]
        job = co.split("-")[1]
        Environment(episode, ["gcpay"]).call("gcpay.sov.add_change_order", {"project_code": f"GC-{job}", "co_id": co})
        assert co not in {m.key for m in consistency.gcpay_mismatches(live)}
        conn = episode.app("gcpay").conn
        conn.execute("UPDATE projects SET owner = 'Another Owner LLC' WHERE erp_job = ?", (job,))
        conn.execute("UPDATE afps SET amount = amount + 1 WHERE afp_id = (SELECT MIN(afp_id) FROM afps)")
        planted = {(m.entity, m.field) for m in consistency.gcpay_mismatches(live)}
        assert {("project", "owner"), ("afp", "amount")} <= planted
    finally:
        store.drop(episode.id)


def test_lcptracker_keys_projects_workers_and_crafts_its_own_way(store):
    """LCPtracker files a project under the agency's contract number, keeps employee ids of its
    own and names the WD classification; each project's name is the job's, and each employee is
    the book's worker by name and the last four of the SSN. Were LCPtracker keyed by the job
    number, the registered job identity would name a system that no longer differs."""
    book = load_book()
    jobs = {j["job"]: j for j in book["jobs"]}
    wds = {wd["contract_number"]: wd for wd in book["wage_determinations"]}
    projects = list(store.template("lcptracker").rows("projects").values())
    assert {p["contract_number"] for p in projects} == set(wds)
    assert all(p["name"] == jobs[wds[p["contract_number"]]["job"]]["name"] for p in projects)
    people = {(w["first_name"], w["last_name"], w["ssn"][-4:]) for w in book["workers"]}
    employees = list(store.template("lcptracker").rows("employees").values())
    assert employees and all((e["first_name"], e["last_name"], e["ssn_last4"]) in people for e in employees)
    assert not {str(e["employee_id"]) for e in employees} & {w["worker_id"] for w in book["workers"]}

    class Rekeyed:
        def template(self, app):
            rows = store.template(app).rows
            if app != "lcptracker":
                return store.template(app)

            class T:
                def rows(self, table):
                    out = rows(table)
                    if table == "projects":
                        return {k: {**r, "contract_number": wds[r["contract_number"]]["job"]} for k, r in out.items()}
                    return out
            return T()
    rekeyed = {m.key: m.detail for m in consistency.identity_mismatches(Rekeyed(), book)}
    assert "lcptracker" not in rekeyed["job"] and "lcptracker" in found_job(store, book)


def found_job(store, book) -> str:
    return next(m.detail for m in consistency.identity_mismatches(store, book) if m.key == "job")


def test_foundation_payroll_is_the_source_of_lcptrackers_records(store):
    """Every LCPtracker payroll record is a FOUNDATION Payroll timecard of the same person, job
    (by the contract number on its certified setup) and week, paid the same; FOUNDATION Payroll
    charges labor to FOUNDATION's job numbers (the registered job identity names it). A pay
    difference planted in either system is caught."""
    book = load_book()
    assert consistency.payroll_mismatches(store) == []
    assert "foundation_payroll" in found_job(store, book)
    registry = {d["key"]: d for d in book["divergences"] if d["entity"] == "identity"}
    assert "foundation_payroll" in registry["job"]["systems"]
    # the entries say how FOUNDATION Payroll keys the same things: the first WD job under its
    # FOUNDATION number, a worker under his employee number, a craft under its class code
    wd = book["wage_determinations"][0]
    job = next(j for j in book["jobs"] if j["job"] == wd["job"])
    assert f"job {wd['job']} is {job['foundation_job']}" in registry["job"]["why"].split("FOUNDATION Payroll", 1)[1]
    worker = next(w for w in book["workers"] if w["foundation_employee"] in registry["worker"]["why"])
    assert "FOUNDATION Payroll's employee #" in registry["worker"]["why"] and worker["ssn"][-4:] in registry["worker"]["why"]
    assert "FOUNDATION Payroll's classes" in registry["craft"]["why"]
    payroll_rows = store.template("foundation_payroll").rows
    assert job["foundation_job"] in payroll_rows("jobs")
    assert worker["foundation_employee"] in payroll_rows("employees")
    episode = store.create(["foundation_payroll", "adp", "rippling", "lcptracker"])  # every payroll source is checked
    try:
        live = _EpisodeTemplates(episode)
        episode.app("foundation_payroll").conn.execute(
            "UPDATE timecards SET earnings = '1.00' WHERE timecard_id = (SELECT MIN(timecard_id) FROM timecards)")
        episode.app("lcptracker").conn.execute(
            "DELETE FROM payroll_records WHERE record_id = (SELECT MAX(record_id) FROM payroll_records)")
        planted = {(m.entity, m.field) for m in consistency.payroll_mismatches(live)}
        assert planted == {("payroll_record", "pay"), ("payroll_record", "presence")}
    finally:
        store.drop(episode.id)
