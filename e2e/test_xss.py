"""Typed markup is text in a real browser: no script runs, no dialog opens, on any app.

Every text field of every form of every portal gets markup that would run if it were ever
rendered as HTML (inline script, an onerror handler, an attribute break-out); the form is
submitted the way a person would. Then pages showing stored markup (written through the
tools) are opened. A script that ran would set `window.__xss` or open a dialog.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from agent.browser import settle
from portals.core.environment import Environment
from e2e.scope import pick_apps
from portals.core.registry import load_apps
from portals.core.tools import WRITE
from portals.core.web import enter_url
from tasks.families.common import OracleError
from tasks.registry import all_tasks

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _crawl import crawl  # noqa: E402  (the unit tests' crawler, shared)

APPS = load_apps()
PAYLOAD = ("<script>window.__xss=1;alert(1)</script>\"'><img src=x onerror=\"window.__xss=2\">"
           "<svg onload=\"window.__xss=3\"></svg>")


def send(submit, filled) -> None:
    if submit.count() and submit.is_visible():
        submit.click()
    else:  # a search box without a visible button: a person presses Enter
        filled.press("Enter")


def ran(page) -> bool:
    return bool(page.evaluate("() => window.__xss"))


@pytest.fixture
def watched(browser, live_server, e2e_episode):
    """A page bound to a fresh episode that records dialogs, page errors and 5xx responses."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    context.set_default_timeout(15000)  # a form post on a loaded 2-core machine can take seconds
    page = context.new_page()
    problems: list[str] = []
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on("response", lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 500 else None)
    page.goto(live_server.url + enter_url(live_server.app, e2e_episode.id, "/"))
    yield page, problems
    context.close()


def forms_of(live_server, episode, spec):
    """The app's forms a person types into (one per route, search boxes included), found by
    crawling with a client bound to the same episode."""
    client = live_server.app.test_client()
    client.get(enter_url(live_server.app, episode.id, "/"))
    _pages, forms = crawl(client, [spec.base_path + "/"], (spec.base_path + "/",), 80, get_forms=True)
    return [f for f in forms if f.text_fields]


@pytest.mark.parametrize("app", pick_apps(APPS))  # make validate: every app
def test_markup_typed_into_every_form_never_runs(watched, live_server, e2e_episode, app):
    page, problems = watched
    forms = forms_of(live_server, e2e_episode, APPS[app])
    assert forms, f"{app} has no form with a text field"
    for form in forms:
        page.goto(live_server.url + form.page.replace("http://localhost", ""))
        selector = f'form[action="{form.action}"]'
        if not page.locator(selector).count():  # an action written relative to the page
            selector = f'form:has([name="{form.text_fields[0]}"])'
        target = page.locator(selector).first
        filled = None
        for name in form.text_fields:
            field = target.locator(f'[name="{name}"]').first
            if field.get_attribute("type") in ("number", "date"):  # the browser takes no markup there
                continue
            if field.is_visible() and field.is_editable():
                field.fill(PAYLOAD)
                filled = field
        if filled is None:
            continue
        submit = target.locator('button[type="submit"], button:not([type]), input[type="submit"]').first
        # Skip the browser's own format checks (type=email/date) so the server sees the markup.
        page.evaluate("sel => document.querySelectorAll(sel).forEach(f => f.noValidate = true)", selector)
        if target.get_attribute("hx-get") or target.get_attribute("hx-post"):
            send(submit, filled)  # swapped in place: wait for htmx to land it
            settle(page)
        else:
            try:  # a person's form post: on a loaded 2-core machine it has taken over 15 s
                with page.expect_navigation(timeout=45000):
                    send(submit, filled)
            except PlaywrightTimeout as err:
                raise AssertionError(f"{app}: submitting {form.action} on {form.page} did not load a page "
                                     f"(now at {page.url})") from err
        assert not ran(page), f"{form.action}: typed markup ran"
    assert not problems, problems


def test_stored_markup_never_runs_where_it_is_shown(watched, live_server, e2e_episode):
    """Markup stored through the tools (in every free-text field a write accepts) and then shown
    on the portal's pages does not run."""
    page, problems = watched
    env = Environment(e2e_episode, list(APPS))
    stored = 0
    for task in {t.family: t for t in all_tasks()}.values():  # its oracle's arguments are valid ones
        original = env.call

        def call(name, args=None, original=original):
            app_name, tool_name = name.split(".", 1)
            tool = APPS[app_name].tools[tool_name]
            if tool.kind == WRITE and isinstance(args, dict):
                texts = {p.name: args[p.name] + " " + PAYLOAD for p in tool.params
                         if p.kind == "str" and isinstance(args.get(p.name), str)}
                result = original(name, {**args, **texts})
                if "error" not in result:
                    nonlocal stored
                    stored += 1
                    return result
            return original(name, args)

        env.call = call
        try:
            task.oracle_tools(env)
        except OracleError:  # a family built on another's records (C_eapp_intacct_bill on C_eapp_review's
            pass             # eApps) finds them already worked in this one episode; the rest still stored
        finally:
            env.call = original
    assert stored, "nothing was stored, so nothing was shown"
    client = live_server.app.test_client()
    client.get(enter_url(live_server.app, e2e_episode.id, "/"))
    showing = []
    for spec in APPS.values():
        pages, _ = crawl(client, [spec.base_path + "/"], (spec.base_path + "/",), 60)
        showing += [url for url, (_s, body) in pages.items() if "&lt;script&gt;window.__xss" in body]
    assert showing
    for url in showing[:25]:
        page.goto(live_server.url + url)
        assert not ran(page), f"{url}: stored markup ran"
    assert not problems, problems


def test_the_payload_would_run_if_it_were_rendered_as_html(watched):
    """A positive control: the same markup, put into a page as HTML, does run and is seen."""
    page, problems = watched
    page.set_content(PAYLOAD)
    page.wait_for_function("() => window.__xss")
    assert ran(page) and any(p.startswith("dialog") for p in problems)
