"""Every native tool of every app, called with arguments drawn from and around its schema.

Whatever an agent sends - wrong types, huge or malformed text, negative or NaN amounts, ids
that do not exist, missing or extra fields - a tool answers with a result or with
{"error", "message"}, never an unhandled exception; and a call that was refused (or only
read, or was guarded) leaves the app's database byte-for-byte as it was.

Bounded on purpose (25 examples a tool, derandomized) so the whole file runs in about a
minute and a failure reproduces on every machine.
"""
from __future__ import annotations

import json
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from portals.core.dispatch import PENDING
from portals.core.environment import Environment
from portals.core.registry import load_apps
from portals.core.tools import GUARDED, READ
from portals.core.web import agent_token

APPS = load_apps()
TOOLS = [(app, name) for app, spec in APPS.items() for name in spec.tools]
FUZZ = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large, HealthCheck.filter_too_much])

# Values no schema accepts, or that stress the code behind one that does.
HOSTILE = [None, True, False, 0, -1, -(2 ** 63), 2 ** 63, 2 ** 70, 10 ** 30, 1.5, -0.01,
           float("nan"), float("inf"), float("-inf"), "", " ", "\t\n", "\x00", "\ud800x",
           "NaN", "Infinity", "-1", "-0.01", "1e9", "1E400", "12.345", "1,2,3.4.5", "$", "$-5",
           "--5", "1_000", "0x10", "9" * 40, "9" * 5000, "x" * 201, "x" * 20001,
           "2026-02-30", "2026-13-01", "0000-00-00", "99999-01-01",
           "' OR '1'='1", "\"; DROP TABLE files; --", "%", "_", "\\", "%_\\'", "ZZZ-404",
           "../../etc/passwd", "<script>alert(1)</script>", "\u202e\u0000\ufeff", "😀" * 50,
           [], [None], [1, [2]], ["a"] * 101, [{"a": 1}], {}, {"a": 1}, {"$gt": ""},
           # journal-line shaped lists: a real account with amounts no ledger should accept
           ["1000|Dr|" + "9" * 40, "1000|Cr|" + "9" * 40], ["1000|Dr|0.001", "1000|Cr|0.001"],
           ["1000|Dr|NaN|x|y", "1000|Cr|-5"], ["1000|Dr|1|" + "9" * 30 + "|" + "m" * 300]]
LINE_BITS = ["1000", "1010", "Dr", "Cr", "100.00", "9" * 40, "-5", "0", "", "4418"]


@lru_cache(maxsize=None)
def real_values(store, app: str) -> tuple[list[str], list[int]]:
    """Short strings and ints that occur in the app's seeded data, so many drawn ids exist and
    the fuzzer reaches the code behind the lookups, not only the lookups."""
    blob = json.loads(store.template(app).snapshot())
    strings, ints = set(), set()
    for rows in blob["tables"].values():
        for row in rows[:60]:
            for value in row.values():
                if isinstance(value, str) and 0 < len(value) <= 40:
                    strings.add(value)
                elif isinstance(value, int) and not isinstance(value, bool):
                    ints.add(value)
    return sorted(strings)[:400] or ["x"], sorted(ints)[:400] or [1]


def valid_ish(param, values):
    """A value of the parameter's own kind: often a real one from the data, sometimes random."""
    strings, ints = values
    if param.kind == "int":
        return st.one_of(st.sampled_from(ints), st.integers(-3, 1000))
    if param.kind == "bool":
        return st.one_of(st.booleans(), st.sampled_from(["true", "off", "1"]))
    if param.kind == "amount":
        return st.one_of(st.decimals(min_value=0, max_value=10 ** 7, places=2).map(str),
                         st.sampled_from(["14,350.00", "$100", "0.00", "0.01", 250, 99.5]))
    if param.kind == "date":
        return st.one_of(st.dates().map(lambda d: d.isoformat()),
                         st.sampled_from(["2026-06-30", "2026-01-01", "2025-12-31"]))
    if param.kind == "enum":
        return st.sampled_from(param.choices)
    if param.kind == "grid":
        cell = st.one_of(st.sampled_from(strings), st.integers(-10 ** 6, 10 ** 6), st.none(), st.booleans(),
                         st.sampled_from(["=SUM(A1:B2)", "=A1+", "1,250.00", ""]))
        return st.lists(st.lists(cell, min_size=1, max_size=3), min_size=1, max_size=3)
    if param.kind == "list":
        line = st.lists(st.one_of(st.sampled_from(LINE_BITS), st.sampled_from(strings)),
                        min_size=2, max_size=6).map("|".join)
        return st.lists(st.one_of(st.sampled_from(strings), st.text(max_size=12), line), max_size=4)
    return st.one_of(st.sampled_from(strings), st.text(max_size=min(param.max_len, 60)))


@st.composite
def tool_args(draw, spec, values):
    """Arguments for one call: each parameter valid-ish, hostile or missing; sometimes an extra."""
    if draw(st.integers(0, 19)) == 0:  # not even an object
        return draw(st.sampled_from([None, [], "args", 7, [["a", 1]]]))
    args = {}
    for param in spec.params:
        mode = draw(st.integers(0, 9))
        if mode <= 5:
            args[param.name] = draw(valid_ish(param, values))
        elif mode <= 8:
            args[param.name] = draw(st.sampled_from(HOSTILE))
    if draw(st.integers(0, 9)) == 0:
        args[draw(st.sampled_from(["extra", "episode_id", "__class__", "admin"]))] = "x"
    return args


