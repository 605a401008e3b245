"""Each portal in real Chromium: it renders, it is accessible, and bad input is answered in the page."""
from __future__ import annotations

from urllib.parse import urlparse

import pytest

from portals.core.registry import load_apps

APPS = sorted(load_apps())

# Inputs without a label, buttons without a name, tables without headers: what an agent reading
# the accessibility tree cannot use.
A11Y_PROBLEMS = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('input, select, textarea')) {
    if (el.type === 'hidden' || el.type === 'submit' || el.type === 'button') continue;
    const named = el.labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.title;
    if (!named) bad.push('unlabelled ' + el.outerHTML.slice(0, 80));
  }
  for (const b of document.querySelectorAll('button')) {
    if (!(b.textContent.trim() || b.getAttribute('aria-label'))) bad.push('unnamed button');
  }
  for (const t of document.querySelectorAll('table')) {
    if (!t.querySelector('th')) bad.push('table without headers');
  }
  if (!document.querySelector('main')) bad.push('no main landmark');
  if (!document.querySelector('h1')) bad.push('no h1');
  return bad;
}"""


@pytest.mark.parametrize("app", APPS)
def test_portal_pages_render_and_are_accessible(portal, app):
    """Walk the portal's own links breadth-first; every page must be whole and usable."""
    base = load_apps()[app].base_path
    queue, seen = [base + "/"], set()
    while queue and len(seen) < 12:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        response = portal.page.goto(portal.base_url + path)
        assert response.status < 400, f"{path} answered {response.status}"
        problems = portal.page.evaluate(A11Y_PROBLEMS)
        assert not problems, f"{path}: {problems[:5]}"
        for href in portal.page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)"):
            url = urlparse(href)
            if url.path.startswith(base + "/") and "download" not in url.path:
                queue.append(url.path + (f"?{url.query}" if url.query else ""))
    assert len(seen) >= 4, f"{app} should have several linked screens, found {sorted(seen)}"


def test_intacct_bill_form_explains_bad_input_and_saves_nothing(portal, e2e_episode):
    portal.goto("/sage_intacct/ap/bills/new")
    portal.fill("Vendor ID", "V9999")
    portal.fill("Bill number", "X-1")
    portal.fill("Bill date", "2026-06-01")
    portal.fill("Project", "P-9140")
    portal.fill("Task", "31-23-00")
    portal.fill("Amount", "-5")
    portal.click_button("Save as draft")
    assert portal.page.get_by_role("alert").count() >= 1
    assert e2e_episode.diff() == {}


def test_vista_refuses_the_other_systems_vendor_id_without_translating_it(portal, e2e_episode):
    portal.goto("/vista_erp/ap/bills/new")
    portal.fill("Vendor", "V1001")
    portal.fill("APRef (invoice #)", "JSM-88421")
    portal.fill("Invoice Date", "2026-06-01")
    portal.fill("Job", "9140")
    portal.fill("Phase", "31200-000-")
    portal.fill("Gross Amt", "14350.00")
    portal.click_button("Save invoice")
    alert = portal.page.get_by_role("alert").first.inner_text()
    assert "ids like 99999" in alert and "20835" not in portal.text()  # it says what is wrong, no mapping
    assert e2e_episode.diff() == {}


def test_outlook_compose_rejects_a_bad_address(portal, e2e_episode):
    portal.goto("/outlook/compose")
    portal.fill("To", "not an address")
    portal.fill("Subject", "Hello")
    portal.fill("Body", "Body")
    portal.click_button("Save draft")
    assert portal.page.get_by_role("alert").count() >= 1
    assert e2e_episode.diff() == {}


def test_procore_guarded_pay_button_stages_only(portal, e2e_episode):
    from seeds.book import load_book

    req = next(r for r in load_book()["requisitions"] if r["job"] == "4012" and r["status"] == "approved")
    portal.goto(f"/procore/projects/4012/invoicing/{req['requisition_id']}")
    portal.click_button(f"Pay invoice {req['invoice_number']} with Procore Pay")
    assert "Pending human approval" in portal.text()
    assert e2e_episode.diff() == {}
    assert [g["tool"] for g in e2e_episode.guard_log] == ["payments.disburse"]


def test_box_file_preview_shows_the_pdf_text_and_downloads_a_pdf(portal):
    portal.goto("/box/search?query=JSM-88421")
    portal.page.get_by_role("link", name="Open file JSM-88421.pdf").first.click()
    portal.page.wait_for_load_state()
    assert "JSM-88421" in portal.text() and "14,350.00" in portal.text()
    response = portal.page.request.get(portal.base_url + "/box/file/41983940/download")
    assert response.status == 200 and response.body()[:5] == b"%PDF-"
