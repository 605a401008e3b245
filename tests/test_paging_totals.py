"""Every list tool's paging adds up: a list's pages, read in small pages, hold `total` rows in
all, each page says the same `total` and `pages`, and a page past the last is empty and still says
them. A page that is not full ends the list, so its total is known without a count; these checks
hold whether or not a count was asked for."""
from __future__ import annotations

from portals.core.environment import Environment
from portals.core.registry import load_apps

APPS = load_apps()
PAGED = [(app, name) for app, spec in APPS.items() for name, tool in spec.tools.items()
         if any(p.name == "page" for p in tool.params) and any(p.name == "per_page" for p in tool.params)
         and not any(p.required for p in tool.params)]
PER_PAGE = 7


def test_every_list_tool_s_pages_add_up_to_its_total(store):
    checked = multi_page = 0
    for app in sorted({app for app, _ in PAGED}):
        episode = store.create([app])
        try:
            env = Environment(episode, [app])
            for tool in sorted(name for a, name in PAGED if a == app):
                whole = env.call(f"{app}.{tool}", {"per_page": 100})
                assert "error" not in whole, (app, tool, whole)
                pages = -(-whole["total"] // PER_PAGE)
                # the first pages, the last and one past it (a long list is not read in full)
                seen = []
                for page in sorted({*range(1, min(pages, 4) + 1), pages, pages + 1} - {0}):
                    got = env.call(f"{app}.{tool}", {"page": page, "per_page": PER_PAGE})
                    assert (got["total"], got["pages"]) == (whole["total"], pages), (app, tool, page)
                    expected = min(PER_PAGE, max(0, whole["total"] - (page - 1) * PER_PAGE))
                    assert len(got["items"]) == expected, (app, tool, page, len(got["items"]))
                    if page <= 4:
                        seen.extend(got["items"])
                assert seen == whole["items"][:len(seen)], (app, tool)
                checked += 1
                multi_page += pages > 1
        finally:
            store.drop(episode.id)
    assert checked >= 40 and multi_page >= 20, (checked, multi_page)
