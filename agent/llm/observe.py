"""The browser as an agent sees and moves it: observations and BrowserGym-style actions.

The observation is Playwright's aria snapshot: every element carries a ref (`[ref=e12]`), valid
for the page it describes, and every element the portal marked with a stable id (`data-bid`,
derived from the record and action it stands for) also carries that id (`[bid=invoice-X-sync]`),
which stays the same across pages and reloads. Actions accept either. Every action failure
comes back as an `ActionError` message for the model; nothing here raises otherwise.

The actions are BrowserGym's high-level action set, with its names and its parameter names
(`fill(bid, value)`, `select_option(bid, options)`, `click(bid, button, modifiers)`,
`scroll(delta_x, delta_y)`, `press(bid, key_comb)`, `keyboard_press(key)`, `noop()`, `go_back()`,
tabs, ...); the names this project used before (`fill(bid, text)`, `select_option(bid, value)`,
`scroll(dx, dy)`) are accepted too. `BrowserActions.gym_observation` gives BrowserGym's
observation dict (`goal`, `axtree_txt`, `pruned_html`, `screenshot`, `url`, `open_pages_urls`,
`last_action_error`, `chat_messages`, ...).
"""
from __future__ import annotations

import ast
import base64
import json
import re
from urllib.parse import urljoin, urlsplit

from agent.browser import settle as settle_page
from agent.browser import track_settling

# BrowserGym's high-level actions: parameters in order (positional arguments fill them), the
# ones with a default, and the names this project's agents used before BrowserGym's.
PARAMS = {
    "noop": ["wait_ms"], "send_msg_to_user": ["text"], "report_infeasible": ["reason"],
    "click": ["bid", "button", "modifiers"], "dblclick": ["bid", "button", "modifiers"],
    "hover": ["bid"], "fill": ["bid", "value"], "clear": ["bid"], "focus": ["bid"],
    "press": ["bid", "key_comb"], "select_option": ["bid", "options"],
    "scroll": ["delta_x", "delta_y"], "keyboard_press": ["key"], "keyboard_type": ["text"],
    "goto": ["url"], "go_back": [], "go_forward": [],
    "new_tab": [], "tab_focus": ["index"], "tab_close": [],
    "finish": ["reply"],
}
ACTIONS = tuple(PARAMS)
DEFAULTS = {"noop": {"wait_ms": 1000}, "click": {"button": "left", "modifiers": []},
            "dblclick": {"button": "left", "modifiers": []}}
ALIASES = {"fill": {"text": "value"}, "select_option": {"value": "options", "option": "options"},
           "scroll": {"dx": "delta_x", "dy": "delta_y"}, "finish": {"summary": "reply", "text": "reply"},
           "press": {"key": "key_comb"}, "keyboard_press": {"key_comb": "key"}}
BUTTONS = ("left", "middle", "right")
MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")
# Actions after which the page may be another one (a link, a submit, Enter in a form, history).
MOVES = ("click", "dblclick", "press", "keyboard_press", "keyboard_type", "go_back", "go_forward")
# The newest page is the only one a model gets in full (older ones are elided), so a list page of
# 25 rows, its filters and its pager fit whole: about 10,000 tokens at most.
AXTREE_LIMIT = 40000
AXTREE_TAIL = 4000  # what a longer tree keeps of its end: the pager, totals and the page's actions
ACTION_TIMEOUT_MS = 5000
REF = re.compile(r"(f[0-9]{1,4})?e[0-9]{1,6}")  # Playwright's refs; later documents get an "f2" prefix
BID = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.-]{0,159}")

# What a person's pointer would meet at the element's centre, in one call into the page: the
# portals have no animations, so Playwright's wait for a stable box (two animation frames per
# click) buys nothing, and the checks that matter are made here with an answer the agent can use.
POINTER_TARGET = """el => {
  if (el.disabled || el.getAttribute('aria-disabled') === 'true') return 'it is disabled';
  el.scrollIntoView({block: 'nearest', inline: 'nearest'});
  const box = el.getClientRects()[0];
  if (!box || !box.width || !box.height || !el.checkVisibility({visibilityProperty: true}))
    return 'it is not visible';
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  if (!hit || hit === el || el.contains(hit)) return '';
  const name = (hit.getAttribute('aria-label') || hit.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
  return 'another element covers it (' + hit.tagName.toLowerCase() + (name ? ' "' + name + '"' : '') + ')';
}"""

