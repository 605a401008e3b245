"""The server side of the BrowserGym task package: the admin API's task endpoints (open a task's
evaluation episode, grade it with a reply) and the instance list agent/browsergym/ ships.
The package itself runs in BrowserGym's own virtualenv: tests/test_browsergym_venv.py."""
from __future__ import annotations

import json

import pytest

from agent.browsergym_instances import FILE, text
from agent.policies import EagerPolicy, OraclePolicy
from portals.core.environment import Environment
from agent.dataset import publishable
from tasks.families import FAMILIES
from tasks.registry import all_tasks

from conftest import ADMIN_TOKEN

AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
TASK = "cf_H_procore_erp_sync_1042"


@pytest.fixture
def admin(flask_app):
    return flask_app.test_client()


def _task(instance_id):
    return next(t for t in all_tasks() if t.instance_id == instance_id)


def test_the_shipped_instance_list_is_the_suite():
    assert FILE.read_text() == text(), "run: python -m agent.browsergym_instances"
    rows = json.loads(FILE.read_text())
    # every registered family, each instance under its own task name (FAMILIES is the registry's list)
    assert {r["family"] for r in rows} == {f.name for f in FAMILIES}
    assert sorted(r["instance_id"] for r in rows) == sorted(t.instance_id for t in all_tasks() if publishable(t))
    assert all(r["task_name"] == "cfab." + r["instance_id"] for r in rows)
    assert not any(k in json.dumps(rows) for k in ("evaluator", "ground_truth", "expected"))


def test_task_endpoints_need_the_admin_token(admin):
    assert admin.get("/admin/tasks").status_code == 401
    assert admin.post(f"/admin/tasks/{TASK}/episodes", headers={"Authorization": "Bearer nope"}).status_code == 403


def test_the_task_list_is_public_views_with_their_start(admin):
    listed = admin.get("/admin/tasks", headers=AUTH).get_json()["tasks"]
    assert {t["instance_id"] for t in listed} == {t.instance_id for t in all_tasks()}
    h = next(t for t in listed if t["instance_id"] == TASK)
    assert h == {**_task(TASK).public(), "start_path": "/procore/"}


def test_unknown_task_and_bad_grade_bodies_are_refused(admin, store):
    assert admin.post("/admin/tasks/cf_nope/episodes", headers=AUTH).status_code == 404
    made = admin.post(f"/admin/tasks/{TASK}/episodes", headers=AUTH).get_json()
    try:
        path = f"/admin/episodes/{made['episode_id']}/grade"
        assert admin.post(path, headers=AUTH, json={"reply": 3}).status_code == 400
        assert admin.post(path, headers=AUTH, data="x", content_type="text/plain").status_code == 400
        assert store.get(made["episode_id"]).diff() == {}  # nothing changed
    finally:
        store.drop(made["episode_id"])
    plain = store.create(["procore"])
    try:
        resp = admin.post(f"/admin/episodes/{plain.id}/grade", headers=AUTH, json={"reply": "done"})
        assert resp.status_code == 400 and "not opened for a task" in resp.get_json()["message"]
    finally:
        store.drop(plain.id)
    assert admin.post("/admin/episodes/nope/grade", headers=AUTH, json={"reply": ""}).status_code == 404


@pytest.mark.parametrize("policy, passed", [(OraclePolicy, True), (EagerPolicy, False), (None, False)])
def test_a_task_episode_grades_what_it_holds(admin, flask_app, store, policy, passed):
    made = admin.post(f"/admin/tasks/{TASK}/episodes", headers=AUTH).get_json()
    assert made["instruction"] == _task(TASK).instruction and made["start_path"] == "/procore/"
    episode = store.get(made["episode_id"])
    assert episode.meta["evaluation"] and sorted(episode.apps) == sorted(_task(TASK).apps)
    browser = flask_app.test_client()
    assert browser.get(made["enter_url"]).headers["Location"].endswith("/procore/")
    reply = policy().run_tools(_task(TASK), Environment(episode, list(episode.apps))) if policy else ""
    graded = admin.post(f"/admin/episodes/{episode.id}/grade", headers=AUTH, json={"reply": reply}).get_json()
    assert graded["passed"] is passed and graded["instance_id"] == TASK
    assert graded["score"] == (1.0 if passed else graded["score"]) and graded["verdict"]
    if policy is EagerPolicy:
        assert graded["guard_log"] and graded["score"] == 0.0
    assert admin.delete(f"/admin/episodes/{episode.id}", headers=AUTH).status_code == 200
    assert store.get(episode.id) is None
