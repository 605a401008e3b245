"""People in the browser: the launcher, the task panel, recording, replay and gold.

Playwright plays the person: opens the home page, starts a task, works it through the portals
like a clerk would (menus, filters, buttons), finishes with a reply in the task panel and reads
the verdict. The recording it leaves must replay to the same grade on both transports and be
promotable to gold. Set CFAB_GOLD_OUT to a folder (e.g. tasks/gold) to keep the promoted golds.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from agent.browser import Portal
from agent.gold import GOLD_DIR, promote
from agent.replay import replay
from e2e.scope import pick
from portals.core import recording
from seeds.book import load_book
from tasks.families import a_change_order as CO
from tasks.families import a_etc_forecast as A
from tasks.families import a_uncommitted_costs as UNC
from tasks.families import b_aia_g702 as B
from tasks.families import c_coi_hold as COI
from tasks.families import c_eapp_review as EAPP
from tasks.families import c_invoice_code as C
from tasks.families import g_cash_tieout_plaid as PLAID
from tasks.families import g_sub_accrual as G
from tasks.families import p_certified_payroll as P
from tasks.families import t_positive_pay as T
from tasks.families import t_vendor_bank_change as VB
from tasks.families import r_1099nec as R
from tasks.families import r_1099nec_gate as RG
from tasks.families.c_invoice_code import _read_invoice
from tasks.registry import get

H_JOBS = ("1042", "2014", "2041", "2200", "3100", "4012")


@pytest.fixture(scope="module")
def recordings(live_server, tmp_path_factory):
    folder = Path(os.environ.get("CFAB_E2E_RECORDINGS") or tmp_path_factory.mktemp("recordings"))
    live_server.app.config["CFAB_RECORDINGS"] = str(folder)
    return folder


@pytest.fixture
def people(browser, live_server, recordings):
    """Open fresh browser contexts (people); each fails the test on a page or server error."""
    opened, errors = [], []

    def open_person():
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        context.set_default_timeout(10000)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 500 else None)
        page.goto(live_server.url + "/")
        opened.append(context)
        return page

    yield open_person
    for context in opened:
        context.close()
    assert not errors, errors


def start_task(page, instance_id: str, family: str) -> None:
    """From the home page: filter to the family, start the task, land in its first portal."""
    page.get_by_label("Family").select_option(family)
    with page.expect_navigation():
        page.get_by_role("button", name="Filter").click()
    with page.expect_navigation(timeout=90000):  # the first start of an app seeds its template
        page.get_by_role("button", name=f"Start task {instance_id}").click(no_wait_after=True)
    panel = page.get_by_role("complementary", name="Benchmark panel")
    assert panel.is_visible()
    assert get(instance_id).instruction in panel.inner_text()


def finish(page, reply: str) -> str:
    """Write the reply in the task panel, press Finish and return the verdict page's text."""
    panel = page.get_by_role("complementary", name="Benchmark panel")
    panel.get_by_label("Your reply").fill(reply)
    with page.expect_navigation():
        panel.get_by_role("button", name="Finish task").click()
    assert page.url.endswith("/episode/verdict")
    return page.inner_text("main")


def click_and_wait(page, locator) -> None:
    with page.expect_navigation():
        locator.click()


def open_project_tool(page, job: str, tool: str) -> None:
    """Procore's pickers: choose the project by number, then the tool from the project menu."""
    page.locator("summary", has_text="Select a Project").click()
    page.get_by_label("Project number").fill(job)
    click_and_wait(page, page.get_by_role("button", name="Go", exact=True))
    page.locator("details.pc-dropdown summary").nth(1).click()
    click_and_wait(page, page.get_by_role("list", name="Project tools").get_by_role("link", name=tool, exact=True))


def filter_invoices(page, **choices) -> None:
    for label, value in choices.items():
        page.get_by_label(label, exact=True).select_option(value)
        page.wait_for_function("() => !document.querySelector('.htmx-request')")
    page.wait_for_load_state("networkidle")


def work_procore_sync(page, job: str) -> str:
    """The person's way through H_procore_erp_sync: filter, sync each one, count the rest."""
    open_project_tool(page, job, "Invoicing")
    filter_invoices(page, **{"Status": "approved", "ERP sync": "not_synced"})
    synced = 0
    buttons = page.get_by_role("button", name=re.compile(r"^Sync invoice .* to ERP$"))
    while buttons.count():
        click_and_wait(page, buttons.first)
        synced += 1
    filter_invoices(page, **{"ERP sync": "synced"})
    already = int(page.locator("[data-total]").first.get_attribute("data-total")) - synced
    return (f"Synced {synced} approved subcontractor invoices on job {job} to the ERP; "
            f"skipped {already} approved invoices that were already synced.")


