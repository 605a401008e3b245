"""`cfab gallery`: a full-page screenshot of every main screen of every app, and an index page.

The screens come from each manifest's `screens` (endpoint names) or, where a manifest lists
none, from its archetype's main screens below, with detail pages opened on the first record the
seeded episode has. Each page is loaded in Chromium with the task panel open (as a person sees
it); a page that answers an HTTP error, fails to load a resource, logs a console error, throws,
or is wider than the window (a layout break) is a failure, named in the result, so the gallery
doubles as a smoke test of every screen.
"""
from __future__ import annotations

import html
import json
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from portals.core.dispatch import call_service

# archetype -> main screens: (name, endpoint, query args, which sample record the URL needs)
ARCHETYPE_SCREENS = {
    "pm": [("company-home", "index", {}, None), ("directory", "directory", {}, None),
           ("company", "company", {}, "vendor"),
           ("invoicing", "company_invoicing", {}, None), ("erp-ready", "erp", {}, None),
           ("erp-cost-codes", "erp", {"tab": "cost_codes"}, None),
           ("project-home", "project_home", {}, "project"), ("budget", "budget", {}, "project"),
           ("prime-contract", "prime_contract", {}, "project"), ("commitments", "commitments", {}, "project"),
           ("commitment", "commitment", {}, "commitment"),
           ("commitment-invoices", "commitment", {"tab": "invoices"}, "commitment"),
           ("project-invoicing", "invoicing", {}, "project"), ("invoice", "invoice", {}, "invoice"),
           ("change-events", "change_events", {}, "project"), ("change-orders", "change_orders", {}, "project"),
           ("direct-costs", "direct_costs", {}, "project"), ("daily-log", "daily_log", {}, "project"),
           # the project-finance screens (a PM product shows those its manifest's [pm] screens list)
           ("overview", "overview", {}, "project"),
           ("scope", "scope", {}, "project"), ("contract", "contract", {}, "project"),
           ("cost-budget", "cost_budget", {}, "project"), ("project-commitments", "project_commitments", {}, "project"),
           ("commitment-sov", "commitment_sov", {}, "commitment"), ("eapps", "eapps", {}, None),
           ("eapp", "eapp", {}, "invoice"), ("vendor-invoices", "vendor_invoices", {}, None),
           ("project-vendor-invoices", "project_vendor_invoices", {}, "project"),
           ("new-vendor-invoice", "new_vendor_invoice", {}, "project"),
           ("customer-invoices", "customer_invoices", {}, None),
           ("customer-invoice", "customer_invoice", {}, "customer_invoice"),
           ("new-customer-invoice", "new_customer_invoice", {}, "project"),
           ("bid-packages", "bid_packages", {}, None), ("vendors", "vendors", {}, None),
           # an owner's funding (INGENIOUS.BUILD)
           ("funding-sources", "funding_sources", {}, "project"), ("invoice-approvals", "invoices", {}, None),
           ("project-invoice-approvals", "project_invoices", {}, "project"),
           ("application-packages", "packages", {}, None), ("project-packages", "project_packages", {}, "project")],
    "docs": [("all-files", "all_files", {}, None), ("folder", "folder", {}, "folder"),
             ("search", "search", {}, "query"), ("recents", "recents", {}, None), ("sign", "sign", {}, None),
             ("file", "file", {}, "file")],
    "office": [("inbox", "inbox", {}, None), ("message", "message", {}, "message"),
               ("compose", "compose", {}, None)],
    "office.workbook": [("workbooks", "workbooks", {}, None), ("workbook", "workbook", {}, "workbook")],
}


def _plan_key(spec) -> str:
    """An archetype's screens, or those of one product line of it (Excel beside Outlook)."""
    line = spec.manifest.get("line")
    return f"{spec.kind}.{line}" if line and f"{spec.kind}.{line}" in ARCHETYPE_SCREENS else spec.kind


@dataclass
class Shot:
    app: str
    screen: str
    path: str
    image: str = ""
    problems: list = field(default_factory=list)


