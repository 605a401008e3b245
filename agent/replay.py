"""Replay a recorded trajectory on a fresh episode, through tools or through Chromium.

Tools: the recorded service calls go through the agent's own Environment, so a recording made by
a person in the browser proves itself in the tool vocabulary. Browser: the recorded UI steps are
played in Chromium, finding each element again by its role and accessible label, then its id,
then its form name, so a replay survives markup changes that keep the page accessible.
"""
from __future__ import annotations

import time

from portals.core import recording

from .policies import Policy

FIND_TIMEOUT_S = 10.0


class ReplayError(RuntimeError):
    """A recorded step could not be played on this page."""


def replay_tools(trajectory: dict, env, include_reads: bool = True) -> str:
    """Make the recorded calls; return the recorded reply. Refusals are left for the grade to judge."""
    for call in recording.replay_calls(trajectory, include_reads):
        env.call(f"{call['app']}.{call['tool']}", dict(call.get("args") or {}))
    return trajectory.get("reply", "")


# -- browser -----------------------------------------------------------------------------------

def _candidates(page, target: dict) -> list:
    """Locators for a recorded element, most faithful first."""
    role, label, tag = target.get("role"), target.get("label"), target.get("tag") or "*"
    out = []
    if target.get("bid"):  # the portal's stable id for the element (data-bid)
        out.append(page.locator(f'[data-bid="{_quote(target["bid"])}"]'))
    if role and label:
        out.append(page.get_by_role(role, name=label, exact=True))
    if target.get("id"):
        out.append(page.locator(f'[id="{_quote(target["id"])}"]'))
    if label and tag in ("input", "select", "textarea"):
        out.append(page.get_by_label(label, exact=True))
    if target.get("name"):
        out.append(page.locator(f'{tag}[name="{_quote(target["name"])}"]'))
    if target.get("text"):
        out.append(page.locator(tag).filter(has_text=target["text"]))
    if target.get("href"):
        out.append(page.locator(f'a[href="{_quote(target["href"])}"]'))
    return out


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def locate(page, target: dict, timeout: float = FIND_TIMEOUT_S):
    """The one element a step names: a unique match if any locator gives one, else the first match.

    Polls, because the element may arrive with an htmx swap or the next page.
    """
    candidates = _candidates(page, target or {})
    if not candidates:
        raise ReplayError(f"the step names no element: {target!r}")
    deadline = time.monotonic() + timeout
    while True:
        counts = []
        for loc in candidates:
            try:
                counts.append(loc.count())
            except Exception:  # the page navigated under us; try again
                counts.append(0)
        for loc, n in zip(candidates, counts):
            if n == 1:
                return loc
        if counts[0] > 1 and counts[0] == target.get("of") and (target.get("nth") or 0) < counts[0]:
            return candidates[0].nth(target.get("nth") or 0)
        for loc, n in zip(candidates, counts):
            if n > 1:
                return loc.first
        if time.monotonic() > deadline:
            raise ReplayError(f"no element matches {target!r} on {page.url}")
        page.wait_for_timeout(100)


def _settle(page) -> None:
    """Wait for the page and any htmx request to finish before the next step."""
    from .browser import settle

    settle(page)


def _same_place(url: str, path: str) -> bool:
    from urllib.parse import urlsplit
    got, want = urlsplit(url), urlsplit(path)
    return got.path == want.path and (not want.query or got.query == want.query)


def play_step(portal, step: dict) -> None:
    page, kind = portal.page, step["type"]
    if kind == "visit":
        if step.get("cause") == "click":  # the previous click brought us here: just arrive
            try:
                page.wait_for_url(lambda u: _same_place(u, step["url"]), timeout=FIND_TIMEOUT_S * 1000)
            except Exception:
                pass
            if not _same_place(page.url, step["url"]):
                portal.goto(step["url"])
        else:
            portal.goto(step["url"])
        _settle(page)
        return
    target = step.get("target") or {}
    if kind == "submit" and not target:
        page.keyboard.press("Enter")
    elif kind in ("click", "submit"):
        locate(page, target).click()
    elif kind == "fill":
        locate(page, target).fill(step.get("value", ""))
    elif kind == "select":
        locate(page, target).select_option(step.get("value", ""))
    elif kind == "check":
        locate(page, target).set_checked(bool(step.get("checked")))
    _settle(page)