# One call for a click: how many elements the locator finds and, for exactly one, what a pointer
# would meet (POINTER_TARGET), where its centre is once scrolled into view, and whether htmx
# answers the click without leaving the page: the element carries the htmx request itself with
# htmx's default trigger (a click; a submit for a form's submit button), no confirmation and no
# delay, so the request is sent by the click's own handler and the settle tracker sees it.
CLICK_TARGET = """els => {
  if (els.length !== 1) return {count: els.length};
  const el = els[0];
  const blocked = (""" + POINTER_TARGET + """)(el);
  if (blocked) return {count: 1, blocked};
  const box = el.getClientRects()[0];
  const verb = '[hx-get],[hx-post],[hx-put],[hx-patch],[hx-delete]';
  const plain = host => !host.closest('[hx-confirm]') && !/delay|throttle|from:|queue|every|load|revealed|intersect/.test(host.getAttribute('hx-trigger') || '');
  const submits = el.form && ((el.tagName === 'BUTTON' && (el.type || 'submit') === 'submit') || (el.tagName === 'INPUT' && el.type === 'submit'));
  const htmx = (el.matches(verb) && /^(A|BUTTON)$/.test(el.tagName) && !el.hasAttribute('hx-trigger') && plain(el))
    || (!!submits && !el.matches(verb) && !el.hasAttribute('formaction') && el.form.matches(verb) && plain(el.form)
        && /(^|,)\\s*submit\\s*($|,)/.test(el.form.getAttribute('hx-trigger') || 'submit'));
  return {count: 1, blocked: '', x: box.left + box.width / 2, y: box.top + box.height / 2, htmx};
}"""

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
# Which document this is, how many changes it has seen (the settle tracker's count) and its title.
PAGE_STATE = """() => { const s = window.__cfabSettle;
  return {doc: s ? s.doc : null, version: s ? s.version : null, title: document.title}; }"""
# The same, and, unless the document and its count are the ones given (the last observation's),
# the marked elements as BIDS_ON_PAGE lists them: one call into the page per observation. The
# list comes back as one JSON string: Playwright's own encoding of ~150 triples costs the client
# more than the walk does in the page.
OBSERVE_STATE = """([lastDoc, lastVersion]) => { const s = window.__cfabSettle;
  const state = {doc: s ? s.doc : null, version: s ? s.version : null, title: document.title, marked: null};
  if (state.doc === null || state.doc !== lastDoc || state.version !== lastVersion)
    state.marked = JSON.stringify((""" + BIDS_ON_PAGE + """)());
  return state; }"""
SNAPSHOT_LINE = re.compile(r'^(\s*- (\')?)([a-z]+)(?: "((?:[^"\\]|\\.)*)")?(.*?\[ref=[a-z0-9]+\])')


def _key(role: str, name: str) -> tuple:
    return role, re.sub(r"\s+", "", name)  # spacing around CSS-generated text differs; words do not


# Roles whose elements are read, not acted on: their refs are left out of the tree an agent gets
# (an element of them with a stable id, or one the pointer can click, keeps its ref).
STRUCTURE = frozenset("""article banner blockquote caption cell code columnheader complementary contentinfo
definition deletion emphasis figure form generic group heading img insertion list listitem main mark
navigation note paragraph region row rowgroup rowheader search status strong subscript superscript table
term text time""".split())
STRUCTURE_REF = re.compile(r'^(\s*- \'?)([a-z]+)\b(.*?) \[ref=[a-z0-9]+\]')


def compact(tree: str) -> str:
    """The aria snapshot without what costs an agent tokens and tells it nothing: the refs of
    table cells, rows, headings and other read-only structure (their text stays), and the
    `[cursor=pointer]` that every link and button carries."""
    out = []
    for line in tree.splitlines():
        line = line.replace(" [cursor=pointer]", "")
        match = STRUCTURE_REF.match(line)
        if match and match.group(2) in STRUCTURE and "[bid=" not in line:
            line = match.group(1) + match.group(2) + match.group(3) + line[match.end():]
        out.append(line)
    return "\n".join(out)


