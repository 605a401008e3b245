"""The private split (CFAgentBench-Pro): built from a salt, hosted and graded by its server, and
nothing of its ground truth derivable from the repository or handed to the agent."""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from agent import dataset as ds
from agent import private as pv
from agent.cli import main
from agent.policies import make_policy
from agent.private_client import PrivateStore
from agent.runner import run_suite
from seeds.book import dumps, load_book
from tasks import private as tp
from tasks.families import FAMILIES
from tasks.registry import all_tasks

from _server import running_cfab

ROOT = Path(__file__).resolve().parent.parent
SALT = b"throwaway-test-salt-4f1c9a0e"
TOKEN = "participant-token-for-the-tests"


@pytest.fixture(scope="module")
def salt_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("salt") / "salt.txt"
    path.write_bytes(SALT + b"\n")
    return path


@pytest.fixture(scope="module")
def world():
    return tp.build_world(SALT)


def test_every_family_contributes_private_instances_and_the_public_book_is_untouched(world):
    before = hashlib.sha256(dumps(load_book()).encode()).hexdigest()
    families = {t.family for t in world.tasks}
    assert families == {f.name for f in FAMILIES if f.private}
    assert set(world.missing_families) == {f.name for f in FAMILIES if not f.private}
    assert not world.missing_families  # every family draws salted instances
    assert all(t.instance_id.startswith(f"cf_{t.family}_pro-") for t in world.tasks)
    public_ids = {t.instance_id for t in all_tasks()}
    assert not public_ids & {t.instance_id for t in world.tasks}
    again = tp.build_world.__wrapped__(SALT)  # deterministic: the same salt, the same split
    assert [t.instance_id for t in again.tasks] == [t.instance_id for t in world.tasks]
    assert [t.evaluator for t in again.tasks] == [t.evaluator for t in world.tasks]
    assert dumps(again.book) == dumps(world.book)
    other = tp.build_world.__wrapped__(b"another-throwaway-salt-77")
    assert [t.evaluator for t in other.tasks] != [t.evaluator for t in world.tasks]
    assert hashlib.sha256(dumps(load_book()).encode()).hexdigest() == before  # a copy was salted


def test_the_private_world_leaves_no_template_on_disk(tmp_path, monkeypatch):
    """B_aia_g702 and P_certified_payroll read their truth from GCPay's and LCPtracker's seeded
    tables: the salted world's templates stay in memory, never in the on-disk template cache."""
    from portals.core import template_cache
    from portals.core.db import canonical_json
    from portals.core.episode import EpisodeStore

    monkeypatch.setattr(template_cache, "CACHE_DIR", tmp_path / "templates")
    fresh = tp.build_world.__wrapped__(SALT)
    assert {"B_aia_g702", "P_certified_payroll"} <= {t.family for t in fresh.tasks}
    pv.private_store(fresh, ["gcpay", "lcptracker"]).create(["gcpay", "lcptracker"])
    probe = EpisodeStore(book=fresh.book)
    digest = hashlib.sha256(canonical_json(fresh.book)).hexdigest()
    for app in ("gcpay", "lcptracker"):
        key = template_cache.key(app, digest, probe.seed, probe.clock.iso())
        assert not (template_cache.CACHE_DIR / f"{app}-{key}.sqlite").exists(), app
    if template_cache.enabled():  # the control: a caching store of that book writes exactly there
        probe.template("lcptracker")
        key = template_cache.key("lcptracker", digest, probe.seed, probe.clock.iso())
        assert (template_cache.CACHE_DIR / f"lcptracker-{key}.sqlite").exists()


def test_nothing_private_is_built_without_the_salt(tmp_path):
    with pytest.raises(tp.SaltError, match="salt file"):
        tp.world_from_file(None)
    (tmp_path / "short").write_text("abc\n")
    with pytest.raises(tp.SaltError, match="at least 16"):
        tp.world_from_file(tmp_path / "short")
    result = CliRunner().invoke(main, ["dataset", "build-private", "--salt-file", str(tmp_path / "none"),
                                       "--out", str(tmp_path / "out"), "--no-gate"])
    assert result.exit_code == 1 and "cannot read the salt file" in result.output
    assert not (tmp_path / "out").exists()
    made = CliRunner().invoke(main, ["dataset", "salt", str(tmp_path / "s")])
    assert made.exit_code == 0 and len((tmp_path / "s").read_text().strip()) == 64
    assert (tmp_path / "s").stat().st_mode & 0o077 == 0
    kept = (tmp_path / "s").read_text()
    again = CliRunner().invoke(main, ["dataset", "salt", str(tmp_path / "s")])
    assert again.exit_code == 1 and (tmp_path / "s").read_text() == kept