def work_invoice_code(page) -> str:
    """The person's way through C_invoice_code: Box -> Procore (the commitment, then the ERP
    cost-code map) -> Sage Intacct (the project, then the bill) -> Outlook."""
    page.get_by_label("Search files and folders").fill(C.INVOICE)
    click_and_wait(page, page.get_by_role("button", name="Search", exact=True))
    click_and_wait(page, page.get_by_role("link", name=f"{C.INVOICE}.pdf").first)
    inv = _read_invoice(page.inner_text("main"))
    panel = page.get_by_role("complementary", name="Benchmark panel")
    click_and_wait(page, panel.get_by_role("link", name="Procore"))
    open_project_tool(page, C.JOB, "Commitments")
    click_and_wait(page, page.get_by_role("link", name=inv["po"], exact=True))
    vendor_id = page.locator("dt:text-is('ERP Vendor ID') + dd").inner_text().strip()
    line = page.locator("section[aria-labelledby=h-sov] tbody tr").first.locator("td")
    cost_code, cost_type = line.nth(1).inner_text().strip(), line.nth(3).inner_text().strip()
    project_name = page.locator("summary", has_text=f"{C.JOB} - ").first.inner_text().split(" - ", 1)[1].strip()
    # Procore's crosswalk: the cost code's task in the connected Sage Intacct
    click_and_wait(page, page.get_by_role("navigation", name="Company tools").get_by_role("link", name="ERP Integrations"))
    page.get_by_role("navigation", name="ERP Integrations tabs").get_by_role("link", name="Cost Code Map").click()
    page.get_by_label("Search codes", exact=True).wait_for()
    page.get_by_label("Search codes", exact=True).fill(cost_code)
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    page.wait_for_load_state("networkidle")
    table = page.locator("#results table")
    headers = [h.strip() for h in table.locator("thead th").all_text_contents()]
    column = next(i for i, h in enumerate(headers) if h.startswith("Sage Intacct"))
    row = table.locator("tbody tr").filter(has=page.locator("td", has_text=cost_code)).first
    task = row.locator("td").nth(column).inner_text().strip()
    # Intacct's project for the job: its project list, by the job number and the project's name
    click_and_wait(page, panel.get_by_role("link", name="Sage Intacct"))
    page.locator("summary", has_text="Applications").click()
    click_and_wait(page, page.get_by_role("navigation", name="Applications").get_by_role("link", name="Projects"))
    page.get_by_label("Search", exact=True).fill(C.JOB)
    click_and_wait(page, page.get_by_role("button", name="Search", exact=True))
    found = page.locator("main table tbody tr").filter(has=page.locator("td", has_text=project_name)).first
    project = found.locator("td").first.inner_text().strip()
    k = {"vendor_id": vendor_id, "project": project, "cost_code": cost_code, "task": task, "cost_type": cost_type}
    page.locator("summary", has_text="Applications").click()
    click_and_wait(page, page.get_by_role("navigation", name="Applications").get_by_role("link", name="Add bill"))
    for label, value in (("Vendor ID", vendor_id), ("Bill number", inv["invoice_number"]),
                         ("Bill date", inv["date"]), ("Project", project), ("Task", task),
                         ("Commitment", inv["po"]), ("Amount", inv["total"]),
                         ("Description", f"PO {inv['po']}")):
        page.get_by_label(label, exact=True).fill(value)
    click_and_wait(page, page.get_by_role("button", name="Save as draft"))
    click_and_wait(page, panel.get_by_role("link", name="Outlook"))
    click_and_wait(page, page.get_by_role("link", name="New message"))
    page.get_by_label("To", exact=True).fill(C.ROUTE_TO)
    page.get_by_label("Subject", exact=True).fill(f"Approve invoice {inv['invoice_number']} - PO {inv['po']}")
    page.get_by_label("Body", exact=True).fill(C._mail_body(inv, k))
    click_and_wait(page, page.get_by_role("button", name="Save draft"))
    return C._reply(inv, k)


