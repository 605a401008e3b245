"""The BrowserGym task package in BrowserGym's own virtualenv, against a real `cfab serve`.

A virtualenv with `uv pip install -e '.[browsergym]'` (pip where uv is missing; browsergym-core,
browsergym-experiments and the Playwright 1.44 they pin) is built once under build/ and kept,
keyed by pyproject.toml and the Python version, so a second run starts at once; a session that
runs this file starts the build in the background at its start (tests/_bgym_venv.py). A scripted BrowserGym agent
(tests/browsergym_agent.py) plays `browsergym/cfab.<instance_id>` there: it finds every element
of a gold recording's UI steps in its own observation's accessibility tree, acts with
HighLevelActionSet actions on BrowserGym's bids and replies with send_msg_to_user. The gold
run's reward is 1.0; the over-eager run (the gold steps, then the family's guarded action
through the pages) scores 0. The suite's browser oracle plays through BrowserGym's actions too
(agent/browsergym/oracle.py), so an instance needs no recording to be solved there: 1.0.

`make test` plays one gold instance of every registered family, the over-eager twin of
H_procore_erp_sync and the oracle on one instance without a recording; `make validate` sets
CFAB_BROWSERGYM_ALL=1 and plays the oracle on every instance of the suite, and every gold
recording with its over-eager twin.
"""
from __future__ import annotations

import json
import os
import subprocess
import types
from pathlib import Path

import pytest

from agent.dataset import publishable
from tasks.registry import all_tasks

from _bgym_venv import ensure_venv
from _display import NO_X_SERVER, xvfb_run
from _server import running_cfab

ROOT = Path(__file__).resolve().parents[1]
ALL = bool(os.environ.get("CFAB_BROWSERGYM_ALL"))
FAMILY_OF = {t.instance_id: t.family for t in all_tasks()}
GOLDS = sorted(p.stem for p in (ROOT / "tasks" / "gold").glob("cf_*.json") if p.stem in FAMILY_OF)
REGISTERED = sorted(set(FAMILY_OF.values()))
GOLD: dict[str, str] = {}  # each family's first instance with a gold recording
for _id in GOLDS:
    GOLD.setdefault(FAMILY_OF[_id], _id)
EAGER_FAMILY = "H_procore_erp_sync"  # `make test` plays this family's over-eager twin too
FAMILIES = list(GOLD)
PUBLIC = sorted(t.instance_id for t in all_tasks() if publishable(t))
# `make test` plays the oracle on one instance: the first without a recording (else the first)
ORACLE_SAMPLE = next((i for i in PUBLIC if i not in GOLDS), PUBLIC[0])


@pytest.fixture(scope="module")
def bgym_python() -> Path:
    """The cached virtualenv's python (built on first use, or by the session's background build)."""
    return ensure_venv()


def gold_steps(instance_id: str) -> tuple[list[dict], str]:
    """A gold recording's UI steps as the plan's steps: what to act on, by role and name."""
    gold = json.loads((ROOT / "tasks" / "gold" / f"{instance_id}.json").read_text())
    steps = []
    for s in gold["ui_steps"]:
        target = s.get("target") or {}
        named = {"role": target.get("role"), "tag": target.get("tag"), "name": target.get("label", ""),
                 "nth": target.get("nth", 0), "of": target.get("of"), "href": target.get("href")}
        if s["type"] == "visit":
            if s.get("cause") == "goto":
                steps.append({"op": "goto", "path": s["url"]})
        elif s["type"] in ("click", "check"):
            steps.append({"op": "click", **named})
        elif s["type"] in ("fill", "select"):
            steps.append({"op": s["type"], **named, "value": s["value"]})
        else:
            raise AssertionError(f"{instance_id}: no BrowserGym step for a recorded {s['type']!r}")
    return steps, gold["reply"]


class StepRecorder:
    """Stands where a Portal stands: the family's guarded browser action, written down as steps."""

    def __init__(self):
        self.steps: list[dict] = []
        self.page = self

    def goto(self, path):
        self.steps.append({"op": "goto", "path": path})

    def fill(self, label, value):
        self.steps.append({"op": "fill", "name": label, "value": value})

    def select(self, label, value):
        self.steps.append({"op": "select", "name": label, "value": value})

    def click_button(self, name, exact=True):
        self.steps.append({"op": "click", "role": "button", "name": name, "exact": exact})

    def get_by_role(self, role, name, exact=False):  # Playwright's default: the name holds the text
        click = lambda: self.steps.append({"op": "click", "role": role, "name": name, "exact": exact})  # noqa: E731
        return types.SimpleNamespace(first=types.SimpleNamespace(click=click))

    def wait_for_load_state(self, *args, **kwargs):
        pass

    def settle(self, *args, **kwargs):  # BrowserGym's env waits after every action itself
        pass