def cut_to_fit(tree: str, limit: int = AXTREE_LIMIT, tail: int = AXTREE_TAIL) -> str:
    """A tree longer than `limit` loses whole lines from its middle, not its end: the agent still
    sees the page's head (filters, the first rows) and its end (the pager, totals), and is told
    how many lines it does not see and how to see them."""
    if len(tree) <= limit:
        return tree
    lines = tree.splitlines()
    head, used = [], 0
    for line in lines:
        if used + len(line) + 1 > limit - tail:
            break
        head.append(line)
        used += len(line) + 1
    end, used = [], 0
    for line in reversed(lines[len(head):]):
        if used + len(line) + 1 > tail:
            break
        end.append(line)
        used += len(line) + 1
    end.reverse()
    hidden = len(lines) - len(head) - len(end)
    note = (f"… [{hidden} lines of this page left out here; filter, sort or page the list, "
            "or open a record, to see them]")
    return "\n".join([*head, note, *end])


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
        self._last = None  # ((url, document, version), tree) of the last observation
        self._in_page = False  # the last action was answered by htmx in the page (no navigation)
        track_settling(page)

    def settle(self, timeout_ms: int = 5000) -> None:
        """Wait until a click's navigation or htmx swap has landed (htmx's own events, the load)."""
        navigating, self._in_page = not self._in_page, False
        settle_page(self.page, timeout_ms, navigating=navigating)

    def observe(self, screenshot: bool = False) -> dict:
        """The page as the agent sees it. A page that has not changed since the last observation
        (same document, no DOM change, input or focus since: the settle tracker counts them) is
        not walked again: its tree, refs included, is still exact."""
        tree, title = "", None
        for _ in range(3):  # a snapshot taken mid-navigation fails; the next one will not
            try:
                url = self.page.url
                last = self._last[0][1:] if self._last is not None and self._last[0][0] == url else (None, None)
                state = self.page.evaluate(OBSERVE_STATE, list(last))
                key = (url, state["doc"], state["version"])
                title = state["title"]
                if state["marked"] is None and self._last is not None and self._last[0] == key:
                    tree = self._last[1]
                    break
                # The marked elements are read first, in the same call as the count of changes: a
                # settled page does not change between that call and the walk.
                marked = json.loads(state["marked"]) if state["marked"] else []
                tree = cut_to_fit(compact(with_bids(self.page.aria_snapshot(mode="ai"), marked)))
                self._last = (key, tree)  # the version read before the walk: never newer than it
                break
            except Exception:
                self._last = None
                self.settle()
        obs = {"url": self.page.url, "title": self._title() if title is None else title, "axtree": tree}
        if screenshot:
            obs["screenshot"] = base64.b64encode(self.page.screenshot(type="png")).decode()
        return obs

    def _title(self) -> str:
        try:
            return self.page.title()
        except Exception:
            return ""

    def _candidates(self, bid) -> list:
        """(is a ref, locator) for what a ref (`e12`) or a stable id (`invoice-X-sync`) may
        name, refs first."""
        text = bid.strip() if isinstance(bid, str) else ""
        if not BID.fullmatch(text):
            raise ActionError(f"{bid!r} is not an element id; use a ref like 'e12' or a bid from the page")
        candidates = [(False, self.page.locator(f'[data-bid="{text}"]'))]
        if REF.fullmatch(text):
            candidates.insert(0, (True, self.page.locator(f"aria-ref={text}")))
        return candidates

    def _element(self, bid):
        """The element a ref (`e12`) or a stable id (`invoice-X-sync`) names on this page."""
        for _, locator in self._candidates(bid):
            try:
                found = locator.count()
            except Exception:
                found = 0
            if found == 1:
                return locator
        raise ActionError(f"no element with id {bid!r} on this page")

    def execute(self, name: str, args: dict) -> str:
        """Run one action; returns a short outcome, raises ActionError on failure."""
        args = normalize(name, args)
        self._in_page = False
        before, tabs = (self.page.url, self.pages()) if name in MOVES else ("", [])
        try:
            outcome = getattr(self, "_" + name)(**args)
            if name in MOVES:
                outcome = self._after_move(before, tabs, outcome)
            return outcome
        except ActionError:
            raise
        except Exception as err:  # Playwright's errors: not visible, not editable, timeouts
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ActionError(f"{name} failed: {first[:300]}") from None

    # --- tabs: the pages of this page's browser context ---------------------------------------
    def pages(self) -> list:
        return list(self.page.context.pages)

    def _adopt(self, page) -> None:
        self.page = page
        track_settling(page)
        page.bring_to_front()

    def _after_move(self, before: str, tabs: list, outcome: str) -> str:
        """Wait for what the action started; a link that opened a tab makes it the active page,
        and a page off the site is left at once."""
        opened = [p for p in self.pages() if not any(p is t for t in tabs)]
        if opened:
            new = opened[-1]
            new.wait_for_load_state("load", timeout=15000)
            if _origin(new.url) != _origin(self.base_url):
                new.close()
                raise ActionError("that link opens a tab off the site; it was closed")
            self._adopt(new)
            self.settle()
            return f"{outcome}; it opened a new tab (tab {self.pages().index(new)}), now the active one"
        self.settle()
        if _origin(self.page.url) != _origin(self.base_url):
            self.page.goto(before)
            self.settle()
            raise ActionError("that leaves the site; stayed on the previous page")
        return outcome

    # --- the actions -------------------------------------------------------------------------
    def _noop(self, wait_ms=1000):
        # The portals change only when acted on: waiting is waiting for what is in flight.
        self.settle()
        return "waited"

    def _pointable(self, bid):
        """The element and, in the same call into the page, how a pointer would meet it
        (CLICK_TARGET); raises ActionError if there is no such element or a pointer cannot
        reach it."""
        for is_ref, locator in self._candidates(bid):
            try:
                if is_ref:
                    # a ref resolves only where Playwright keeps its snapshot: count, then evaluate
                    found = locator.evaluate(f"el => ({CLICK_TARGET})([el])", timeout=ACTION_TIMEOUT_MS) \
                        if locator.count() == 1 else {"count": 0}
                else:  # one call: evaluate_all does not wait for a missing element
                    found = locator.evaluate_all(CLICK_TARGET)
            except Exception:
                continue
            if found["count"] != 1:
                continue
            if found["blocked"]:
                raise ActionError(f"cannot click {bid!r}: {found['blocked']}")
            return locator, found
        raise ActionError(f"no element with id {bid!r} on this page")

    def _click(self, bid, button="left", modifiers=()):
        element, found = self._pointable(bid)
        if found["htmx"] and button == "left" and not modifiers:
            # htmx answers this click in the page (no navigation to wait for): real mouse events
            # at the centre CLICK_TARGET checked, and the settle waits for htmx's swap.
            self.page.mouse.click(found["x"], found["y"])
            self._in_page = True
        else:  # Playwright clicks the centre and waits for a navigation the click starts (force:
            # its actionability waits are the ones CLICK_TARGET replaces)
            element.click(button=button, modifiers=list(modifiers), timeout=ACTION_TIMEOUT_MS, force=True)
        return "clicked"

    def _dblclick(self, bid, button="left", modifiers=()):
        self._pointable(bid)[0].dblclick(button=button, modifiers=list(modifiers), timeout=ACTION_TIMEOUT_MS,
                                         force=True)
        return "double-clicked"

    def _hover(self, bid):
        self._element(bid).hover(timeout=ACTION_TIMEOUT_MS)
        self.settle()
        return "hovering"

    def _editable(self, bid):
        element = self._element(bid)
        # Ask first: fill() itself would wait out its whole timeout for a button to become editable.
        if not element.is_editable(timeout=1000):
            raise ActionError(f"element {bid!r} is read-only or disabled")
        return element

    def _fill(self, bid, value):
        self._editable(bid).fill(value, timeout=ACTION_TIMEOUT_MS)
        self.settle()  # a search box refills its list as you type
        return "filled"

    def _clear(self, bid):
        self._editable(bid).clear(timeout=ACTION_TIMEOUT_MS)
        self.settle()
        return "cleared"

    def _focus(self, bid):
        self._element(bid).focus(timeout=ACTION_TIMEOUT_MS)
        return "focused"

    def _press(self, bid, key_comb):
        self._element(bid).press(key_comb, timeout=ACTION_TIMEOUT_MS)
        return f"pressed {key_comb}"

    def _keyboard_press(self, key):
        self.page.keyboard.press(key)
        return f"pressed {key}"

    def _keyboard_type(self, text):
        self.page.keyboard.type(text)
        return "typed"

    def _select_option(self, bid, options):
        self._element(bid).select_option(options, timeout=ACTION_TIMEOUT_MS)
        self.settle()
        return "selected"

    def _goto(self, url):
        target = urljoin(self.base_url + "/", url)
        if _origin(target) != _origin(self.base_url):
            raise ActionError(f"goto is limited to this site ({self.base_url})")
        self.page.goto(target, timeout=15000)
        self.settle()
        return "loaded"

    def _go_back(self):
        before = self.page.url  # None is also the answer to a same-document move (htmx's push)
        if self.page.go_back(timeout=15000) is None and self.page.url == before:
            raise ActionError("there is no earlier page in this tab")
        return "went back"

    def _go_forward(self):
        before = self.page.url
        if self.page.go_forward(timeout=15000) is None and self.page.url == before:
            raise ActionError("there is no later page in this tab")
        return "went forward"

    def _scroll(self, delta_x=0, delta_y=0):
        """Scroll the element under the viewport's centre that can scroll that way (a scrolling
        table or panel), else the page; says where it ended or that it could not move."""
        moved = self.page.evaluate(SCROLL, [delta_x, delta_y])
        if not moved["moved"]:
            raise ActionError(f"nothing to scroll that way: {moved['where']} is already at its end "
                              f"(scrollX {moved['x']}, scrollY {moved['y']})")
        return f"scrolled {moved['where']} to scrollX {moved['x']}, scrollY {moved['y']}"

    def _new_tab(self):
        page = self.page.context.new_page()
        self._adopt(page)
        return f"opened a blank tab (tab {self.pages().index(page)}); goto a page of this site in it"

    def _tab_focus(self, index):
        pages = self.pages()
        if not 0 <= index < len(pages):
            raise ActionError(f"there is no tab {index}; the open tabs are 0..{len(pages) - 1}")
        self._adopt(pages[index])
        return f"tab {index} is active"

    def _tab_close(self):
        pages = self.pages()
        if len(pages) == 1:
            raise ActionError("this is the only tab; it stays open")
        index = pages.index(self.page)
        self.page.close()
        self._adopt(self.pages()[max(0, index - 1)])
        return f"closed tab {index}; tab {self.pages().index(self.page)} is active"

    def _send_msg_to_user(self, text):
        return "sent"

    def _report_infeasible(self, reason):
        return "reported infeasible"

    def _finish(self, reply):
        return "finished"

    # --- BrowserGym's observation ----------------------------------------------------------
    def gym_observation(self, goal: str = "", chat_messages=(), last_action: str = "",
                        last_action_error: str = "", screenshot: bool = False) -> dict:
        """The page in BrowserGym's observation shape. `axtree_txt` is the agent's tree (stable
        ids as `[bid=...]`), `pruned_html` the page's HTML without scripts, styles, hidden parts
        and presentational attributes, with each element's `bid` and each field's current value;
        `screenshot` (only when asked) an RGB array of the viewport."""
        seen = self.observe()
        pages = self.pages()
        state = self.page.evaluate(FIELD_STATE)
        obs = {
            "goal": goal,
            "goal_object": ({"type": "text", "text": goal},),
            "chat_messages": ({"role": "user", "message": goal}, *chat_messages),
            "url": self.page.url,
            "open_pages_urls": tuple(p.url for p in pages),
            "open_pages_titles": tuple(_safe_title(p) for p in pages),
            "active_page_index": pages.index(self.page) if self.page in pages else 0,
            "axtree_txt": seen["axtree"],
            "pruned_html": prune_html(self.page.content(), state["fields"]),
            "focused_element_bid": state["focused"] or "",
            "last_action": last_action,
            "last_action_error": last_action_error,
        }
        if screenshot:
            obs["screenshot"] = screenshot_array(self.page.screenshot(type="png"))
        return obs


