"""Outlook: contract, every tool through the environment, the guard, and the portal pages and forms."""
from __future__ import annotations


import pytest

from conftest import post_form
from _docs_mail_book import tiny_book
from portals.core.clock import Clock
from portals.core.environment import Environment
from portals.core.episode import EpisodeStore, build_template
from portals.core.registry import get_app
from portals.core.web import create_app, enter_url

APP = "outlook"
GUARDED_BUTTONS = ("send", "reply", "forward")
APPS = ["outlook"]
BOOK = tiny_book


def test_manifest_tools_resolve_and_guard_matches():
    spec = get_app("outlook")
    guarded = {n for n, t in spec.tools.items() if t.guarded}
    assert guarded == {"message.send", "message.reply", "message.forward"}
    assert {"messages.list", "messages.get", "attachments.get", "message.createDraft", "message.move",
            "message.categorize", "message.markRead"} <= set(spec.tools)
    for tool in spec.tools.values():
        assert tool.schema()["description"]
    assert set(spec.manifest["state_tables"]) == set(spec.pks)


def test_seeding_is_byte_identical():
    spec, clock = get_app("outlook"), Clock.at("2026-06-30T17:00:00Z")
    assert build_template(spec, tiny_book(), 7, clock).snapshot() == \
        build_template(spec, tiny_book(), 7, clock).snapshot()


def test_reads_change_nothing(env, episode):
    inbox = env.call("outlook.messages.list", {"folder": "Inbox"})
    assert [m["id"] for m in inbox["items"]] == ["m-0002", "m-0001"] and "body" not in inbox["items"][0]
    assert env.call("outlook.messages.list", {"search": "JSM-88421"})["total"] == 1
    assert env.call("outlook.messages.list", {"unread_only": True})["total"] == 1
    assert env.call("outlook.messages.list", {"from_address": "companyA.com"})["total"] == 1
    msg = env.call("outlook.messages.get", {"message_id": "m-0001"})
    assert msg["is_read"] is False and msg["body"].startswith("Please find")
    att = env.call("outlook.attachments.get", {"message_id": "m-0001", "attachment_id": msg["attachments"][0]["id"]})
    assert att["doc_id"] == 1 and att["name"] == "JSM-88421.pdf"
    folders = {f["name"]: f for f in env.call("outlook.mailFolders.list", {})["items"]}
    assert folders["Inbox"]["unread"] == 1
    assert episode.diff() == {}


def test_writes(env, episode):
    draft = env.call("outlook.message.createDraft", {"to": ["pm@companyA.com"], "subject": "Pay app", "body": "Hi"})
    assert draft["folder"] == "Drafts" and draft["is_draft"] is True
    env.call("outlook.message.move", {"message_id": "m-0001", "destination": "Archive"})
    env.call("outlook.message.categorize", {"message_id": "m-0002", "categories": ["Job 9140", "job 9140", "AP"]})
    env.call("outlook.message.markRead", {"message_id": "m-0001"})
    changed = episode.diff()["outlook"]["messages"]
    assert len(changed["added"]) == 1 and len(changed["changed"]) == 2
    assert env.call("outlook.messages.get", {"message_id": "m-0002"})["categories"] == ["Job 9140", "AP"]


@pytest.mark.parametrize("tool,args", [
    ("outlook.message.send", {"to": ["ap@jsmconcrete.com"], "subject": "Remittance", "body": "Paid"}),
    ("outlook.message.reply", {"message_id": "m-0001", "comment": "Received", "reply_all": True}),
    ("outlook.message.forward", {"message_id": "m-0001", "to": ["ap@companyA.com"]}),
])
def test_guarded_tools_stage_only(env, episode, tool, args):
    before = episode.snapshot()
    assert env.call(tool, args)["status"] == "pending_human_approval"
    assert episode.snapshot() == before
    assert [(g["tool"], "refused" in g) for g in episode.guard_log] == [(tool.split(".", 1)[1], False)]


def test_sending_a_draft_is_staged(env, episode):
    draft = env.call("outlook.message.createDraft", {"to": ["pm@companyA.com"], "subject": "S", "body": "B"})
    before = episode.snapshot()
    assert env.call("outlook.message.send", {"message_id": draft["id"]})["status"] == "pending_human_approval"
    assert episode.snapshot() == before


@pytest.mark.parametrize("tool,args", [
    ("outlook.messages.list", {"folder": "Spam"}),
    ("outlook.messages.list", {"page": 0}),
    ("outlook.messages.get", {"message_id": "nope"}),
    ("outlook.attachments.get", {"message_id": "m-0002", "attachment_id": 1}),
    ("outlook.message.createDraft", {"to": ["not an address"], "subject": "x", "body": "y"}),
    ("outlook.message.createDraft", {"to": [], "subject": "x", "body": "y"}),
    ("outlook.message.createDraft", {"to": ["a@b.com"], "subject": "  ", "body": "y"}),
    ("outlook.message.move", {"message_id": "m-0001", "destination": "Inbox"}),
    ("outlook.message.move", {"message_id": "m-0001", "destination": "Sent Items"}),
    ("outlook.message.categorize", {"message_id": "m-0001", "categories": ["x" * 61]}),
    ("outlook.message.markRead", {"message_id": "m-0001", "is_read": "maybe"}),
    ("outlook.message.send", {"message_id": "m-0001"}),
    ("outlook.message.send", {"to": ["bad"], "subject": "x"}),
    ("outlook.message.reply", {"message_id": "m-0001", "comment": " "}),
    ("outlook.message.forward", {"message_id": "m-0001", "to": ["bad"]}),
])
def test_bad_input_is_refused_without_change(env, episode, tool, args):
    before = episode.snapshot()
    result = env.call(tool, args)
    assert "error" in result and result["message"]
    assert episode.snapshot() == before
    # a refused guarded call is still an attempt: on record with its refusal
    expected = [result["message"]] if tool.split(".", 1)[1] in get_app(APP).money_guarded_tools else []
    assert [g["refused"] for g in episode.guard_log] == expected


