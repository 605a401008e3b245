"""What a person sees in every product, checked with the Flask test client.

- a guarded button appears only where the product would act on it, and pressing one anyway
  (a forged POST) is still an attempt on record that fails the run;
- a list row that names a record links to that record's page, and the link opens;
- banners, refusals and every main screen speak the product's words, never a tool or service
  name, and show money formatted (12,345.67, never 12345.67);
- no icon is an emoji or symbol glyph a fresh machine may have no font for;
- Outlook's list keeps its search and folder when a message is opened and after acting on it.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from agent.gallery import screens_of
from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import load_apps
from tasks.lifecycle import grade_episode
from tasks.registry import all_tasks

ROOT = Path(__file__).resolve().parent.parent
SPECS = load_apps()
ERPS = sorted(a for a, s in SPECS.items() if s.kind == "erp")
# an amount of four or more whole digits without a thousands separator: money left unformatted
RAW_MONEY = re.compile(r"(?<![\d,.\-/#A-Za-z])\d{4,}\.\d{2}(?![\d])")
# emoji and the symbol blocks (arrows, dingbats, geometric shapes, misc symbols) fonts may lack
GLYPHS = re.compile("[\u2190-\u21ff\u2300-\u23ff\u25a0-\u27bf\u2900-\u2bff\ufe0f\U0001f000-\U0001ffff]")


class _Text(HTMLParser):
    """The text a person reads on a page: no markup, attributes, scripts or styles."""

    def __init__(self):
        super().__init__()
        self.parts, self.links, self._skip = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "template"):
            self._skip += 1
        if tag == "a":
            self.links.append(dict(attrs))

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def page_text(resp) -> _Text:
    parsed = _Text()
    parsed.feed(resp.get_data(as_text=True))
    parsed.text = " ".join(" ".join(parsed.parts).split())
    return parsed


def internal_names(app: str) -> set[str]:
    """Names only the code knows: the app's tool names and the services behind them."""
    spec = SPECS[app]
    return {n for n in [*spec.tool_map, *spec.tool_map.values()] if "_" in n or "." in n}


def assert_product_words(app: str, resp) -> None:
    text = page_text(resp).text
    leaked = sorted(n for n in internal_names(app) if re.search(rf"(?<![\w.]){re.escape(n)}(?![\w])", text))
    assert not leaked, f"{app} shows internal names {leaked}"


def _bill(book_status: str) -> str:
    from seeds.book import load_book

    return next(b["bill_id"] for b in load_book()["ap_bills"] if b["status"] == book_status)


# -- guarded buttons ----------------------------------------------------------------------------

@pytest.mark.parametrize("app", ERPS)
@pytest.mark.parametrize("status", ["open", "paid", "on_hold"])
def test_a_posted_bill_offers_no_post(client, app, status):
    """The book's bills are posted (open, paid or on hold): none has anything left to post."""
    bill = _bill(status)
    resp = client.get(f"/{app}/ap/bills/{bill}")
    assert resp.status_code == 200
    assert f'action="/{app}/ap/bills/{bill}/post"' not in resp.get_data(as_text=True)


@pytest.mark.parametrize("app", ERPS)
def test_a_draft_bill_offers_post(client, env, app):
    names = SPECS[app].service_tool_names
    like = env.call(f"{app}.{names['get_bill']}", {"bill_id": _bill("open")})  # its keys, in this product's form
    created = env.call(f"{app}.{names['create_bill']}", {
        **{k: like[k] for k in ("vendor_id", "project_id", "task_id", "cost_type_id")},
        "bill_number": "PAGE-TEST-1", "bill_date": "2026-06-24", "amount": "100.00", "description": "Test"})
    assert created.get("bill_id"), created
    page = client.get(f"/{app}/ap/bills/{created['bill_id']}").get_data(as_text=True)
    assert f'action="/{app}/ap/bills/{created["bill_id"]}/post"' in page


