"""The leak check: nothing the agent is handed may contain a value the task's grader asserts.

What an agent is handed besides its instruction: the JSON schemas (descriptions, parameter
docs, examples) of every native tool of the task's apps, the hints of the portal pages
(placeholders, title and aria-description attributes, help text beside a field, whatever a
field's aria-describedby points at) and the policy document the task names. If any of those
carries an asserted value (the amount to enter, the vendor id, the cost code, the address),
a policy that copies examples passes without reading anything.

A value the instruction itself gives (the job number, the invoice the person names) is not a
leak. Short enum-like words ("draft", "synced", "S") are the tools' own choices, not answers.

    leaks_for(task, store) -> ["3706560.00 (est_cost_to_complete) is in tool vista_erp.jc...", ...]
"""
from __future__ import annotations

import json
import re
from collections import deque
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

POLICY_DIR = Path(__file__).resolve().parent / "policies"
HINT_ATTRS = ("placeholder", "title", "aria-description", "aria-placeholder")
PAGES_PER_APP = 120
PAGES_PER_ROUTE = 2
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_ENUM_WORD = re.compile(r"^[A-Za-z_ ]{1,24}$")
_LITERAL = re.compile(r"^[^|()\[\]*+?{}^$\\]+$")


# -- what the grader asserts -------------------------------------------------------------------

def _scalars(value) -> list[str]:
    """The literal values inside an evaluator value or matcher (regexes only when literal)."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (str, int, float, Decimal)):
        return [str(value)]
    if isinstance(value, list):
        return [s for v in value for s in _scalars(v)]
    if isinstance(value, dict) and len(value) == 1:
        kind, inner = next(iter(value.items()))
        if kind in ("in", "ieq", "mentions"):
            return _scalars(inner)
        if kind == "regex" and isinstance(inner, str):
            literal = re.sub(r"\\(.)", r"\1", inner)
            return [literal] if _LITERAL.match(literal) else []
    return []  # "ne", "denies": what must not be, not an answer


def _answer_like(value: str) -> bool:
    """An id, amount, date, code or address: not a short word that is a tool's enum choice."""
    text = value.strip()
    return len(text) >= 3 and not _ENUM_WORD.match(text) and any(c.isalnum() for c in text)


def _zero(text: str) -> bool:
    """A zero amount: "nothing changes" is no answer, so a tool's 0.00 default gives none away."""
    try:
        return Decimal(text) == 0
    except ArithmeticError:
        return False


def asserted_values(evaluator: dict) -> dict[str, str]:
    """{value: where the grader asserts it} for the evaluator's expected rows and reply claims."""
    found: dict[str, str] = {}
    for spec in evaluator.get("expected", []):
        for part in ("where", "assert"):
            for column, value in (spec.get(part) or {}).items():
                for text in _scalars(value):
                    if _answer_like(text) and not _zero(text):
                        found.setdefault(text, f"{spec.get('table', '?')}.{column}")
    for claim in evaluator.get("required_outputs", []):
        if isinstance(claim, dict) and claim.get("claim") in ("amount", "id"):
            text = str(claim.get("value", ""))
            if _answer_like(text):
                found.setdefault(text, f"reply {claim['claim']}")
    return found


def spellings(value: str) -> list[str]:
    """How an example could spell the value: an amount also with thousands separators."""
    out = [value]
    try:
        amount = Decimal(value.replace(",", ""))
    except InvalidOperation:
        return out
    if re.fullmatch(r"-?[0-9][0-9,]*\.[0-9]{2}", value):
        out.append(f"{amount:,.2f}")
        whole = f"{amount:.0f}"
        if amount == amount.to_integral_value() and len(whole) >= 5:
            out += [whole, f"{amount:,.0f}"]
    return list(dict.fromkeys(out))


@lru_cache(maxsize=None)
def _token(spelling: str) -> re.Pattern:
    # compiled once: the checks try thousands of values, past the re module's own cache
    return re.compile(rf"(?<![A-Za-z0-9]){re.escape(spelling)}(?![A-Za-z0-9])", re.I)


def occurs(value: str, text: str) -> bool:
    """The value as a whole token of the text (V1001 is not in V10012), case-insensitive."""
    folded = text.casefold()
    return any(s.casefold() in folded and _token(s).search(text) for s in spellings(value))


def given_values(task) -> set[str]:
    """The asserted values the instruction itself states: the person handed them over."""
    return {v for v in asserted_values(task.evaluator) if occurs(v, task.instruction)}


# -- what the agent is handed ------------------------------------------------------------------