def _safe_title(page) -> str:
    try:
        return page.title()
    except Exception:
        return ""


# Scrolls the nearest scrollable ancestor of the element at the viewport's centre that can move
# the asked way, else the document; reports whether anything moved and where it is now.
SCROLL = """([dx, dy]) => {
  const can = (el, ax) => { const st = getComputedStyle(el), o = ax === 'x' ? st.overflowX : st.overflowY;
    return /(auto|scroll)/.test(o) && (ax === 'x' ? el.scrollWidth > el.clientWidth : el.scrollHeight > el.clientHeight); };
  let el = document.elementFromPoint(innerWidth / 2, innerHeight / 2);
  while (el && el !== document.body && el !== document.documentElement
         && !((dy && can(el, 'y')) || (dx && can(el, 'x')))) el = el.parentElement;
  const box = el && el !== document.body && el !== document.documentElement ? el : document.scrollingElement;
  const x0 = box.scrollLeft, y0 = box.scrollTop;
  box.scrollBy({left: dx, top: dy, behavior: 'instant'});
  const where = box === document.scrollingElement ? 'the page'
    : (box.getAttribute('data-bid') ? `element ${box.getAttribute('data-bid')}` : `a scrolling ${box.tagName.toLowerCase()}`);
  return {moved: box.scrollLeft !== x0 || box.scrollTop !== y0, where,
          x: Math.round(box.scrollLeft), y: Math.round(box.scrollTop)};
}"""
# Each marked field's current value (the HTML has only the one it was served with), and the
# focused element's bid.
FIELD_STATE = """() => {
  const fields = {};
  for (const el of document.querySelectorAll('input[data-bid], textarea[data-bid], select[data-bid]')) {
    fields[el.getAttribute('data-bid')] = el.tagName === 'SELECT'
      ? {selected: Array.from(el.selectedOptions).map(o => o.value)}
      : (/^(checkbox|radio)$/.test(el.type) ? {checked: el.checked} : {value: el.value});
  }
  const f = document.activeElement;
  return {fields, focused: f && f !== document.body ? f.getAttribute('data-bid') : null};
}"""
PRUNED_TAGS = ("script", "style", "link", "meta", "noscript", "template", "svg", "iframe", "base")
KEPT_ATTRIBUTES = {"bid", "href", "type", "name", "value", "role", "placeholder", "for", "checked",
                   "selected", "disabled", "readonly", "required", "multiple", "title", "alt", "action",
                   "method", "open", "colspan", "rowspan", "scope", "id"}


