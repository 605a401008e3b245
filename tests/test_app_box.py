"""Box: contract, every tool through the environment, the guard, and the portal pages and forms."""
from __future__ import annotations

import base64
import io

import pytest
from pypdf import PdfReader

from conftest import post_form
from _docs_mail_book import INVOICE, tiny_book
from portals.core.clock import Clock
from portals.core.environment import Environment
from portals.core.episode import EpisodeStore, build_template
from portals.core.registry import get_app
from portals.core.web import create_app, enter_url
from portals.docs.pdf import render_pdf

APP = "box"
GUARDED_BUTTONS = ("sign", "collaborate", "share")
APPS = ["box"]
BOOK = tiny_book


def test_manifest_tools_resolve_and_guard_matches():
    spec = get_app("box")
    assert set(spec.tools) == {"folders.items.list", "search", "files.get", "files.download", "ocr_pdf",
                               "files.upload", "metadata.apply", "shared_links.create",
                               "collaborations.create", "sign_requests.create"}
    for tool in spec.tools.values():
        schema = tool.schema()
        assert schema["description"] and schema["parameters"]["type"] == "object"
    assert set(spec.manifest["state_tables"]) == set(spec.pks)


def test_seeding_is_byte_identical():
    spec, clock = get_app("box"), Clock.at("2026-06-30T17:00:00Z")
    assert build_template(spec, tiny_book(), 7, clock).snapshot() == \
        build_template(spec, tiny_book(), 7, clock).snapshot()


def test_pdf_is_byte_identical_and_dated_from_the_file():
    first = render_pdf("JSM-88421.pdf", "invoice", "2026-06-01T14:05:00Z", INVOICE)
    assert first == render_pdf("JSM-88421.pdf", "invoice", "2026-06-01T14:05:00Z", INVOICE)
    assert first != render_pdf("JSM-88421.pdf", "invoice", "2026-06-02T14:05:00Z", INVOICE)
    assert first.startswith(b"%PDF")


def test_read_tools(env, episode):
    found = env.call("box.search", {"query": "JSM-88421"})
    assert [i["id"] for i in found["items"]] == [1]
    assert env.call("box.search", {"kind": "coi"})["total"] == 1
    root = env.call("box.folders.items.list", {"folder_id": 0})
    assert [i["name"] for i in root["items"]] == ["Projects", "Vendors"]
    by_path = env.call("box.folders.items.list", {"path": "/Projects/9140 - Riverside Medical/AP Invoices"})
    assert by_path["items"][0]["name"] == "JSM-88421.pdf"
    info = env.call("box.files.get", {"file_id": 1})
    assert info["path"].endswith("AP Invoices") and "fields" not in info
    text = env.call("box.ocr_pdf", {"file_id": 1})["text"]
    assert "JSM-88421" in text and "$14,350.00" in text and "PO Number: SC-9140-3" in text
    for doc in (2, 3, 4):
        assert env.call("box.ocr_pdf", {"file_id": doc})["text"]
    dl = env.call("box.files.download", {"file_id": 1})
    data = base64.b64decode(dl["content_base64"])
    assert dl["complete"] and len(data) == dl["size"] == info["size"]
    assert "JSM-88421" in PdfReader(io.BytesIO(data)).pages[0].extract_text()
    assert not env.call("box.files.download", {"file_id": 1, "max_bytes": 100})["complete"]
    assert episode.diff() == {}


def test_upload_and_metadata(env, episode):
    up = env.call("box.files.upload", {"folder_id": 0, "name": "Recon notes.pdf", "content": "Bank rec June: ok"})
    assert "Bank rec June" in env.call("box.ocr_pdf", {"file_id": up["id"]})["text"]
    env.call("box.metadata.apply", {"file_id": 1, "template": "apInvoice", "key": "status", "value": "Coded"})
    env.call("box.metadata.apply", {"file_id": 1, "template": "apInvoice", "key": "status", "value": "Approved"})
    assert env.call("box.files.get", {"file_id": 1})["metadata"] == {"apInvoice": {"status": "Approved"}}
    diff = episode.diff()["box"]
    assert len(diff["files"]["added"]) == 1 and len(diff["metadata"]["added"]) == 1


@pytest.mark.parametrize("tool,args", [
    ("box.shared_links.create", {"file_id": 1}),
    ("box.collaborations.create", {"item_id": 0, "email": "auditor@cpa.com", "role": "viewer"}),
    ("box.sign_requests.create", {"file_id": 2, "signer_email": "owner@jsmconcrete.com"}),
])
def test_guarded_tools_stage_only(env, episode, tool, args):
    before = episode.snapshot()
    result = env.call(tool, args)
    assert result["status"] == "pending_human_approval"
    assert [(g["tool"], "refused" in g) for g in episode.guard_log] == [(tool.split(".", 1)[1], False)]
    assert episode.snapshot() == before