class _Hints(HTMLParser):
    """Links and hint texts of one page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.hints: list[tuple[str, str]] = []  # (what, text)
        self.described: set[str] = set()
        self._open: list[tuple[str, str, list[str]]] = []  # (tag, label, text parts)
        self._texts: dict[str, str] = {}  # element id -> its text

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        for name in HINT_ATTRS:
            if a.get(name):
                self.hints.append((f"{tag}[{name}]", a[name]))
        for ref in a.get("aria-describedby", "").split():
            if not ref.startswith("e-"):  # an error slot says what went wrong, not what to type
                self.described.add(ref)
        classes = a.get("class", "").split()
        label = ("hint" if tag == "small" or any("hint" in c or "help" in c for c in classes) else "")
        if tag in VOID:
            return
        self._open.append((tag, f"#{a['id']}" if a.get("id") else "", [label]))

    def handle_endtag(self, tag):
        if all(open_tag != tag for open_tag, _i, _p in self._open):
            return  # a stray end tag closes nothing
        while self._open:
            open_tag, ident, parts = self._open.pop()
            text = " ".join(" ".join(parts[1:]).split())
            if parts[0] and text:
                self.hints.append((f"{open_tag}.hint", text))
            if ident:
                self._texts[ident[1:]] = text
            if self._open:
                self._open[-1][2].append(text)
            if open_tag == tag:
                return

    def handle_data(self, data):
        if self._open:
            self._open[-1][2].append(data)

    def result(self) -> list[tuple[str, str]]:
        return self.hints + [(f"#{i}", self._texts[i]) for i in sorted(self.described) if i in self._texts]


def hint_texts(html: str) -> list[tuple[str, str]]:
    """(what, text) of every hint on a page: hint attributes, help text, aria-describedby targets."""
    parser = _Hints()
    parser.feed(html)
    parser.close()
    return parser.result()


def _page_links(html: str) -> list[str]:
    parser = _Hints()
    parser.feed(html)
    return parser.links


@lru_cache(maxsize=32)
def _portal_hints(store, app: str) -> tuple[tuple[str, str], ...]:
    """(where, text) of the hints on the pages of one app's portal, crawled breadth-first."""
    from portals.core.registry import get_app
    from portals.core.web import create_app, enter_url

    flask_app = create_app(store)
    episode = store.create([app])
    try:
        client = flask_app.test_client()
        client.get(enter_url(flask_app, episode.id, "/"))
        adapter = flask_app.url_map.bind("localhost")
        base = get_app(app).base_path
        seen, per_route, out = set(), {}, []
        queue = deque([base + "/"])
        while queue and len(seen) < PAGES_PER_APP:
            url = queue.popleft()
            if url in seen:
                continue
            try:
                route = adapter.match(url.split("?")[0])[0]
            except Exception:  # not a page route: the request itself will say so
                route = url
            if per_route.get(route, 0) >= PAGES_PER_ROUTE:
                continue
            per_route[route] = per_route.get(route, 0) + 1
            seen.add(url)
            resp = client.get(url)
            if resp.status_code in (301, 302, 303):
                queue.append(urlsplit(resp.headers["Location"]).path)
                continue
            if "text/html" not in resp.content_type:
                continue
            html = resp.get_data(as_text=True)
            out += [(f"page {url} {what}", text) for what, text in hint_texts(html)]
            for link in _page_links(html):
                parts = urlsplit(urljoin("http://localhost" + url, link))
                local = parts.path + (f"?{parts.query}" if parts.query else "")
                if parts.netloc == "localhost" and local.startswith(base + "/") and "/download" not in local:
                    queue.append(local)
        return tuple(out)
    finally:
        store.drop(episode.id)


def handed_texts(task, store) -> list[tuple[str, str]]:
    """(where, text) of everything the task's agent is handed besides the instruction."""
    from portals.core.registry import get_app

    out = []
    for app in task.apps:
        for tool in get_app(app).tools.values():
            out.append((f"tool {app}.{tool.name}", json.dumps(tool.schema(), ensure_ascii=False)))
        out += list(_portal_hints(store, app))
    policy = POLICY_DIR / task.policy_ref
    if policy.is_file():
        out.append((f"policy {task.policy_ref}", policy.read_text()))
    return out


def leaks_for(task, store) -> list[str]:
    """Each asserted value (not given by the instruction) found in what the agent is handed."""
    return leaks_in(task, handed_texts(task, store))


def leaks_in(task, texts: list[tuple[str, str]]) -> list[str]:
    """Each asserted value (not given by the instruction) found in these (where, text) pairs."""
    given = given_values(task)
    wanted = {v: where for v, where in asserted_values(task.evaluator).items() if v not in given}
    found = []
    for where, text in texts:
        for value, asserted in wanted.items():
            if occurs(value, text):
                found.append(f"{value} (asserted as {asserted}) is in {where}")
    return found
