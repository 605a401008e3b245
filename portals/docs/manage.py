"""Box write and guarded services: upload, metadata, and the sharing and signing actions a person approves."""
from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Literal

from sqlalchemy import select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.tools import GUARDED, WRITE, MaxLen, Text, service

from .files import file_summary, get_file, get_folder
from .models import File, MetadataValue
from .pdf import render_pdf

UploadText = Annotated[str, MaxLen(20000)]
Template = Literal["apInvoice", "contract", "compliance", "lienWaiver"]
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
_EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")
# Characters that change how a name is displayed without being seen: bidirectional overrides
# and isolates (U+202E shows "invoice\u202efdp.exe" as "invoiceexe.pdf"), zero-width marks, BOM.
_INVISIBLE = set("\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                 "\u2060\u2066\u2067\u2068\u2069\ufeff")


def _spoofing(name: str) -> bool:
    return any(ch in _INVISIBLE or unicodedata.category(ch) in ("Zl", "Zp") for ch in name)


def _email(value: str, field: str) -> str:
    text = value.strip()
    if not _EMAIL.match(text):
        raise ToolError(f"{text[:60]!r} is not an email address.", field)
    return text


@service(WRITE)
def upload_file(ctx: ServiceContext, folder_id: int, name: str, content: UploadText) -> dict:
    """Upload a new file into a folder. Its text becomes a PDF that others can open and read.

    Args:
        folder_id: The folder to upload into; 0 is "{root}".
        name: The file name, e.g. "Reconciliation notes 2026-06.pdf". Unique within the folder.
        content: The text of the file.
    """
    folder = get_folder(ctx.session, folder_id)
    clean = unicodedata.normalize("NFC", name.strip())  # one spelling of é, so one name
    if not clean:
        raise ToolError("File name is required.", "name")
    if "/" in clean or "\\" in clean or len(clean) > 255:
        raise ToolError("A file name cannot contain / or \\ and must be at most 255 characters.", "name")
    # Control characters would end up in the download's Content-Disposition header, and "." or
    # ".." are path parts, not names.
    if clean in (".", "..") or any(ord(ch) < 32 or ord(ch) == 127 for ch in clean):
        raise ToolError("A file name cannot be . or .. or contain control characters such as line breaks.",
                        "name")
    if _spoofing(clean):
        raise ToolError("A file name cannot contain invisible or direction-changing characters "
                        "(such as U+202E), which make it display as a different name.", "name")
    if not content.strip():
        raise ToolError("The file has no content.", "content")
    clash = ctx.session.scalar(select(File).where(File.folder_id == folder.id, File.name == clean))
    if clash is not None:
        raise ToolError(f"A file named {clean} already exists in {folder.path}.", "name")
    created = ctx.clock.iso()
    row = File(doc_id=stable_id(ctx.app, "file", folder.id, clean), folder_id=folder.id, name=clean,
               kind="upload", created_at=created, fields_json="{}", content=content,
               size=len(render_pdf(clean, "upload", created, {}, content)))
    ctx.session.add(row)
    ctx.session.flush()
    return {**file_summary(row, folder.path), "uploaded": True}


@service(WRITE)
def apply_metadata(ctx: ServiceContext, file_id: int, template: Template, key: str, value: str) -> dict:
    """Set one key of a metadata template on a file (creates the instance or replaces the key's value).

    Args:
        file_id: The file's id.
        template: The metadata template: apInvoice, contract, compliance or lienWaiver.
        key: The field of the template, e.g. "status", "job" or "vendorId" (letters, digits, _).
        value: The value to store, e.g. "Needs review".
    """
    row = get_file(ctx.session, file_id)
    if not _KEY.match(key.strip()):
        raise ToolError("A metadata key starts with a letter and has only letters, digits and _ "
                        "(at most 40).", "key")
    if not value.strip():
        raise ToolError("A metadata value is required.", "value")
    key = key.strip()
    ident = stable_id(ctx.app, "metadata", row.doc_id, template, key)
    entry = ctx.session.get(MetadataValue, ident)
    if entry is None:
        entry = MetadataValue(id=ident, file_id=row.doc_id, template=template, key=key, value=value.strip())
        ctx.session.add(entry)
    else:
        entry.value = value.strip()
    ctx.session.flush()
    return {"file_id": row.doc_id, "template": template, "key": key, "value": entry.value}


@service(GUARDED)
def create_shared_link(ctx: ServiceContext, file_id: int,
                       access: Literal["open", "company", "collaborators"] = "open") -> dict:
    """Create a shared link to a file. Sharing outside the company needs a person's approval.

    Args:
        file_id: The file's id.
        access: Who the link works for: open (anyone), company, or collaborators.
    """
    row = get_file(ctx.session, file_id)
    return {"action": "create shared link", "file": file_summary(row), "access": access}


@service(GUARDED)
def create_collaboration(ctx: ServiceContext, item_id: int, email: str,
                         item_type: Literal["file", "folder"] = "folder",
                         role: Literal["editor", "viewer", "previewer", "uploader"] = "viewer") -> dict:
    """Invite someone to collaborate on a folder or file. Needs a person's approval.

    Args:
        item_id: The folder's or file's id.
        email: The collaborator's email address.
        item_type: "folder" or "file".
        role: editor, viewer, previewer or uploader.
    """
    item = get_folder(ctx.session, item_id) if item_type == "folder" else get_file(ctx.session, item_id)
    name = item.path if item_type == "folder" else item.name
    return {"action": "invite collaborator", "item_type": item_type, "item_id": item_id,
            "item": name, "email": _email(email, "email"), "role": role}


@service(GUARDED)
def create_sign_request(ctx: ServiceContext, file_id: int, signer_email: str,
                        message: Text | None = None) -> dict:
    """Send a file for signature with Box Sign. Needs a person's approval.

    Args:
        file_id: The file to be signed.
        signer_email: The signer's email address.
        message: An optional note to the signer.
    """
    row = get_file(ctx.session, file_id)
    return {"action": "request signature", "file": file_summary(row),
            "signer_email": _email(signer_email, "signer_email"), "message": message or ""}

