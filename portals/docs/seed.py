"""Build the document store from the book: every document's folder chain, then the files themselves."""
from __future__ import annotations

import json

from portals.core.ids import stable_id

from .models import File, Folder
from .pdf import render_pdf

ROOT_ID = 0


def _canonical(fields: dict) -> str:
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _folder_chain(session, app: str, path: str, known: dict[str, int]) -> int:
    """Create any missing folders along `path` and return the id of the last one."""
    parent, current = ROOT_ID, ""
    for part in [p for p in path.split("/") if p]:
        current += "/" + part
        if current not in known:
            known[current] = stable_id(app, "folder", current)
            session.add(Folder(id=known[current], path=current, parent_id=parent, name=part))
        parent = known[current]
    return parent


def seed(session, book, rng, clock, spec) -> None:
    session.add(Folder(id=ROOT_ID, path="/", parent_id=None, name=spec.word("root")))
    known = {"/": ROOT_ID}
    default_at = book.get("meta", {}).get("clock", clock.iso())
    docs = sorted(book.get("documents", []), key=lambda d: int(d["doc_id"]))
    for doc in docs:
        doc_id = int(doc["doc_id"])
        folder_id = _folder_chain(session, spec.name, doc.get("folder") or "/Unfiled", known)
        fields = doc.get("fields") or {}
        kind = doc.get("kind") or "document"
        name = doc.get("name") or f"Document {doc_id}.pdf"
        created = doc.get("created_at") or default_at
        session.add(File(doc_id=doc_id, folder_id=folder_id, name=name, kind=kind, created_at=created,
                         fields_json=_canonical(fields), content=None,
                         size=len(render_pdf(name, kind, created, fields))))
    session.flush()
