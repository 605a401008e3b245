"""PM firms are not AP vendors: their own numbers and spelling, a link to the vendor where one was
made (and some never were), and owners that are no vendor at all."""
from __future__ import annotations

APP = "vista_erp"
APPS = [APP]


def call(env, name, args=None):
    return env.call(f"{APP}.{name}", args or {})


def all_firms(env) -> list[dict]:
    out, page = [], 1
    while True:
        got = call(env, "pm.firms.list", {"per_page": 100, "page": page})
        out += got["items"]
        if page >= got["pages"]:
            return out
        page += 1


def test_firms_have_their_own_numbers_and_some_no_vendor(env, episode):
    firms = all_firms(env)
    vendors = {v["vendor_id"] for v in call(env, "ap.vendors.list", {"per_page": 100})["items"]}
    assert not {str(f["firm_number"]) for f in firms} & vendors
    assert {f["firm_type"] for f in firms} == {"SUB", "SUPPLIER", "OWNER"}
    subs = [f for f in firms if f["firm_type"] != "OWNER"]
    assert any(f["vendor_id"] is None for f in subs) and any(f["vendor_id"] for f in subs)
    assert all(f["vendor_id"] is None for f in firms if f["firm_type"] == "OWNER")
    assert episode.diff() == {}


def test_a_linked_firm_shows_its_vendor_and_commitments(env, client):
    firm = next(f for f in all_firms(env) if f["vendor_id"])
    got = call(env, "pm.firm.get", {"firm_number": firm["firm_number"]})
    assert got["vendor"]["vendor_id"] == firm["vendor_id"] and got["commitments"]
    assert got["firm_name"] != got["vendor"]["name"]  # the PM's spelling, not AP's
    page = client.get(f"/{APP}/pm/firms/{firm['firm_number']}").get_data(as_text=True)
    assert firm["vendor_id"] in page
    assert "no firm" in call(env, "pm.firm.get", {"firm_number": 999999})["message"]
