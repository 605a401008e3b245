"""The tool API fuzzed from the outside (issue 18): schemathesis reads the OpenAPI document a
real `cfab serve` publishes at /api/openapi.json and calls every tool over HTTP with an agent
token, with data that fits each tool's schema and data that does not, one tool at a time and
then in stateful sequences where the ids one call answered feed the next.

Every answer must be no server error, conform to the published document, and be either the
tool's JSON result or a refusal of the one error shape {"error", "message"}; data that breaks
the schema must be refused; and a refused call changes nothing. That last is checked through
the admin API: the episode's diff is read after every refused call, and its full snapshot
after every run of refused calls (at the next successful write and at the end of each tool),
each app in an episode of its own so a snapshot stays small. Examples are few and
derandomized, so the run is deterministic and bounded.
"""
from __future__ import annotations

import json

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (content_type_conformance, negative_data_rejection,  # noqa: E402
                                               response_schema_conformance, status_code_conformance)

from portals.core.registry import load_apps  # noqa: E402

APPS = sorted(load_apps())
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES = 2  # per tool and per kind of data (fits the schema / does not)
FAST = dict(derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate])


class Sandbox:
    """One app's episode on the real server, its agent token and its published schema, with a
    record of the state every refused call must leave as it found."""

    def __init__(self, server, app: str):
        self.server, self.app = server, app
        made = server.open_episode([app])
        self.id, self.auth = made["episode_id"], {"Authorization": f"Bearer {made['agent_token']}"}
        resp = server.http.get(f"{server.url}/api/openapi.json", headers=self.auth, timeout=60)
        assert resp.status_code == 200 and resp.headers["Content-Type"].startswith("application/json")
        self.document = resp.json()
        self.schema = schemathesis.openapi.from_dict(self.document)
        self.operations = {op.label: op for op in (r.ok() for r in self.schema.get_all_operations())
                           if op.method.upper() == "POST"}
        self.kinds = {op.label: op.definition.raw["x-cfab-kind"] for op in self.operations.values()}
        self.snapshot = server.snapshot(self.id)
        self.diff = self.read_diff()
        self.refused_since_snapshot: list[str] = []
        self.counts = {"refused": 0, "ok": 0, "wrote": 0, "snapshots": 0}

    def read_diff(self):
        return self.server.admin("GET", f"/episodes/{self.id}/diff")

    def call(self, case, negative: bool) -> dict:
        """Send the case; check the answer; check a refusal changed nothing. The JSON answer."""
        resp = case.call(base_url=self.server.url, headers=self.auth, timeout=60)
        checks = CHECKS + ([negative_data_rejection] if negative else [])
        case.validate_response(resp, checks=checks)
        what = f"{case.operation.label} {json.dumps(case.body, default=str)[:300]} -> {resp.status_code}"
        assert resp.status_code < 500, what
        assert (resp.headers.get("content-type") or [""])[0].startswith("application/json"), what
        body = resp.json()
        if resp.status_code >= 400:
            assert isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"], what
            assert isinstance(body.get("message"), str) and body["message"].strip(), what
            assert self.read_diff() == self.diff, f"a refused call changed the episode: {what}"
            self.refused_since_snapshot.append(what)
            self.counts["refused"] += 1
        else:
            self.counts["ok"] += 1
            assert isinstance(body, dict) and "error" not in body, what
            if self.kinds[case.operation.label] == "write":
                self.counts["wrote"] += 1
                self.settle(then_changed=True)
            else:  # reads and guarded calls (staged for a person) never change records
                assert self.read_diff() == self.diff, f"a {self.kinds[case.operation.label]} call changed records: {what}"
        return body

    def settle(self, then_changed: bool = False) -> None:
        """Compare the full snapshot with the last one; after a successful write, take the new one."""
        now = self.server.snapshot(self.id)
        self.counts["snapshots"] += 1
        if not then_changed:
            assert now == self.snapshot, f"refused calls changed the snapshot: {self.refused_since_snapshot}"
        self.snapshot, self.diff, self.refused_since_snapshot = now, self.read_diff(), []

    def close(self) -> None:
        self.server.drop(self.id)


@pytest.fixture(scope="module")
def sandboxes(cfab_server):
    made = {app: Sandbox(cfab_server, app) for app in APPS}
    yield made
    for box in made.values():
        box.close()
    assert not cfab_server.server_errors(), cfab_server.server_errors()


