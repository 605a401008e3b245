"""A small link crawler over the Flask test client, and the forms found on the way.

The security tests use it to visit every page a browser can reach (links and GET forms) and
to find every POST form with its fields, for every app the registry knows: a new app is
crawled without anyone listing its pages.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlencode, urljoin, urlsplit


@dataclass
class Form:
    page: str
    action: str
    method: str
    fields: dict = field(default_factory=dict)  # name -> default value
    text_fields: list = field(default_factory=list)  # names a person types into
    selects: dict = field(default_factory=dict)  # name -> option values


class _Parser(HTMLParser):
    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.page = page
        self.links: list[str] = []
        self.forms: list[Form] = []
        self._select: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.links.append(urljoin(self.page, a["href"]))
        elif tag == "form":
            self.forms.append(Form(self.page, urljoin(self.page, a.get("action") or self.page),
                                   (a.get("method") or "get").lower()))
        elif not self.forms or not a.get("name"):
            return
        elif tag == "input":
            kind = (a.get("type") or "text").lower()
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            self.forms[-1].fields[a["name"]] = a.get("value") or ("on" if kind == "checkbox" else "")
            if kind in ("text", "search", "email", "number", "date", "tel", "url"):
                self.forms[-1].text_fields.append(a["name"])
        elif tag == "textarea":
            self.forms[-1].fields[a["name"]] = ""
            self.forms[-1].text_fields.append(a["name"])
        elif tag == "select":
            self._select = a["name"]
            self.forms[-1].selects[a["name"]] = []
            self.forms[-1].fields[a["name"]] = ""
        elif tag == "option" and self._select:
            self.forms[-1].selects[self._select].append(a.get("value", ""))
            if "selected" in a:
                self.forms[-1].fields[self._select] = a.get("value", "")

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None


def parse(page: str, html: str) -> _Parser:
    parser = _Parser(page)
    parser.feed(html)
    return parser


def local(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def endpoint_of(adapter, url: str, method: str = "GET") -> str | None:
    try:
        return adapter.match(url.split("?")[0], method=method)[0]
    except Exception:  # not a GET route (or a 404): the request itself will say so
        return None


def crawl(client, starts: list[str], within: tuple[str, ...], limit: int = 150, per_endpoint: int = 3,
          get_forms: bool = False):
    """Breadth-first over links and GET forms whose path starts with one of `within`.

    At most `per_endpoint` URLs of one route are fetched (two bills look alike), so the crawl
    reaches every kind of page quickly. Returns ({url: (status, body)}, [Form]) - the POST
    forms seen (and, with `get_forms`, the GET forms a person types into), once per route.
    """
    adapter = client.application.url_map.bind("localhost")
    seen: dict[str, tuple[int, str]] = {}
    per: dict[str | None, int] = {}
    forms: dict[tuple, Form] = {}
    queue = deque(starts)
    while queue and len(seen) < limit:
        url = queue.popleft()
        if url in seen:
            continue
        endpoint = endpoint_of(adapter, url)
        if per.get(endpoint, 0) >= per_endpoint and url not in starts:
            continue
        per[endpoint] = per.get(endpoint, 0) + 1
        resp = client.get(url)
        body = resp.get_data().decode("utf-8", "replace")
        seen[url] = (resp.status_code, body)
        if resp.status_code in (301, 302, 303):
            queue.append(local(resp.headers["Location"]))
            continue
        if "text/html" not in resp.content_type:
            continue
        parsed = parse("http://localhost" + url, body)
        found = [local(u) for u in parsed.links]
        for form in parsed.forms:
            if form.method == "get":
                query = {k: v for k, v in form.fields.items() if v}
                found.append(local(form.action) + (f"?{urlencode(query)}" if query else ""))
                if get_forms and form.text_fields:
                    form.action = local(form.action)
                    forms.setdefault((endpoint_of(adapter, form.action) or form.action, "get"), form)
            else:
                form.action = local(form.action)
                key = (endpoint_of(adapter, form.action, "POST") or form.action, tuple(sorted(form.fields)))
                forms.setdefault(key, form)
        for link in found:
            if link.startswith(within) and link not in seen:
                queue.append(link)
    return seen, list(forms.values())
