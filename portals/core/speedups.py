"""Two costs of every portal page removed, each without changing what a page says.

`url_for` in templates, remembered: a list page builds a hundred and more links per render
(each row links its record, company and commitment and posts a form), and werkzeug builds each
one afresh through the URL map (tens of microseconds apiece, a fifth of a list page's time).
A link is a function of its endpoint (a leading "." means the request's blueprint), its values
in the order given (the ones the rule does not take become the query string, in that order) and
the request's script root; links are relative within a request, and the portals register no
`url_defaults`. So the built link is kept under exactly that key. Calls with `_external`,
`_scheme`, `_anchor` or `_method`, outside a request, or with a value that cannot be a key are
built as before, and so is a link that fails to build (its error is raised every time).

`request.args.get` / `request.form.get` of a missing key: werkzeug's `get` looks the key up by
raising a `BadRequestKeyError` (an HTTP exception object) and catching it, a few microseconds
each, and the list templates ask for every filter on every row (two hundred misses a page).
The query and form dicts here answer a missing key's default without the exception.
"""
from __future__ import annotations

from flask import Flask
from flask.globals import _cv_request
from werkzeug.datastructures import ImmutableMultiDict

MAX_LINKS = 50_000  # the cache starts over beyond this many links (a few MB)


class QueryDict(ImmutableMultiDict):
    """werkzeug's query and form dict, with `get` of a missing key answered without raising."""

    def get(self, key, default=None, type=None):  # noqa: A002  werkzeug's own signature
        if key not in self:
            return default
        return super().get(key, default, type)


def install(app: Flask) -> None:
    """Requests of `app` get the quicker query and form dicts, its templates the remembering
    `url_for`. Call it last in building the app (after every blueprint and extension)."""
    app.request_class = type("Request", (app.request_class,), {"parameter_storage_class": QueryDict})
    if app.url_default_functions:  # a url_defaults callback could make a link depend on more
        return
    build = app.url_for
    links: dict = {}

    def url_for(endpoint: str, **values) -> str:
        ctx = _cv_request.get(None)
        if ctx is None or any(name[:1] == "_" for name in values):
            return build(endpoint, **values)
        request = ctx.request
        key = (request.blueprint if endpoint[:1] == "." else None, endpoint, request.script_root,
               tuple((name, type(value), value) for name, value in values.items()))
        try:
            return links[key]
        except KeyError:
            pass
        except TypeError:  # a value that is not hashable
            return build(endpoint, **values)
        link = build(endpoint, **values)
        if len(links) >= MAX_LINKS:
            links.clear()
        links[key] = link
        return link

    app.jinja_env.globals["url_for"] = url_for
