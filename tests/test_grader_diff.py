"""Tests for grader.diff: the PK-keyed state diff."""
import json

import pytest
from hypothesis import given, strategies as st

from grader.diff import count_changes, diff_environment, diff_snapshots, diff_tables, is_empty

PK = {"bills": "id", "vendors": "code"}


def snap(app, tables, pk=PK):
    return json.dumps({"app": app, "pk": pk, "tables": tables}, sort_keys=True).encode()


def test_added_removed_changed_and_unchanged_tables_omitted():
    before = {"bills": [{"id": 1, "amount": "10.00", "status": "draft"},
                        {"id": 2, "amount": "20.00", "status": "draft"}],
              "vendors": [{"code": "V1", "name": "Acme"}]}
    after = {"bills": [{"id": 1, "amount": "10.00", "status": "posted"},
                       {"id": 3, "amount": "30.00", "status": "draft"}],
             "vendors": [{"code": "V1", "name": "Acme"}]}
    d = diff_tables(PK, before, after)
    assert list(d) == ["bills"]
    assert d["bills"]["added"] == [{"id": 3, "amount": "30.00", "status": "draft"}]
    assert d["bills"]["removed"] == [{"id": 2, "amount": "20.00", "status": "draft"}]
    assert d["bills"]["changed"] == [{"pk": 1, "before": before["bills"][0],
                                      "after": after["bills"][0], "fields": ["status"]}]


def test_fields_sorted_and_include_appearing_columns():
    d = diff_tables({"t": "id"}, {"t": [{"id": 1, "b": 1, "a": 1}]},
                    {"t": [{"id": 1, "b": 2, "a": 2, "c": None}]})
    assert d["t"]["changed"][0]["fields"] == ["a", "b", "c"]


def test_one_sided_tables_are_all_added_or_removed():
    d = diff_tables(PK, {"vendors": [{"code": "V1"}]}, {"bills": [{"id": 2}, {"id": 1}]})
    assert d["bills"]["added"] == [{"id": 1}, {"id": 2}]  # pk order, not input order
    assert d["vendors"]["removed"] == [{"code": "V1"}]


def test_lists_are_in_pk_order_even_with_mixed_key_types():
    d = diff_tables({"t": "id"}, {"t": []}, {"t": [{"id": "b"}, {"id": 10}, {"id": 2}, {"id": "a"}]})
    assert [r["id"] for r in d["t"]["added"]] == [2, 10, "a", "b"]


def test_duplicate_or_missing_pk_is_an_error():
    with pytest.raises(ValueError, match="duplicate"):
        diff_tables({"t": "id"}, {"t": [{"id": 1}, {"id": 1}]}, {"t": []})
    with pytest.raises(ValueError, match="primary-key"):
        diff_tables({"t": "id"}, {"t": [{"x": 1}]}, {"t": []})
    with pytest.raises(ValueError, match="no primary-key column"):
        diff_tables({}, {"t": []}, {"t": [{"id": 1}]})


def test_diff_snapshots_and_environment():
    a = snap("procore", {"bills": [{"id": 1, "status": "approved"}]})
    b = snap("procore", {"bills": [{"id": 1, "status": "paid"}]})
    d = diff_snapshots(a, b)
    assert d["bills"]["changed"][0]["fields"] == ["status"]
    assert diff_snapshots(a, a) == {}
    with pytest.raises(ValueError, match="different apps"):
        diff_snapshots(a, snap("outlook", {}))
    env = diff_environment({"procore": a, "outlook": snap("outlook", {})},
                           {"procore": b, "outlook": snap("outlook", {})})
    assert list(env) == ["procore"]
    assert count_changes(env) == 1 and not is_empty(env)
    assert is_empty({}) and count_changes({}) == 0


def test_count_changes_counts_every_entry():
    env = {"a": {"t": {"added": [{"id": 1}, {"id": 2}], "removed": [{"id": 3}], "changed": []}},
           "b": {"u": {"added": [], "removed": [], "changed": [{"pk": 1, "before": {}, "after": {},
                                                                "fields": ["x"]}]}}}
    assert count_changes(env) == 4


def test_twenty_tables_of_a_thousand_rows_diff_exactly():
    """A book-sized diff finds exactly the bumped rows, from tables or from snapshot bytes.
    (Its speed is a `cfab bench` figure, not a test assertion.)"""
    def tables(bump):
        return {f"t{t}": [{"id": i, "amount": f"{i}.00", "status": "draft", "memo": "x" * 20,
                           "n": i + (1 if bump and i % 100 == 0 else 0)} for i in range(1000)]
                for t in range(20)}
    pk = {f"t{t}": "id" for t in range(20)}
    before, after = tables(False), tables(True)
    d = diff_tables(pk, before, after)
    assert count_changes({"app": d}) == 20 * 10
    assert all(c["fields"] == ["n"] for t in d.values() for c in t["changed"])
    a, b = snap("app", before, pk), snap("app", after, pk)
    assert diff_snapshots(a, b) == d


rows = st.dictionaries(st.integers(0, 20), st.sampled_from(["a", "b", "c"]), max_size=15)


@given(rows, rows)
def test_diff_is_symmetric_and_empty_on_itself(x, y):
    before = {"t": [{"id": k, "v": v} for k, v in x.items()]}
    after = {"t": [{"id": k, "v": v} for k, v in y.items()]}
    assert diff_tables({"t": "id"}, before, before) == {}
    fwd = diff_tables({"t": "id"}, before, after).get("t", {})
    back = diff_tables({"t": "id"}, after, before).get("t", {})
    assert fwd.get("added", []) == back.get("removed", [])
    assert len(fwd.get("changed", [])) == len(back.get("changed", []))
    expected_changes = len(x.keys() ^ y.keys()) + sum(x[k] != y[k] for k in x.keys() & y.keys())
    assert count_changes({"app": {"t": fwd}} if fwd else {}) == expected_changes