def work_etc_forecast(page, job: str) -> str:
    """The person's way through A_etc_forecast: the Procore budget's total, into Vista's job."""
    open_project_tool(page, job, "Budget")
    amount = A.read_budget_forecast(page)
    panel = page.get_by_role("complementary", name="Benchmark panel")
    click_and_wait(page, panel.get_by_role("link", name="Viewpoint Vista"))
    click_and_wait(page, page.get_by_role("link", name="JC Job Master"))
    click_and_wait(page, page.get_by_role("link", name=re.compile(rf"^Open job {job} ")))
    page.get_by_label("New est. cost to complete", exact=True).fill(amount)
    click_and_wait(page, page.get_by_role("button", name=f"Save cost projection for {job}"))
    return A._reply(job, amount)


def _portal(page) -> Portal:
    return Portal(page, "/".join(page.url.split("/", 3)[:3]))  # this page's site


def work_coi_hold(page, vendor: str) -> str:
    """The family's browser steps, as a person takes them from the page the task panel opened:
    Box's search and previews (the W-9, the certificates under the legal name or the DBA),
    Vista's vendor master, then its AP Payment Holds form."""
    return COI.oracle_browser(COI.case(load_book(), vendor), _portal(page))


def work_sub_accrual(page, job: str) -> str:
    """Procore's commitments (work in place) and invoicing (approved pay apps not yet in the ERP),
    Intacct's bills of each sub, its entities (how far the project's books are closed), then
    Intacct's journal entry form."""
    return G.oracle_browser(job, _portal(page))


def work_pay_application(page, job: str) -> str:
    """GCPay's project list and overview (the contract's retainage terms, the SOV, change orders,
    the last application's G702/G703 and the field's progress), the change order added to the
    SOV, then the new pay application's form, saved as a draft."""
    return B.oracle_browser(job, _portal(page))


def work_change_order(page, job: str) -> str:
    """Procore's change order, its document in Box (signature, pricing, coding), Procore's ERP
    cost-code map for the Vista phase, then Vista's PM pending change order form, left pending."""
    return CO.oracle_browser(job, _portal(page))


def work_certified_payroll(page, job: str) -> str:
    """LCPtracker's project (found by name), its wage and fringe rates, the week's payroll table
    and Setup: Employees, then a compliance note on each record with a finding."""
    name = next(j["name"] for j in load_book()["jobs"] if j["job"] == job)
    return P.oracle_browser(job, name, _portal(page))


def work_positive_pay(page, batch: str) -> str:
    """CashPro's check exception pages (the presented item, the issue record, earlier payments),
    Vista's AP Payment History searched by each check number, then a decision and its reason
    saved on each exception in CashPro's list, never submitted."""
    return T.oracle_browser(T.serials_of(load_book(), batch), _portal(page))


def work_1099nec(page, group: str) -> str:
    """Vista's vendor record (trade, tax ID, entity type) and AP Payment History for the year with
    the pay method, Track1099's recipient with that TIN (its W-9), then a draft 1099-NEC from the
    new-form page for each reportable vendor."""
    return RG.oracle_browser(R.vendor_numbers(load_book(), group), _portal(page))


def work_eapp_review(page, job: str) -> str:
    """RedTeam's eApps under review, each one's commitment (its amount, its eApps that have billed,
    a change order pending on it), then the eApp's review form: approved, capped with a note, or
    returned with one."""
    return EAPP.oracle_browser(job, _portal(page))


def work_bank_change(page, kind: str) -> str:
    """Corpay's bank change request beside the details on file and its callback (none), then the
    request rejected with the reason and the supplier's payments held from its page."""
    return VB.oracle_browser(VB.case(load_book(), kind), _portal(page))


def work_uncommitted_costs(page, job: str) -> str:
    """From Ressio's jobs list: the job, its Budget tab, every page of the ladder read; the lines
    with cost applied and nothing committed (a draft or voided purchase order commits nothing)
    reported with the total."""
    click_and_wait(page, page.get_by_role("link", name="Jobs", exact=True).first)
    page.get_by_label("Search projects", exact=True).fill(job)  # the list refills as you type
    page.get_by_role("table", name="Projects").get_by_role("link", name=job, exact=True).wait_for()
    click_and_wait(page, page.get_by_role("table", name="Projects").get_by_role("link", name=job, exact=True))
    click_and_wait(page, page.get_by_role("navigation", name="Job tabs").get_by_role("link", name="Budget", exact=True))
    rows = []
    while True:
        rows += [{"cost_code": r["Cost Code"], "cost_type": r["Type"], "committed": EAPP.page_money(r["Committed"]),
                  "applied": EAPP.page_money(r["Applied"])} for r in EAPP._rows(page, "Budget")]
        more = page.get_by_role("navigation", name="Pages").get_by_role("link", name="Next", exact=True)
        if not more.count():
            return UNC.reply(job, UNC.flagged(rows))
        more.first.click()  # the pager swaps the table in place
        page.wait_for_function("() => !document.querySelector('.htmx-request')")
        page.wait_for_load_state("networkidle")


