"""A vendor is data (DESIGN.md principle 2): for every ERP the registry knows, the manifest owns
its words, screens, routes, tools and id formats; templates and the archetype never ask which
vendor they serve, so the UI path and the tool path cannot drift."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import pytest

from _crawl import crawl
from conftest import post_form
from portals.core.registry import PLACEHOLDER, load_apps
from portals.core.tools import READ
from seeds.book import SNAPSHOT

ROOT = Path(__file__).resolve().parents[1]
SPECS = load_apps()
ERPS = sorted(n for n, s in SPECS.items() if s.kind == "erp")
APPS = ERPS  # the apps of this module's episodes
VENDOR_NAMES = sorted(SPECS) + ["vista", "intacct", "foundation", "sage300", "cmic", "acumatica", "qbo", "computerease"]


def test_a_third_erp_is_registered_from_its_manifest_alone():
    assert {"vista_erp", "sage_intacct", "foundation_erp"} <= set(ERPS)


def test_a_fourth_erp_is_registered_from_its_manifest_alone():
    assert "sage300cre" in ERPS


def test_a_fifth_erp_is_registered_from_its_manifest_alone():
    assert "cmic" in ERPS


def test_a_sixth_erp_is_registered_from_its_manifest_alone():
    assert "acumatica_construction" in ERPS


def test_a_seventh_erp_is_registered_from_its_manifest_alone():
    assert "qbo" in ERPS


def test_an_eighth_erp_is_registered_from_its_manifest_alone():
    assert "computerease" in ERPS


def test_no_template_branches_on_a_vendor_name():
    """Templates read the vocabulary; a comparison with the app or skin name would give a new
    vendor some other vendor's words."""
    compare = re.compile(r"(spec\.name|spec\.skin|\bskin\b|spec\.label)\s*(==|!=|\bin\b|\bnot in\b)")
    literal = re.compile(r"""(==|!=)\s*["'](%s)["']""" % "|".join(map(re.escape, VENDOR_NAMES)), re.I)
    found = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if compare.search(line) or literal.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []


