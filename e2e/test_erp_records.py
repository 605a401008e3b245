"""The ERP record screens in Chromium: every screen a manifest lists beyond the shared core
renders accessibly with its first record's detail page; lists sort in place; Intacct's header
keeps the lists to the entity chosen; Vista's AP Entry takes a line grid; posting a batch stages."""
from __future__ import annotations

from decimal import Decimal

import pytest

from agent.browser import settle
from portals.core.registry import load_apps
from e2e.test_portals import A11Y_PROBLEMS

CORE = {"bills", "unapproved", "transactions", "bill_new", "check_run", "vendors", "holds", "projects", "tasks",
        "cost_detail", "cost_adjustment", "commitments", "journal_entry"}
SCREENS = [(name, screen) for name, spec in sorted(load_apps().items()) if spec.kind == "erp"
           for screen in spec.manifest["screens"] if screen not in CORE]


@pytest.mark.parametrize("app,screen", SCREENS, ids=[f"{a}.{s}" for a, s in SCREENS])
def test_a_record_screen_and_its_first_record_render_and_are_accessible(portal, live_server, app, screen):
    from flask import url_for
    with live_server.app.test_request_context():
        path = url_for(f"{app}.{screen}")
    portal.goto(path)
    assert not portal.page.evaluate(A11Y_PROBLEMS), path
    link = portal.page.locator("#results tbody tr td a, main table tbody tr td a").first
    if link.count():
        link.click()
        settle(portal.page)
        assert portal.page.locator("h1").count() == 1
        assert not portal.page.evaluate(A11Y_PROBLEMS), portal.page.url


def test_a_sort_header_reorders_payments_in_place(portal):
    portal.goto("/sage_intacct/ap/payments")
    page = portal.page
    page.evaluate("() => { window.__stayed = 'yes'; }")
    page.get_by_role("link", name="Amount", exact=True).click()
    settle(page)
    assert page.evaluate("() => window.__stayed === 'yes'") and "sort=amount" in page.url
    amounts = [Decimal(t.replace(",", "")) for t in page.locator("#results tbody tr td.num").all_inner_texts()]
    assert amounts == sorted(amounts)


def test_the_entity_chosen_in_the_header_keeps_the_lists_to_it(portal):
    portal.goto("/sage_intacct/jobs")
    everything = portal.page.locator("main table tbody tr").count()
    select = portal.page.get_by_label("Entity", exact=True)
    choice = select.locator("option").nth(2).get_attribute("value")
    with portal.page.expect_navigation():
        select.select_option(choice)
    settle(portal.page)
    assert portal.page.url.endswith("/sage_intacct/jobs")
    assert 0 < portal.page.locator("main table tbody tr").count() < everything
    assert portal.page.get_by_label("Entity", exact=True).input_value() == choice


def test_ap_entry_takes_a_line_grid(portal):
    portal.goto("/vista_erp/jobs?status=active")
    job = portal.page.locator("main table tbody tr td a").first.inner_text().strip()
    portal.goto(f"/vista_erp/tasks?project_id={job}")
    phases = portal.page.locator("main table tbody tr td:first-child").all_inner_texts()[:2]
    portal.goto("/vista_erp/ap/vendors?status=active")
    vendor = portal.page.locator("main table tbody tr td a").first.inner_text().strip()
    portal.goto("/vista_erp/ap/bills/new/lines")
    for label, value in (("Vendor", vendor), ("APRef (invoice #)", "ACME-0001"), ("Invoice Date", "2026-06-24")):
        portal.fill(label, value)
    for n, (phase, amount) in enumerate(zip(phases, ("1000.00", "234.56")), start=1):
        portal.fill(f"Line {n} job", job)
        portal.fill(f"Line {n} phase", phase.strip())
        portal.fill(f"Line {n} cost type", "M")
        portal.fill(f"Line {n} gross amt", amount)
    portal.click_button("Save invoice")
    assert "1,234.56" in portal.text() and portal.page.locator("main table tbody tr").count() >= 2


def test_posting_the_open_batch_stages_it(portal):
    portal.goto("/vista_erp/hq/batches?status=open&source=SL+Change")
    portal.page.locator("#results tbody tr td a").first.click()
    settle(portal.page)
    button = portal.page.get_by_role("button", name="Post batch", exact=False)
    with portal.page.expect_navigation():
        button.click()
    assert "Pending human approval" in portal.text()
    assert portal.page.get_by_role("button", name="Post batch", exact=False).count() == 0