def _samples(episode, spec) -> dict:
    """URL arguments of the first record of each kind a detail screen needs."""
    call = lambda service, args=None: call_service(episode, spec.name, service, args or {})  # noqa: E731
    out: dict = {}
    if spec.kind == "pm":
        project = call("list_projects", {"per_page": 1})["items"][0]["project_number"]
        out["project"] = {"project_number": project}
        commitments = call("list_commitments", {"project_number": project, "per_page": 1})["items"]
        if commitments:
            out["commitment"] = {"project_number": project, "number": commitments[0]["number"]}
        invoices = call("list_requisitions", {"project_number": project, "per_page": 1})["items"]
        if invoices:
            out["invoice"] = {"project_number": project, "requisition_id": invoices[0]["requisition_id"]}
        out["vendor"] = {"vendor_id": call("list_vendors", {"per_page": 1})["items"][0]["vendor_id"]}
        billed = call("list_customer_invoices", {"project_number": project, "per_page": 1})["items"]
        if billed:
            out["customer_invoice"] = {"project_number": project, "number": billed[0]["number"]}
    elif spec.kind == "docs":
        root = call("list_folder_items", {"folder_id": 0, "per_page": 100})["items"]
        folder = next((i for i in root if i["type"] == "folder"), None)
        if folder:
            out["folder"] = {"folder_id": folder["id"]}
        files = call("search_files", {"per_page": 1})["items"]
        if files:
            out["file"] = {"doc_id": files[0]["id"]}
            out["query"] = {"query": files[0]["name"].rsplit(".", 1)[0]}
    elif _plan_key(spec) == "office.workbook":
        books = call("list_workbooks", {"per_page": 1})["items"]
        if books:
            out["workbook"] = {"workbook_id": books[0]["id"]}
    elif spec.kind == "office":
        messages = call("list_messages", {"per_page": 1})["items"]
        if messages:
            out["message"] = {"message_id": messages[0]["id"]}
    return out


def screens_of(flask_app, episode, spec) -> list[Shot]:
    """Every main screen of one app as a path, from its manifest or its archetype's list."""
    from flask import url_for
    from werkzeug.routing import BuildError

    listed = spec.manifest.get("screens")
    plan = [(name, name, {}, None) for name in listed] if listed else ARCHETYPE_SCREENS.get(_plan_key(spec), [])
    samples = _samples(episode, spec) if not listed else {}
    shots = []
    with flask_app.test_request_context():
        chosen = set(spec.manifest.get(spec.kind, {}).get("screens", ()))
        for name, endpoint, args, needs in plan:
            if chosen and not listed and f"{spec.name}.{endpoint}" not in flask_app.view_functions:
                continue  # a screen of the archetype this product does not show (its manifest chose)
            if needs and needs not in samples:
                shots.append(Shot(spec.name, name, "", problems=[f"no {needs} in this book to show"]))
                continue
            try:
                path = url_for(f"{spec.name}.{endpoint}", **samples.get(needs, {}), **args)
            except BuildError:
                shots.append(Shot(spec.name, name, "", problems=[f"screen {endpoint!r} has no route"]))
                continue
            shots.append(Shot(spec.name, name, path))
    return shots


def _recorder_post(request) -> bool:
    # The recording panel posts the last page's events as it unloads (keepalive); the next
    # page's navigation can abort that post, which says nothing about the page being shot.
    return request.method == "POST" and request.url.endswith("/episode/events")


def _shoot(page, base_url: str, shot: Shot, out: Path) -> None:
    problems: list[str] = []
    listeners = [("console", lambda m: problems.append(f"console {m.type}: {m.text[:200]}")
                  if m.type == "error" else None),
                 ("pageerror", lambda e: problems.append(f"page error: {str(e)[:200]}")),
                 ("response", lambda r: problems.append(f"HTTP {r.status} {r.url[len(base_url):][:120]}")
                  if r.status >= 400 else None),
                 ("requestfailed", lambda r: None if _recorder_post(r) else
                  problems.append(f"failed to load {r.url[len(base_url):][:120]}"))]
    for event, fn in listeners:
        page.on(event, fn)
    try:
        response = page.goto(base_url + shot.path, wait_until="load")
        if response is None or response.status >= 400:
            status = response.status if response else "no response"
            if not any(p.startswith("HTTP") for p in problems):
                problems.append(f"HTTP {status} {shot.path}")
        wide = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        if wide[0] > wide[1] + 1:  # a layout break: the page scrolls sideways instead of its tables
            problems.append(f"layout: the page is {wide[0]} px wide in a {wide[1]} px window")
        image = out / shot.app / f"{shot.screen}.png"
        image.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(image), full_page=True)
        shot.image = str(image.relative_to(out))
    finally:
        for event, fn in listeners:
            page.remove_listener(event, fn)
    shot.problems += list(dict.fromkeys(problems))


