"""QuickBooks Online: what only QuickBooks has among the ERP vendors (a journal entry standing in
for job-cost writes, and no projection); the archetype's tests run for it in test_erp_vendors.py."""
from __future__ import annotations

APP = "qbo"
APPS = [APP, "procore"]
JOB, CLASS = "9140", "31:200"  # job 9140 and Procore cost code 31-200 in the book


def test_a_journal_entry_is_a_normal_write(env, episode):
    entry = env.call(f"{APP}.journalentry.create", {"entry_date": "2026-06-29", "description": "Reclass 31:200",
                                                    "lines": [f"5200|Dr|250.00|{JOB}|{CLASS}|S|Reclass",
                                                              "2000|Cr|250.00||||Reclass"]})
    assert "error" not in entry, entry
    assert set(episode.diff()[APP]) <= {"journal_entries", "journal_lines"} and episode.guard_log == []


def test_there_is_no_projection_to_save(client):
    assert b"/forecast" not in client.get(f"/{APP}/jobs/{JOB}").data
