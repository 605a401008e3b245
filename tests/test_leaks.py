"""No asserted value is handed to the agent: not in a tool schema, a page hint or a policy.

The check itself lives in tasks/leaks.py (the admission gate runs it); here it runs for every
task, a second, independent crawl (tests/_crawl.py, GET forms too) looks at every page of
every app against the values of every task at once, and the check is shown to catch a leak
planted in a schema and in a page.
"""
from __future__ import annotations

import json

import pytest

from _crawl import crawl
from portals.core.registry import get_app, load_apps
from portals.core.web import create_app, enter_url
from tasks import leaks
from tasks.registry import all_tasks

TASKS = all_tasks()


@pytest.mark.parametrize("task", TASKS, ids=[t.instance_id for t in TASKS])
def test_nothing_a_task_asserts_is_handed_to_its_agent(store, task):
    values = leaks.asserted_values(task.evaluator)
    assert values, f"{task.instance_id}: the check must have values to look for"
    assert leaks.leaks_for(task, store) == []


def _every_value_of_every_task() -> dict[str, str]:
    """Every asserted value of every task, instruction-given ones too: a tool's example is
    handed to every task's agent, so none of the reference tasks' ids may serve as one."""
    out = {}
    for task in TASKS:
        for value, where in leaks.asserted_values(task.evaluator).items():
            if _is_zero(value):  # "nothing stored" is no answer: a 0.00 default gives none away
                continue
            out.setdefault(value, f"{task.instance_id} {where}")
    return out


def _is_zero(value: str) -> bool:
    try:
        return float(value) == 0
    except ValueError:
        return False


def test_no_tool_schema_uses_any_tasks_values_as_examples():
    values = _every_value_of_every_task()
    schemas = {f"{app}.{tool.name}": json.dumps(tool.schema())
               for app, spec in load_apps().items() for tool in spec.tools.values()}
    found = [f"{v} ({why}) in {name}" for name, schema in schemas.items()
             for v, why in values.items() if leaks.occurs(v, schema)]
    assert found == []


@pytest.mark.parametrize("app", list(load_apps()))
def test_no_page_hint_uses_any_tasks_values(store, app):
    flask_app = create_app(store)
    episode = store.create([app])
    try:
        client = flask_app.test_client()
        client.get(enter_url(flask_app, episode.id, "/"))
        base = get_app(app).base_path + "/"
        pages, _forms = crawl(client, [base], (base,), limit=200, per_endpoint=2, get_forms=True)
        assert len(pages) >= 3, "the crawl must see the portal"
        values = _every_value_of_every_task()
        found = [f"{v} ({why}) in {url} {what}: {text[:80]}"
                 for url, (status, body) in pages.items() if status == 200
                 for what, text in leaks.hint_texts(body)
                 for v, why in values.items() if leaks.occurs(v, text)]
        assert found == []
    finally:
        store.drop(episode.id)


def test_the_values_collected_are_the_answers_not_the_enum_words():
    evaluator = {
        "expected": [{"app": "a", "table": "bills", "op": "added",
                      "where": {"vendor_key": "V9999", "bill_number": {"ieq": "ACME-0001"}},
                      "assert": {"amount": "12345.67", "state": "draft", "cost_type": "S",
                                 "to_addrs": {"regex": r"name@example\.com"}, "cc": "[]",
                                 "subject": {"mentions": ["ACME-0001", "9999-01"]},
                                 "body": {"denies": ["post"]}, "status": {"ne": "paid"}}}],
        "required_outputs": [{"claim": "amount", "value": "76543.21", "label": "x"},
                             {"claim": "count", "value": 4, "of": ["synced"], "label": "y"},
                             {"claim": "denies", "actions": ["post"], "label": "z"}, r"\bdraft\b"]}
    assert set(leaks.asserted_values(evaluator)) == {"V9999", "ACME-0001", "12345.67",
                                                     "name@example.com", "9999-01", "76543.21"}


def test_occurs_is_token_bounded_and_knows_money_spellings():
    assert leaks.occurs("3706560.00", "e.g. $3,706,560.00 or so")
    assert leaks.occurs("3706560.00", "an amount like 3706560")
    assert leaks.occurs("V1001", "vendor id like v1001.")
    assert not leaks.occurs("V1001", "vendor V10012")
    assert not leaks.occurs("14350.00", "114350.00")
    assert not leaks.occurs("1042", "e.g. 10420")


def test_page_hints_are_read_from_attributes_help_text_and_described_by():
    html = ('<form><input placeholder="P-1"><small class="hint">H-2</small>'
            '<input aria-describedby="d-3 e-x"><p id="d-3">D-3 <b>more</b></p>'
            '<p id="e-x">an error</p><span title="T-4">x</span></p></form>')
    texts = {text for _what, text in leaks.hint_texts(html)}
    assert {"P-1", "H-2", "D-3 more", "T-4"} <= texts and "an error" not in texts


def test_a_planted_leak_is_caught_in_a_schema(store, monkeypatch):
    task = next(t for t in TASKS if t.family == "A_etc_forecast")
    answer = next(v for v, where in leaks.asserted_values(task.evaluator).items() if "reply amount" in where
                  or where.endswith("est_cost_to_complete"))
    tool = get_app("vista_erp").tools["jc.cost_projections.update"]
    monkeypatch.setattr(tool, "description", f"{tool.description} For example {answer}.")
    found = leaks.leaks_for(task, store)
    assert found and all(answer in f and "jc.cost_projections.update" in f for f in found)


def test_a_planted_leak_is_caught_in_a_page(store, monkeypatch):
    task = next(t for t in TASKS if t.family == "C_invoice_code")
    hidden = next(v for v in leaks.asserted_values(task.evaluator) if v not in leaks.given_values(task))
    given = sorted(leaks.given_values(task))[0]
    real = leaks._portal_hints

    def plant(text):
        extra = (("page /sage_intacct/ap/bills/new input[placeholder]", text),)
        monkeypatch.setattr(leaks, "_portal_hints",
                            lambda s, app: real(s, app) + (extra if app == "sage_intacct" else ()))

    plant(f"such as {hidden}")
    found = leaks.leaks_for(task, store)
    assert any(hidden in f and "input[placeholder]" in f for f in found), found
    plant(f"such as {given}")  # what the instruction itself names is not a leak
    assert leaks.leaks_for(task, store) == []
