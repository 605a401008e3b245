"""A person works C_coi_hold in the browser (the vendor known in Box by its DBA, V1003): from the
launcher into Box, the W-9 for the DBA, the certificates under it, then Vista's vendor master and
its AP Payment Holds form; the recording replays to 1.0 on both transports and is promoted to gold
(CFAB_GOLD_OUT=tasks/gold keeps it)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from agent.browser import Portal
from agent.gold import promote
from agent.replay import replay
from portals.core import recording
from tasks.families import c_coi_hold as C

from .test_people import finish, newest_recording, people, recordings, start_task  # noqa: F401 (fixtures)

INSTANCE = "cf_C_coi_hold_V1003"


def work_coi_hold(page, base_url: str) -> str:
    """The person's way: the browser steps of the family (Box search and previews, Vista's vendor
    master, the holds form), on the page the task panel opened."""
    name = next(v for v in C.VENDORS if INSTANCE.endswith(v))
    from seeds.book import load_book

    legal = C.case(load_book(), name).name
    return C.oracle_browser(legal, Portal(page, base_url))


def test_a_person_holds_the_dba_vendor_and_the_recording_becomes_gold(
        people, recordings, live_server, browser, e2e_store, tmp_path):  # noqa: F811
    page = people()
    start_task(page, INSTANCE, "C_coi_hold")
    reply = work_coi_hold(page, live_server.url)
    verdict = finish(page, reply)
    assert "Passed — score 1.00" in verdict, verdict

    path = newest_recording(recordings, INSTANCE)
    trajectory = recording.load(path)
    assert trajectory["reply"] == reply and trajectory["grade"]["passed"]
    assert all(c["source"] == "ui" for c in trajectory["calls"])
    assert [c["tool"] for c in trajectory["calls"] if c["kind"] == "write"] == ["ap.payment_hold.create"]

    for transport in ("tools", "browser"):
        run = replay(trajectory, transport, e2e_store, browser, live_server)
        assert run["passed"] and run["score"] == 1.0, (transport, run["verdict"])

    gold_out = Path(os.environ.get("CFAB_GOLD_OUT") or tmp_path)
    result = promote(path, gold_out, e2e_store, browser, live_server)
    assert result["promoted"], {t: r["verdict"] for t, r in result["runs"].items()}
    assert json.loads(Path(result["path"]).read_text())["gold"]["replayed"] == {"tools": 1.0, "browser": 1.0}
