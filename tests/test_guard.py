"""The data layer's second line of defence: no row may record money as moved outside seeding."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from portals.core.errors import MoneyMovementRefused
from portals.core.registry import load_apps


def _guarded_models():
    out = []
    for name, spec in sorted(load_apps().items()):
        base_classes = {m.class_ for m in _registry_of(spec).mappers}
        for cls in sorted(base_classes, key=lambda c: c.__name__):
            for attr, states in getattr(cls, "__money_states__", {}).items():
                for state in sorted(states):
                    out.append(pytest.param(name, cls, attr, state, id=f"{name}-{cls.__name__}-{attr}={state}"))
    return out


def _registry_of(spec):
    """The SQLAlchemy registry behind an archetype's metadata."""
    import importlib

    models = importlib.import_module(f"portals.{spec.kind}.models")
    return models.Base.registry


GUARDED = _guarded_models()


def _copy_with_new_key(model, row):
    columns = model.__table__.columns
    values = {c.key: getattr(row, c.key) for c in columns}
    pk = list(model.__table__.primary_key.columns)[0]
    values[pk.key] = 987654321 if isinstance(values[pk.key], int) else "GUARD-TEST-1"
    return model(**values)


def test_money_moving_states_are_declared_where_money_can_move():
    apps = {p.values[0] for p in GUARDED}
    assert {"procore", "sage_intacct", "vista_erp", "outlook"} <= apps


@pytest.mark.parametrize("app,model,attr,state", GUARDED)
def test_a_money_moving_row_is_refused_and_nothing_changes(store, app, model, attr, state):
    episode = store.create([app])
    try:
        inst = episode.app(app)
        before = inst.snapshot()
        with inst.session() as session:
            template_row = session.scalars(select(model).limit(1)).first()
        if template_row is None:
            pytest.skip(f"{model.__name__} has no rows in the book to copy")
        with pytest.raises(MoneyMovementRefused):
            with inst.session() as session:
                row = session.scalars(select(model).where(getattr(model, attr) != state).limit(1)).first()
                if row is None:  # every seeded row is history in that state: try a new one
                    row = _copy_with_new_key(model, template_row)
                    session.add(row)
                setattr(row, attr, state)
                session.flush()
        assert inst.snapshot() == before
        assert episode.diff() == {}
    finally:
        store.drop(episode.id)