def chosen() -> list[tuple[str, bool]]:
    """(instance, with its eager twin): one gold instance per family, the eager twin for one
    family; under CFAB_BROWSERGYM_ALL every instance with a gold recording, each with its twin."""
    if ALL:
        return [(i, True) for i in GOLDS]
    return [(GOLD[f], f == EAGER_FAMILY) for f in FAMILIES]


def oracle_chosen() -> list[str]:
    """The instances the oracle plays: every public one under CFAB_BROWSERGYM_ALL, else one."""
    return PUBLIC if ALL else [ORACLE_SAMPLE]


def plan_runs() -> list[dict]:
    tasks = {t.instance_id: t for t in all_tasks()}
    runs = [{"instance_id": i, "variant": "oracle"} for i in oracle_chosen()]
    for instance_id, eager in chosen():
        steps, reply = gold_steps(instance_id)
        runs.append({"instance_id": instance_id, "variant": "gold", "steps": steps, "reply": reply})
        if eager:
            recorder = StepRecorder()
            tasks[instance_id].guarded_browser(recorder)
            assert recorder.steps, f"{instance_id}: its guarded action took no steps"
            runs.append({"instance_id": instance_id, "variant": "eager", "steps": steps + recorder.steps,
                         "reply": reply})
    return runs


def play_plan(bgym_python, folder: Path, runs: list[dict], prefix: tuple = (), display: str | None = None,
              players: int = 1) -> dict:
    """The scripted agent plays `runs` in BrowserGym's venv against a fresh `cfab serve`; `prefix`
    wraps its command (xvfb-run), `display` sets $DISPLAY for a headed BrowserEnv. `players`
    agents play at once, each its share of the runs in a process of its own: a run spends most of
    its time waiting on the page (BrowserGym's settling delays), not on a core."""
    with running_cfab(folder / "serve", "--max-episodes", "32") as server:
        env = {**os.environ, "CFAB_URL": server.url, "CFAB_ADMIN_TOKEN": server.admin_token}
        env.pop("PYTHONPATH", None)  # the package as the venv installed it, nothing from this venv
        env.pop("DISPLAY", None)
        if display:
            env["DISPLAY"] = display
        procs = []
        for n in range(max(1, min(players, len(runs)))):
            plan, results = folder / f"plan-{n}.json", folder / f"results-{n}.json"
            plan.write_text(json.dumps({"server_url": server.url, "runs": runs[n::players]}))
            cmd = [*prefix, str(bgym_python), str(ROOT / "tests" / "browsergym_agent.py"), str(plan), str(results)]
            log = folder / f"player-{n}.log"  # a file, not a pipe: a chatty player never blocks
            with open(log, "w") as fh:
                procs.append((subprocess.Popen(cmd, env=env, cwd=folder, stdout=fh, stderr=subprocess.STDOUT),
                              results, log))
        out = None
        for proc, results, log in procs:
            proc.wait(timeout=5400 if ALL else 900)
            assert proc.returncode == 0, log.read_text()[-3000:]
            part = json.loads(results.read_text())
            out = part if out is None else {**out, "runs": out["runs"] + part["runs"]}
        dropped = [server.admin("DELETE", f"/episodes/{r['task_info']['episode_id']}", raw=True).status_code
                   for r in out["runs"] if "task_info" in r]
        return {**out, "dropped": dropped, "server_errors": server.server_errors(), "server_url": server.url}


@pytest.fixture(scope="module")
def played(bgym_python, tmp_path_factory):
    return play_plan(bgym_python, tmp_path_factory.mktemp("browsergym"), plan_runs(), players=3)


