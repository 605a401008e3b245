"""The browser as an agent sees and moves it: observations and BrowserGym-style actions.

The observation is Playwright's aria snapshot: every element carries a ref (`[ref=e12]`), valid
for the page it describes, and every element the portal marked with a stable id (`data-bid`,
derived from the record and action it stands for) also carries that id (`[bid=invoice-X-sync]`),
which stays the same across pages and reloads. Actions accept either. Every action failure
comes back as an `ActionError` message for the model; nothing here raises otherwise.
"""
from __future__ import annotations

import ast
import base64
import json
import re
from urllib.parse import urljoin, urlsplit

from agent.browser import settle as settle_page
from agent.browser import track_settling

ACTIONS = ("click", "fill", "select_option", "goto", "scroll", "send_msg_to_user", "finish")
PARAMS = {"click": ["bid"], "fill": ["bid", "text"], "select_option": ["bid", "value"],
          "goto": ["url"], "scroll": ["dx", "dy"], "send_msg_to_user": ["text"], "finish": ["reply"]}
AXTREE_LIMIT = 12000
ACTION_TIMEOUT_MS = 5000
REF = re.compile(r"(f[0-9]{1,4})?e[0-9]{1,6}")  # Playwright's refs; later documents get an "f2" prefix
BID = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.-]{0,159}")

# Every visible element with a data-bid, in document order, with the role and accessible name
# the aria snapshot will print for it (the common cases: aria-label, aria-labelledby, a label,
# a button's value, else the text without aria-hidden parts).
BIDS_ON_PAGE = """() => {
  const clean = s => (s || '').replace(/\\s+/g, ' ').trim();
  const css = (el, which) => { const c = getComputedStyle(el, which).content;
    return c && c !== 'none' && c !== 'normal' ? c.replace(/^"|"$/g, '') : ''; };
  const text = n => { const c = n.cloneNode(true);
    c.querySelectorAll('[aria-hidden="true"], select, textarea, input').forEach(x => x.remove());
    return clean(css(n, '::before') + ' ' + c.textContent + ' ' + css(n, '::after')); };
  const types = {checkbox: 'checkbox', radio: 'radio', submit: 'button', button: 'button', reset: 'button',
    search: 'searchbox', number: 'spinbutton', range: 'slider'};
  const role = el => el.getAttribute('role') || ({A: el.hasAttribute('href') ? 'link' : 'generic', BUTTON: 'button',
    TEXTAREA: 'textbox', SELECT: (el.multiple || el.size > 1) ? 'listbox' : 'combobox', SUMMARY: 'generic'}[el.tagName]
    || (el.tagName === 'INPUT' ? (types[el.type] || 'textbox') : 'generic'));
  const name = el => {
    if (el.getAttribute('aria-labelledby')) return clean(el.getAttribute('aria-labelledby').split(/\\s+/)
      .map(id => { const n = document.getElementById(id); return n ? text(n) : ''; }).join(' '));
    if (clean(el.getAttribute('aria-label'))) return clean(el.getAttribute('aria-label'));
    if (el.labels && el.labels.length) return clean(Array.from(el.labels).map(text).join(' '));
    if (el.tagName === 'INPUT' && /^(submit|button|reset)$/.test(el.type)) return clean(el.value);
    if (/^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName)) return clean(el.title || el.placeholder);
    return text(el);
  };
  const shown = el => el.checkVisibility ? el.checkVisibility({visibilityProperty: true}) : el.getClientRects().length > 0;
  return Array.from(document.querySelectorAll('[data-bid]')).filter(shown)
    .map(el => [el.getAttribute('data-bid'), role(el), name(el)]);
}"""
SNAPSHOT_LINE = re.compile(r'^(\s*- (\')?)([a-z]+)(?: "((?:[^"\\]|\\.)*)")?(.*?\[ref=[a-z0-9]+\])')


def _key(role: str, name: str) -> tuple:
    return role, re.sub(r"\s+", "", name)  # spacing around CSS-generated text differs; words do not


def with_bids(tree: str, marked: list) -> str:
    """Write each marked element's stable id after its ref in the aria snapshot.

    Elements are matched by role and accessible name, in document order, which is the order
    the snapshot lists them in; an element the snapshot names differently keeps its ref only.
    """
    waiting: dict[tuple, list] = {}
    for bid, role, name in marked:
        waiting.setdefault(_key(role, name), []).append(bid)
    out = []
    for line in tree.splitlines():
        match = SNAPSHOT_LINE.match(line)
        if match:
            yaml_quoted, role, quoted = match.group(2), match.group(3), match.group(4)
            if yaml_quoted and quoted:  # a line with ": " or "#" is a YAML '...' scalar
                quoted = quoted.replace("''", "'")
            try:
                name = json.loads(f'"{quoted}"') if quoted is not None else ""
            except ValueError:
                name = quoted or ""
            queue = waiting.get(_key(role, name))
            if queue:
                end = match.end(5)
                line = f"{line[:end]} [bid={queue.pop(0)}]{line[end:]}"
        out.append(line)
    return "\n".join(out)


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
        track_settling(page)

    def settle(self, timeout_ms: int = 5000) -> None:
        """Wait until a click's navigation or htmx swap has landed (htmx's own events, the load)."""
        settle_page(self.page, timeout_ms)

    def observe(self, screenshot: bool = False) -> dict:
        tree = ""
        for _ in range(3):  # a snapshot taken mid-navigation fails; the next one will not
            try:
                tree = self.page.aria_snapshot(mode="ai")
                tree = with_bids(tree, self.page.evaluate(BIDS_ON_PAGE))
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
        """The element a ref (`e12`) or a stable id (`invoice-X-sync`) names on this page."""
        text = bid.strip() if isinstance(bid, str) else ""
        if not BID.fullmatch(text):
            raise ActionError(f"{bid!r} is not an element id; use a ref like 'e12' or a bid from the page")
        candidates = [self.page.locator(f'[data-bid="{text}"]')]
        if REF.fullmatch(text):
            candidates.insert(0, self.page.locator(f"aria-ref={text}"))
        for locator in candidates:
            try:
                found = locator.count()
            except Exception:
                found = 0
            if found == 1:
                return locator
        raise ActionError(f"no element with id {bid!r} on this page")

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
        self.settle()  # a search box refills its list as you type
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
