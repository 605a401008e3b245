"""Stable element ids and honest names, in Chromium, on every main screen of every app (each PM
platform, Box, Outlook, FOUNDATION Payroll, ADP Workforce Now, Rippling and each ERP, with each ERP list's first record).

Every control carries a `data-bid` from what it means, unique on its page; the browser agent's
observation shows those ids and its actions accept them; a button or link is announced by a name
that contains the words it shows (a button named by aria-label says exactly them); and the task
panel, open, neither covers the app nor widens the page at 1280-1920 px.
"""
from __future__ import annotations

import re

import pytest

from agent.browser import settle
from agent.gallery import screens_of
from agent.llm.observe import BIDS_ON_PAGE, BrowserActions, with_bids
from portals.core import recording
from portals.core.registry import load_apps
from tasks.registry import all_tasks

APPS = (tuple(sorted(n for n, s in load_apps().items() if s.kind == "pm")) + ("box", "outlook", "foundation_payroll", "adp", "rippling")
        + tuple(sorted(n for n, s in load_apps().items() if s.kind == "erp")))

CONTROLS = """() => {
  const clean = s => (s || '').replace(/\\s+/g, ' ').trim();
  const shown = n => { const c = n.cloneNode(true);
    c.querySelectorAll('[aria-hidden="true"]').forEach(x => x.remove()); return clean(c.textContent); };
  const controls = Array.from(document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary'));
  const bids = Array.from(document.querySelectorAll('[data-bid]')).map(e => e.getAttribute('data-bid'));
  const misnamed = [];
  // the name a screen reader announces: aria-labelledby's texts, else aria-label, else the content
  const named = e => {
    const by = (e.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean)
      .map(id => document.getElementById(id)).filter(Boolean);
    return by.length ? clean(by.map(x => x.textContent).join(' ')) : (clean(e.getAttribute('aria-label')) || shown(e));
  };
  for (const b of document.querySelectorAll('button')) {
    const label = clean(b.getAttribute('aria-label'));
    if (label && label !== shown(b)) misnamed.push(`button shows "${shown(b)}" but is named "${label}"`);
    else if (!named(b).includes(shown(b))) misnamed.push(`button shows "${shown(b)}" but is named "${named(b)}"`);
  }
  for (const a of document.querySelectorAll('a[href]')) {
    if (!named(a).includes(shown(a))) misnamed.push(`link shows "${shown(a)}" but is named "${named(a)}"`);
  }
  return {unmarked: controls.filter(e => !e.hasAttribute('data-bid')).map(e => e.outerHTML.slice(0, 120)),
          repeated: bids.filter((b, i) => bids.indexOf(b) !== i), misnamed};
}"""


@pytest.fixture(scope="module")
def plan(e2e_store, live_server):
    episode = e2e_store.create(list(APPS))
    shots = [s for app in APPS for s in screens_of(live_server.app, episode, load_apps()[app])]
    e2e_store.drop(episode.id)
    return [(s.app, s.screen, s.path) for s in shots if s.path]


FIRST_RECORD = "() => { const a = document.querySelector('main table tbody tr td a[href]'); return a ? a.getAttribute('href') : null; }"


def test_every_control_has_a_unique_meaningful_id_and_an_honest_name(portal, plan):
    actions = BrowserActions(portal.page, portal.base_url)
    erps = {n for n, s in load_apps().items() if s.kind == "erp"}
    visits = []
    for app, screen, path in plan:
        visits.append((app, screen, path))
        if app in erps:  # an ERP list's first record: its detail page and its guarded buttons
            portal.goto(path)
            first = portal.page.evaluate(FIRST_RECORD)
            if first:
                visits.append((app, f"{screen} record", first))
    for app, screen, path in visits:
        portal.goto(path)
        found = portal.page.evaluate(CONTROLS)
        assert not found["unmarked"], f"{app}/{screen}: controls without a data-bid: {found['unmarked'][:3]}"
        assert not found["repeated"], f"{app}/{screen}: repeated ids {found['repeated'][:3]}"
        assert not found["misnamed"], f"{app}/{screen}: {found['misnamed'][:3]}"
        # the observation shows every visible id (the whole tree, before it is cut to size)
        marked = portal.page.evaluate(BIDS_ON_PAGE)
        tree = with_bids(portal.page.aria_snapshot(mode="ai"), marked)
        shown = set(re.findall(r"\[bid=([^\]]+)\]", tree))
        missed = [m for m in marked if m[0] not in shown]
        assert not missed, f"{app}/{screen}: ids the observation does not show: {missed[:3]}"
    assert actions.observe()["axtree"].count("[bid=") > 3


def test_the_agent_acts_by_stable_id(portal):
    portal.goto("/procore/projects/1042/invoicing")
    actions = BrowserActions(portal.page, portal.base_url)
    obs = actions.observe()["axtree"]
    assert "[bid=filter-status]" in obs and "[bid=nav-directory]" in obs
    actions.execute("select_option", {"bid": "filter-status", "value": "approved"})
    assert "status=approved" in portal.page.url
    actions.execute("click", {"bid": "sort-amount"})
    assert "sort=amount" in portal.page.url
    actions.execute("click", {"bid": "nav-directory"})
    assert portal.page.url.endswith("/procore/directory")
    with pytest.raises(Exception, match="no element with id"):
        actions.execute("click", {"bid": "invoice-NO-SUCH-sync"})


@pytest.fixture
def task_portal(portal, e2e_store, e2e_episode):
    """The portal of a person's task episode: the task panel is on every page, open."""
    task = next(t for t in all_tasks() if "sage_intacct" in t.apps)
    recording.begin(e2e_episode, task)
    return portal


def test_the_task_panel_is_not_mistaken_for_a_task_field(task_portal):
    task_portal.goto("/sage_intacct/ap/bills/new")
    page = task_portal.page
    assert page.get_by_role("complementary", name="Benchmark panel").is_visible()
    assert page.get_by_label("Task").count() == 1  # Intacct's own Task field, nothing else


@pytest.mark.parametrize("width", [1280, 1600, 1920])
def test_no_layout_break_with_the_task_panel_open(task_portal, width):
    page = task_portal.page
    page.set_viewport_size({"width": width, "height": 900})
    for path in ("/procore/invoicing", "/procore/projects/1042/budget", "/procore/erp",
                 "/outlook/?search=invoice", "/box/search?query=pdf"):
        task_portal.goto(path)
        settle(page)
        box = page.evaluate("""() => {
          const panel = document.querySelector('#cfab-drawer').getBoundingClientRect();
          const main = document.querySelector('main').getBoundingClientRect();
          return {page: document.documentElement.scrollWidth, view: window.innerWidth,
                  mainRight: main.right, panelLeft: panel.left};
        }""")
        assert box["page"] <= box["view"], f"{path} at {width}px is wider than the window: {box}"
        assert box["mainRight"] <= box["panelLeft"] + 1, f"{path} at {width}px runs under the panel: {box}"
