"""The app contract, for every registered app: manifest, tools, snapshot, reset, diff, guard."""
from __future__ import annotations

import json

import pytest

from portals.core.db import canonical_json
from portals.core.registry import load_apps
from portals.core.tools import GUARDED

APPS = sorted(load_apps())


def test_the_five_foundation_apps_are_registered():
    assert {"procore", "vista_erp", "sage_intacct", "box", "outlook"} <= set(APPS)


@pytest.mark.parametrize("name", APPS)
def test_manifest_agrees_with_the_archetype(name):
    spec = load_apps()[name]
    assert spec.manifest["kind"] == spec.archetype.name
    assert sorted(spec.manifest["state_tables"]) == sorted(spec.pks), \
        "state_tables in the manifest must be exactly the app's tables"
    assert spec.tools, "an app exposes native tools"
    guarded = sorted(n for n, t in spec.tools.items() if t.kind == GUARDED)
    assert guarded == sorted(spec.money_guarded_tools)


@pytest.mark.parametrize("name", APPS)
def test_every_tool_has_a_schema_a_model_can_read(name):
    for tool in load_apps()[name].tools.values():
        schema = tool.schema()
        assert schema["description"], f"{tool.name} needs a docstring"
        params = schema["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        json.dumps(schema)


@pytest.mark.parametrize("name", APPS)
def test_snapshot_is_canonical_and_reset_of_snapshot_is_identity(store, name):
    episode = store.create([name])
    try:
        inst = episode.app(name)
        blob = inst.snapshot()
        assert blob == canonical_json(json.loads(blob))
        assert blob == store.template(name).snapshot()
        inst.restore(blob)
        assert inst.snapshot() == blob
        assert episode.diff() == {}
    finally:
        store.drop(episode.id)


@pytest.mark.parametrize("name", APPS)
def test_reset_restores_after_a_change(store, name):
    """Write something through a real tool, then reset: the world is the template again."""
    from portals.core.environment import Environment

    episode = store.create([name])
    try:
        before = episode.app(name).snapshot()
        conn = episode.app(name).conn
        table = next(t for t in sorted(episode.app(name).spec.pks)  # a table the product keeps rows in
                     if conn.execute(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone())
        pk = episode.app(name).spec.pks[table]
        episode.app(name).conn.execute(f'DELETE FROM "{table}" WHERE "{pk}" IN '
                                       f'(SELECT "{pk}" FROM "{table}" LIMIT 1)')
        assert episode.app(name).snapshot() != before
        episode.reset()
        assert episode.app(name).snapshot() == before
        assert Environment(episode, [name]).tools()
    finally:
        store.drop(episode.id)


@pytest.mark.parametrize("name", APPS)
def test_the_six_capabilities_through_app_service(store, name):
    """seed is a pure function; reset(snapshot()) is the identity; diff and guard log agree."""
    from portals.core.contract import AppService

    episode = store.create([name])
    try:
        service = AppService(episode, name)
        start = service.snapshot()
        service.seed(store.book, store.seed, store.clock)
        assert service.snapshot() == start, "re-seeding with the same inputs must give the same bytes"
        service.reset(start)
        assert service.snapshot() == start
        assert service.state_diff(start, service.snapshot()) == {}
        assert set(service.tools()) == set(load_apps()[name].tools)
        assert service.guarded_calls() == []
    finally:
        store.drop(episode.id)


def test_a_server_drops_episodes_nobody_uses(store):
    """People abandon tabs: a long-lived store frees episodes idle past its limit, and only those."""
    from portals.core.episode import EpisodeStore

    now = [1000.0]
    served = EpisodeStore(book=store.book, seed=store.seed, clock=store.clock, idle_ttl=3600,
                          monotonic=lambda: now[0])
    served.templates.update(store.templates)  # same inputs: reuse the seeded templates
    old, active = served.create(["outlook"]), served.create(["outlook"])
    now[0] += 3000
    assert served.get(active.id) is active  # used again
    now[0] += 1000
    served.create(["outlook"])
    assert served.get(old.id) is None and served.get(active.id) is active
    assert EpisodeStore(book=store.book).idle_ttl is None  # the runner keeps what it made
