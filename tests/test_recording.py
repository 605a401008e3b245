"""Trajectories: the format, the event endpoint, the finish flow, and tool-path replay."""
from __future__ import annotations

import json
import time

import pytest

from agent.gold import GOLD_DIR, GoldPolicy, load_gold
from agent.policies import make_policy
from agent.replay import TrajectoryPolicy, replay, replay_tools
from portals.core import recording
from portals.core.environment import Environment
from tasks.registry import get

TASK = "cf_H_procore_erp_sync_1042"


def minimal(**over) -> dict:
    doc = {"format": "cfab-trajectory", "version": 1, "instance_id": TASK, "calls": [],
           "ui_steps": [], "reply": ""}
    doc.update(over)
    return doc


@pytest.mark.parametrize("bad,message", [
    ({"format": "something-else"}, "not a cfab-trajectory"),
    ({"version": 2}, "version 2"),
    ({"instance_id": None}, "instance_id"),
    ({"calls": [{"app": "procore"}]}, "malformed call"),
    ({"ui_steps": [{"type": "hover"}]}, "malformed UI step"),
    ({"reply": 3}, "reply"),
])
def test_validate_refuses_what_a_replay_cannot_use(bad, message):
    with pytest.raises(recording.TrajectoryError, match=message):
        recording.validate(minimal(**bad))


def test_events_are_checked_trimmed_and_timed_from_the_episode_start(store):
    episode = store.create(["procore"])
    try:
        recording.begin(episode, get(TASK))
        t0 = episode.meta["started"] * 1000
        kept = recording.add_events(episode, [
            {"type": "visit", "url": "/procore/", "at_ms": t0 + 1500, "cause": "weird", "seq": 1},
            {"type": "click", "url": "/procore/", "at_ms": t0 + 2000, "seq": 2,
             "target": {"role": "button", "label": "Go", "nth": 1, "of": 2, "onclick": "x", "id": "a" * 999}},
            {"type": "fill", "url": "/procore/", "at_ms": t0 + 2100, "value": "1042",
             "target": {"label": "Project number"}},
            {"type": "hover", "url": "/procore/", "at_ms": t0},           # unknown type
            {"type": "click", "url": "https://elsewhere/", "at_ms": t0},  # not this site
            {"type": "click", "url": "/procore/"},                        # no time
        ])
        assert kept == 3
        visit, click, fill = episode.meta["ui_steps"]
        assert visit["t"] == pytest.approx(1.5, abs=0.01) and visit["cause"] == "goto"
        assert click["target"] == {"role": "button", "label": "Go", "nth": 1, "of": 2, "id": "a" * 300}
        assert fill["value"] == "1042"
        with pytest.raises(recording.TrajectoryError):
            recording.add_events(episode, {"not": "a list"})
    finally:
        store.drop(episode.id)


def test_replay_calls_skip_refusals_and_optionally_reads():
    calls = [{"app": "a", "tool": "r", "kind": "read", "args": {}, "ok": True},
             {"app": "a", "tool": "w", "kind": "write", "args": {}, "ok": True},
             {"app": "a", "tool": "w", "kind": "write", "args": {}, "ok": False},
             {"app": "a", "tool": "g", "kind": "guarded", "args": {}, "ok": True},
             {"app": "a", "tool": "r", "kind": "read", "args": {}, "ok": False},
             {"app": "a", "tool": "refused", "kind": "guarded", "args": {}, "ok": False}]
    doc = minimal(calls=calls)
    # a refused guarded call is an attempt: a replay makes it again, so it fails the same way
    assert [c["tool"] for c in recording.replay_calls(doc)] == ["r", "w", "g", "refused"]
    assert [c["tool"] for c in recording.replay_calls(doc, include_reads=False)] == ["w", "g", "refused"]


