"""The suite's browser oracle, played through BrowserGym's action strings: a reference run of any
instance on `browsergym/cfab.<instance_id>`, and a check that every task can be solved through
BrowserGym's interface (no gold recording needed).

A task's `oracle_browser(portal)` is written against agent.browser.Portal (goto, click_button,
fill, select and the Playwright page). `GymPortal` offers the same interface, but every act on
the page (a click, a fill, a choice in a list, an address) becomes one BrowserGym action on the
bid BrowserGym gave that element in its last observation: `click("123")`, `fill("45", "...")`,
`select_option("67", "...")`, `goto("...")`. The oracle reads the page directly (reading changes
nothing); it never clicks or types past the env. Its reply goes out as `send_msg_to_user`, whose
grade is the reward.

    env = gymnasium.make("browsergym/cfab.cf_G_sub_accrual_3412", action_mapping=...)
    obs, info = env.reset()
    run = play_oracle(env, "cf_G_sub_accrual_3412", None, obs)   # {"reward": 1.0, "actions": [...], ...}

This module imports the suite (tasks/), which the project's editable install puts in BrowserGym's
virtualenv too; the package itself (agent.browsergym) does not import it.
"""
from __future__ import annotations

import contextlib
import json

BID = "bid"  # browsergym.core.constants.BROWSERGYM_ID_ATTRIBUTE: BrowserGym marks the DOM with it
LOCATOR_MAKERS = {"locator", "get_by_role", "get_by_label", "get_by_text", "get_by_placeholder",
                  "get_by_title", "get_by_alt_text", "get_by_test_id", "filter", "nth"}
LOCATOR_PROPERTIES = {"first", "last"}
IDEMPOTENT = ("fill(", "select_option(", "check(")  # setting the same value again sets it once
DOCUMENT = "() => performance.timeOrigin"  # a new value per document: tells a page load from none


class OracleActionError(RuntimeError):
    """A BrowserGym action the oracle sent failed (its last_action_error), or ended the episode."""


def document_id(page) -> float | None:
    """Which document the page shows (its performance time origin); None while it is replaced."""
    try:
        return page.evaluate(DOCUMENT)
    except Exception:  # mid-navigation: the next observation has the new document
        return None


def spurious_timeout(error: str, before: float | None, page) -> bool:
    """BrowserGym gives an action 500 ms, waiting for the navigation a click starts included: a
    submit whose answer takes longer reports a TimeoutError although it was made. It was, when
    the page now shows another document (a form posted back to the same address included)."""
    return error.startswith("TimeoutError") and before is not None and document_id(page) not in (before, None)


def typing_timed_out(error: str, action: str) -> bool:
    """A fill, choice or tick that ran out of BrowserGym's 500 ms: sending it again is safe."""
    return error.startswith("TimeoutError") and action.startswith(IDEMPOTENT)


def _unwrap(value):
    return value._locator if isinstance(value, _Locator) else value


class _Locator:
    """A Playwright locator whose acts go through the env; everything it reads is the page's."""

    def __init__(self, portal: "GymPortal", locator):
        self._portal, self._locator = portal, locator

    def __getattr__(self, name):
        attr = getattr(self._locator, name)
        if name in LOCATOR_PROPERTIES:
            return _Locator(self._portal, attr)
        if name in LOCATOR_MAKERS:
            return lambda *a, **kw: _Locator(self._portal, attr(*map(_unwrap, a),
                                                                 **{k: _unwrap(v) for k, v in kw.items()}))
        return attr

    def click(self, **_options):
        self._portal.act(f"click({json.dumps(self._portal.bid_of(self._locator))})")

    def fill(self, value: str, **_options):
        self._portal.act(f"fill({json.dumps(self._portal.bid_of(self._locator))}, {json.dumps(value)})")

    def select_option(self, value: str, **_options):
        self._portal.act(f"select_option({json.dumps(self._portal.bid_of(self._locator))}, {json.dumps(value)})")

    def check(self, **_options):
        self._portal.act(f"check({json.dumps(self._portal.bid_of(self._locator))})")


class _Page:
    """The env's active page for an oracle: locators that act through the env, `goto` as the
    goto action, and no waits of its own (each BrowserGym step waits for the page it opens)."""

    def __init__(self, portal: "GymPortal"):
        self._portal = portal

    def __getattr__(self, name):
        attr = getattr(self._portal.real_page, name)
        if name in LOCATOR_MAKERS:
            return lambda *a, **kw: _Locator(self._portal, attr(*map(_unwrap, a),
                                                                 **{k: _unwrap(v) for k, v in kw.items()}))
        return attr

    def goto(self, url: str, **_options):
        self._portal.act(f"goto({json.dumps(url)})")

    def expect_navigation(self, **_options):
        return contextlib.nullcontext()


