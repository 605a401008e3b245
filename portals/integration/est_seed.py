"""Build HeavyBid from the book's estimates: each bid with its biditems, activities and resources,
totals rolled up the way HeavyBid shows them."""
from __future__ import annotations

from decimal import Decimal

from portals.core.ids import stable_id

from .est_models import Activity, Biditem, Estimate, Resource


def seed_estimating(session, book, rng, clock, spec) -> None:
    app = spec.name
    for est in book.get("estimates", []):
        eid = stable_id(app, "estimate", est["estimate_code"])
        direct, bid = Decimal("0"), Decimal("0")
        for b in est["biditems"]:
            bid_id = stable_id(app, "biditem", est["estimate_code"], b["biditem"])
            item_cost = Decimal("0")
            for a in b["activities"]:
                act_id = stable_id(app, "activity", est["estimate_code"], b["biditem"], a["activity"])
                act_cost = sum((Decimal(r["total"]) for r in a["resources"]), Decimal("0"))
                session.add(Activity(activity_id=act_id, estimate_id=eid, biditem_id=bid_id, code=a["activity"],
                                     description=a["description"], total=act_cost))
                for n, r in enumerate(a["resources"]):
                    session.add(Resource(resource_id=stable_id(app, "resource", est["estimate_code"], b["biditem"],
                                                               a["activity"], n),
                                         estimate_id=eid, activity_id=act_id, code=r["resource"], type=r["type"],
                                         description=r["description"], unit=r["unit"], quantity=r["quantity"],
                                         unit_cost=Decimal(r["unit_cost"]), total=Decimal(r["total"])))
                item_cost += act_cost
            session.add(Biditem(biditem_id=bid_id, estimate_id=eid, client_code=b["biditem"],
                                description=b["description"], unit=b["unit"], quantity=b["quantity"],
                                alternate=b["alternate"], direct_cost=item_cost, unit_price=Decimal(b["unit_price"]),
                                bid_total=Decimal(b["bid_total"])))
            direct += item_cost
            if not b["alternate"]:
                bid += Decimal(b["bid_total"])
        session.add(Estimate(estimate_id=eid, code=est["estimate_code"], name=est["name"], owner=est["owner"],
                             city=est["city"], state=est["state"], bid_date=est["bid_date"],
                             estimator=est["estimator"], master=est["master"], status=est["status"],
                             profit_pct=est["profit_pct"], bond_pct=est["bond_pct"], notes=est["notes"],
                             direct_cost=direct, bid_total=bid))
    session.flush()