def test_the_erp_archetype_never_names_a_vendor_in_code():
    """Only manifests and skins name a product; the archetype's code reads the manifest."""
    names = ERPS
    for path in sorted((ROOT / "portals" / "erp").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not [n for n in names if n in text], path.name


@pytest.fixture(scope="module")
def routes(flask_app):
    """{app: {endpoint: (methods, writes)}} for every ERP blueprint, from the live URL map."""
    out = {}
    for rule in flask_app.url_map.iter_rules():
        app, _, endpoint = rule.endpoint.partition(".")
        if app in ERPS:
            writes = flask_app.blueprints[app].writes_of.get(endpoint)
            out.setdefault(app, {})[endpoint] = (rule.methods, writes)
    return out


@pytest.mark.parametrize("app", ERPS)
def test_every_write_route_goes_through_one_of_the_vendors_tools(routes, app):
    spec = SPECS[app]
    offered = set(spec.tool_map.values())
    for endpoint, (methods, writes) in routes[app].items():
        if "POST" in methods:
            assert writes is not None, f"{app}.{endpoint} is a POST route registered outside its screens"
            assert writes and set(writes) <= offered, f"{app}.{endpoint} writes {writes}, tools {sorted(offered)}"
            for service in writes:
                assert spec.tool_for_service(service).kind != READ


@pytest.mark.parametrize("app", ERPS)
def test_routes_follow_the_manifests_screens(routes, app):
    """A screen the manifest does not list has no route, and every listed screen has one."""
    screens = set(SPECS[app].manifest["screens"])
    registered = set(routes[app])
    assert screens <= registered, f"{app} lists screens without a route: {sorted(screens - registered)}"
    every_screen = {"bills", "unapproved", "transactions", "bill_new", "check_run", "vendors", "holds",
                    "projects", "tasks", "cost_detail", "cost_adjustment", "commitments", "journal_entry",
                    *SCREEN_WORDS}
    assert not (every_screen - screens) & registered


def test_intacct_has_no_vista_only_screens(client):
    """The screens issue 9 found in Intacct's skin that wrote through services it has no tool for."""
    for path in ("/sage_intacct/ap/unapproved", "/sage_intacct/ap/holds", "/sage_intacct/cost-adjustments/new"):
        assert client.get(path).status_code == 404, path
    resp = post_form(client, "/sage_intacct/jobs/P-9140/forecast", {"est_cost_to_complete": "1.00"})
    assert resp.status_code in (404, 405)
    assert b"Save projection" not in client.get("/sage_intacct/jobs/P-9140").data
    assert client.get("/vista_erp/ap/holds").status_code == 200


@pytest.mark.parametrize("app", ERPS)
def test_every_form_a_person_can_post_writes_only_through_the_vendors_tools(flask_app, store, app):
    """Crawl the portal, post every form it shows, and read the call log: each write a click
    made is logged under one of the product's own tool names, so it replays over tools."""
    from portals.core.web import enter_url
    episode = store.create([app])
    try:
        client = flask_app.test_client()
        client.get(enter_url(flask_app, episode.id, "/"))
        client.get(f"/{app}/", follow_redirects=True)
        with client.session_transaction() as sess:
            client.csrf = sess["csrf"]
        _pages, forms = crawl(client, [f"/{app}/"], (f"/{app}/",), 120)
        assert forms
        for form in forms:
            assert post_form(client, form.action, {k: v for k, v in form.fields.items()
                                                   if k != "csrf_token"}).status_code < 500
        writes = [c for c in episode.calls if c["kind"] != READ and c["source"] == "ui"]
        assert writes, "posting every form should reach at least one write"
        assert {c["tool"] for c in writes} <= set(SPECS[app].tools)
    finally:
        store.drop(episode.id)


# Words of the screens only some products have: a product needs them only if it lists the screen.
SCREEN_WORDS = {
    "payments": ("payments", "payment", "new_payment", "payment_method", "document_number", "pay_button"),
    "retainage": ("retainage", "release_retainage", "release_retainage_button"),
    "change_requests": ("change_requests", "change_request", "new_change_request", "change_module",
                        "approve_change_request"),
    "estimates": ("estimates", "estimate"),
    "cost_types": ("standard_cost_types", "accumulation_type"),
    "dimensions": ("dimensions",),
    "entities": ("entities", "top_level"),
    "batches": ("batches", "batch_month", "batch_id", "post_batch_button"),
    "progress_bills": ("progress_bills", "progress_bill", "billing_module", "bill_month", "application"),
    "firms": ("firms", "firm", "firm_number", "sort_name", "pm_module"),
    "sl_change_orders": ("sl_change_orders", "new_sl_change_order", "change_order_number"),
    "purchase_orders": ("purchase_orders", "purchase_order", "po_module"),
    "job_setup": ("job_setup",),
}


def _template_words() -> set[str]:
    words = set()
    for path in list((ROOT / "templates" / "erp").glob("*.html")):
        words |= set(re.findall(r"""word\(\s*["']([a-z_]+)["']\s*\)""", path.read_text(encoding="utf-8")))
    return words


@pytest.mark.parametrize("app", ERPS)
def test_every_word_the_erp_pages_use_is_in_the_manifest(app):
    """A missing word would silently render another product's (or a made-up) label."""
    missing = _template_words() - set(SPECS[app].vocabulary)
    screens = set(SPECS[app].manifest["screens"])
    only_on = {"unapproved_bills": "unapproved", "posted_bills": "transactions", "payment_holds": "holds",
               "cost_adjustments": "cost_adjustment", "adjustment_date": ("cost_adjustment", "sl_change_orders")}
    only_on.update({w: screen for screen, words in SCREEN_WORDS.items() for w in words})
    needed = lambda w: {only_on[w]} if isinstance(only_on[w], str) else set(only_on[w])  # noqa: E731
    missing = {w for w in missing if w not in only_on or needed(w) & screens}
    assert missing == set(), f"{app} has no words for {sorted(missing)}"


@pytest.mark.parametrize("app", sorted(SPECS))
def test_tool_docs_are_filled_in_the_products_own_words(app):
    """No `{placeholder}` reaches an agent, and an ERP's docs never quote another ERP's id
    formats or name another ERP."""
    text = json.dumps([t.schema() for t in SPECS[app].tools.values()])
    assert PLACEHOLDER.findall(text) == []
    if app in ERPS:
        for other in ERPS:
            if other == app:
                continue
            theirs = SPECS[other].placeholders
            assert not [v for k, v in theirs.items() if k.endswith("_format") and v in text], (app, other)
            words = set(re.findall(r"[A-Z][A-Za-z]{3,}", SPECS[other].label)) - set(SPECS[app].label.split())
            assert not [w for w in words if re.search(rf"\b{w}\b", text)], (app, other, words)


@pytest.mark.parametrize("app", ERPS)
def test_the_manifests_examples_occur_nowhere_in_the_book(app):
    """Examples handed to agents (tool docs, form hints) are values no task could assert."""
    spec = SPECS[app]
    texts = list(spec.placeholders.values()) + [v for k, v in spec.vocabulary.items() if k.endswith("_hint")]
    texts += [spec.manifest["erp"].get("vendor_id_example", ""), spec.manifest["erp"].get("cost_code_example", "")]
    examples = {tok for t in texts for tok in re.findall(r"[A-Z]*[0-9][0-9A-Z-]*[0-9A-Z]", t) if len(tok) >= 4}
    assert examples, app
    assert sorted(examples & _book_tokens()) == []


@lru_cache(maxsize=1)
def _book_tokens() -> frozenset[str]:
    """Every value in the book, and every word of every text value."""
    out: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif value is not None:
            out.add(str(value))
            out.update(re.split(r"[\s,;:()\"'/]+", str(value)))
    walk(json.loads(SNAPSHOT.read_text(encoding="utf-8")))
    return frozenset(out)


def _menu_entries(spec) -> list[tuple[str, str]]:
    return [tuple(e) for m in spec.manifest.get("menu", [])
            for s in (m.get("sections") or [{"entries": m.get("entries", [])}]) for e in s["entries"]]


@pytest.mark.parametrize("app", ERPS)
def test_the_menu_is_the_manifests_and_reaches_every_screen_once(app):
    """The module menu (modules, entries, labels) is vendor data: each listed screen has exactly
    one entry, and no entry names a screen the product does not list."""
    spec = SPECS[app]
    entries = [screen for screen, _label in _menu_entries(spec)]
    assert entries, f"{app} has no [[menu]]"
    assert sorted(entries) == sorted(spec.manifest["screens"])
    assert all(label.strip() for _screen, label in _menu_entries(spec))


def test_no_erp_skin_keeps_a_menu_of_its_own():
    """An ERP skin draws the manifest's menu; a list literal in a skin (of screens and labels)
    would give a new vendor another product's menu."""
    literal = re.compile(r"""\{%-?\s*set\s+\w+\s*=\s*\[|\(\s*["'][a-z_]+["']\s*,\s*(["'][A-Z]|word\()""")
    skins = sorted({SPECS[a].skin for a in ERPS})
    found = [f"{skin}.html:{n}" for skin in skins
             for n, line in enumerate((ROOT / "templates" / "skins" / f"{skin}.html").read_text(
                 encoding="utf-8").splitlines(), 1) if literal.search(line)]
    assert found == []


@pytest.mark.parametrize("app", ERPS)
def test_the_skin_renders_the_manifests_menu_in_order(client, app):
    spec = SPECS[app]
    page = client.get(f"/{app}/", follow_redirects=True).get_data(as_text=True)
    shown = re.findall(r'<a href="[^"]+" data-bid="menu-([a-z_]+)">([^<]+)</a>', page)
    assert shown == _menu_entries(spec)
    for module in spec.manifest["menu"]:
        assert module["module"] in page