def test_the_published_document_covers_every_tool_of_every_app(sandboxes):
    for app, box in sandboxes.items():
        assert box.document["openapi"].startswith("3.")
        names = {op.path.removeprefix("/api/tools/") for op in box.operations.values()}
        listed = box.server.http.get(f"{box.server.url}/api/tools", headers=box.auth, timeout=60).json()
        assert names == {tool["name"] for tool in listed} and names, app


@pytest.mark.parametrize("app", APPS)
def test_every_tool_answers_fuzzed_calls_with_a_result_or_a_refusal_that_changes_nothing(sandboxes, app):
    box = sandboxes[app]
    for label, operation in sorted(box.operations.items()):
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            @settings(max_examples=EXAMPLES, **FAST)
            @given(case=operation.as_strategy(mode))
            def fuzz(case):
                box.call(case, negative=mode is GenerationMode.NEGATIVE)

            fuzz()
        if box.refused_since_snapshot:
            box.settle()
    # the run did reach the tools: results and refusals both, for every tool a few calls
    assert box.counts["ok"] and box.counts["refused"], box.counts
    assert box.counts["ok"] + box.counts["refused"] >= 2 * EXAMPLES * len(box.operations) * 0.8, box.counts
    assert not box.server.server_errors()


def ids_in(value, found: dict) -> None:
    """Every "<name>": "<text>" pair in an answer whose name marks a key (..._id, number, ...)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (str, int)) and not isinstance(item, bool) and \
                    (key.endswith(("_id", "_number", "number")) or key in ("commitment", "subcontract")):
                found.setdefault(key, [])
                if item not in found[key] and len(found[key]) < 20:
                    found[key].append(item)
            else:
                ids_in(item, found)
    elif isinstance(value, list):
        for item in value[:10]:
            ids_in(item, found)


REUSED: dict[str, int] = {}  # app -> arguments a sequence filled with an id an earlier call answered


class Sequences(RuleBasedStateMachine):
    """Calls one after another on one episode: reads, writes and guarded calls, data that fits
    and data that does not, with arguments that name a key taking ids earlier answers gave."""

    box: Sandbox

    def __init__(self):
        super().__init__()
        self.seen: dict[str, list] = {}

    @initialize()
    def start(self):
        self.box.settle()  # whatever the last sequence wrote is the state this one starts from
        for label, operation in sorted(self.box.operations.items()):  # the ids the app really has
            body = operation.definition.raw["requestBody"]["content"]["application/json"]["schema"]
            if self.box.kinds[label] == "read" and not body.get("required"):
                ids_in(self.box.call(operation.Case(body={}), negative=False), self.seen)

    @rule(data=st.data())
    def call(self, data):
        label = data.draw(st.sampled_from(sorted(self.box.operations)), label="tool")
        negative = data.draw(st.booleans(), label="negative")
        case = data.draw(self.box.operations[label].as_strategy(
            GenerationMode.NEGATIVE if negative else GenerationMode.POSITIVE), label="case")
        if not negative and isinstance(case.body, dict):
            for key in [k for k in case.body if self.seen.get(k)]:  # the stateful part
                case.body[key] = data.draw(st.sampled_from(self.seen[key]), label=key)
                REUSED[self.box.app] = REUSED.get(self.box.app, 0) + 1
        ids_in(self.box.call(case, negative), self.seen)

    def teardown(self):
        if self.box.refused_since_snapshot:
            self.box.settle()


@pytest.mark.parametrize("app", APPS)
def test_stateful_sequences_of_calls_keep_every_refusal_harmless(sandboxes, app):
    box = sandboxes[app]
    machine = type(f"Sequences_{app}", (Sequences,), {"box": box})
    before = dict(box.counts)
    run_state_machine_as_test(machine, settings=settings(max_examples=3, stateful_step_count=8, **FAST))
    assert box.counts["ok"] + box.counts["refused"] - before["ok"] - before["refused"] >= 10, box.counts
    assert not box.server.server_errors()


def test_the_sequences_did_feed_answers_into_later_calls():
    """Runs after the sequences above (pytest keeps file order): ids did flow between calls."""
    assert sum(REUSED.values()) >= len(APPS), REUSED
