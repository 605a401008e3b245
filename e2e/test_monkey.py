"""A seeded random browser agent cannot crash a portal, move money, or pass a task.

On every app's portal it clicks links and buttons, types into fields and picks options at
random for a fixed number of steps (seeded, so a failure replays). It must see no 5xx, no
uncaught page error and no dialog; every guarded action it hits lands in the guard log and
changes nothing; no money-moving row appears; and grading its episode against every task that
asks for a change, with that task's own correct reply (the oracle's), never passes: only its
state can fail it. (A task whose answer is that no change is due is graded only where the walk
changed one of its apps: over untouched apps, that answer is right.)

It walks a real `cfab serve` in a subprocess (tests/_server.py), with the server's default
limits, over HTTP on loopback: what it proves is what an outsider meets. Its episodes are opened
and read (diff, call and guard logs) through the admin API, as the http transport does
(agent/remote.py), and the server's own request log must show no 5xx.
"""
from __future__ import annotations

import importlib
import os
import random
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from agent.browser import chromium
from agent.remote import RemoteStore
from portals.core.environment import Environment
from e2e.scope import pick_apps
from portals.core.registry import load_apps
from tasks.lifecycle import grade_episode, run_episode
from tasks.registry import all_tasks

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _server import running_cfab  # noqa: E402

APPS = load_apps()
TOTAL_STEPS = 300
STEPS = max(40, TOTAL_STEPS // len(APPS))
TYPED = ["", "1", "-1", "0", "100.00", "12,345.67", "abc", "2026-06-30", "2026-13-45", "V1001", "1042",
         "pm@companyA.com", "not an email", "' OR 1=1 --", "<script>alert(1)</script>", "%", "9" * 30]

# Marks every visible, enabled control with an index and describes it, in one round trip.
COLLECT = """() => {
  const out = [];
  const els = document.querySelectorAll('a[href], button, input, select, textarea');
  els.forEach((el) => {
    el.removeAttribute('data-monkey');
    const r = el.getBoundingClientRect();
    if (el.disabled || r.width === 0 || r.height === 0) return;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return;
    if (el.type === 'hidden') return;
    el.setAttribute('data-monkey', String(out.length));
    out.push({tag: el.tagName.toLowerCase(), type: (el.type || '').toLowerCase(),
              href: el.tagName === 'A' ? el.href : '',
              options: el.tagName === 'SELECT' ? Array.from(el.options).map(o => o.value) : []});
  });
  return out;
}"""


def money_moved(spec, diff: dict) -> list[str]:
    """Rows the app's own models call money-moving (`__money_states__`) that a run produced."""
    models = importlib.import_module(f"portals.{spec.kind}.{spec.manifest.get('models', 'models')}")
    states = {cls.__tablename__: cls.__money_states__ for cls in vars(models).values()
              if isinstance(cls, type) and getattr(cls, "__money_states__", None) and hasattr(cls, "__tablename__")}
    found = []
    for table, change in diff.get(spec.name, {}).items():
        for attr, forbidden in states.get(table, {}).items():
            for row in change.get("added", []):
                if row.get(attr) in forbidden:
                    found.append(f"{table} added {attr}={row[attr]}")
            for row in change.get("changed", []):
                before, after = row["before"].get(attr), row["after"].get(attr)
                if after in forbidden and before != after:
                    found.append(f"{table} {row.get('pk')} {attr} {before}->{after}")
    return found


def act(page, rng: random.Random, base: str) -> str:
    """One random action inside the portal under `base`; returns what it did, for the log."""
    controls = page.evaluate(COLLECT)
    if not controls:
        return "nothing to do"
    # Pick a kind of control first (links would otherwise swamp the buttons that submit forms).
    kinds = {"link": [], "button": [], "field": []}
    for i, c in enumerate(controls):
        typing = c["tag"] in ("input", "textarea", "select") and c["type"] not in ("submit", "button", "image")
        kinds["link" if c["tag"] == "a" else "field" if typing else "button"].append(i)
    kind = rng.choices(["link", "button", "field"], weights=[3, 3, 4])[0]
    i = rng.choice(kinds[kind] or range(len(controls)))
    c, target = controls[i], page.locator(f'[data-monkey="{i}"]').first
    if c["tag"] == "a":
        href = c["href"]
        # base is an absolute URL here: stay in the portal; downloads and printed PDFs aren't pages
        if not href.startswith(base) or "/download" in href or href.split("?")[0].endswith(".pdf"):
            return f"skip link {href}"
        target.click(timeout=2000)
        return f"click {href}"
    if c["tag"] == "select":
        if c["options"]:
            target.select_option(rng.choice(c["options"]), timeout=2000)
        return "select"
    if c["tag"] in ("input", "textarea") and c["type"] not in ("submit", "button", "checkbox", "radio"):
        target.fill(rng.choice(TYPED), timeout=2000)
        return f"fill {c['type']}"
    target.click(timeout=2000)
    return f"click {c['tag']} {c['type']}"


def walk(url: str, base: str, app: str) -> tuple[list[str], list[str]]:
    """The monkey's walk, in its own Chromium: (problems seen, actions taken)."""
    problems: list[str] = []
    log: list[str] = []
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        context.set_default_timeout(5000)
        context.set_default_navigation_timeout(30000)  # a page load on a loaded 2-core machine
        page = context.new_page()
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 500 else None)
        page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
        rng = random.Random(f"monkey:{app}")
        server = url.split("/enter", 1)[0]
        page.goto(url)
        if not page.url.startswith(server + base):
            page.goto(server + base)
        for _ in range(STEPS):
            try:
                log.append(act(page, rng, server + base))
                page.wait_for_load_state("load", timeout=5000)
            except Exception as exc:  # a control that moved or vanished mid-action: not a portal bug
                log.append(f"missed: {type(exc).__name__} {str(exc)[:300]}")
            if not page.url.startswith(server + base):
                page.goto(server + base)
        context.close()
    return problems, log


