"""`cfab replay --transport browser --trace --observations --screenshots` on a gold recording:
the replay still passes, the trace is a Playwright trace archive, and each UI step carries the
page it acted on and the step as a BrowserGym action the browser env accepts."""
from __future__ import annotations

import base64
import json
import os
import sys
import zipfile

from click.testing import CliRunner

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _threads import in_own_thread  # noqa: E402

from agent.cli import main  # noqa: E402
from agent.llm.observe import normalize, parse_actions  # noqa: E402
from portals.core import recording  # noqa: E402

GOLD = "tasks/gold/cf_H_procore_erp_sync_2041.json"


def test_replay_writes_a_trace_and_per_step_observations(tmp_path):
    trace, observed = tmp_path / "trace.zip", tmp_path / "observed.json"
    result = in_own_thread(CliRunner().invoke, main, [
        "replay", GOLD, "--transport", "browser", "--trace", str(trace),
        "--observations", str(observed), "--screenshots"])
    assert result.exit_code == 0, result.output
    assert "PASSED" in result.output and f"Trace: {trace}" in result.output

    with zipfile.ZipFile(trace) as archive:
        names = archive.namelist()
        assert "trace.trace" in names and any(n.startswith("resources/") for n in names)
        events = [json.loads(line) for line in archive.read("trace.trace").decode().splitlines() if line]
        assert any(e.get("type") == "screencast-frame" for e in events)

    data = recording.load(observed)  # still a trajectory this code replays
    original = recording.load(GOLD)
    assert [{k: v for k, v in s.items() if k not in ("observation", "action")} for s in data["ui_steps"]] \
        == original["ui_steps"]
    actions = []
    for step in data["ui_steps"]:
        seen = step["observation"]
        assert seen["url"].startswith("http://127.0.0.1:") and "[ref=" in seen["axtree_txt"]
        assert base64.b64decode(seen["screenshot_png"])[:8] == b"\x89PNG\r\n\x1a\n"
        if step["action"]:
            [(name, args)] = parse_actions(step["action"])
            normalize(name, args)
            actions.append(name)
        else:
            assert step["type"] == "visit" and step["cause"] == "click"
    assert "click" in actions and any("[bid=" in s["observation"]["axtree_txt"] for s in data["ui_steps"])