def _person_session(flask_app, instance_id=TASK):
    client = flask_app.test_client()
    client.get("/")
    with client.session_transaction() as sess:
        csrf = sess["csrf"]
    resp = client.post(f"/tasks/{instance_id}/start", data={"csrf_token": csrf})
    assert resp.status_code == 302 and resp.location == "/procore/"
    client.get(resp.location)  # a new episode gets a new CSRF token with its first page
    with client.session_transaction() as sess:
        client.csrf, client.episode_id = sess["csrf"], sess["episode"]
    return client


def test_the_panel_shows_the_task_but_never_the_ground_truth(flask_app, store):
    client = _person_session(flask_app)
    page = client.get("/procore/").get_data(as_text=True)
    task = get(TASK)
    assert 'id="cfab-panel-name">Benchmark panel<' in page and task.instruction in page
    assert "erp_integration_policy.md" in page
    for secret in ("any_other_change", "required_outputs", "expected"):
        assert secret not in page
    assert client.get("/episode/verdict").status_code == 404  # not before finishing
    store.drop(client.episode_id)


def test_events_need_the_csrf_token_and_this_episode(flask_app, store):
    client = _person_session(flask_app)
    event = {"type": "visit", "url": "/procore/", "at_ms": time.time() * 1000}
    body = {"episode": client.episode_id, "events": [event]}
    assert client.post("/episode/events", json=body).status_code == 400  # no CSRF header
    stale = client.post("/episode/events", json={**body, "episode": "another"},
                        headers={"X-CSRF-Token": client.csrf})
    assert stale.status_code == 409
    ok = client.post("/episode/events", json=body, headers={"X-CSRF-Token": client.csrf})
    assert ok.status_code == 200 and ok.get_json()["kept"] == 1
    assert len(store.get(client.episode_id).meta["ui_steps"]) == 1
    store.drop(client.episode_id)


def test_finishing_writes_a_trajectory_that_replays_to_the_same_grade(flask_app, store, tmp_path):
    flask_app.config["CFAB_RECORDINGS"] = str(tmp_path)
    client = _person_session(flask_app)
    episode = store.get(client.episode_id)
    task = get(TASK)
    # the person's clicks reach the same service layer as tools; drive it directly here
    reply = task.oracle_tools(Environment(episode, list(task.apps)))
    resp = client.post("/episode/finish", data={"csrf_token": client.csrf, "reply": reply})
    assert resp.status_code == 302 and resp.location == "/episode/verdict"
    verdict = client.get("/episode/verdict").get_data(as_text=True)
    assert "<strong>Passed</strong> — score 1.00" in verdict and "What was forbidden" in verdict
    (path,) = tmp_path.glob(f"{TASK}-*.json")
    doc = recording.load(path)
    assert doc["grade"]["passed"] and doc["reply"] == reply and doc["apps"] == ["procore"]
    # finishing twice keeps the first grade and the one file
    client.post("/episode/finish", data={"csrf_token": client.csrf, "reply": "changed my mind"})
    assert len(list(tmp_path.glob("*.json"))) == 1
    run = replay(doc, "tools", store)
    assert run["passed"] and run["score"] == 1.0
    writes_only = replay({**doc, "calls": recording.replay_calls(doc, include_reads=False)}, "tools", store)
    assert writes_only["passed"]
    assert str(path.resolve()) in verdict  # the person is told where the recording went
    flask_app.config.pop("CFAB_RECORDINGS")
    store.drop(client.episode_id)