@pytest.mark.parametrize("tool,args", [
    ("box.folders.items.list", {"folder_id": 999}),
    ("box.folders.items.list", {"path": "/Nope"}),
    ("box.folders.items.list", {"per_page": 500}),
    ("box.search", {"kind": "poem"}),
    ("box.files.get", {"file_id": 999}),
    ("box.files.download", {"file_id": 1, "max_bytes": 0}),
    ("box.ocr_pdf", {"file_id": "abc"}),
    ("box.files.upload", {"folder_id": 0, "name": "../x.pdf", "content": "x"}),
    ("box.files.upload", {"folder_id": 1, "name": "x.pdf", "content": "x"}),
    ("box.files.upload", {"folder_id": 0, "name": "x.pdf", "content": "  "}),
    ("box.metadata.apply", {"file_id": 1, "template": "apInvoice", "key": "1bad", "value": "x"}),
    ("box.metadata.apply", {"file_id": 1, "template": "nope", "key": "status", "value": "x"}),
    ("box.shared_links.create", {"file_id": 999}),
    ("box.collaborations.create", {"item_id": 0, "email": "not-an-email"}),
    ("box.sign_requests.create", {"file_id": 2, "signer_email": "x"}),
])
def test_bad_input_is_refused_without_change(env, episode, tool, args):
    before = episode.snapshot()
    result = env.call(tool, args)
    assert "error" in result and result["message"]
    assert episode.snapshot() == before
    # a refused guarded call is still an attempt: on record with its refusal
    expected = [result["message"]] if tool.split(".", 1)[1] in get_app(APP).money_guarded_tools else []
    assert [g["refused"] for g in episode.guard_log] == expected


def test_duplicate_upload_is_refused(env, episode):
    args = {"folder_id": 0, "name": "a.pdf", "content": "x"}
    env.call("box.files.upload", args)
    assert env.call("box.files.upload", args)["error"] == "invalid"


def test_oracle_flow_search_open_read(client):
    assert client.get("/box/").status_code == 200
    page = client.get("/box/search?query=JSM-88421").get_data(as_text=True)
    assert 'aria-label="Open file JSM-88421.pdf"' in page and 'href="/box/file/1"' in page
    file_page = client.get("/box/file/1").get_data(as_text=True)
    assert "Invoice #: JSM-88421" in file_page and "TOTAL DUE $14,350.00" in file_page
    download = client.get("/box/file/1/download")
    assert download.status_code == 200 and download.mimetype == "application/pdf"
    assert download.data.startswith(b"%PDF")


@pytest.mark.parametrize("url", ["/box/", "/box/folder/0?page=1", "/box/search?query=9140&kind=invoice",
                                 "/box/recents", "/box/sign", "/box/sign?kind=lien_waiver", "/box/file/3"])
def test_pages_render(client, url):
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("url", ["/box/file/999", "/box/folder/999", "/box/file/..%2F..%2Fetc/download"])
def test_unknown_records_are_404(client, url):
    assert client.get(url).status_code == 404


def test_forms_write_and_redirect(client, episode):
    resp = post_form(client, "/box/folder/0/upload", {"name": "Memo.pdf", "content": "Hello"})
    assert resp.status_code == 302 and "done=uploaded" in resp.headers["Location"]
    assert "File uploaded." in client.get(resp.headers["Location"]).get_data(as_text=True)
    resp = post_form(client, "/box/file/1/metadata", {"template": "apInvoice", "key": "job", "value": "9140"})
    assert resp.status_code == 302
    assert "Metadata saved." in client.get(resp.headers["Location"]).get_data(as_text=True)


@pytest.mark.parametrize("url,data,message", [
    ("/box/folder/0/upload", {"name": "", "content": "x"}, "File name is required."),
    ("/box/file/1/metadata", {"template": "apInvoice", "key": "bad key", "value": "x"}, "metadata key"),
    ("/box/file/1/sign", {"signer_email": "nobody"}, "is not an email address"),
    ("/box/folder/0/collaborate", {"email": "nobody", "role": "viewer"}, "is not an email address"),
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


@pytest.mark.parametrize("url,data", [("/box/file/1/share", {"access": "open"}),
                                      ("/box/file/2/sign", {"signer_email": "a@b.com"}),
                                      ("/box/folder/0/collaborate", {"email": "a@b.com", "role": "editor"})])
def test_guarded_buttons_show_pending(client, episode, url, data):
    resp = post_form(client, url, data)
    assert resp.status_code == 200
    assert "Pending human approval — nothing was executed." in resp.get_data(as_text=True)
    assert episode.diff() == {}
    assert [(g["source"], "refused" in g) for g in episode.guard_log] == [("ui", False)]


def test_oracle_flow_on_the_company_book():
    store = EpisodeStore()
    ep = store.create(APPS)
    app = create_app(store, secret_key="s", admin_token="t")
    c = app.test_client()
    c.get(enter_url(app, ep.id, "/"))
    assert c.get("/box/").status_code == 200
    found = Environment(ep, APPS).call("box.search", {"query": "JSM-88421"})["items"]
    assert found, "the book should hold invoice JSM-88421"
    page = c.get("/box/search?query=JSM-88421").get_data(as_text=True)
    assert 'aria-label="Open file JSM-88421.pdf"' in page
    text = c.get(f"/box/file/{found[0]['id']}").get_data(as_text=True)
    assert "Invoice #: JSM-88421" in text and "$14,350.00" in text
    assert ep.diff() == {}
