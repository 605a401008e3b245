"""A small link crawler over the Flask test client, and the forms found on the way.

The security tests use it to visit every page a browser can reach (links and GET forms) and
to find every POST form with its fields, for every app the registry knows: a new app is
crawled without anyone listing its pages. Pages are read with beautifulsoup4.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from urllib.parse import urlencode, urljoin, urlsplit

from bs4 import BeautifulSoup


@dataclass
class Form:
    page: str
    action: str
    method: str
    fields: dict = field(default_factory=dict)  # name -> default value
    text_fields: list = field(default_factory=list)  # names a person types into
    selects: dict = field(default_factory=dict)  # name -> option values


@dataclass
class Page:
    links: list = field(default_factory=list)
    forms: list = field(default_factory=list)


def parse(page: str, html: str) -> Page:
    """The links (absolute) and forms of one HTML page; a form's fields are what the browser would
    send by default (checked boxes, selected options, else a select's empty value)."""
    soup = BeautifulSoup(html, "html.parser")
    found = Page(links=[urljoin(page, a["href"]) for a in soup.find_all("a", href=True) if a["href"]])
    for tag in soup.find_all("form"):
        form = Form(page, urljoin(page, tag.get("action") or page), (tag.get("method") or "get").lower())
        # a control belongs to the form it sits in, or to the one its form="id" names
        inside = [c for c in tag.find_all(("input", "textarea", "select")) if c.get("form") in (None, tag.get("id"))]
        named = soup.find_all(("input", "textarea", "select"), attrs={"form": tag.get("id")}) if tag.get("id") else []
        for control in inside + [c for c in named if c not in inside]:
            name = control.get("name")
            if not name:
                continue
            if control.name == "input":
                kind = (control.get("type") or "text").lower()
                if kind in ("checkbox", "radio") and not control.has_attr("checked"):
                    continue
                form.fields[name] = control.get("value") or ("on" if kind == "checkbox" else "")
                if kind in ("text", "search", "email", "number", "date", "tel", "url"):
                    form.text_fields.append(name)
            elif control.name == "textarea":
                form.fields[name] = ""
                form.text_fields.append(name)
            else:
                options = control.find_all("option")
                form.selects[name] = [o.get("value", "") for o in options]
                chosen = [o for o in options if o.has_attr("selected")]
                form.fields[name] = chosen[-1].get("value", "") if chosen else ""
        found.forms.append(form)
    return found


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