def _index(shots: list[Shot], out: Path, width: int) -> Path:
    rows = []
    for app in dict.fromkeys(s.app for s in shots):
        cells = []
        for s in (s for s in shots if s.app == app):
            label = html.escape(f"{s.screen} — {s.path or 'not shown'}")
            bad = "".join(f"<li>{html.escape(p)}</li>" for p in s.problems)
            img = (f'<a href="{html.escape(s.image)}"><img src="{html.escape(s.image)}" alt="{label}" '
                   f'loading="lazy"></a>') if s.image else ""
            cells.append(f'<figure class="{"bad" if s.problems else "ok"}">{img}<figcaption>{label}'
                         f'{f"<ul>{bad}</ul>" if bad else ""}</figcaption></figure>')
        rows.append(f"<section><h2>{html.escape(app)}</h2><div class=grid>{''.join(cells)}</div></section>")
    failed = sum(1 for s in shots if s.problems)
    page = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CFAgentBench gallery</title>
<style>body{{font:14px system-ui,sans-serif;margin:20px}} .grid{{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:14px}}
figure{{margin:0;border:1px solid #ddd;padding:6px;border-radius:4px}} figure.bad{{border-color:#c0392b;background:#fdecea}}
img{{width:100%;height:240px;object-fit:cover;object-position:top;border:1px solid #eee}} figcaption{{font-size:12px;word-break:break-all}}</style>
</head><body><h1>CFAgentBench gallery</h1><p>{len(shots)} screens at {width} px wide, {failed} with problems.</p>
{''.join(rows)}</body></html>"""
    path = out / "index.html"
    path.write_text(page)
    return path


def run_gallery(out_dir, apps: list[str] | None = None, width: int = 1280, panel: bool = True,
                store=None, browser=None, server=None, extra: list[tuple[str, str, str]] = (),
                only=None) -> dict:
    """Shoot every main screen of `apps` (default all) into `out_dir`; returns the record of it.

    Pass a running PortalServer and Chromium to reuse them. `extra` adds (app, screen, path)
    pages to the plan; `only(shot) -> bool` keeps part of it (e.g. each app's first screen).
    The result's "failed" lists "app/screen: problem" for every bad page.
    """
    from portals.core import recording
    from portals.core.episode import EpisodeStore
    from portals.core.registry import load_apps
    from portals.core.web import create_app, enter_url

    from .browser import PortalServer, chromium

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        if server is None:
            server = stack.enter_context(PortalServer(create_app(store or EpisodeStore())))
        if browser is None:
            browser = stack.enter_context(chromium())
        specs = load_apps()
        chosen = apps or sorted(specs)
        unknown = [a for a in chosen if a not in specs]
        if unknown:
            raise KeyError(f"no app named {unknown[0]!r}; known apps: {', '.join(specs)}")
        episode = server.app.extensions["cfab_store"].create(list(chosen))
        try:
            if panel:
                from tasks.registry import all_tasks

                recording.begin(episode, all_tasks()[0])
            shots = [s for a in chosen for s in screens_of(server.app, episode, specs[a])]
            shots += [Shot(app, screen, path) for app, screen, path in extra]
            if only is not None:
                shots = [s for s in shots if only(s)]
            context = browser.new_context(viewport={"width": width, "height": 900})
            try:
                page = context.new_page()
                page.goto(server.url + enter_url(server.app, episode.id, "/"))
                for shot in shots:
                    if shot.path:
                        _shoot(page, server.url, shot, out)
            finally:
                context.close()
        finally:
            server.app.extensions["cfab_store"].drop(episode.id)
    index = _index(shots, out, width)
    result = {"index": str(index), "width": width, "panel": panel,
              "screens": [{"app": s.app, "screen": s.screen, "path": s.path, "image": s.image,
                           "problems": s.problems} for s in shots],
              "failed": [f"{s.app}/{s.screen} ({s.path or 'no page'}): {'; '.join(s.problems)}"
                         for s in shots if s.problems]}
    (out / "gallery.json").write_text(json.dumps(result, indent=1))
    return result
