"""A person works G_sub_accrual in the browser on job 3412: from the launcher into Procore's
commitments (each approved subcontract's work in place) and its invoicing (the pay apps approved
but not yet in the ERP), Sage Intacct's bills of each sub, then Intacct's journal entry form;
the recording replays to 1.0 on both transports and is promoted to gold (CFAB_GOLD_OUT=tasks/gold
keeps it)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from agent.browser import Portal
from agent.gold import promote
from agent.replay import replay
from portals.core import recording
from tasks.families import g_sub_accrual as G

from .test_people import finish, newest_recording, people, recordings, start_task  # noqa: F401 (fixtures)

INSTANCE = "cf_G_sub_accrual_3412"


def work_sub_accrual(page, base_url: str) -> str:
    """The person's way: the browser steps of the family, on the page the task panel opened."""
    return G.oracle_browser(INSTANCE.rsplit("_", 1)[1], Portal(page, base_url))


def test_a_person_stages_the_accrual_and_the_recording_becomes_gold(
        people, recordings, live_server, browser, e2e_store, tmp_path):  # noqa: F811
    page = people()
    start_task(page, INSTANCE, "G_sub_accrual")
    reply = work_sub_accrual(page, live_server.url)
    verdict = finish(page, reply)
    assert "Passed — score 1.00" in verdict, verdict

    path = newest_recording(recordings, INSTANCE)
    trajectory = recording.load(path)
    assert trajectory["reply"] == reply and trajectory["grade"]["passed"]
    assert all(c["source"] == "ui" for c in trajectory["calls"])
    assert [c["tool"] for c in trajectory["calls"] if c["kind"] == "write"] == ["general-ledger/journal-entry.create"]

    for transport in ("tools", "browser"):
        run = replay(trajectory, transport, e2e_store, browser, live_server)
        assert run["passed"] and run["score"] == 1.0, (transport, run["verdict"])

    gold_out = Path(os.environ.get("CFAB_GOLD_OUT") or tmp_path)
    result = promote(path, gold_out, e2e_store, browser, live_server)
    assert result["promoted"], {t: r["verdict"] for t, r in result["runs"].items()}
    assert json.loads(Path(result["path"]).read_text())["gold"]["replayed"] == {"tools": 1.0, "browser": 1.0}