def replay_browser(trajectory: dict, portal, before_step=None) -> str:
    """Play the recorded UI steps in order; return the recorded reply. `before_step(portal, i,
    step)` sees the page each step acts on."""
    for i, step in enumerate(trajectory["ui_steps"]):
        if before_step is not None:
            before_step(portal, i, step)
        play_step(portal, step)
    return trajectory.get("reply", "")


def gym_action(step: dict, bid: str | None = None) -> str | None:
    """A recorded UI step in BrowserGym's action vocabulary, naming the element by its stable id
    (the recorded one, else `bid`, the one the element carries now); None for a visit a click
    caused (the click was the action) or an element without an id."""
    kind, target = step["type"], step.get("target") or {}
    if kind == "visit":
        return None if step.get("cause") == "click" else f"goto({step['url']!r})"
    if kind == "submit" and not target:
        return "keyboard_press('Enter')"
    bid = target.get("bid") or bid
    if not bid:
        return None
    if kind == "fill":
        return f"fill({bid!r}, {step.get('value', '')!r})"
    if kind == "select":
        return f"select_option({bid!r}, {step.get('value', '')!r})"
    return f"click({bid!r})"  # click, submit, check


class TrajectoryPolicy(Policy):
    """Plays one recorded trajectory on either transport and answers with the recorded reply.

    In the browser, `trace` writes a Playwright trace (trace.zip) of the replay, and `observe`
    keeps, for each UI step, the page it acts on (URL, accessibility tree with stable ids, a
    screenshot if `screenshots`) and the step as a BrowserGym action, in `self.observed` (the
    trajectory with `observation` and `action` on each UI step)."""

    name = "trajectory"

    def __init__(self, trajectory: dict, trace: str | None = None, observe: bool = False,
                 screenshots: bool = False):
        self.trajectory = recording.validate(trajectory)
        self.trace, self.observe, self.screenshots = trace, observe, screenshots
        self.observed: dict | None = None

    def run_tools(self, task, env) -> str:
        return replay_tools(self.trajectory, env)

    def run_browser(self, task, portal) -> str:
        import copy

        from .llm.observe import BrowserActions

        context = portal.page.context
        if self.trace:
            context.tracing.start(title=f"replay of {self.trajectory['instance_id']}", screenshots=True,
                                  snapshots=True)
        observed = copy.deepcopy(self.trajectory) if self.observe else None
        actions = BrowserActions(portal.page, portal.base_url) if self.observe else None

        def before_step(portal, i, step):
            seen = actions.observe(screenshot=self.screenshots)
            entry = observed["ui_steps"][i]
            entry["observation"] = {"url": seen["url"], "title": seen["title"], "axtree_txt": seen["axtree"]}
            if self.screenshots:
                entry["observation"]["screenshot_png"] = seen["screenshot"]  # base64 PNG
            bid = None
            if step["type"] != "visit" and step.get("target"):
                try:  # the element the step acts on, as the replay will find it: its id now
                    bid = locate(portal.page, step["target"]).get_attribute("data-bid")
                except Exception:
                    bid = None  # the step itself will say what is wrong
            entry["action"] = gym_action(step, bid)

        try:
            return replay_browser(self.trajectory, portal, before_step if self.observe else None)
        finally:
            if self.trace:
                context.tracing.stop(path=self.trace)
            self.observed = observed


def replay(trajectory: dict, transport: str, store=None, browser=None, server=None,
           policy: TrajectoryPolicy | None = None) -> dict:
    """Replay on a fresh episode and grade it; returns the runner's record of the run.

    Pass a running PortalServer and Chromium to reuse them (Playwright's sync API allows one
    driver per thread, so a caller that already has a browser must lend it).
    """
    from tasks.registry import get

    from .runner import Harness

    task = get(trajectory["instance_id"])
    policy = policy or TrajectoryPolicy(trajectory)
    if server is not None and transport == "browser":
        harness = Harness(transport, store or server.app.extensions["cfab_store"])
        harness.flask_app, harness.server = server.app, server
        return harness.run_one(task, policy, browser=browser)
    with Harness(transport, store, browser=browser if transport == "browser" else None) as harness:
        return harness.run_one(task, policy)
