"""Box read services: browse folders, search, file info, download and text extraction."""
from __future__ import annotations

import base64

from sqlalchemy import or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.tools import READ, service

from .files import (breadcrumbs, check_paging, file_summary, folder_by_path, folder_summary,
                    get_file, get_folder, metadata_of, pdf_of, pdf_text_pages)
from .models import File, Folder

KINDS = ("invoice", "subcontract", "coi", "lien_waiver", "w9", "change_order", "upload")
DOWNLOAD_CAP = 1024 * 1024


@service(READ)
def list_folder_items(ctx: ServiceContext, folder_id: int | None = None, path: str | None = None,
                      page: int = 1, per_page: int = 25) -> dict:
    """List the subfolders and files inside a {product} folder, folders first, then files by name.

    Args:
        folder_id: The folder's id; 0 is the root "{root}" folder. Give this or path.
        path: The folder's path instead of its id, e.g. "/Projects/9999 - Example Job/AP Invoices".
        page: Page number, starting at 1.
        per_page: Entries per page, 1 to 100.
    """
    check_paging(page, per_page)
    if folder_id is not None and path:
        raise ToolError("Give either folder_id or path, not both.", "path")
    folder = folder_by_path(ctx.session, path) if path else get_folder(ctx.session, folder_id or 0)
    subs = ctx.session.scalars(select(Folder).where(Folder.parent_id == folder.id)
                               .order_by(Folder.name, Folder.id)).all()
    files = ctx.session.scalars(select(File).where(File.folder_id == folder.id)
                                .order_by(File.name, File.doc_id)).all()
    entries = [folder_summary(f) for f in subs] + [file_summary(f) for f in files]
    start = (page - 1) * per_page
    return {"folder": {**folder_summary(folder), "breadcrumbs": breadcrumbs(ctx.session, folder)},
            "items": entries[start:start + per_page], "page": page, "per_page": per_page,
            "total": len(entries), "pages": (len(entries) + per_page - 1) // per_page}


@service(READ)
def search_files(ctx: ServiceContext, query: str | None = None, kind: str | None = None,
                 page: int = 1, per_page: int = 25) -> dict:
    """Search files by words in their name or folder path; newest first.

    Args:
        query: Text to find in the file name or its folder path, e.g. "ACME-0001" or "9999". Blank lists every file.
        kind: Only files of this kind: invoice, subcontract, coi, lien_waiver, w9, change_order or upload.
        page: Page number, starting at 1.
        per_page: Results per page, 1 to 100.
    """
    stmt = select(File, Folder.path).join(Folder, Folder.id == File.folder_id)
    if kind:
        if kind not in KINDS:
            raise ToolError(f"Kind must be one of: {', '.join(KINDS)}.", "kind")
        stmt = stmt.where(File.kind == kind)
    for word in (query or "").split():
        pattern = f"%{word}%"
        stmt = stmt.where(or_(File.name.ilike(pattern), Folder.path.ilike(pattern)))
    stmt = stmt.order_by(File.created_at.desc(), File.doc_id)
    check_paging(page, per_page)
    rows = ctx.session.execute(stmt).all()
    start = (page - 1) * per_page
    return {"items": [file_summary(f, p) for f, p in rows[start:start + per_page]], "page": page,
            "per_page": per_page, "total": len(rows), "pages": (len(rows) + per_page - 1) // per_page}


@service(READ)
def get_file_info(ctx: ServiceContext, file_id: int) -> dict:
    """Get a file's information: name, folder, kind, size, dates and its metadata instances.

    It does not return the file's contents; use ocr_pdf to read the text or files.download for the bytes.

    Args:
        file_id: The file's id, as shown in folder listings and search results.
    """
    row = get_file(ctx.session, file_id)
    folder = get_folder(ctx.session, row.folder_id)
    return {**file_summary(row, folder.path), "folder": folder_summary(folder),
            "breadcrumbs": breadcrumbs(ctx.session, folder),
            "metadata": metadata_of(ctx.session, row.doc_id)}


@service(READ)
def download_file(ctx: ServiceContext, file_id: int, max_bytes: int = 65536) -> dict:
    """Download a file's PDF as base64. Large files are cut at max_bytes; `complete` says whether all came back.

    Args:
        file_id: The file's id.
        max_bytes: At most this many bytes of the file are returned (1 to 1048576).
    """
    if not 1 <= max_bytes <= DOWNLOAD_CAP:
        raise ToolError(f"Max bytes must be between 1 and {DOWNLOAD_CAP}.", "max_bytes")
    row = get_file(ctx.session, file_id)
    data = pdf_of(row)
    part = data[:max_bytes]
    return {"id": row.doc_id, "name": row.name, "content_type": "application/pdf", "size": len(data),
            "complete": len(part) == len(data), "content_base64": base64.b64encode(part).decode()}


@service(READ)
def ocr_pdf(ctx: ServiceContext, file_id: int) -> dict:
    """Read the text of a file's PDF, page by page, as a person reading the document would.

    Args:
        file_id: The file's id.
    """
    row = get_file(ctx.session, file_id)
    pages = pdf_text_pages(row)
    return {"id": row.doc_id, "name": row.name, "pages": len(pages), "text": "\n\n".join(pages)}
