"""Seed the records some products keep beyond the shared AP / JC core, from rows already seeded.

What a product keeps follows from its manifest: a record kind is seeded when the product offers
the service that reads it. Everything derives from the book's rows as this product already
holds them (its own job numbers, vendor keys and codes), with random choices from sub-streams
of the app's generator, one per record kind, so adding a kind never shifts another's data.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from sqlalchemy import select

from .models import Job, Vendor
from .settings import erp_settings


@dataclass
class Keys:
    """The book's keys in this product's own keys, read from the rows the core seed wrote."""

    jobs: dict = field(default_factory=dict)  # company job -> this product's job
    vendors: dict = field(default_factory=dict)  # company vendor id -> this product's vendor key
    codes: dict = field(default_factory=dict)  # company cost code -> this product's code
    book_vendors: dict = field(default_factory=dict)  # this product's vendor key -> the book's vendor


def read_keys(session, book: dict, spec) -> Keys:
    from .seed import _cost_codes  # the core seed's own code map, so both agree

    keys = Keys()
    by_name = {j.name: j.job for j in session.scalars(select(Job))}
    keys.jobs = {j["job"]: by_name[j["name"]] for j in book.get("jobs", []) if j["name"] in by_name}
    for v in session.scalars(select(Vendor)):
        keys.vendors[v.canonical_id] = v.vendor_key
    keys.codes = _cost_codes(book, erp_settings(spec).cost_code_field)[1]
    book_vendors = {v["vendor_id"]: v for v in book.get("vendors", [])}
    keys.book_vendors = {key: book_vendors[cid] for cid, key in keys.vendors.items() if cid in book_vendors}
    return keys


def offers(spec, *services: str) -> bool:
    """Whether the product's manifest offers any of these services as tools."""
    return bool(set(services) & set(spec.tool_map.values()))


def seed_extra(session, book: dict, rng, clock, spec) -> None:
    from . import seed_contracts, seed_payables, seed_projects

    session.flush()
    base = rng.getrandbits(64)
    streams = lambda kind: random.Random(f"{base}:{kind}")  # noqa: E731 - one stream per record kind
    keys = read_keys(session, book, spec)
    seed_projects.seed(session, book, streams, clock, spec, keys)
    seed_payables.seed(session, book, streams, clock, spec, keys)
    seed_contracts.seed(session, book, streams, clock, spec, keys)
    session.flush()