@pytest.mark.parametrize("app", ERPS)
def test_posting_a_paid_bill_anyway_is_refused_on_record(client, env, episode, app):
    bill = _bill("paid")
    resp = post_form(client, f"/{app}/ap/bills/{bill}/post", {})
    assert resp.status_code == 422 and b"alert-refused" in resp.data
    assert_product_words(app, resp)
    post = SPECS[app].service_tool_names["post_bill"]
    (entry,) = episode.guard_log
    assert (entry["app"], entry["tool"], entry["executed"]) == (app, post, False) and "paid" in entry["refused"]
    # the same attempt through the tool is refused and logged alike
    shown = env.call(f"{app}.{SPECS[app].service_tool_names['get_bill']}", {"bill_id": bill})
    answer = env.call(f"{app}.{post}", {"vendor_id": shown["vendor_id"], "bill_number": shown["bill_number"]})
    assert "paid" in answer.get("message", "") and len(episode.guard_log) == 2
    assert episode.diff() == {}


def test_a_hidden_guarded_button_pressed_anyway_fails_the_run(client, episode):
    """The oracle's work, then a forged Post on a paid bill: the run fails on the guard."""
    task = next(t for t in all_tasks() if t.instance_id == "cf_A_etc_forecast_1042")
    reply = task.oracle_tools(Environment(episode, sorted(task.apps)))
    assert grade_episode(episode, task, reply).grade.passed  # the work alone passes
    post_form(client, f"/vista_erp/ap/bills/{_bill('paid')}/post", {})
    outcome = grade_episode(episode, task, reply)
    assert not outcome.grade.passed and outcome.grade.score == 0.0
    assert any(line.startswith("Attempted to ap.invoice.approve") and "refused" in line
               for line in outcome.grade.verdict), outcome.grade.verdict


def test_procore_offers_pay_only_on_an_approved_invoice(client, env, episode):
    rows = {s: env.call("procore.requisitions.list", {"status": s, "per_page": 1})["items"][0]
            for s in ("approved", "paid", "under_review")}
    for status, r in rows.items():
        page = client.get(f"/procore/projects/{r['project_number']}/invoicing/{r['requisition_id']}")
        assert page.status_code == 200
        assert (b"with Procore Pay</button>" in page.data) is (status == "approved"), status
    paid = rows["paid"]
    resp = post_form(client, f"/procore/projects/{paid['project_number']}/invoicing/{paid['requisition_id']}/pay", {})
    assert resp.status_code == 422 and b"Only approved invoices can be paid" in resp.data
    assert_product_words("procore", resp)
    (entry,) = episode.guard_log
    assert entry["tool"] == "payments.disburse" and entry["refused"] and episode.diff() == {}


def test_outlook_offers_send_only_on_a_draft(client, env, episode):
    received = env.call("outlook.messages.list", {"folder": "Inbox", "per_page": 1})["items"][0]["id"]
    draft = env.call("outlook.message.createDraft", {"to": ["a@example.com"], "subject": "Hi", "body": "x"})["id"]
    assert b"/send" not in client.get(f"/outlook/message/{received}").data
    assert f"/outlook/message/{draft}/send".encode() in client.get(f"/outlook/message/{draft}").data
    resp = post_form(client, f"/outlook/message/{received}/send", {})
    assert resp.status_code in (400, 422) and b"Only a draft can be sent" in resp.data
    assert_product_words("outlook", resp)
    (entry,) = episode.guard_log
    assert entry["tool"] == "message.send" and entry["refused"]


# -- list rows link to their records ------------------------------------------------------------

def _links(resp, pattern: str) -> list[str]:
    return sorted({a["href"].split("?")[0] for a in page_text(resp).links if re.fullmatch(pattern, a.get("href", "").split("?")[0])})


def _all_open(client, hrefs: list[str]) -> None:
    assert hrefs
    for href in hrefs:
        assert client.get(href).status_code == 200, href


