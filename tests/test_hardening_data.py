"""Input the services must refuse, not fail on (issue causes 4, 5, 6 and the file names of 11):
huge page numbers, dates whose arithmetic overflows, keys that differ only by Unicode case or
composition, and file names that display as another name.
"""
from __future__ import annotations

import pytest

from portals.core.environment import Environment
from portals.core.keys import fold
from portals.core.registry import load_apps
from portals.core.tools import MAX_PAGE

from _crawl import crawl
from conftest import post_form

APPS = load_apps()
ERPS = [name for name, spec in APPS.items() if "create_bill" in spec.tool_map.values()]
PAGED = [(app, name) for app, spec in APPS.items() for name, tool in spec.tools.items()
         if any(p.name == "page" for p in tool.params)]


def tool_named(app: str, service: str) -> str:
    return f"{app}.{APPS[app].tool_for_service(service).name}"


def a_new_bill(env, app: str, number: str, **extra) -> dict:
    """Arguments for a new bill, copied from a bill the app already has (its vendor, job, code)."""
    lister = next(s for s in ("query_bills", "list_posted_bills", "list_unapproved_bills")
                  if s in APPS[app].tool_map.values())
    seen = env.call(tool_named(app, lister), {"per_page": 100})["items"]
    template = next(b for b in seen if b.get("commitment") is None) if any(
        b.get("commitment") is None for b in seen) else seen[0]
    args = {k: template[k] for k in ("vendor_id", "project_id", "task_id", "cost_type_id")}
    if template.get("commitment"):
        args["commitment"] = template["commitment"]
    return {**args, "bill_number": number, "bill_date": "2026-06-30", "amount": "12345.67", **extra}


def filler(param):
    """A value of the parameter's kind, so a call gets as far as its page argument."""
    return {"int": 1, "bool": True, "amount": "1.00", "date": "2026-06-30", "list": ["ACME-0001"],
            "enum": param.choices[0] if param.choices else "", "str": "ACME-0001"}[param.kind]


def test_every_list_tool_refuses_a_page_past_the_limit(store):
    assert len(PAGED) >= 20
    for app, name in PAGED:
        episode = store.create([app])
        try:
            env = Environment(episode, [app])
            before = episode.snapshot()
            required = {p.name: filler(p) for p in APPS[app].tools[name].params if p.required}
            for page in (2 ** 63 - 1, MAX_PAGE + 1, 0, -5):
                result = env.call(f"{app}.{name}", {**required, "page": page})
                assert result.get("field") == "page", (app, name, page, result)
            assert env.call(f"{app}.{name}", {**required, "page": MAX_PAGE}).get("field") != "page"
            assert episode.snapshot() == before
        finally:
            store.drop(episode.id)


@pytest.mark.parametrize("app", list(APPS))
def test_every_portal_list_answers_a_huge_page_number_without_a_500(client, app):
    pages, _ = crawl(client, [APPS[app].base_path + "/"], (APPS[app].base_path + "/",), 40)
    lists = {url.split("?")[0] for url, (status, body) in pages.items() if status == 200 and "page" in body}
    assert lists
    for url in sorted(lists):
        for page in ("999999999999999999", "9223372036854775807", "1" + "0" * 40, "-1", "0x10"):
            resp = client.get(f"{url}?page={page}")
            assert resp.status_code < 500, (url, page, resp.status_code)


@pytest.mark.parametrize("app", ERPS)
def test_a_bill_dated_at_the_end_of_time_is_refused_on_the_tool_and_the_form(client, episode, app):
    env = Environment(episode, [app])
    tool = tool_named(app, "create_bill")
    refused = env.call(tool, a_new_bill(env, app, "ACME-0001", bill_date="9999-12-31"))
    assert refused["field"] == "bill_date" and "2199-12-31" in refused["message"]
    assert env.call(tool, a_new_bill(env, app, "ACME-0002", bill_date="2026-06-30",
                                     due_date="9999-12-31"))["field"] == "due_date"
    form = a_new_bill(env, app, "ACME-0003", bill_date="9999-12-31")
    resp = post_form(client, f"{APPS[app].base_path}/ap/bills/new", form)
    assert resp.status_code == 422 and "2199-12-31" in resp.get_data(as_text=True)
    made = env.call(tool, a_new_bill(env, app, "ACME-0004"))  # the control: a plain date goes through
    assert "error" not in made, made
    assert episode.diff()  # and only that one bill was written


@pytest.mark.parametrize("app", ERPS)
@pytest.mark.parametrize("first,second", [("ÉX-1", "éx-1"), ("İZ-4", "i̇z-4"), ("STRASSE-9", "straße-9"),
                                          ("Cafe\u0301-7", "CAFÉ-7")])
def test_bill_numbers_that_differ_only_by_unicode_case_are_the_same_bill(episode, app, first, second):
    env = Environment(episode, [app])
    tool = tool_named(app, "create_bill")
    made = env.call(tool, a_new_bill(env, app, first))
    assert "error" not in made, made
    again = env.call(tool, a_new_bill(env, app, second))
    assert again.get("error") == "duplicate", again
    run = env.call(tool_named(app, "create_payment_run"), {"bill_numbers": [second]})
    assert "No bill numbered" not in run.get("message", ""), run  # found (then refused: it is a draft)


def test_fold_is_casefold_and_nfc():
    assert fold("ÉX-1") == fold("éx-1") == fold("e\u0301x-1")
    assert fold("İZ-4") == fold("i̇z-4") and fold("STRASSE") == fold("straße")
    assert fold("ACME-0001") == "acme-0001"


@pytest.mark.parametrize("name", ["invoice\u202efdp.exe", "a\u202db.pdf", "x\u2066y.pdf", "zero\u200bwidth.pdf",
                                  "\ufeffbom.pdf", "line\u2028break.pdf", "rlm\u200f.pdf"])
def test_file_names_that_display_as_another_name_are_refused(episode, name):
    env = Environment(episode, ["box"])
    result = env.call("box.files.upload", {"folder_id": 0, "name": name, "content": "hello"})
    assert result.get("field") == "name" and "invisible or direction-changing" in result["message"]
    assert not episode.diff()


def test_a_composed_and_a_decomposed_file_name_are_one_name(episode):
    env = Environment(episode, ["box"])
    first = env.call("box.files.upload", {"folder_id": 0, "name": "Caf\u00e9 notes.pdf", "content": "x"})
    assert "error" not in first and first["name"] == "Caf\u00e9 notes.pdf"
    second = env.call("box.files.upload", {"folder_id": 0, "name": "Cafe\u0301 notes.pdf", "content": "x"})
    assert "already exists" in second.get("message", "")