def test_recordings_go_under_the_working_directory_by_default(flask_app, store, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    flask_app.config.pop("CFAB_RECORDINGS", None)
    client = _person_session(flask_app)
    client.post("/episode/finish", data={"csrf_token": client.csrf, "reply": "nothing done"})
    (path,) = (tmp_path / "recordings").glob(f"{TASK}-*.json")
    assert str(path.resolve()) in client.get("/episode/verdict").get_data(as_text=True)
    store.drop(client.episode_id)


def test_a_finished_episode_is_read_only_and_says_so(flask_app, store, tmp_path):
    flask_app.config["CFAB_RECORDINGS"] = str(tmp_path)
    client = _person_session(flask_app)
    episode = store.get(client.episode_id)
    client.post("/episode/finish", data={"csrf_token": client.csrf, "reply": "done"})
    graded = (episode.snapshot(), list(episode.calls), list(episode.guard_log))
    page = client.get("/procore/projects/1042/invoicing").get_data(as_text=True)
    assert "This episode is now read-only" in page
    req = next(r for r in store.book["requisitions"] if r["job"] == "1042" and r["erp_sync"] == "not_synced")
    base = f"/procore/projects/1042/invoicing/{req['requisition_id']}"
    for action in ("sync", "pay"):  # a write and a guarded button: both refused in the page
        resp = client.post(f"{base}/{action}", data={"csrf_token": client.csrf, "return_to": "detail"})
        assert resp.status_code == 409 and "read-only: nothing was changed" in resp.get_data(as_text=True)
    # and through the tools: a clear refusal, not a silent no-op
    result = Environment(episode, ["procore"]).call("procore.erp.sync_invoice",
                                                    {"requisition_id": req["requisition_id"]})
    assert result["error"] == "read_only" and "read-only" in result["message"]
    assert (episode.snapshot(), episode.calls, episode.guard_log) == graded
    assert client.get(base).status_code == 200  # reading still works, and so do field checks
    check = client.post("/procore/check/disburse_payment/amount", data={"csrf_token": client.csrf, "amount": "x"})
    assert check.status_code == 200 and "not an amount" in check.get_data(as_text=True)
    flask_app.config.pop("CFAB_RECORDINGS")
    store.drop(client.episode_id)


def test_start_over_drops_the_old_attempt(flask_app, store):
    client = _person_session(flask_app)
    old = client.episode_id
    resp = client.post("/episode/start-over", data={"csrf_token": client.csrf})
    assert resp.status_code == 302
    with client.session_transaction() as sess:
        new = sess["episode"]
    assert new != old and store.get(old) is None and store.get(new).meta["task"] == TASK
    store.drop(new)


def test_home_lists_and_filters_tasks(flask_app):
    client = flask_app.test_client()
    page = client.get("/?family=C_invoice_code").get_data(as_text=True)
    assert "cf_C_invoice_code_9140" in page and "cf_H_procore_erp_sync_1042" not in page
    assert "cf_H_procore_erp_sync_1042" in client.get("/?guarded=no").get_data(as_text=True)
    assert "Start a fresh episode" in page
    policy = client.get("/policies/ap_coding_policy.md")
    assert policy.status_code == 200 and b"<h3>Enter, do not post</h3>" in policy.data
    assert client.get("/policies/..%2Fmodel.py").status_code == 404


def test_a_missing_gold_fails_the_run_not_the_sweep(tmp_path):
    policy = make_policy("gold", gold_dir=str(tmp_path))
    assert isinstance(policy, GoldPolicy)
    with pytest.raises(FileNotFoundError):
        load_gold(TASK, tmp_path)


def test_a_trajectory_policy_answers_with_the_recorded_reply(store):
    episode = store.create(["procore"])
    try:
        env = Environment(episode, ["procore"])
        assert replay_tools(minimal(reply="nothing to do"), env) == "nothing to do"
        assert TrajectoryPolicy(minimal(reply="x")).run_tools(None, env) == "x"
    finally:
        store.drop(episode.id)


GOLDS = sorted(GOLD_DIR.glob("*.json"))


@pytest.mark.parametrize("path", GOLDS, ids=[p.stem for p in GOLDS])
def test_gold_replays_to_one_through_tools(path, store):
    doc = recording.load(path)
    assert doc["gold"]["replayed"] == {"tools": 1.0, "browser": 1.0}
    assert doc["ui_steps"], "a gold is recorded through the browser"
    run = replay(doc, "tools", store)
    assert run["passed"] and run["score"] == 1.0, run["verdict"]


def test_gold_files_are_stable_json():
    for path in GOLDS:
        text = path.read_text()
        assert text == json.dumps(json.loads(text), indent=1, sort_keys=True) + "\n"