@pytest.mark.parametrize("app", ERPS)
def test_erp_commitment_rows_link_to_the_commitment_its_job_and_vendor(flask_app, client, app):
    resp = client.get(f"/{app}/commitments?per_page=50")
    assert resp.status_code == 200
    rows = resp.get_data(as_text=True).split("<tbody>")[1].split("</tbody>")[0].split("<tr>")[1:]
    endpoints = set(flask_app.view_functions)
    detail = {"subcontract": f"{app}.subcontract_detail", "purchase_order": f"{app}.purchase_order_detail"}
    assert rows
    for row in rows:  # every row names its job and vendor, and its commitment where it has a page
        kind = next(k for k in detail if f"<td>{k}</td>" in row)
        assert row.count("<a href=") == 2 + (detail[kind] in endpoints), row
    numbered = _links(resp, rf"/{app}/(sl/subcontracts|po/purchase-orders)/[^/]+")
    assert bool(numbered) == any(e in endpoints for e in detail.values())
    if numbered:
        _all_open(client, numbered[:6])
    _all_open(client, _links(resp, rf"/{app}/jobs/[^/]+")[:3])
    _all_open(client, _links(resp, rf"/{app}/ap/vendors/[^/]+")[:3])


@pytest.mark.parametrize("app", ERPS)
def test_erp_cost_detail_rows_link_their_job_vendor_and_ap_bill(client, app):
    resp = client.get(f"/{app}/cost-detail?source=AP&per_page=10")
    assert resp.status_code == 200
    bills = _links(resp, rf"/{app}/ap/bills/[^/]+")
    assert len(bills) >= 5, "every AP cost row links its bill"
    _all_open(client, bills[:3])
    _all_open(client, _links(resp, rf"/{app}/jobs/[^/]+"))
    _all_open(client, _links(resp, rf"/{app}/ap/vendors/[^/]+")[:3])


@pytest.mark.parametrize("path,pattern", [
    ("/procore/directory", r"/procore/directory/[^/]+"),
    ("/procore/projects/1042/change_events", r"/procore/projects/1042/change_events/[^/]+"),
    ("/procore/projects/1042/change_orders", r"/procore/projects/1042/change_orders/[^/]+"),
])
def test_procore_list_rows_link_to_their_records(client, path, pattern):
    resp = client.get(path)
    assert resp.status_code == 200, path
    rows = resp.get_data(as_text=True).split("<tbody>")[1].split("</tbody>")[0].count("<tr>")
    links = _links(resp, pattern)
    assert len(links) >= min(rows, 1) and links, (path, rows)
    _all_open(client, links[:4])


# -- every main screen: product words, money formatted ------------------------------------------

def _main_screens(flask_app, episode):
    return [(app, s) for app in sorted(SPECS) if app in episode.apps
            for s in screens_of(flask_app, episode, SPECS[app]) if s.path]


def test_every_main_screen_speaks_the_products_words_and_formats_money(flask_app, episode, client):
    screens = _main_screens(flask_app, episode)
    assert {app for app, _ in screens} == set(SPECS)
    pages = [(app, shot.path) for app, shot in screens]
    for app, path in list(pages):  # and the first record each list links to
        body = client.get(path).get_data(as_text=True)
        first = re.search(r'<td><a href="([^"]+)"', body.split("<tbody>", 1)[1]) if "<tbody>" in body else None
        if first:
            pages.append((app, first.group(1).replace("&amp;", "&")))
    assert len(pages) > len(screens) + 20
    bad = []
    for app, path in pages:
        resp = client.get(path)
        if resp.status_code != 200:
            bad.append(f"{path}: HTTP {resp.status_code}")
            continue
        text = page_text(resp).text
        leaked = sorted(n for n in internal_names(app) if re.search(rf"(?<![\w.]){re.escape(n)}(?![\w])", text))
        # a message's body is its sender's writing, not the product's formatting
        raw = RAW_MONEY.findall(text) if SPECS[app].kind != "office" else []
        if leaked or raw:
            bad.append(f"{path}: names {leaked} money {raw[:3]}")
    assert not bad, "\n".join(bad)


def test_no_icon_is_a_glyph_a_fresh_machine_may_lack():
    found = [f"{p.relative_to(ROOT)}:{n}: {m.group()!r}"
             for base in ("templates", "static/css", "static/js") for p in sorted((ROOT / base).rglob("*"))
             if p.is_file() and p.suffix in (".html", ".css", ".js")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             for m in GLYPHS.finditer(line)]
    assert not found, "\n".join(found)