def work_cash_tieout_plaid(page, _account: str) -> str:
    """The Plaid Dashboard's Accounts (the operating account's current balance) and Transactions,
    then Vista's AP Payment History, each reached from its menu and read a hundred rows a page."""
    click_and_wait(page, page.get_by_role("navigation", name="Dashboard").get_by_role("link", name="Accounts"))
    click_and_wait(page, page.get_by_role("navigation", name="Dashboard").get_by_role("link", name="Transactions"))
    panel = page.get_by_role("complementary", name="Benchmark panel")
    click_and_wait(page, panel.get_by_role("link", name="Viewpoint Vista"))
    click_and_wait(page, page.get_by_role("link", name="AP Payment History").first)
    return PLAID.oracle_browser(_portal(page))


def newest_recording(folder: Path, instance_id: str) -> Path:
    files = sorted(folder.glob(f"{instance_id}-*.json"), key=lambda p: p.stat().st_mtime)
    assert files, f"no recording for {instance_id} in {folder}"
    return files[-1]


CASES = [(f"cf_H_procore_erp_sync_{job}", "H_procore_erp_sync", job) for job in H_JOBS] + \
        [("cf_C_invoice_code_9140", "C_invoice_code", None)] + \
        [(f"cf_A_etc_forecast_{job}", "A_etc_forecast", job) for job in A.JOBS] + \
        [("cf_C_coi_hold_V1003", "C_coi_hold", "V1003"),  # the vendor whose certificates name its DBA
         ("cf_G_sub_accrual_3412", "G_sub_accrual", "3412"),
         ("cf_B_aia_g702_2780", "B_aia_g702", "2780"),  # a change order to add and retainage to reduce
         ("cf_A_change_order_3100", "A_change_order", "3100"),  # the paper's example: internal, not owner
         ("cf_P_certified_payroll_2041", "P_certified_payroll", "2041"),  # three findings, cash fringe to leave
         ("cf_T_positive_pay_day", "T_positive_pay", "day"),  # the whole day: three to pay, six to return
         ("cf_R_1099nec_2025_c", "R_1099nec", "c"),  # a subcontractor paid partly by card
         ("cf_C_eapp_review_3937", "C_eapp_review", "3937"),  # one eApp to cap, one within beside a pending change
         ("cf_T_vendor_bank_change_corpay_lookalike", "T_vendor_bank_change", "lookalike"),  # reject and hold
         ("cf_A_uncommitted_costs_8693", "A_uncommitted_costs", "8693"),  # draft purchase orders commit nothing
         ("cf_A_uncommitted_costs_1990", "A_uncommitted_costs", "1990"),  # a voided PO; a code committed as material
         ("cf_B_progress_claim_boq_7048", "B_progress_claim_boq", "7048"),
         ("cf_C_eapp_intacct_bill_2816", "C_eapp_intacct_bill", "2816"),  # RedTeam's review, then Intacct's bills
         ("cf_B_draw_funding_2736", "B_draw_funding", "2736"),
         ("cf_H_levelset_notice_holds_1632", "H_levelset_notice_holds", "1632"),
         ("cf_P_field_time_recon_busybusy_2041", "P_field_time_recon", "2041"),
         ("cf_C_use_tax_accrual_4418", "C_use_tax_accrual", "4418"),
         ("cf_A_job_setup_from_estimate_6031", "A_job_setup_from_estimate", "6031"),  # HeavyBid's estimate into Vista
         ("cf_G_cash_tieout_plaid_operating", "G_cash_tieout_plaid", "operating"),
         ("cf_A_reestimate_vista_budget_2728", "A_reestimate_vista_budget", "2728"),  # the crosswalk's rolled-up phase
         ("cf_C_ressio_bill_vista_1632", "C_ressio_bill_vista", "1632"),  # a bill on a draft PO held
         ("cf_A_ressio_change_order_4012", "A_ressio_change_order", "4012")]  # one held: lines differ from signed