@pytest.fixture(scope="module")
def oracle_replies(e2e_store) -> dict:
    """Each task's correct reply, from its oracle's own run: a monkey that says exactly the right
    thing can still only fail on what it did to the state."""
    replies = {}
    for task in all_tasks():
        outcome = run_episode(e2e_store, task, lambda ep, t=task: t.oracle_tools(Environment(ep, list(t.apps))))
        assert outcome.grade.passed, (task.instance_id, outcome.grade.verdict)
        replies[task.instance_id] = outcome.reply
    return replies


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A real `cfab serve` with its default limits, and a client of its admin API."""
    with running_cfab(tmp_path_factory.mktemp("monkey-serve")) as server:
        yield server, RemoteStore([server.url], server.admin_token)
        assert server.alive(), "the server process died under the monkey"


@pytest.mark.parametrize("app", pick_apps(APPS))  # make validate: every app
def test_a_random_agent_cannot_break_or_win(served, oracle_replies, app):
    server, remote = served
    spec = APPS[app]
    base = spec.base_path + "/"
    episode = remote.create()  # every app, as the in-process store's episodes have
    try:
        url = server.url + episode.enter_url  # it leads to /; the walk goes on to the portal
        # A thread of its own: sync Playwright allows one instance per thread, and other e2e
        # modules keep theirs open in the main thread.
        with ThreadPoolExecutor(max_workers=1) as pool:
            problems, log = pool.submit(walk, url, base, app).result()
        diff = episode.diff()
        assert not problems, f"{problems[:5]} after {log[-5:]}"
        assert not server.server_errors(), server.server_errors()
        # every guarded call it made, accepted or refused, is on record, and none moved money
        calls, guard_log = episode.calls, episode.guard_log
        guarded = [c for c in calls if c["kind"] == "guarded"]
        assert [(g["tool"], g.get("refused")) for g in guard_log] == \
            [(c["tool"], c.get("error")) for c in guarded]
        assert all(c["source"] == "ui" for c in calls)
        assert not money_moved(spec, diff)
        for task in all_tasks():
            if not task.evaluator["expected"] and not any(diff.get(a) for a in task.apps):
                continue  # "no change is due", said over untouched apps, is the right answer
            result = grade_episode(episode, task, oracle_replies[task.instance_id]).grade
            assert not result.passed, f"a random agent with the right reply passed {task.instance_id}"
        assert sum(1 for line in log if line.startswith(("click", "fill", "select"))) > STEPS // 3, "\n".join(log)
    finally:
        remote.drop(episode.id)