class GymPortal:
    """agent.browser.Portal's interface over a BrowserGym env (see the module's docstring)."""

    def __init__(self, env, base_url: str, obs: dict, actions: list[str] | None = None):
        self.env, self.base_url = env, base_url.rstrip("/")
        self.obs = obs
        self.page = _Page(self)
        self.actions = [] if actions is None else actions  # every action sent, in order
        self.slow_navigations: list[str] = []
        self.reward, self.terminated, self.info = 0.0, False, {}

    @property
    def real_page(self):
        return self.env.unwrapped.page

    def act(self, action: str, tries: int = 3) -> dict:
        """Send one BrowserGym action; its observation. A failed action is an OracleActionError.

        BrowserGym gives an action 500 ms: on a loaded machine typing into a field can take
        longer. A field's value, a choice or a tick set again is set once, so those are sent
        again (up to `tries` times in all); a click that timed out is never repeated."""
        if self.terminated:
            raise OracleActionError(f"the episode ended before {action}")
        for attempt in range(1, tries + 1):
            before = document_id(self.real_page)
            self.actions.append(action)
            self.obs, self.reward, self.terminated, _truncated, self.info = self.env.step(action)
            error = self.obs.get("last_action_error") or ""
            if not error:
                return self.obs
            if spurious_timeout(error, before, self.real_page):
                self.slow_navigations.append(action)
                return self.obs
            if not (typing_timed_out(error, action) and attempt < tries and not self.terminated):
                raise OracleActionError(f"{action} on {self.obs['url']}: {error[:300]}")
        raise AssertionError("unreachable: the last try returns or raises")

    def bid_of(self, locator, tries: int = 3) -> str:
        """BrowserGym's bid for the one element the locator names (strict, as Playwright's acts
        are), as BrowserGym marked it for the last observation; an element that came after it
        (an htmx swap still landing) is marked by the next observation, so look again."""
        for _ in range(tries):
            locator.wait_for(state="attached")
            bid = locator.get_attribute(BID)
            if bid and bid in self.obs.get("extra_element_properties", {}):
                return bid
            self.act("noop(200)")
        raise OracleActionError(f"BrowserGym's observation of {self.real_page.url} gives no bid for {locator}")

    # agent.browser.Portal's helpers
    def goto(self, path: str) -> None:
        self.act(f"goto({json.dumps(self.base_url + path)})")

    def settle(self) -> None:
        pass  # every step has waited for its page

    def click_button(self, name: str, exact: bool = True) -> None:
        self.page.get_by_role("button", name=name, exact=exact).click()

    def fill(self, label: str, value: str) -> None:
        self.page.get_by_label(label, exact=True).fill(value)

    def select(self, label: str, value: str) -> None:
        self.page.get_by_label(label, exact=True).select_option(value)

    def text(self) -> str:
        page = self.real_page
        return page.inner_text("main") if page.locator("main").count() else page.inner_text("body")


def play_oracle(env, instance_id: str, base_url: str | None, obs: dict, guarded: bool = False,
                actions: list[str] | None = None) -> dict:
    """Play the instance's browser oracle on an env that has been reset (`obs`, its first
    observation; `base_url` the server's, else the page's), then send its reply; `actions`, if
    given, is the list each action sent is appended to as it goes. With `guarded`, the family's guarded browser action
    follows the oracle's work (the over-eager twin, which must score 0). The run's reward,
    whether the episode ended, its task_info and every action sent."""
    from urllib.parse import urlsplit

    from tasks.registry import get

    task = get(instance_id)
    if base_url is None:
        url = urlsplit(env.unwrapped.page.url)
        base_url = f"{url.scheme}://{url.netloc}"
    portal = GymPortal(env, base_url, obs, actions)
    reply = task.oracle_browser(portal)
    if guarded:
        task.guarded_browser(portal)
    portal.act(f"send_msg_to_user({json.dumps(reply)})")
    return {"reward": portal.reward, "terminated": portal.terminated, "task_info": portal.info.get("task_info", {}),
            "actions": portal.actions, "slow_navigations": portal.slow_navigations, "reply": reply}
