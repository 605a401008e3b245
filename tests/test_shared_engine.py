"""One SQLAlchemy engine per app for every episode, a database per episode; lists in few queries.

Episodes share each app's engine (so its compiled-SQL cache stays warm) while each keeps its
own in-memory database: writes in one are never seen by another, also from many threads at
once. A list tool's queries do not grow with the page size (its linked records come in one
query, not one per row), and a page's total is the same as counting the full result.
"""
from __future__ import annotations

import threading

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from portals.core.db import count_rows
from portals.core.environment import Environment
from portals.core.episode import ENGINES
from portals.erp.models import Commitment, Payment, Retainage, Vendor
from portals.pm.models import Project, Requisition

APPS = ["procore", "sage_intacct", "vista_erp"]


def _vendor_names(episode, app: str) -> dict:
    with episode.app(app).session() as session:
        return dict(session.execute(select(Vendor.vendor_key, Vendor.name)).all())


def test_episodes_share_the_apps_engine_but_not_their_databases(store):
    one, two = store.create(APPS), store.create(APPS)
    try:
        for app in APPS:
            assert one.app(app).connection.engine is two.app(app).connection.engine is ENGINES.engine(app)
            assert one.app(app).conn is not two.app(app).conn
        before = _vendor_names(two, "sage_intacct")
        key = sorted(before)[0]
        with one.app("sage_intacct").session() as session:
            session.get(Vendor, key).name = "Renamed In Episode One"
        assert _vendor_names(one, "sage_intacct")[key] == "Renamed In Episode One"
        assert _vendor_names(two, "sage_intacct") == before
        one.reset()
        assert _vendor_names(one, "sage_intacct") == before
    finally:
        store.drop(one.id)
        store.drop(two.id)


def test_many_threads_writing_many_episodes_see_only_their_own(store):
    episodes = [store.create(["sage_intacct"]) for _ in range(8)]
    key = sorted(_vendor_names(episodes[0], "sage_intacct"))[0]
    errors: list = []

    def work(i: int, episode) -> None:
        try:
            for round_ in range(20):
                with episode.lock, episode.app("sage_intacct").session() as session:
                    session.get(Vendor, key).name = f"episode {i} round {round_}"
                with episode.lock:
                    seen = _vendor_names(episode, "sage_intacct")[key]
                if seen != f"episode {i} round {round_}":
                    errors.append((i, round_, seen))
        except Exception as err:  # noqa: BLE001 - reported below with the thread it came from
            errors.append((i, repr(err)))

    threads = [threading.Thread(target=work, args=(i, e)) for i, e in enumerate(episodes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        assert [_vendor_names(e, "sage_intacct")[key] for e in episodes] == \
            [f"episode {i} round 19" for i in range(len(episodes))]
    finally:
        for e in episodes:
            store.drop(e.id)


def test_a_dropped_episode_closes_its_database(store):
    episode = store.create(["procore"])
    inst = episode.app("procore")
    store.drop(episode.id)
    assert inst.connection.closed
    with pytest.raises(Exception, match="closed"):
        inst.conn.execute("SELECT 1")


def _selects(app: str, run) -> int:
    seen: list[str] = []

    def count(_conn, _cursor, statement, *_args):
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    engine = ENGINES.engine(app)
    event.listen(engine, "before_cursor_execute", count)
    try:
        run()
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return len(seen)


@pytest.mark.parametrize("tool", ["sage_intacct.construction/commitment.query",
                                  "sage_intacct.accounts-payable/payment.query",
                                  "sage_intacct.construction/retainage.query",
                                  "sage_intacct.construction/project-estimate.query",
                                  "sage_intacct.construction/standard-cost-type.query",
                                  "vista_erp.jb.progress_bills.list",
                                  "procore.requisitions.list"])
def test_a_list_reads_its_rows_in_queries_that_do_not_grow_with_the_page(store, tool):
    episode = store.create(APPS)
    try:
        env = Environment(episode, APPS)
        app = tool.split(".")[0]
        small_result, big_result = {}, {}
        small = _selects(app, lambda: small_result.update(env.call(tool, {"per_page": 2})))
        big = _selects(app, lambda: big_result.update(env.call(tool, {"per_page": 40})))
        assert "error" not in big_result, big_result
        assert len(big_result["items"]) > len(small_result["items"]) == 2
        assert big <= small  # no more; fewer when the bigger page is the last (no count then)
    finally:
        store.drop(episode.id)


def _subquery_count(session: Session, stmt) -> int:
    return session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))


def test_count_rows_matches_counting_the_whole_result(store):
    episode = store.create(APPS)
    try:
        with episode.app("sage_intacct").session() as session:
            statements = [
                select(Commitment).order_by(Commitment.number),
                select(Commitment).where(Commitment.status == "approved"),
                select(Payment, Vendor).join(Vendor, Vendor.vendor_key == Payment.vendor_key, isouter=True),
                select(Retainage.job).distinct(),
                select(Retainage.state, func.count()).group_by(Retainage.state),
                select(Commitment).limit(3),
                select(func.sum(Payment.amount)).where(Payment.state == "paid"),
                select(Payment.vendor_key, func.max(Payment.amount)).group_by(Payment.vendor_key),
            ]
            for stmt in statements:
                assert count_rows(session, stmt) == _subquery_count(session, stmt) == \
                    len(session.execute(stmt).all()), stmt
        with episode.app("procore").session() as session:
            stmt = (select(Requisition, Project).join(Project, Project.project_id == Requisition.project_id)
                    .where(Project.project_number != ""))
            assert count_rows(session, stmt) == len(session.execute(stmt).all()) > 0
    finally:
        store.drop(episode.id)
