"""Project estimates: every estimate totals its lines, each project has one primary estimate, and
the revision is the original plus the approved changes of the project's budget."""
from __future__ import annotations

from collections import Counter
from decimal import Decimal

APP = "sage_intacct"
APPS = [APP]


def call(env, name, args=None):
    return env.call(f"{APP}.{name}", args or {})


def test_estimates_total_their_lines_and_one_is_primary(env, episode):
    rows = []
    page = 1
    while True:
        got = call(env, "construction/project-estimate.query", {"per_page": 100, "page": page})
        rows += got["items"]
        if page >= got["pages"]:
            break
        page += 1
    assert Counter(r["project_id"] for r in rows if r["is_primary"]) == Counter({r["project_id"] for r in rows})
    for r in rows[:8]:
        est = call(env, "construction/project-estimate.get", {"estimate_id": r["estimate_id"]})
        assert sum(Decimal(ln["amount"]) for ln in est["lines"]) == Decimal(est["total"])
    assert episode.diff() == {}


def test_the_primary_estimate_is_the_revised_budget(env):
    est = call(env, "construction/project-estimate.query", {"primary_only": True, "per_page": 5})["items"]
    for e in est:
        project = call(env, "projects/project.get", {"project_id": e["project_id"]})
        revised = sum(Decimal(b["original_budget"]) + Decimal(b["approved_changes"]) for b in project["budget"])
        assert Decimal(e["total"]) == revised


def test_estimate_pages(client, env):
    est = call(env, "construction/project-estimate.query", {"per_page": 1})["items"][0]
    listing = client.get(f"/{APP}/estimates?sort=-total").get_data(as_text=True)
    assert f'/estimates/{est["estimate_id"]}' in client.get(f"/{APP}/estimates").get_data(as_text=True)
    assert 'aria-sort="descending"' in listing
    assert client.get(f"/{APP}/estimates/{est['estimate_id']}").status_code == 200
    assert client.get(f"/{APP}/estimates/EST-NOPE").status_code == 404
