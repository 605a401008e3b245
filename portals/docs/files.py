"""Lookups and row shapes shared by Box's services (not tools themselves)."""
from __future__ import annotations

import io
import json
from functools import lru_cache

from pypdf import PdfReader

from sqlalchemy import select

from portals.core.errors import NotFound
from portals.core.paging import check_paging  # noqa: F401  (callers import it from here)

from .models import File, Folder, MetadataValue
from .pdf import render_pdf

def get_file(session, file_id: int) -> File:
    row = session.get(File, file_id)
    if row is None:
        raise NotFound(f"There is no file with id {file_id}.", "file_id")
    return row


def get_folder(session, folder_id: int) -> Folder:
    row = session.get(Folder, folder_id)
    if row is None:
        raise NotFound(f"There is no folder with id {folder_id}.", "folder_id")
    return row


def folder_by_path(session, path: str) -> Folder:
    clean = "/" + "/".join(p for p in path.strip().split("/") if p)
    row = session.scalar(select(Folder).where(Folder.path == clean))
    if row is None:
        raise NotFound(f"There is no folder at {clean}.", "path")
    return row


def breadcrumbs(session, folder: Folder) -> list[dict]:
    """The chain of folders from All Files down to this one."""
    chain = []
    current: Folder | None = folder
    while current is not None:
        chain.append({"id": current.id, "name": current.name})
        current = session.get(Folder, current.parent_id) if current.parent_id is not None else None
    return list(reversed(chain))


def folder_summary(row: Folder) -> dict:
    return {"type": "folder", "id": row.id, "name": row.name, "path": row.path}


def file_summary(row: File, path: str | None = None) -> dict:
    out = {"type": "file", "id": row.doc_id, "name": row.name, "kind": row.kind,
           "created_at": row.created_at, "size": row.size, "folder_id": row.folder_id}
    if path is not None:
        out["path"] = path
    return out


def metadata_of(session, file_id: int) -> dict:
    """Metadata instances on a file, as {template: {key: value}}."""
    out: dict = {}
    rows = session.scalars(select(MetadataValue).where(MetadataValue.file_id == file_id)
                           .order_by(MetadataValue.template, MetadataValue.key))
    for row in rows:
        out.setdefault(row.template, {})[row.key] = row.value
    return out


def pdf_of(row: File) -> bytes:
    return _rendered(row.name, row.kind, row.created_at, row.fields_json or "{}", row.content)


def pdf_text_pages(row: File) -> tuple[str, ...]:
    """The text a reader extracts from each page of the file's PDF."""
    return _extracted(pdf_of(row))


# A file's PDF is a pure function of its stored fields, and its text a pure function of the PDF:
# both are kept for the process, so an agent reading one certificate twenty times, or a sweep
# reading it in every episode, renders and extracts it once. Keyed by value, never by row id,
# so an edited file is a new key.
@lru_cache(maxsize=2048)
def _rendered(name: str, kind: str, created_at: str, fields_json: str, content: str | None) -> bytes:
    return render_pdf(name, kind, created_at, json.loads(fields_json), content)


@lru_cache(maxsize=2048)
def _extracted(data: bytes) -> tuple[str, ...]:
    return tuple(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)
