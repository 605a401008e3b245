"""The browser as an agent sees and moves it: observations and BrowserGym-style actions.

Element ids are Playwright's aria-snapshot refs (`[ref=e12]`), resolved with the
`aria-ref=` locator; they hold for the page the observation describes. Every action failure
comes back as an `ActionError` message for the model; nothing here raises otherwise.
"""
from __future__ import annotations

import ast
import base64
import re
from urllib.parse import urljoin, urlsplit

ACTIONS = ("click", "fill", "select_option", "goto", "scroll", "send_msg_to_user", "finish")
PARAMS = {"click": ["bid"], "fill": ["bid", "text"], "select_option": ["bid", "value"],
          "goto": ["url"], "scroll": ["dx", "dy"], "send_msg_to_user": ["text"], "finish": ["reply"]}
AXTREE_LIMIT = 12000
ACTION_TIMEOUT_MS = 5000


class ActionError(Exception):
    pass


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


class BrowserActions:
    """Acts on one page, on one origin."""

    def __init__(self, page, base_url: str):
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.inflight = 0
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, _request):
        self.inflight += 1

    def _ended(self, _request):
        self.inflight = max(0, self.inflight - 1)

    def settle(self, timeout_ms: int = 5000) -> None:
        """Wait until a click's navigation or htmx swap has landed (no request in flight)."""
        waited, quiet = 0, 0
        while waited < timeout_ms and quiet < 2:
            self.page.wait_for_timeout(40)
            waited += 40
            quiet = quiet + 1 if self.inflight == 0 else 0
        try:
            self.page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
        except Exception:
            pass

    def observe(self, screenshot: bool = False) -> dict:
        tree = ""
        for _ in range(3):  # a snapshot taken mid-navigation fails; the next one will not
            try:
                tree = self.page.aria_snapshot(mode="ai")
                break
            except Exception:
                self.settle()
        if len(tree) > AXTREE_LIMIT:
            tree = tree[:AXTREE_LIMIT] + "\n… [page cut short; scroll or follow a link or filter]"
        obs = {"url": self.page.url, "title": self._title(), "axtree": tree}
        if screenshot:
            obs["screenshot"] = base64.b64encode(self.page.screenshot(type="png")).decode()
        return obs

    def _title(self) -> str:
        try:
            return self.page.title()
        except Exception:
            return ""

    def _element(self, bid):
        if not isinstance(bid, str) or not re.fullmatch(r"[a-z0-9]{1,16}", bid.strip()):
            raise ActionError(f"{bid!r} is not an element id; use a ref from the page, like 'e12'")
        locator = self.page.locator(f"aria-ref={bid.strip()}")
        try:
            found = locator.count()
        except Exception:
            found = 0
        if found != 1:
            raise ActionError(f"no element with id {bid!r} on this page")
        return locator

    def execute(self, name: str, args: dict) -> str:
        """Run one action; returns a short outcome, raises ActionError on failure."""
        if name not in ACTIONS:
            raise ActionError(f"unknown action {name!r}; use one of {', '.join(ACTIONS)}")
        missing = [p for p in PARAMS[name] if p not in args and name not in ("scroll",)]
        if missing:
            raise ActionError(f"{name} needs {', '.join(missing)}")
        try:
            return getattr(self, "_" + name)(**{k: args[k] for k in PARAMS[name] if k in args})
        except ActionError:
            raise
        except Exception as err:  # Playwright's errors: not visible, not editable, timeouts
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ActionError(f"{name} failed: {first[:300]}") from None

    def _click(self, bid):
        before = self.page.url
        self._element(bid).click(timeout=ACTION_TIMEOUT_MS)
        self.settle()
        if _origin(self.page.url) != _origin(self.base_url):
            self.page.goto(before)
            raise ActionError("that link leaves the site; stayed on the previous page")
        return "clicked"

    def _fill(self, bid, text):
        element = self._element(bid)
        # Ask first: fill() itself would wait out its whole timeout for a button to become editable.
        if not element.is_editable(timeout=1000):
            raise ActionError(f"element {bid!r} is read-only or disabled")
        element.fill(str(text), timeout=ACTION_TIMEOUT_MS)
        return "filled"

    def _select_option(self, bid, value):
        values = [str(v) for v in value] if isinstance(value, list) else str(value)
        self._element(bid).select_option(values, timeout=ACTION_TIMEOUT_MS)
        self.settle()
        return "selected"

    def _goto(self, url):
        target = urljoin(self.base_url + "/", str(url))
        if _origin(target) != _origin(self.base_url):
            raise ActionError(f"goto is limited to this site ({self.base_url})")
        self.page.goto(target, timeout=15000)
        self.settle()
        return "loaded"

    def _scroll(self, dx=0, dy=0):
        self.page.mouse.wheel(float(dx), float(dy))
        return "scrolled"

    def _send_msg_to_user(self, text):
        return "sent"

    def _finish(self, reply):
        return "finished"


def parse_actions(text: str) -> list[tuple[str, dict]]:
    """BrowserGym-style calls written in text, e.g. click('e12') or fill("e3", "9140")."""
    found = []
    for match in re.finditer(r"\b(" + "|".join(ACTIONS) + r")\s*\(", text or ""):
        call = _parse_call(text, match.start())
        if call:
            found.append(call)
            break  # one action per turn, as in BrowserGym's default action set
    return found


def _parse_call(text: str, start: int):
    end = text.find(")", start)
    while end != -1:
        try:
            node = ast.parse(text[start:end + 1].strip(), mode="eval").body
        except SyntaxError:
            end = text.find(")", end + 1)
            continue
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            return None
        name = node.func.id
        try:
            values = [ast.literal_eval(a) for a in node.args]
            kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except ValueError:
            return None
        args = dict(zip(PARAMS[name], values))
        args.update(kw)
        return name, args
    return None


def format_observation(obs: dict, note: str = "") -> str:
    head = f"{note}\n" if note else ""
    return f"{head}URL: {obs['url']}\nTitle: {obs['title']}\nAccessibility tree:\n{obs['axtree']}"