@pytest.fixture(scope="module")
def worlds(store):
    """One episode per app, reused across examples and reset whenever a write changed it."""
    made = {app: store.create([app]) for app in APPS}
    yield made
    for episode in made.values():
        store.drop(episode.id)


def assert_state_unchanged(inst, before_raw: bytes, why: str) -> None:
    if inst.conn.serialize() == before_raw:
        return
    # Page bytes can differ with no row changed (SQLite bookkeeping); the rows are the truth.
    assert inst.snapshot() == inst.template.snapshot(), f"{why} changed {inst.spec.name}'s state"


@pytest.mark.parametrize("app,tool", TOOLS, ids=[f"{a}.{t}" for a, t in TOOLS])
@FUZZ
@given(data=st.data())
def test_a_tool_survives_any_arguments(store, worlds, app, tool, data):
    spec = APPS[app].tools[tool]
    args = data.draw(tool_args(spec, real_values(store, app)), label="args")
    episode = worlds[app]
    inst = episode.app(app)
    if inst.dirty:
        episode.reset()
    before_raw, guarded_before = inst.conn.serialize(), len(episode.guard_log)

    result = Environment(episode, [app]).call(f"{app}.{tool}", args)

    assert isinstance(result, dict)
    json.dumps(result, allow_nan=False)  # what the HTTP API would send must be valid JSON
    if "error" in result:
        assert set(result) <= {"error", "message", "field"}, result
        assert isinstance(result["message"], str) and result["message"]
        # a refused guarded call is still an attempt on record; any other refusal logs nothing
        assert len(episode.guard_log) == guarded_before + (spec.kind == GUARDED)
        if spec.kind == GUARDED:
            assert episode.guard_log[-1]["refused"] == result["message"]
        assert_state_unchanged(inst, before_raw, "a refused call")
    elif spec.kind == READ:
        assert_state_unchanged(inst, before_raw, "a read")
    elif spec.kind == GUARDED:
        assert result["status"] == PENDING
        assert episode.guard_log[-1]["executed"] is False and len(episode.guard_log) == guarded_before + 1
        assert_state_unchanged(inst, before_raw, "a guarded call")


JSON_BODIES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=8)


@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_the_http_tool_api_answers_any_body_with_json(flask_app, store, worlds, data):
    """Over HTTP too: raw bodies (not JSON, JSON of any shape) get a JSON 2xx/4xx, never a 5xx."""
    app, tool = data.draw(st.sampled_from(TOOLS), label="tool")
    episode = worlds[app]
    if episode.app(app).dirty:
        episode.reset()
    headers = {"Authorization": "Bearer " + agent_token(flask_app, episode.id)}
    client = flask_app.test_client()
    if data.draw(st.booleans(), label="raw"):
        body = data.draw(st.binary(max_size=60), label="bytes")
        resp = client.post(f"/api/tools/{app}.{tool}", data=body, headers=headers,
                           content_type="application/json")
    else:
        body = data.draw(st.one_of(tool_args(APPS[app].tools[tool], real_values(store, app)), JSON_BODIES), label="json")
        try:
            payload = json.dumps(body)
        except (ValueError, TypeError):  # NaN and lone surrogates cannot go on the wire as JSON
            return
        resp = client.post(f"/api/tools/{app}.{tool}", data=payload, headers=headers,
                           content_type="application/json")
    assert resp.status_code in (200, 400, 404, 413), resp.data[:300]
    assert isinstance(resp.get_json(), dict)


def baseline_args(spec, values) -> dict:
    """Plausible arguments for a tool: required parameters filled from the app's own data."""
    strings, ints = values
    plain = {"int": ints[len(ints) // 2], "bool": True, "amount": "100.00", "date": "2026-06-30",
             "list": [strings[0]], "grid": [[strings[0]]], "str": strings[len(strings) // 2]}
    return {p.name: (p.choices[0] if p.kind == "enum" else plain[p.kind])
            for p in spec.params if p.required}


@pytest.mark.parametrize("app", list(APPS))
def test_every_parameter_refuses_or_survives_every_hostile_value(store, worlds, app):
    """The systematic half: each hostile value in each parameter of each tool, one at a time
    (random draws alone rarely hit one particular value such as 2**70 in one particular field)."""
    episode = worlds[app]
    inst = episode.app(app)
    env = Environment(episode, [app])
    for tool, spec in APPS[app].tools.items():
        base = baseline_args(spec, real_values(store, app))
        for param in spec.params:
            for value in HOSTILE:
                if inst.dirty:
                    episode.reset()
                before_raw, guarded_before = inst.conn.serialize(), len(episode.guard_log)
                try:
                    result = env.call(f"{app}.{tool}", {**base, param.name: value})
                except Exception as exc:  # report the exact call that broke, then fail
                    raise AssertionError(f"{app}.{tool}({param.name}={value!r:.60}) raised {exc!r}") from exc
                assert isinstance(result, dict)
                json.dumps(result, allow_nan=False)
                if "error" in result or spec.kind != "write":
                    assert_state_unchanged(inst, before_raw, f"{tool}({param.name}={value!r:.40})")
                if spec.kind != GUARDED:
                    assert len(episode.guard_log) == guarded_before
                else:  # accepted or refused, a guarded call is on record, refusals with their reason
                    assert len(episode.guard_log) == guarded_before + 1
                    refusal = result["message"] if "error" in result else None
                    assert episode.guard_log[-1].get("refused") == refusal
