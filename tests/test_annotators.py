"""Annotators: an annotator id on the start form goes into the recording; `cfab replay`'s
browser-only options refuse the tools transport; recorded steps read as BrowserGym actions."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from agent.cli import main
from agent.llm.observe import normalize, parse_actions
from agent.replay import gym_action
from portals.core import recording
from tasks.registry import all_tasks

from conftest import post_form

GOLD = "tasks/gold/cf_H_procore_erp_sync_2041.json"


@pytest.mark.parametrize("text, expected", [("", None), ("  ", None), (None, None), ("ann-7", "ann-7"),
                                            (" maria.k@site ", "maria.k@site")])
def test_an_annotator_id_is_a_short_plain_id(text, expected):
    assert recording.annotator_id(text) == expected


@pytest.mark.parametrize("text", ["<b>x</b>", "a b", "x" * 65, 7, "naïve"])
def test_anything_else_is_refused(text):
    with pytest.raises(recording.TrajectoryError, match="1-64 letters"):
        recording.annotator_id(text)


def test_the_start_form_records_the_annotator_and_refuses_a_bad_one(client, store, tmp_path, monkeypatch):
    monkeypatch.setitem(client.application.config, "CFAB_RECORDINGS", str(tmp_path))
    task = all_tasks()[0]
    page = client.get(f"/tasks/{task.instance_id}").get_data(as_text=True)
    assert '<label for="annotator">' in page and 'id="annotator" name="annotator"' in page
    before = set(store.episodes)
    bad = post_form(client, f"/tasks/{task.instance_id}/start", {"annotator": "<script>"})
    assert bad.status_code == 400 and "annotator id" in bad.get_data(as_text=True)
    assert set(store.episodes) == before  # nothing was opened
    resp = post_form(client, f"/tasks/{task.instance_id}/start", {"annotator": "ann-7"})
    assert resp.status_code == 302
    client.get(resp.headers["Location"])
    with client.session_transaction() as sess:
        client.csrf, episode_id = sess["csrf"], sess["episode"]
        assert sess["annotator"] == "ann-7"
    assert store.get(episode_id).meta["annotator"] == "ann-7"
    assert 'value="ann-7"' in client.get(f"/tasks/{task.instance_id}").get_data(as_text=True)
    post_form(client, "/episode/finish", {"reply": "done"})
    [written] = tmp_path.glob("*.json")
    assert recording.load(written)["annotator"] == "ann-7"


def test_validate_checks_annotator_and_observations():
    good = recording.load(GOLD)
    recording.validate({**good, "annotator": "ann-7"})
    with pytest.raises(recording.TrajectoryError, match="annotator"):
        recording.validate({**good, "annotator": "a b"})
    steps = [dict(s) for s in good["ui_steps"]]
    steps[0]["observation"] = {"url": "/procore/", "axtree_txt": "- main"}
    recording.validate({**good, "ui_steps": steps})
    steps[0]["observation"] = {"url": "/procore/"}
    with pytest.raises(recording.TrajectoryError, match="malformed observation"):
        recording.validate({**good, "ui_steps": steps})


@pytest.mark.parametrize("step, bid, action", [
    ({"type": "visit", "url": "/procore/", "cause": "goto"}, None, "goto('/procore/')"),
    ({"type": "visit", "url": "/procore/x", "cause": "click"}, None, None),
    ({"type": "click", "url": "/", "target": {"role": "button", "label": "Sync"}}, "invoice-X-sync",
     "click('invoice-X-sync')"),
    ({"type": "click", "url": "/", "target": {"bid": "nav-erp"}}, None, "click('nav-erp')"),
    ({"type": "fill", "url": "/", "target": {"bid": "filter-search"}, "value": "HDA'4"}, None,
     "fill('filter-search', \"HDA'4\")"),
    ({"type": "select", "url": "/", "target": {"label": "Status"}}, "filter-status",
     "select_option('filter-status', '')"),
    ({"type": "check", "url": "/", "target": {"label": "All"}}, "row-all", "click('row-all')"),
    ({"type": "submit", "url": "/"}, None, "keyboard_press('Enter')"),
    ({"type": "click", "url": "/", "target": {"label": "Sync"}}, None, None),
])
def test_recorded_steps_read_as_browsergym_actions(step, bid, action):
    assert gym_action(step, bid) == action
    if action:
        [(name, args)] = parse_actions(action)
        normalize(name, args)  # an action the browser env accepts as written


@pytest.mark.parametrize("flags, message", [
    (["--trace", "t.zip"], "--trace need --transport browser"),
    (["--headed"], "--headed need --transport browser"),
    (["--observations", "o.json"], "--observations need --transport browser"),
    (["--transport", "browser", "--screenshots"], "--screenshots goes with --observations"),
])
def test_replay_refuses_browser_options_it_cannot_honour(flags, message, tmp_path):
    result = CliRunner().invoke(main, ["replay", GOLD, *flags])
    assert result.exit_code == 2 and message in result.output


def test_headed_replay_needs_a_display(monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    result = CliRunner().invoke(main, ["replay", GOLD, "--transport", "browser", "--headed"])
    assert result.exit_code == 2 and "needs a display" in result.output
    assert json.load(open(GOLD))["ui_steps"]  # the file is a real recording
