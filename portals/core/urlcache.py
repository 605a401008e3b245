"""`url_for` in templates, remembered: a list page builds a hundred and more links per render
(each row links its record, company and commitment and posts a form), and werkzeug builds each
one afresh through the URL map (tens of microseconds apiece, a fifth of a list page's time).

A link is a function of its endpoint (a leading "." means the request's blueprint), its values
in the order given (the ones the rule does not take become the query string, in that order) and
the request's script root; links are relative within a request, and the portals register no
`url_defaults`. So the built link is kept under exactly that key. Calls with `_external`,
`_scheme`, `_anchor` or `_method`, outside a request, or with a value that cannot be a key are
built as before, and so is a link that fails to build (its error is raised every time).
"""
from __future__ import annotations

from flask import Flask
from flask.globals import _cv_request

MAX_LINKS = 50_000  # the cache starts over beyond this many links (a few MB)


def install(app: Flask) -> None:
    """Templates of `app` get the remembering `url_for`."""
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
