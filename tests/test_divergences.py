"""The consistency contract: systems tie out, except where the registry says they must not."""
from __future__ import annotations

from seeds import consistency
from seeds.book import load_book


def test_every_difference_between_the_seeded_apps_is_registered(store):
    book = load_book()
    found = consistency.all_mismatches(store, book)
    assert found, "the book is meant to carry controlled divergences"
    assert consistency.unregistered(found, book["divergences"]) == []


def test_every_registered_divergence_actually_occurs(store):
    book = load_book()
    assert consistency.stale(consistency.all_mismatches(store, book), book["divergences"]) == []


def test_the_checker_catches_an_unregistered_difference(store):
    book = load_book()
    found = consistency.all_mismatches(store, book)
    dropped = book["divergences"][0]
    registry = [d for d in book["divergences"] if d is not dropped]
    missing = consistency.unregistered(found, registry)
    assert [(m.entity, m.key, m.field) for m in missing] == \
        [(dropped["entity"], dropped["key"], dropped["field"])] * len(missing) and missing


def test_the_families_that_need_the_divergences_are_named():
    families = {d["family"] for d in load_book()["divergences"]}
    assert {"C_invoice_code", "H_procore_erp_sync"} <= families


def test_spelling_conventions_are_not_divergences():
    assert consistency.same_company("J.S. Morales Excavating, Inc.", "JS MORALES EXCAVATING INC")
    assert consistency.same_company("J&M Site Services, LLC", "J AND M SITE SERVICES")
    assert not consistency.same_company("JSM Excavating", "JS Morales Excavating Inc")
    assert consistency.vista_phase_format("31-200") == "31200-000-"