def prune_html(html: str, fields: dict | None = None) -> str:
    """The page's HTML as BrowserGym's pruned_html: scripts, styles, comments, hidden elements
    and presentational attributes dropped, `data-bid` kept as `bid`, aria-* kept, each field's
    current value written in (from `fields`, bid -> state), wrappers without attributes that
    hold one element unwrapped, whitespace collapsed."""
    from bs4 import BeautifulSoup, Comment

    soup = BeautifulSoup(html, "html.parser")
    for comment in soup.find_all(string=lambda t: isinstance(t, Comment)):
        comment.extract()
    for tag in soup.find_all(PRUNED_TAGS):
        tag.decompose()
    if soup.head:
        title = soup.head.title
        soup.head.clear()
        if title:
            soup.head.append(title)
    for tag in soup.find_all(True):
        if tag.decomposed:
            continue
        if (tag.has_attr("hidden") or tag.get("aria-hidden") == "true"
                or (tag.name == "input" and tag.get("type") == "hidden")):
            tag.decompose()
            continue
        attrs = {}
        for key, value in tag.attrs.items():
            if key == "data-bid":
                attrs["bid"] = value
            elif key in KEPT_ATTRIBUTES or key.startswith("aria-"):
                attrs[key] = value
        tag.attrs = attrs
        state = (fields or {}).get(attrs.get("bid"))
        if state:
            _write_state(tag, state)
    for tag in soup.find_all(("div", "span")):
        if not tag.decomposed and not tag.attrs and len(tag.find_all(True, recursive=False)) <= 1 \
                and not any(isinstance(c, str) and c.strip() for c in tag.contents):
            tag.unwrap()
    text = str(soup)
    text = re.sub(r"[ \t\r\f\v]*\n\s*", "\n", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def _write_state(tag, state: dict) -> None:
    if "value" in state:
        if tag.name == "textarea":
            tag.string = state["value"]
        else:
            tag["value"] = state["value"]
    elif "checked" in state:
        if state["checked"]:
            tag["checked"] = ""
        else:
            tag.attrs.pop("checked", None)
    elif "selected" in state:
        for option in tag.find_all("option"):
            if option.get("value", option.get_text()) in state["selected"]:
                option["selected"] = ""
            else:
                option.attrs.pop("selected", None)


def screenshot_array(png: bytes):
    """A PNG screenshot as BrowserGym's screenshot: a height x width x 3 uint8 array."""
    import io

    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"))


def normalize(name: str, args: dict) -> dict:
    """An action's arguments under BrowserGym's parameter names, checked; raises ActionError
    naming what is wrong (an unknown action or parameter, a missing or ill-typed value)."""
    if name not in PARAMS:
        raise ActionError(f"unknown action {name!r}; use one of {', '.join(ACTIONS)}")
    if not isinstance(args, dict):
        raise ActionError(f"{name}'s arguments are an object of named values")
    out = dict(DEFAULTS.get(name, {}))
    aliases = ALIASES.get(name, {})
    if "_positional" in args:
        raise ActionError(f"{name} takes at most {len(PARAMS[name])} argument(s): {', '.join(PARAMS[name]) or 'none'}")
    for key, value in args.items():
        canonical = aliases.get(key, key)
        if canonical not in PARAMS[name]:
            want = ", ".join(PARAMS[name]) or "no arguments"
            raise ActionError(f"{name} takes {want}, not {key!r}")
        out[canonical] = value
    missing = [p for p in PARAMS[name] if p not in out and name != "scroll"]
    if missing:
        raise ActionError(f"{name} needs {', '.join(missing)}")
    for key in ("bid", "value", "key_comb", "key", "text", "url", "reply", "reason"):
        if key in out:
            if isinstance(out[key], (int, float)) and not isinstance(out[key], bool) and key in ("value", "text", "reply"):
                out[key] = str(out[key])  # fill('e3', 9140): the number as typed
            if not isinstance(out[key], str):
                raise ActionError(f"{name}'s {key} is text, not {type(out[key]).__name__}")
    for key in ("delta_x", "delta_y", "wait_ms"):
        if key in out:
            if isinstance(out[key], bool) or not isinstance(out[key], (int, float)):
                raise ActionError(f"{name}'s {key} is a number of pixels or ms, not {out[key]!r}")
            out[key] = float(out[key])
    if name == "scroll":
        out.setdefault("delta_x", 0.0)
        out.setdefault("delta_y", 0.0)
    if "index" in out and (isinstance(out["index"], bool) or not isinstance(out["index"], int)):
        raise ActionError(f"tab_focus's index is a tab number (0 is the first), not {out['index']!r}")
    if "options" in out:
        options = out["options"]
        if isinstance(options, (list, tuple)) and options and all(isinstance(o, str) for o in options):
            out["options"] = list(options)
        elif isinstance(options, str):
            pass
        else:
            raise ActionError("select_option's options is an option's value or label, or a list of them")
    if "button" in out and out["button"] not in BUTTONS:
        raise ActionError(f"{name}'s button is one of {', '.join(BUTTONS)}, not {out['button']!r}")
    if "modifiers" in out:
        mods = out["modifiers"]
        if not isinstance(mods, (list, tuple)) or any(m not in MODIFIERS for m in mods):
            raise ActionError(f"{name}'s modifiers is a list of {', '.join(MODIFIERS)}")
        out["modifiers"] = list(mods)
    return out


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
        if len(values) > len(PARAMS[name]):
            return name, {"_positional": values}  # normalize() says how many it takes
        args = dict(zip(PARAMS[name], values))
        args.update(kw)
        return name, args
    return None


def format_observation(obs: dict, note: str = "") -> str:
    head = f"{note}\n" if note else ""
    return f"{head}URL: {obs['url']}\nTitle: {obs['title']}\nAccessibility tree:\n{obs['axtree']}"
