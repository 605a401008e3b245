"""Read tools answer from their template's cache only while the app database is the template:
the answers, the call log and every later read are what they would be without it."""
from __future__ import annotations

import pytest

from portals.core import read_cache
from portals.core.environment import Environment

APPS = ["vista_erp"]
LIST, GET, HOLD = "vista_erp.ap.vendors.list", "vista_erp.ap.vendor.get", "vista_erp.ap.payment_hold.create"


@pytest.fixture
def fresh(store):
    """Open episodes of the module's apps; every one is dropped at the end."""
    opened = []

    def make():
        episode = store.create(APPS)
        opened.append(episode)
        return episode, Environment(episode, APPS)

    yield make
    for episode in opened:
        store.drop(episode.id)


def _vendor(env) -> str:
    return env.call(LIST, {"per_page": 1})["items"][0]["vendor_id"]


def _live(env, name, args):
    was = read_cache.set_enabled(False)
    try:
        return env.call(name, args)
    finally:
        read_cache.set_enabled(was)


def test_a_kept_answer_equals_the_live_one_and_is_a_copy_of_its_own(fresh):
    _, env = fresh()
    vendor = _vendor(env)
    first = env.call(GET, {"vendor_id": vendor})
    cache = env._episode.app("vista_erp").template.reads
    hits = cache.hits
    _, other = fresh()
    again = other.call(GET, {"vendor_id": vendor})
    assert cache.hits == hits + 1
    assert again == first == _live(other, GET, {"vendor_id": vendor})
    again["name"] = "changed by the caller"
    again["recent_bills"].clear()
    assert other.call(GET, {"vendor_id": vendor}) == first


def test_the_call_log_is_the_same_whether_the_answer_was_kept_or_not(fresh):
    ep1, env1 = fresh()
    ep2, env2 = fresh()
    env1.call(LIST, {"per_page": 5, "search": "supply"})  # computed (or kept by an earlier test)
    _live(env2, LIST, {"per_page": 5, "search": "supply"})
    assert ep1.calls == ep2.calls
    assert ep1.calls[0]["ok"] is True and ep1.calls[0]["args"] == {"per_page": 5, "search": "supply",
                                                                       "page": 1}


def test_after_a_write_reads_are_live_and_other_episodes_still_see_the_template(fresh):
    ep, env = fresh()
    vendor = _vendor(env)
    before = env.call(GET, {"vendor_id": vendor})
    assert before["payment_hold"] is None
    assert env.call(HOLD, {"vendor_id": vendor, "reason": "Certificate of insurance expired"}).get("hold_id")
    assert not ep.app("vista_erp").is_template()
    after = env.call(GET, {"vendor_id": vendor})
    assert after["payment_hold"]["reason"] == "Certificate of insurance expired"
    _, other = fresh()
    assert other.call(GET, {"vendor_id": vendor}) == before  # the write never reached the cache
    ep.reset()
    assert ep.app("vista_erp").is_template()
    assert env.call(GET, {"vendor_id": vendor}) == before


def test_any_change_of_rows_or_a_restore_ends_the_template_state(fresh):
    ep, env = fresh()
    inst = ep.app("vista_erp")
    assert inst.is_template()
    with inst.conn:  # raw SQL, not through the ORM: SQLite still counts the change
        inst.conn.execute("UPDATE vendors SET name = name || ' X' WHERE rowid = (SELECT min(rowid) FROM vendors)")
    assert not inst.is_template()
    ep.reset()
    assert inst.is_template()
    ep.restore({"vista_erp": inst.template.snapshot()})
    assert not inst.is_template()
    ep.reset()
    inst.conn.execute("BEGIN")
    assert not inst.is_template()  # a transaction open: not known to be the template
    inst.conn.execute("ROLLBACK")
    assert inst.is_template()


def test_a_refusal_is_never_kept(fresh):
    ep, env = fresh()
    cache = ep.app("vista_erp").template.reads
    size = len(cache)
    for _ in range(2):
        refused = env.call(GET, {"vendor_id": "99999999"})
        assert refused["error"]
    assert len(cache) == size
    assert [c["ok"] for c in ep.calls] == [False, False]


def test_keys_keep_apart_what_a_service_could_tell_apart():
    from datetime import date
    from decimal import Decimal

    k = read_cache.key
    assert k("t", {"a": 1}, "api", "c") != k("t", {"a": True}, "api", "c") != k("t", {"a": "1"}, "api", "c")
    assert k("t", {"a": Decimal("1.0")}, "api", "c") != k("t", {"a": Decimal("1.00")}, "api", "c")
    assert k("t", {"a": 1}, "api", "c") != k("t", {"a": 1}, "ui", "c") != k("t", {"a": 1}, "ui", "d")
    assert k("t", {"a": date(2026, 1, 2)}, "api", "c") == k("t", {"a": date(2026, 1, 2)}, "api", "c")
    assert k("t", {"a": [[1]]}, "api", "c") is None  # a grid is read live


def test_the_cache_is_bounded_and_drops_the_least_recently_used():
    cache = read_cache.ReadCache(max_bytes=600)
    for i in range(20):
        cache.put(("k", i), {"i": i, "pad": "x" * 50})
    assert 0 < cache.size_bytes <= 600 and len(cache) < 20
    assert cache.get(("k", 19)) == {"i": 19, "pad": "x" * 50}
    assert cache.get(("k", 0)) is None
    cache.put(("odd",), {"v": object()})  # not marshal-able: not kept, no error
    assert cache.get(("odd",)) is None