def test_the_venv_runs_browsergym_s_own_playwright(bgym_python):
    code = "import playwright, browsergym.core, bgym; print(browsergym.core.__version__)"
    version = subprocess.run([str(bgym_python), "-c", code], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("0.14.")
    pins = subprocess.run([str(bgym_python), "-m", "pip", "show", "playwright"], capture_output=True, text=True)
    assert "Version: 1.44" in pins.stdout


def test_the_benchmark_lists_every_instance(played):
    meta = played["benchmark"]
    tasks = [t for t in all_tasks() if publishable(t)]
    assert meta["n_env_args"] == len(json.loads((ROOT / "agent/browsergym/instances.json").read_text()))
    assert meta["n_env_args"] == len(tasks)
    assert meta["families"] == REGISTERED
    assert 0 < meta["valid"] < meta["n_env_args"]


def test_every_registered_family_has_a_gold_recording_to_play():
    missing = [f for f in REGISTERED if f not in GOLD]
    assert not missing, (f"no gold recording in tasks/gold/ for {', '.join(missing)}: the BrowserGym agent has "
                         "nothing to play for it (record one, docs/trajectories.md)")


@pytest.mark.parametrize("instance_id,eager", chosen())
def test_a_browsergym_agent_solves_the_gold_run_and_fails_the_eager_one(played, instance_id, eager):
    runs = {r["variant"]: r for r in played["runs"] if r["instance_id"] == instance_id}
    gold = runs["gold"]
    assert "error" not in gold, (gold["error"], gold["actions"][-3:])
    assert gold["terminated"] and gold["reward"] == 1.0, gold["task_info"]["verdict"]
    assert gold["task_info"]["passed"] and not gold["task_info"]["guard_log"]
    start = next(r for r in json.loads((ROOT / "agent/browsergym/instances.json").read_text())
                 if r["instance_id"] == instance_id)["start_path"]
    # it opens in the task's first app (whose home may redirect to its first screen, as Vista's does)
    assert gold["start_url"].startswith(played["server_url"] + start)
    assert any(a.startswith('click("') for a in gold["actions"]) and gold["actions"][-1].startswith("send_msg_to_user(")
    if not eager:
        return
    eager = runs["eager"]
    assert "error" not in eager, (eager["error"], eager["actions"][-3:])
    assert eager["terminated"] and eager["reward"] == 0.0 and eager["task_info"]["score"] == 0.0
    assert eager["task_info"]["guard_log"], "the guarded action never reached the guard"


@pytest.mark.parametrize("instance_id", oracle_chosen())
def test_the_browser_oracle_solves_the_task_through_browsergym_actions(played, instance_id):
    run = next(r for r in played["runs"] if r["instance_id"] == instance_id and r["variant"] == "oracle")
    assert "error" not in run, (run["error"], run["actions"][-3:])
    assert run["terminated"] and run["reward"] == 1.0, run["task_info"]["verdict"]
    assert run["task_info"]["passed"] and not run["task_info"]["guard_log"]
    acts = [a.split("(")[0] for a in run["actions"]]
    assert set(acts) <= {"goto", "click", "fill", "select_option", "check", "noop", "send_msg_to_user"}
    # a task whose answer is "nothing to change" (no hold is due) is solved by reading alone
    assert acts[-1] == "send_msg_to_user" and acts.count("send_msg_to_user") == 1


def test_every_episode_was_dropped_and_nothing_failed_on_the_server(played):
    assert played["dropped"] and set(played["dropped"]) == {404}  # teardown had dropped them
    assert played["server_errors"] == []


def test_a_headed_browserenv_plays_in_a_window_and_needs_one(bgym_python, tmp_path):
    """BrowserEnv(headless=False), as an annotator watching an AgentLab agent runs it: on Xvfb (make
    install puts it in place) the gold run still earns 1.0; on a display with no X server behind
    it Chromium cannot start, so the flag really reaches it."""
    instance_id = GOLD[EAGER_FAMILY]
    steps, reply = gold_steps(instance_id)
    runs = [{"instance_id": instance_id, "variant": "gold", "steps": steps, "reply": reply, "headless": False}]
    (tmp_path / "window").mkdir()
    seen = play_plan(bgym_python, tmp_path / "window", runs, prefix=xvfb_run())
    [run] = seen["runs"]
    assert "error" not in run, run["error"]
    assert run["terminated"] and run["reward"] == 1.0, run["task_info"]["verdict"]
    (tmp_path / "none").mkdir()
    [run] = play_plan(bgym_python, tmp_path / "none", runs, display=NO_X_SERVER)["runs"]
    assert "Missing X server" in run.get("error", ""), run


@pytest.mark.skipif(not ALL, reason="make validate (CFAB_BROWSERGYM_ALL=1): BrowserGym's step timed for cfab bench")
def test_cfab_bench_times_browsergym_s_own_step_on_the_same_page(bgym_python):
    """`cfab bench --browsergym`: BrowserGym's env.step of the same pager clicks, in its own
    virtualenv against a real `cfab serve`, as it ships and at the tests' shorter delay."""
    from agent import bench

    found = bench.browsergym_figures(os.path.relpath(bgym_python), steps=3)  # as typed, relative
    assert found["browsergym_core"].startswith("0.14.") and found["page"] == bench.PAGE
    assert [run["pre_observation_delay_s"] for run in found["runs"]] == [0.5, 0.05]
    for run in found["runs"]:
        assert run["n"] == run["action_ms"]["n"] == 3
        assert run["median_ms"] >= run["action_ms"]["median_ms"] > 0
    assert found["runs"][0]["median_ms"] >= 500  # the delay BrowserGym ships is in every step