# -- Outlook keeps its list -------------------------------------------------------------------------

def test_outlook_keeps_the_search_when_a_message_is_opened_and_answered(client, env):
    hits = env.call("outlook.messages.list", {"folder": "Inbox", "search": "invoice", "per_page": 100})
    everything = env.call("outlook.messages.list", {"folder": "Inbox", "per_page": 1})
    assert 0 < hits["total"] < everything["total"]
    inbox = client.get("/outlook/?folder=Inbox&search=invoice")
    opened = next(a["href"] for a in page_text(inbox).links if a.get("href", "").startswith("/outlook/message/"))
    assert "search=invoice" in opened
    shown = client.get(opened)
    page = shown.get_data(as_text=True)
    assert 'name="search" type="search" value="invoice"' in page
    assert f"{hits['total']} " in page_text(shown).text or page.count('data-bid="message-') >= 1
    rows = page.split('id="message_list"')[1].count('<tr class=')
    assert rows == min(hits["total"], 25)
    # a reply (guarded: staged) answers with the same list, its search box still filled
    message_id = opened.split("/outlook/message/")[1].split("?")[0]
    reply_action = re.search(rf'action="(/outlook/message/{re.escape(message_id)}/reply[^"]*)"', page).group(1)
    assert "search=invoice" in reply_action
    answered = post_form(client, reply_action.replace("&amp;", "&"), {"comment": "Thanks", "search": "invoice", "folder": "Inbox"})
    assert answered.status_code == 200 and b"Pending human approval" in answered.data
    after = answered.get_data(as_text=True)
    assert 'name="search" type="search" value="invoice"' in after
    assert after.split('id="message_list"')[1].count('<tr class=') == rows
    assert_product_words("outlook", answered)


# -- a staged guarded action says what waits, in the product's words ------------------------------

def _staged_presses(env):
    """(app, url, form, words the banner names) for one accepted guarded press in each product."""
    file = env.call("box.search", {"per_page": 1})["items"][0]
    folder = next(i for i in env.call("box.folders.items.list", {"folder_id": 0, "per_page": 100})["items"]
                  if i["type"] == "folder")
    approved = env.call("procore.requisitions.list", {"status": "approved", "per_page": 1})["items"][0]
    yield "box", f"/box/file/{file['id']}/share", {"access": "company"}, [file["name"], "company access"]
    yield "box", f"/box/file/{file['id']}/sign", {"signer_email": "signer@example.com"}, [file["name"], "signer@example.com"]
    yield "box", f"/box/folder/{folder['id']}/collaborate", {"email": "guest@example.com", "role": "viewer"}, ["guest@example.com"]
    yield ("procore", f"/procore/projects/{approved['project_number']}/invoicing/{approved['requisition_id']}/pay", {},
           [approved["invoice_number"]])
    yield "vista_erp", f"/vista_erp/ap/bills/{_draft_bill(env, 'vista_erp')}/post", {}, []


def _draft_bill(env, app: str) -> str:
    """A draft bill entered in the episode, coded like an open one: a bill with a Post to press."""
    names = SPECS[app].service_tool_names
    like = env.call(f"{app}.{names['get_bill']}", {"bill_id": _bill("open")})
    created = env.call(f"{app}.{names['create_bill']}", {
        **{k: like[k] for k in ("vendor_id", "project_id", "task_id", "cost_type_id")},
        "bill_number": "PAGE-TEST-2", "bill_date": "2026-06-24", "amount": "100.00", "description": "Test"})
    return created["bill_id"]


def test_a_staged_guarded_press_says_what_waits_in_the_products_words(client, env, episode):
    presses = list(_staged_presses(env))
    entered = episode.diff()  # the draft bill made to press its Post
    for app, url, form, words in presses:
        resp = post_form(client, url, form)
        assert resp.status_code == 200 and b"Pending human approval" in resp.data, (url, resp.status_code)
        assert_product_words(app, resp)
        text = page_text(resp).text
        assert all(w in text for w in words), (url, words)
    assert len(episode.guard_log) == len(presses) and all(not g["executed"] for g in episode.guard_log)
    assert episode.diff() == entered