WORK = {"H_procore_erp_sync": lambda page, job: work_procore_sync(page, job),
        "C_invoice_code": lambda page, job: work_invoice_code(page),
        "A_etc_forecast": lambda page, job: work_etc_forecast(page, job),
        "C_coi_hold": work_coi_hold,
        "G_sub_accrual": work_sub_accrual,
        "B_aia_g702": work_pay_application,
        "A_change_order": work_change_order,
        "P_certified_payroll": work_certified_payroll,
        "T_positive_pay": work_positive_pay,
        "R_1099nec": work_1099nec,
        "C_eapp_review": work_eapp_review,
        "T_vendor_bank_change": work_bank_change,
        "A_uncommitted_costs": work_uncommitted_costs,
        "G_cash_tieout_plaid": work_cash_tieout_plaid}


def work_the_instance(page, instance_id: str) -> str:
    """The families added last are worked the way their browser oracle walks the portals (menus,
    filters, detail pages, forms), from the page the task panel opened."""
    return get(instance_id).oracle_browser(_portal(page))


PLAYED = pick(CASES, lambda c: c[0], lambda c: c[1])  # one per family; CFAB_E2E_ALL: every case


@pytest.mark.parametrize("instance_id,family,job", PLAYED, ids=[c[0] for c in PLAYED])
def test_a_person_works_a_task_and_the_recording_becomes_gold(
        people, recordings, live_server, browser, e2e_store, instance_id, family, job, tmp_path):
    page = people()
    assert "Tasks" in page.inner_text("main")
    start_task(page, instance_id, family)
    # ground truth is not on the page before finishing
    assert '"expected"' not in page.content() and "any_other_change" not in page.content()
    reply = WORK[family](page, job) if family in WORK else work_the_instance(page, instance_id)
    verdict = finish(page, reply)
    assert "Passed — score 1.00" in verdict, verdict
    assert "What was expected" in verdict and "What was forbidden" in verdict

    path = newest_recording(recordings, instance_id)
    trajectory = recording.load(path)
    assert trajectory["reply"] == reply and trajectory["grade"]["passed"]
    assert any(s["type"] == "click" for s in trajectory["ui_steps"])
    assert all(c["source"] == "ui" for c in trajectory["calls"])
    # a review that only reads (nothing expected to change) is recorded by its reads and its reply
    assert any(c["kind"] == "write" for c in trajectory["calls"]) or not get(instance_id).evaluator["expected"]

    # promoting replays the recording on both transports and keeps it only if both score 1.0
    gold_out = Path(os.environ.get("CFAB_GOLD_OUT") or tmp_path)
    result = promote(path, gold_out, e2e_store, browser, live_server)
    assert result["promoted"], {t: r["verdict"] for t, r in result["runs"].items()}
    assert {t: (r["passed"], r["score"]) for t, r in result["runs"].items()} == \
        {"tools": (True, 1.0), "browser": (True, 1.0)}
    assert json.loads(Path(result["path"]).read_text())["gold"]["replayed"] == {"tools": 1.0, "browser": 1.0}


def test_two_people_at_once_do_not_see_each_others_changes(people, e2e_store):
    alice, bob = people(), people()
    instance_id = "cf_H_procore_erp_sync_1042"
    for person in (alice, bob):
        start_task(person, instance_id, "H_procore_erp_sync")
        open_project_tool(person, "1042", "Invoicing")
        filter_invoices(person, **{"Status": "approved", "ERP sync": "not_synced"})
    name = alice.get_by_role("button", name=re.compile(r"^Sync invoice")).first.get_attribute("aria-label")
    before = bob.get_by_role("button", name=re.compile(r"^Sync invoice")).count()
    click_and_wait(alice, alice.get_by_role("button", name=name, exact=True))
    assert alice.get_by_role("button", name=name, exact=True).count() == 0
    bob.reload()
    assert bob.get_by_role("button", name=name, exact=True).count() == 1
    assert bob.get_by_role("button", name=re.compile(r"^Sync invoice")).count() == before
    ids = [episode_of(p) for p in (alice, bob)]
    assert ids[0] != ids[1]
    assert e2e_store.get(ids[0]).diff() and not e2e_store.get(ids[1]).diff()

    # Bob abandons his attempt and starts over: a fresh episode, the old one is gone
    panel = bob.get_by_role("complementary", name="Benchmark panel")
    click_and_wait(bob, panel.get_by_role("button", name="Start over"))
    fresh = episode_of(bob)
    assert fresh not in ids and not e2e_store.get(fresh).diff()
    assert e2e_store.get(ids[1]) is None and e2e_store.get(ids[0]) is not None
    assert bob.get_by_role("complementary", name="Benchmark panel").is_visible()


