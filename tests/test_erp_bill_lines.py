"""Bills with line items: a bill split across accounts and codes totals its lines; the one-line
form is a bill with one line and writes no line rows (so it changes `ap_bills` alone)."""
from __future__ import annotations

from decimal import Decimal

import pytest

from conftest import post_form
from portals.core.environment import Environment
from portals.core.registry import load_apps

ERPS = sorted(n for n, s in load_apps().items() if s.kind == "erp")
APPS = ERPS


def tool(app: str, service: str) -> str:
    return f"{app}.{load_apps()[app].service_tool_names[service]}"


def coding(env, app: str) -> dict:
    """An active job of this product and two of its budgeted codes, read from its own tools."""
    jobs = env.call(tool(app, "list_projects"), {"status": "active", "per_page": 5})["items"]
    job = jobs[0]["project_id"]
    codes = [c["task_id"] for c in env.call(tool(app, "list_tasks"), {"project_id": job})["items"]]
    vendor = env.call(tool(app, "query_vendors"), {"status": "active", "per_page": 1})["items"][0]["vendor_id"]
    return {"job": job, "codes": codes[:2], "vendor": vendor}


def header(c: dict, number: str = "ACME-0001") -> dict:
    return {"vendor_id": c["vendor"], "bill_number": number, "bill_date": "2026-06-24"}


@pytest.mark.parametrize("app", ERPS)
def test_a_bill_with_lines_totals_them_and_is_filed_under_line_one(env, episode, app):
    c = coding(env, app)
    lines = [f"|{c['job']}|{c['codes'][0]}|M|1000.00|Material", f"|{c['job']}|{c['codes'][1]}|M|234.56|Freight"]
    bill = env.call(tool(app, "create_bill"), {**header(c), "lines": lines})
    assert "error" not in bill, bill
    assert bill["amount"] == "1234.56" and bill["task_id"] == c["codes"][0] and bill["cost_type_id"] == "M"
    assert [ln["amount"] for ln in bill["lines"]] == ["1000.00", "234.56"]
    assert all(ln["gl_account"] for ln in bill["lines"])  # the cost type's job-cost account
    diff = episode.diff()[app]
    assert set(diff) == {"ap_bills", "bill_lines"} and len(diff["bill_lines"]["added"]) == 2
    got = env.call(tool(app, "get_bill"), {"bill_id": bill["bill_id"]})
    assert sum(Decimal(ln["amount"]) for ln in got["lines"]) == Decimal(got["amount"])


@pytest.mark.parametrize("app", ERPS)
def test_the_one_line_form_writes_the_bill_alone_and_reads_as_one_line(env, episode, app):
    c = coding(env, app)
    bill = env.call(tool(app, "create_bill"), {**header(c), "project_id": c["job"], "task_id": c["codes"][0],
                                               "amount": "12345.67"})
    assert "error" not in bill, bill
    assert set(episode.diff()[app]) == {"ap_bills"}
    [line] = bill["lines"]
    assert line["amount"] == "12345.67" and line["task_id"] == c["codes"][0] and line["line_no"] == 1


@pytest.mark.parametrize("app", ERPS)
@pytest.mark.parametrize("change,field,words", [
    ({"amount": "999.99"}, "amount", "add up to 1000.00"),
    ({"project_id": "X"}, "project_id", "not both"),
    ({"lines": ["only|three|parts"]}, "lines", "line 1"),
    ({"lines": ["|{job}|NOPE-CODE|M|10.00"]}, "lines", "line 1"),
    ({"lines": ["|{job}|{code}|M|-10.00"]}, "lines", "greater than zero"),
    ({"lines": ["0000|{job}|{code}|M|10.00"]}, "lines", "no gl account"),
])
def test_bad_lines_are_refused_and_nothing_is_written(env, episode, app, change, field, words):
    c = coding(env, app)
    args = {**header(c), "lines": [f"|{c['job']}|{c['codes'][0]}|M|1000.00"], **change}
    args["lines"] = [ln.format(job=c["job"], code=c["codes"][0]) for ln in args["lines"]]
    result = env.call(tool(app, "create_bill"), args)
    assert result.get("field") == field and words in result["message"].lower(), result
    assert episode.diff() == {}


@pytest.mark.parametrize("app", ERPS)
def test_without_lines_the_one_line_coding_is_required(env, episode, app):
    result = env.call(tool(app, "create_bill"), header(coding(env, app)))
    assert result["field"] == "project_id" and "required" in result["message"]
    assert episode.diff() == {}


@pytest.mark.parametrize("app", ["sage_intacct", "vista_erp"])
def test_the_forms_line_grid_enters_the_same_bill_as_the_tool(client, env, episode, store, app):
    c = coding(env, app)
    grid = {"line_project_id_1": c["job"], "line_task_id_1": c["codes"][0], "line_cost_type_id_1": "M",
            "line_amount_1": "1000.00", "line_memo_1": "Material",
            "line_project_id_2": c["job"], "line_task_id_2": c["codes"][1], "line_cost_type_id_2": "M",
            "line_amount_2": "234.56", "line_memo_2": "Freight"}
    resp = post_form(client, f"/{app}/ap/bills/new/lines", {**header(c), **grid})
    assert resp.status_code == 302, resp.get_data(as_text=True)[:500]
    page = client.get(resp.location).get_data(as_text=True)
    assert "1,234.56" in page and "Freight" in page
    other = store.create([app])
    try:
        lines = [f"|{c['job']}|{c['codes'][0]}|M|1000.00|Material", f"|{c['job']}|{c['codes'][1]}|M|234.56|Freight"]
        Environment(other, [app]).call(tool(app, "create_bill"), {**header(c), "lines": lines})
        assert other.diff() == episode.diff()
    finally:
        store.drop(other.id)


def test_a_refused_grid_keeps_what_was_typed(client, env, episode):
    app = "sage_intacct"
    c = coding(env, app)
    resp = post_form(client, f"/{app}/ap/bills/new/lines", {**header(c), "line_project_id_1": c["job"],
                                                       "line_task_id_1": "NOPE-CODE", "line_cost_type_id_1": "M",
                                                       "line_amount_1": "10.00"})
    body = resp.get_data(as_text=True)
    assert resp.status_code == 422 and 'id="e-lines"' in body and 'value="NOPE-CODE"' in body
    assert episode.diff() == {}


def test_the_one_line_form_links_to_the_lines_form_and_an_empty_grid_is_refused(client, episode):
    page = client.get("/sage_intacct/ap/bills/new").get_data(as_text=True)
    assert 'href="/sage_intacct/ap/bills/new/lines"' in page and "line_task_id_1" not in page
    resp = post_form(client, "/sage_intacct/ap/bills/new/lines", {"vendor_id": "V9999", "bill_number": "ACME-0001"})
    assert resp.status_code == 422 and "at least one line" in resp.get_data(as_text=True)
    assert episode.diff() == {} and not episode.calls


def test_seeded_material_bills_carry_freight_and_tax_lines_that_add_up(env):
    app = "sage_intacct"
    bills = env.call(tool(app, "query_bills"), {"state": "posted", "per_page": 100})["items"]
    split = [b for b in (env.call(tool(app, "get_bill"), {"bill_id": b["bill_id"]}) for b in bills
                         if b["cost_type_id"] in ("M", "E")) if len(b["lines"]) > 1]
    assert split, "some seeded bills have line items"
    for bill in split:
        assert sum(Decimal(ln["amount"]) for ln in bill["lines"]) == Decimal(bill["amount"])
        assert {ln["task_id"] for ln in bill["lines"]} == {bill["task_id"]}  # job cost posts as the bill does
