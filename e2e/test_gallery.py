"""`cfab gallery` over every app's main screens (the manifests' screen lists, the archetypes'
where a manifest lists none, and each ERP's first bill, vendor, job and commitment) with the
task panel open: each page renders with no HTTP error, no
failed resource, no console error or uncaught exception, and no sideways scroll at the narrowest
supported width (1280 px) nor the widest (1920 px); a broken page is named in the result."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent.gallery import run_gallery
from portals.core.registry import load_apps
from portals.core.web import enter_url

SPECS = load_apps()
APPS = sorted(SPECS)
RECORD_LISTS = ("bills", "vendors", "projects", "commitments")  # an ERP's first record of each, shot too


def first_records(server, store) -> list[tuple[str, str, str]]:
    """(app, screen, path) of the first record each ERP's main lists link to."""
    episode = store.create([a for a in APPS if SPECS[a].kind == "erp"])
    client = server.app.test_client()
    client.get(enter_url(server.app, episode.id, "/"))
    out = []
    try:
        with server.app.test_request_context():
            from flask import url_for
            for app in (a for a in APPS if SPECS[a].kind == "erp"):
                for screen in (s for s in RECORD_LISTS if s in SPECS[app].manifest["screens"]):
                    page = client.get(url_for(f"{app}.{screen}")).get_data(as_text=True)
                    rows = page.split("<tbody>", 1)[-1]
                    found = re.search(r'<td><a href="([^"]+)"', rows)
                    if found:
                        out.append((app, f"{screen}-first-record", found.group(1).replace("&amp;", "&")))
    finally:
        store.drop(episode.id)
    return out


@pytest.fixture(scope="module")
def book(tmp_path_factory, e2e_store, browser, live_server):
    """One gallery of every app at 1280 px, shared by the checks below."""
    out = tmp_path_factory.mktemp("gallery")
    records = first_records(live_server, e2e_store)
    assert {a for a, _s, _p in records} == {a for a in APPS if SPECS[a].kind == "erp"}
    return out, run_gallery(out, APPS, store=e2e_store, browser=browser, server=live_server,
                            extra=[*records, ("outlook", "missing-message", "/outlook/message/no-such-message")])


def test_every_main_screen_of_every_app_renders_cleanly(book):
    out, result = book
    shots = [s for s in result["screens"] if s["screen"] != "missing-message"]
    assert {s["app"] for s in shots} == set(APPS)
    bad = [f"{s['app']}/{s['screen']} {s['path']}: {'; '.join(s['problems'])}" for s in shots if s["problems"]]
    assert not bad, "\n".join(bad)
    for s in shots:
        assert (out / s["image"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", s


def test_the_index_shows_every_screen_and_names_a_broken_one(book):
    out, result = book
    index = Path(result["index"]).read_text()
    assert all(s["image"] in index for s in result["screens"] if s["image"])
    assert result["failed"] == [next(f for f in result["failed"] if f.startswith("outlook/missing-message"))]
    assert "404" in result["failed"][0]


def test_the_widest_window_breaks_no_layout_either(tmp_path, e2e_store, browser, live_server):
    """At 1920 px, the first main screen of each app (the ERP lists and forms reflow most)."""
    first = {}
    result = run_gallery(tmp_path, APPS, width=1920, store=e2e_store, browser=browser, server=live_server,
                         only=lambda shot: first.setdefault(shot.app, shot.screen) == shot.screen)
    assert {s["app"] for s in result["screens"] if s["image"]} == set(APPS)
    assert not result["failed"], "\n".join(result["failed"])