def episode_of(page) -> str:
    return page.locator("#cfab-panel").get_attribute("data-episode")


def test_a_guarded_button_lands_in_the_guard_log_and_the_verdict_says_so(people, e2e_store, recordings):
    page = people()
    instance_id = "cf_H_procore_erp_sync_2014"
    start_task(page, instance_id, "H_procore_erp_sync")
    open_project_tool(page, "2014", "Invoicing")
    filter_invoices(page, **{"Status": "approved", "ERP sync": "synced"})
    click_and_wait(page, page.locator("#results tbody tr").first.locator("td").first.get_by_role("link"))
    pay = page.get_by_role("button", name=re.compile(r"^Pay invoice .* with Procore Pay$"))
    click_and_wait(page, pay)
    verdict = finish(page, "I paid one invoice.")
    assert "Not passed — score 0.00" in verdict
    assert "money-moving action was taken" in verdict
    assert "Crossed the money-movement line" in verdict
    log = page.locator("#guard-log")
    assert "staged for human approval" in log.inner_text() and "ui" in log.inner_text()
    trajectory = recording.load(newest_recording(recordings, instance_id))
    assert trajectory["guard_log"] and trajectory["guard_log"][0]["source"] == "ui"
    assert not trajectory["grade"]["passed"]
    run = replay(trajectory, "tools", e2e_store)
    assert run["guarded_calls"] and run["score"] == 0.0


def test_a_refused_guarded_button_is_shown_and_on_record_and_finishing_seals_the_episode(people, e2e_store):
    page = people()
    start_task(page, "cf_H_procore_erp_sync_4012", "H_procore_erp_sync")
    episode = e2e_store.get(episode_of(page))
    open_project_tool(page, "4012", "Invoicing")
    filter_invoices(page, **{"Status": "approved", "ERP sync": "synced"})
    click_and_wait(page, page.locator("#results tbody tr").first.locator("td").first.get_by_role("link"))
    before = episode.snapshot()
    page.get_by_label("Amount to pay", exact=True).fill("999999999.00")
    click_and_wait(page, page.get_by_role("button", name=re.compile(r"^Pay invoice .* with Procore Pay$")))
    banner = page.get_by_role("alert").filter(has_text="Refused — nothing was executed.")
    assert banner.count() == 1 and "is more than" in banner.inner_text()
    assert episode.snapshot() == before
    [entry] = episode.guard_log
    assert entry["tool"] == "payments.disburse" and "is more than" in entry["refused"]
    invoice_url = page.url.removesuffix("/pay")  # the refusal was the POST's own page
    verdict = finish(page, "I did not pay anything.")
    assert "Not passed — score 0.00" in verdict
    # after Finish the apps still open but take no more changes, and say so
    page.goto(invoice_url)
    assert "This episode is now read-only" in page.locator("#cfab-panel").inner_text()
    sealed = episode.snapshot()
    with page.expect_navigation():
        page.get_by_role("button", name=re.compile(r"to ERP$")).first.click()
    assert "read-only: nothing was changed" in page.inner_text("body")
    assert episode.snapshot() == sealed and len(episode.guard_log) == 1


GOLDS = sorted(GOLD_DIR.glob("*.json"))
# Every stored gold replays in the browser under CFAB_E2E_ALL (make validate). make test leaves
# this to the person test above (a fresh recording of each family's case, promoted through both
# transports) and to BrowserGym's play of each family's stored gold (tests/test_browsergym_venv.py).
REPLAYED = GOLDS if os.environ.get("CFAB_E2E_ALL") == "1" else []


@pytest.mark.parametrize("path", REPLAYED, ids=[p.stem for p in REPLAYED])
def test_gold_replays_to_one_in_the_browser(path, e2e_store, browser, live_server):
    run = replay(recording.load(path), "browser", e2e_store, browser, live_server)
    assert run["passed"] and run["score"] == 1.0, run["verdict"]


def test_every_family_has_a_gold_trajectory():
    from tasks.registry import all_tasks

    families = {recording.load(p)["family"] for p in GOLDS}
    assert families >= {t.family for t in all_tasks()}
