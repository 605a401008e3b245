"""Build hh2 from the book's sync map: every mapping, last night's sync log (each mapped job and
vendor synced), the errors it raised, and the AP invoices queued for the next run."""
from __future__ import annotations

from portals.core.ids import stable_id

from .sync_models import Mapping, SyncEntry

LAST_RUN = "2026-06-30T06:05:00Z"
SETUP = "2026-01-12T15:30:00Z"


def direction(system: str) -> str:
    return f"{system} → Vista" if system == "Procore" else f"Vista → {system}"


def seed_sync(session, book, rng, clock, spec) -> None:
    app = spec.name
    sync = book.get("hh2_sync") or {"mappings": [], "errors": []}
    failed = {(e["entity"], e["system"], e["source_key"]) for e in sync["errors"]}
    for m in sync["mappings"]:
        key = (m["entity"], m["system"], m["source_key"])
        session.add(Mapping(mapping_id=stable_id(app, "mapping", *key), entity=m["entity"], system=m["system"],
                            source_key=m["source_key"], source_name=m["source_name"], erp_key=m["erp_key"],
                            erp_name=m["erp_name"], status=m["status"], updated_at=SETUP, updated_by="hh2 setup"))
        if m["entity"] in ("Job (CV)", "Vendor") and key not in failed:
            session.add(SyncEntry(entry_id=stable_id(app, "log", *key, LAST_RUN), at=LAST_RUN, entity=m["entity"],
                                  system=m["system"], source_key=m["source_key"], direction=direction(m["system"]),
                                  status="Synced", message=f"{m['entity']} {m['source_key']} up to date."))
    for e in sync["errors"]:
        key = (e["entity"], e["system"], e["source_key"])
        session.add(SyncEntry(entry_id=stable_id(app, "log", *key, e["at"]), at=e["at"], entity=e["entity"],
                              system=e["system"], source_key=e["source_key"], direction=direction(e["system"]),
                              status="Error", message=e["message"]))
    for b in book.get("ap_bills", []):
        if b["status"] == "open" and b["invoice_date"] >= "2026-06-27":
            session.add(SyncEntry(entry_id=stable_id(app, "log", "Invoice (AP)", b["bill_id"]), at=clock.iso(),
                                  entity="Invoice (AP)", system="Procore", source_key=b["invoice_number"][:20],
                                  direction="Procore → Vista", status="Queued",
                                  message="Approved in Procore; waiting for the next sync run."))
    session.flush()
