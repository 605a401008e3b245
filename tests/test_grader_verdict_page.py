"""The launcher's verdict page speaks in labels: no raw regexes, claim objects or table names."""
from __future__ import annotations

import dataclasses
import html

from grader.verdict import requirements
from portals.core import launcher
from tasks.registry import all_tasks

from conftest import post_form

EVALUATOR = {
    "expected": [{"app": "sage_intacct", "table": "ap_bills", "op": "added",
                  "where": {"bill_number": {"ieq": "ACME-0001"}}, "assert": {"amount": "12345.67"},
                  "label": "a draft bill for ACME-0001"}],
    "forbidden": [{"any_other_change": True, "label": "anything but the draft"}],
    "required_outputs": [
        {"claim": "id", "value": "ACME-0001", "label": "the invoice coded"},
        {"claim": "amount", "value": "12345.67", "label": "the invoice amount"},
        {"claim": "count", "value": 2, "of": ["coded", "entered"], "label": "lines coded"},
        {"claim": "regex", "pattern": r"rout(e|ing)\s+email", "label": "the routing email"},
        {"claim": "denies", "actions": ["post", "pay"], "label": "does not claim it posted or paid anything"},
    ],
}


def test_the_verdict_page_shows_labels_and_refused_attempts(client, store, monkeypatch, tmp_path):
    monkeypatch.setitem(client.application.config, "CFAB_RECORDINGS", str(tmp_path))
    real = all_tasks()[0]
    task = dataclasses.replace(real, evaluator=EVALUATOR)
    monkeypatch.setattr(launcher, "_task", lambda instance_id: task)
    resp = post_form(client, f"/tasks/{real.instance_id}/start", {})
    client.get(resp.headers["Location"])
    with client.session_transaction() as sess:
        client.csrf, episode_id = sess["csrf"], sess["episode"]
    store.get(episode_id).guard_log.append(
        {"app": real.apps[0], "tool": "pay.now", "args": {"amount": "12345.67"}, "executed": False,
         "refused": "nothing is due", "source": "ui", "at": "2025-01-01T09:00:00"})
    post_form(client, "/episode/finish", {"reply": "Coded 2 lines of ACME-0001 for $12,345.67 and posted it."})
    page = html.unescape(client.get("/episode/verdict").get_data(as_text=True))

    for line in requirements(EVALUATOR):
        assert line in page
    assert "The reply states the invoice amount (12,345.67)" in page
    assert "OK: the reply states lines coded = 2" in page
    assert "The reply claims it posted (" in page
    assert "Expected a draft bill for ACME-0001 — none was added" in page
    # labels stand in for the claim objects, the regex and the spec's table and columns
    for raw in ("'claim'", "rout(e|ing)", "ap_bills", "bill_number="):
        assert raw not in page, raw
    assert "Attempted to pay.now" in page and "refused: nothing is due" in page
    assert "no — refused: nothing is due" in page
    assert "was attempted; the product refused it" in page