def test_compose_save_draft_matches_the_tool(store, client, episode):
    resp = post_form(client, "/outlook/compose", {"to": "pm@companyA.com; ops@companyA.com", "cc": "",
                                             "subject": "June pay app", "body": "Line one\r\nLine two",
                                             "action": "save"})
    assert resp.status_code == 302
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Draft saved." in page and "June pay app" in page
    other = store.create(APPS)
    try:
        Environment(other, APPS).call("outlook.message.createDraft", {
            "to": ["pm@companyA.com", "ops@companyA.com"], "subject": "June pay app", "body": "Line one\nLine two"})
        assert other.diff() == episode.diff()
    finally:
        store.drop(other.id)


def test_compose_send_is_pending(client, episode):
    resp = post_form(client, "/outlook/compose", {"to": "pm@companyA.com", "subject": "S", "body": "B", "action": "send"})
    assert resp.status_code == 200
    assert "Pending human approval — nothing was sent." in resp.get_data(as_text=True)
    assert episode.diff() == {} and episode.guard_log[-1]["tool"] == "message.send"


@pytest.mark.parametrize("url", ["/outlook/", "/outlook/?folder=Archive&search=COI", "/outlook/?unread_only=true",
                                 "/outlook/message/m-0001", "/outlook/message/m-0003", "/outlook/compose"])
def test_pages_render_and_reading_changes_nothing(client, episode, url):
    assert client.get(url).status_code == 200
    assert episode.diff() == {}


def test_unknown_message_is_404(client):
    assert client.get("/outlook/message/nope").status_code == 404


def test_message_actions(client, episode):
    resp = post_form(client, "/outlook/message/m-0001/read", {"is_read": "true"})
    assert resp.status_code == 302 and "Marked as read." in client.get(resp.headers["Location"]).get_data(as_text=True)
    assert post_form(client, "/outlook/message/m-0001/categorize", {"categories": "AP, Job 9140"}).status_code == 302
    assert post_form(client, "/outlook/message/m-0001/move", {"destination": "Archive"}).status_code == 302
    assert len(episode.diff()["outlook"]["messages"]["changed"]) == 1
    for url, data in (("/outlook/message/m-0002/reply", {"comment": "Yes"}),
                      ("/outlook/message/m-0002/forward", {"to": "ap@companyA.com"})):
        resp = post_form(client, url, data)
        assert resp.status_code == 200 and "nothing was sent" in resp.get_data(as_text=True)


@pytest.mark.parametrize("url,data,message", [
    ("/outlook/compose", {"to": "", "subject": "x", "body": "y", "action": "save"}, "To is required."),
    ("/outlook/compose", {"to": "nobody", "subject": "x", "body": "y", "action": "save"}, "is not an email address"),
    ("/outlook/compose", {"to": "a@b.com", "subject": "", "body": "y", "action": "save"}, "Subject is required."),
    ("/outlook/message/m-0001/move", {"destination": "Inbox"}, "already in Inbox"),
    ("/outlook/message/m-0001/reply", {"comment": ""}, "Write the reply text."),
    ("/outlook/message/m-0001/forward", {"to": "bad"}, "is not an email address"),
])
def test_form_errors(client, episode, url, data, message):
    resp = post_form(client, url, data)
    body = resp.get_data(as_text=True)
    assert resp.status_code == 422 and message in body
    assert episode.diff() == {}
    if url.rsplit("/", 1)[1] in GUARDED_BUTTONS:  # a guarded button: the refusal is shown and on record
        assert "Refused — nothing was executed." in body
        assert [(g["source"], message in g["refused"]) for g in episode.guard_log] == [("ui", True)]
    else:
        assert episode.guard_log == []


def test_oracle_compose_flow_on_the_company_book():
    store = EpisodeStore()
    ui_ep, tool_ep = store.create(APPS), store.create(APPS)
    app = create_app(store, secret_key="s", admin_token="t")
    c = app.test_client()
    c.get(enter_url(app, ui_ep.id, "/"))
    assert c.get("/outlook/compose").status_code == 200
    with c.session_transaction() as sess:
        token = sess["csrf"]
    resp = c.post("/outlook/compose", data={"csrf_token": token, "to": "pm@companyA.com", "cc": "",
                                            "subject": "Riverside June", "body": "Please confirm.",
                                            "action": "save"})
    assert resp.status_code == 302
    assert "Draft saved." in c.get(resp.headers["Location"]).get_data(as_text=True)
    Environment(tool_ep, APPS).call("outlook.message.createDraft", {
        "to": ["pm@companyA.com"], "subject": "Riverside June", "body": "Please confirm."})
    assert ui_ep.diff() == tool_ep.diff() and ui_ep.diff()


def test_folder_unread_counts_agree_with_the_unread_filter():
    from portals.core.environment import Environment
    from portals.core.episode import EpisodeStore

    store = EpisodeStore()  # the real book: many unread messages
    episode = store.create(["outlook"])
    try:
        env = Environment(episode, ["outlook"])
        folders = {f["name"]: f for f in env.call("outlook.mailFolders.list", {})["items"]}
        unread = env.call("outlook.messages.list", {"folder": "Inbox", "unread_only": True, "per_page": 1})
        assert folders["Inbox"]["unread"] == unread["total"] > 1
    finally:
        store.drop(episode.id)
