"""Entities: a multi-entity product works at the top level or inside one entity, and its lists keep
to the entity chosen in the header; a single-company product keys every job to its company."""
from __future__ import annotations

APPS = ["sage_intacct", "vista_erp"]
APP = "sage_intacct"


def test_each_project_belongs_to_one_entity(env, episode):
    entities = env.call(f"{APP}.company-config/entity.query")["items"]
    assert len(entities) > 1
    projects = env.call(f"{APP}.projects/project.list", {"per_page": 100})["items"]
    assert sum(e["project_count"] for e in entities) == len(projects)
    one = entities[0]["entity_id"]
    mine = env.call(f"{APP}.projects/project.list", {"entity_id": one, "per_page": 100})["items"]
    assert mine and {p["entity_id"] for p in mine} == {one} and len(mine) == entities[0]["project_count"]
    assert episode.diff() == {}


def test_the_single_company_product_has_one_company(env):
    [company] = env.call("vista_erp.jc.jobs.list", {"per_page": 1})["items"][:1]
    assert company["entity_id"]
    everything = env.call("vista_erp.jc.jobs.list", {"per_page": 100})["total"]
    assert env.call("vista_erp.jc.jobs.list", {"entity_id": company["entity_id"]})["total"] == everything
    assert "no company" in env.call("vista_erp.jc.jobs.list", {"entity_id": "NOPE"})["message"]


def test_switching_entity_keeps_the_lists_to_it(client, env, episode):
    entities = env.call(f"{APP}.company-config/entity.query")["items"]
    small = min(entities, key=lambda e: e["project_count"])
    top = client.get(f"/{APP}/ap/bills").get_data(as_text=True)
    assert 'id="ia-entity-select"' in top
    resp = client.get(f"/{APP}/entity?entity_id={small['entity_id']}&next=/{APP}/ap/bills")
    assert resp.status_code == 302 and resp.location.endswith(f"/{APP}/ap/bills")
    inside = client.get(f"/{APP}/jobs").get_data(as_text=True).count(f'href="/{APP}/jobs/')
    assert inside == small["project_count"]
    payments = client.get(f"/{APP}/ap/payments").get_data(as_text=True)
    other = {e["entity_id"] for e in entities} - {small["entity_id"]}
    assert all(f"<td>{o}</td>" not in payments for o in other)
    assert client.get(f"/{APP}/entity?entity_id=&next=/{APP}/jobs").status_code == 302
    assert client.get(f"/{APP}/jobs").get_data(as_text=True).count(f'href="/{APP}/jobs/') > inside
    assert client.get(f"/{APP}/entity?entity_id=NOPE").status_code == 404
    assert client.get(f"/{APP}/entity?entity_id=&next=https://example.com/").location.endswith(f"/{APP}/entities")
    assert episode.diff() == {} and not [c for c in episode.calls if c["kind"] != "read"]