def test_the_private_corpus_is_schema_valid_and_marked_private(world, salt_file, tmp_path):
    result = CliRunner().invoke(main, ["dataset", "build-private", "--salt-file", str(salt_file),
                                       "--out", str(tmp_path), "--no-gate"])
    assert result.exit_code == 0, result.output
    recs = [json.loads(line) for line in (tmp_path / pv.FILE_NAME).read_text().splitlines()]
    assert len(recs) == len(world.tasks)
    for rec in recs:
        assert not ds.schema_errors(rec), rec["instance_id"]
        assert rec["split"] == pv.PRO_SPLIT and rec["partition"] == "private"
        assert rec["contamination_meta"]["publishable"] is False
        assert rec["contamination_meta"]["private_world"] == world.salt_id
    # a private record cannot pass as a public one, nor run as the public suite's
    public_like = {**recs[0], "split": ds.SPLIT}
    assert ds.schema_errors(public_like)
    path = tmp_path / "try.jsonl"
    path.write_text(json.dumps(recs[0]) + "\n")
    with pytest.raises(ds.DatasetError, match="no such instance in this suite"):
        ds.resolve(ds.load(path))


def _repository_text() -> str:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    out = []
    for name in files:
        try:
            out.append((ROOT / name).read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue  # binary files (images, fonts) hold no figures
    return "\n".join(out)


def test_no_private_answer_can_be_derived_from_the_public_repository(world, tmp_path):
    public_book = load_book()
    ds.build(tmp_path, gate=False)
    haystack = _repository_text() + (tmp_path / ds.FILE_NAME).read_text()
    # every figure the public side shows, as a whole number (one inside a longer number is not it)
    shown_figures = set(re.findall(r"(?<![\d.,])(?:\d{1,3}(?:,\d{3})+|\d+)\.\d{2}(?!\d)", haystack))
    figures = 0
    for task in world.tasks:
        family, params = world.params[task.instance_id]
        # the family's own evaluator on the public book, for the same entity, is not the answer
        assert family.private.task(public_book, params).evaluator != task.evaluator, task.instance_id
        for value in tp.money_answers(task.evaluator):
            figures += 1
            whole, cents = value.split(".")
            for shown in (value, f"{int(whole):,}.{cents}"):
                assert shown not in shown_figures, f"{task.instance_id}: {shown} occurs in the public repository"
    assert figures >= 20  # the amounts families (A, C_invoice_code, G) put figures in play


@pytest.fixture(scope="module")
def private_server(tmp_path_factory, salt_file, monkeypatch_module):
    folder = tmp_path_factory.mktemp("private-serve")
    monkeypatch_module.setenv("CFAB_PRIVATE_TOKEN", TOKEN)
    with running_cfab(folder, "--split", "private", "--salt-file", str(salt_file),
                      "--results", str(folder / "graded"), "--max-episodes", "64") as server:
        server.graded = folder / "graded" / "runs"
        yield server
        assert not server.server_errors()


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _leaks(blob: str, world) -> list[str]:
    """Ground truth in what the agent side holds: an evaluator's labels or keys, a verdict line."""
    found = []
    for word in ("expected_state_diff", "forbidden", "ground_truth", "required_outputs", "any_other_change",
                 "OK: ", "Unrequested change", "\"diff\": {\""):
        if word in blob:
            found.append(word)
    for task in world.tasks:
        for spec in task.evaluator["expected"] + task.evaluator["required_outputs"]:
            if isinstance(spec, dict) and spec.get("label") and len(spec["label"]) > 25 and spec["label"] in blob:
                found.append(f"{task.instance_id}: {spec['label']}")
    return found


def test_oracle_and_noop_run_remotely_and_the_agent_side_never_sees_ground_truth(world, private_server, tmp_path,
                                                                                 salt_file):
    store = PrivateStore(private_server.url, TOKEN, label={"policy": "noop"})
    store.server.received = []
    assert store.private_world == world.salt_id and len(store.views) == len(world.tasks)
    for view in store.views:
        assert set(view) == {"instance_id", "family", "domain", "difficulty", "apps", "instruction", "policy_ref",
                             "money_movement_guard", "user_role"}
    noop = run_suite(store.tasks(), make_policy("noop"), "http", 1, out=str(tmp_path / "noop.json"),
                     progress=False, store=store, meta={"split": "private"})
    assert noop["pass1"] == 0.0 and noop["n_scored_tasks"] == len(world.tasks)
    received = b"".join(store.server.received).decode()
    # a do-nothing agent read nothing but instructions and pass/fail: no salted figure reached it
    for task in world.tasks:
        for value in tp.money_answers(task.evaluator):
            assert value not in received, (task.instance_id, value)

    oracle_store = PrivateStore(private_server.url, TOKEN, label={"policy": "oracle"})
    oracle_store.server.received = []
    out = tmp_path / "oracle.json"
    oracle = run_suite([world.get(t.instance_id) for t in oracle_store.tasks()], make_policy("oracle"), "http", 1,
                       out=str(out), progress=False, store=oracle_store, meta={"split": "private"})
    assert oracle["pass1"] == 1.0 and all(r["runs"][0]["score"] == 1.0 for r in oracle["tasks"])
    agent_side = [b"".join(store.server.received + oracle_store.server.received).decode(),
                  out.read_text(), Path(str(out) + ".runs.jsonl").read_text(), (tmp_path / "noop.json").read_text()]
    for blob in agent_side:
        assert not _leaks(blob, world)
    for run in (r["runs"][0] for r in oracle["tasks"]):
        assert run["diff"] == {} and run["calls"] == [] and run["guarded_calls"] == []
    # the server kept everything, for the maintainer
    records = [json.loads(p.read_text()) for p in private_server.graded.glob("*.json")]
    assert len(records) == 2 * len(world.tasks)
    full = [r for r in records if r["label"]["policy"] == "oracle"]
    assert len(full) == len(world.tasks)
    for r in full:
        task = world.get(r["instance_id"])
        assert r["passed"] and r["score"] == 1.0 and r["calls"] and any(v.startswith("OK:") for v in r["verdict"])
        assert bool(r["diff"]) == bool(task.evaluator["expected"]), r["instance_id"]  # a renewal: nothing due


def test_the_private_api_refuses_bad_requests_and_answers_pass_and_score_only(private_server, world):
    url = private_server.url + "/private"
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert requests.get(url + "/instances", timeout=30).status_code == 401
    assert requests.get(url + "/instances", headers={"Authorization": "Bearer wrong-token-value"},
                        timeout=30).status_code == 403
    # the participant token is not the admin token
    assert requests.get(private_server.url + "/admin/health", headers=auth, timeout=30).status_code == 403
    missing = requests.post(url + "/runs", json={"instance_id": "cf_A_etc_forecast_1042"}, headers=auth, timeout=30)
    assert missing.status_code == 404 and "No private instance" in missing.json()["message"]
    assert requests.post(url + "/runs", json={"instance_id": 7}, headers=auth, timeout=30).status_code == 400
    task = world.tasks[0]
    made = requests.post(url + "/runs", json={"instance_id": task.instance_id}, headers=auth, timeout=30).json()
    assert set(made) == {"run_id", "instance_id", "apps", "episode_id", "agent_token", "enter_url"}
    # the agent token works the tool API of that episode, and not the admin API
    tools = requests.get(private_server.url + "/api/tools", timeout=30,
                         headers={"Authorization": f"Bearer {made['agent_token']}"})
    assert tools.status_code == 200 and tools.json()
    told = requests.post(f"{url}/runs/{made['run_id']}/submit", json={"reply": "Done."}, headers=auth, timeout=30)
    assert told.status_code == 200 and told.json() == {"run_id": made["run_id"], "instance_id": task.instance_id,
                                                       "passed": False, "score": 0.0}
    again = requests.post(f"{url}/runs/{made['run_id']}/submit", json={"reply": "x"}, headers=auth, timeout=30)
    assert again.status_code == 409 and again.json()["passed"] is False and "diff" not in again.json()
    gone = requests.post(f"{url}/runs/nope/submit", json={"reply": "x"}, headers=auth, timeout=30)
    assert gone.status_code == 404
    # the launcher opens no episode of the private world, for anyone
    browser = private_server.browser()
    assert browser.refresh_csrf()
    for path in ("/episodes/new", f"/tasks/{all_tasks()[0].instance_id}/start"):
        resp = browser.post(path, data={"csrf_token": browser.csrf})
        assert resp.status_code == 403 and "private split" in resp.get_data(as_text=True), path
    assert browser.get(f"/tasks/{all_tasks()[0].instance_id}").status_code == 403
    assert browser.get("/").status_code == 200


def test_cfab_run_split_private_journals_and_resumes(private_server, world, salt_file, tmp_path):
    out = tmp_path / "pro.json"
    base = ["run", "--split", "private", "--remote", private_server.url, "--quiet", "--out", str(out)]
    env = {"CFAB_PRIVATE_TOKEN": TOKEN}
    refused = CliRunner().invoke(main, ["run", "--split", "private", "--quiet"], env=env)
    assert refused.exit_code == 2 and "--remote URL" in refused.output
    no_salt = CliRunner().invoke(main, base + ["--policy", "oracle"], env=env)
    assert no_salt.exit_code == 2 and "salt" in no_salt.output
    ran = CliRunner().invoke(main, base + ["--policy", "oracle", "--salt-file", str(salt_file), "--tasks", "cf_H_*"],
                             env=env)
    assert ran.exit_code == 0, ran.output
    data = json.loads(out.read_text())
    assert data["split"] == "private" and data["private_world"] == world.salt_id and data["pass1"] == 1.0
    assert data["transport"] == "http"
    graded = len(list(private_server.graded.glob("*.json")))
    resumed = CliRunner().invoke(main, ["run", "--split", "private", "--remote", private_server.url, "--quiet",
                                        "--policy", "oracle", "--salt-file", str(salt_file), "--resume", str(out)],
                                 env=env)
    assert resumed.exit_code == 0, resumed.output
    assert len(list(private_server.graded.glob("*.json"))) == graded  # nothing ran twice
    assert json.loads(out.read_text())["resumed_runs"] == data["n_tasks"]


def test_positive_pay_and_1099_draw_their_own_day_and_groups(world):
    """T_positive_pay's private day presents other checks with each defect, and CashPro and
    Vista are seeded from it; R_1099nec's groups are of other vendors with the same traps, and
    each form's box 1 is a salted figure that Vista's payment history holds."""
    from datetime import date

    from portals.core.environment import Environment
    from portals.core.episode import EpisodeStore
    from seeds import treasury
    from tasks.families import r_1099nec as R
    from tasks.families import t_positive_pay as T

    public_book = load_book()
    today = date.fromisoformat(T.DAY)
    public_day = {e["kind"]: e["serial"] for e in treasury.positive_pay_day(public_book, today)["exceptions"]}
    day = treasury.positive_pay_day(world.book, today)
    assert {e["kind"] for e in day["exceptions"]} == set(public_day)
    assert not {e["serial"] for e in day["exceptions"]} & set(public_day.values())
    ts = {t.instance_id: t for t in world.tasks if t.family == "T_positive_pay"}
    assert sorted(ts) == sorted(f"cf_T_positive_pay_pro-{k.replace('_', '-')}" for k in T.KEYS)
    for key in T.KEYS:
        mine = {(d.serial, d.decision) for d in T.truth(world.book, key)}
        assert mine.isdisjoint({(d.serial, d.decision) for d in T.truth(public_book, key)}), key
        assert {d for _s, d in mine} == {"Pay", "Return"}
    store = EpisodeStore(book=world.book)
    episode = store.create(list(T.APPS))
    try:
        env = Environment(episode, list(T.APPS))
        listed = {r["serial"]: r for r in T.all_items(env, T.LIST, {"presented_date": T.DAY})}
        assert set(listed) == {e["serial"] for e in day["exceptions"]}
        stale = next(e for e in day["exceptions"] if e["kind"] == "stale_dated")
        row = T.call(env, T.REGISTER, {"document_number": stale["serial"], "method": "Check"})["items"][0]
        assert row["payment_date"] == stale["issued"]["date"] and row["state"] == "paid"  # never cashed
    finally:
        store.drop(episode.id)

    public_groups = {g: set(R.group_vendors(public_book, g)) for g in R.GROUPS}
    public_vendors = set().union(*public_groups.values())
    rs = [t for t in world.tasks if t.family == "R_1099nec"]
    assert sorted(t.instance_id for t in rs) == sorted(f"cf_R_1099nec_pro-{g}" for g in R.GROUPS)
    public_answers = set().union(*(tp.money_answers(t.evaluator) for t in all_tasks() if t.family == "R_1099nec"))
    fresh = 0
    for task in rs:
        params = world.params[task.instance_id][1]
        vendors = R.truth(world.book, params["group"], params["vendors"])
        assert set(params["vendors"]) != public_groups[params["group"]]
        fresh += sum(v not in public_vendors for v in params["vendors"])
        assert [v.reason for v in vendors].count("corporation") == 1 and any(v.reason == "missing_w9" for v in vendors)
        assert any(v.reason == "goods" for v in vendors) and any(v.reason is None for v in vendors)
        assert task.defect_variant == R.DEFECTS[params["group"]]
        answers = tp.money_answers(task.evaluator)
        assert answers and not answers & public_answers and not answers & tp.public_figures(), task.instance_id
        if params["group"] == "c":  # the card trap: a salted share of a salted vendor's payments
            assert next(v for v in vendors if v.reason is None).card > 0
    assert fresh >= 25  # mostly vendors no public group names (the book has one law firm, one card 1099 vendor)
    task = next(t for t in rs if t.parameters["group"] == "a")
    form = next(v for v in R.truth(world.book, "a", world.params[task.instance_id][1]["vendors"]) if v.reason is None)
    episode = store.create(list(R.APPS))
    try:
        read = R.read_vendor(Environment(episode, list(R.APPS)), form.vendor_id)
        assert read.paid == form.paid and read.recipient_id == form.recipient_id  # Vista and Track1099 follow
    finally:
        store.drop(episode.id)


def test_the_admission_gate_holds_on_the_salted_world(world):
    """The families' gates hold on the salted world too: oracle 1.0, no-op and over-eager 0, the
    near-misses fail for their reasons, the variants pass, no leaks, the reply corpus holds. Here
    one instance of each family and defect variant; `make validate` gates every private instance
    of a throwaway salt."""
    chosen = list({(t.family, t.defect_variant): t for t in world.tasks}.values())
    assert {t.family for t in chosen} == {t.family for t in world.tasks}
    assert pv.gate_failures(tp.World(world.book, tuple(chosen), world.salt_id, (), world.params)) == []


def test_a_private_answer_that_is_a_public_figure_is_refused(world, salt_file, tmp_path, monkeypatch):
    """The families draw a salted figure again when the public book holds it; a build that
    still meets one (a family that does not) writes nothing and names the instance."""
    task = next(t for t in world.tasks if tp.money_answers(t.evaluator))
    value = sorted(tp.money_answers(task.evaluator))[0]
    monkeypatch.setattr(tp, "public_figures", lambda: frozenset({value}))
    with pytest.raises(ds.DatasetError, match=rf"{task.instance_id}: {value}"):
        pv.build_private(tmp_path / "out", salt_file, gate=False)
    assert not (tmp_path / "out").exists()


def test_the_maintainer_reports_private_results_from_the_servers_records(private_server, world, tmp_path):
    """`cfab dataset private-results` turns the server's records into a results file, so the
    private numbers in `cfab report` rest on the server, not on a participant's own file."""
    from agent.reporting import build_report

    folder = str(private_server.graded.parent)
    files = {}
    for policy, rate in (("noop", 0.0), ("oracle", 1.0)):
        files[policy] = tmp_path / f"{policy}-pro.json"
        done = CliRunner().invoke(main, ["dataset", "private-results", folder, "--policy", policy,
                                         "--out", str(files[policy])])
        assert done.exit_code == 0, done.output
        data = json.loads(files[policy].read_text())
        assert data["split"] == "private" and data["private_world"] == world.salt_id
        assert data["n_tasks"] == len(world.tasks) and data["pass1"] == rate
        assert all(len(t["runs"]) == 1 and t["runs"][0]["verdict"] for t in data["tasks"])  # the full record
    missing = CliRunner().invoke(main, ["dataset", "private-results", folder, "--policy", "eager",
                                        "--out", str(tmp_path / "x.json")])
    assert missing.exit_code == 1 and "no graded run of policy 'eager'" in missing.output
    public = tmp_path / "noop-public.json"
    run_suite(list(all_tasks()), make_policy("noop"), "tools", 1, out=str(public), progress=False)
    summary = build_report([public, files["noop"], files["oracle"]], tmp_path / "report")
    assert "contamination" in summary["tables"]
    table = (tmp_path / "report" / "tables" / "contamination.md").read_text()
    assert "Trivial (no-op)" in table and "within noise" in table and "Oracle" not in table
