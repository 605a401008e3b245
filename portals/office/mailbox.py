"""Lookups, address rules and row shapes shared by Outlook's services."""
from __future__ import annotations

import json
import re

from sqlalchemy import select

from portals.core.errors import NotFound, ToolError

from .models import Attachment, Message

FOLDERS = ("Inbox", "Drafts", "Sent Items", "Archive", "Deleted Items")
MAX_PER_PAGE = 100
_EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$")


def dumps(items: list) -> str:
    return json.dumps(items, separators=(",", ":"), ensure_ascii=False)


def addresses(values: list[str] | None, field: str, required: bool = False) -> list[str]:
    """One spelling of a recipient list, whether typed "a@x.com; b@y.com" or given as a list.

    Entries are split on commas and semicolons, trimmed, checked, and de-duplicated ignoring case
    (first spelling kept), in the order given.
    """
    out: list[str] = []
    seen: set[str] = set()
    for value in values or []:
        for part in re.split(r"[;,]", value):
            text = part.strip().strip("<>").strip()
            if not text:
                continue
            if not _EMAIL.match(text):
                raise ToolError(f"{text[:60]!r} is not an email address.", field)
            if text.lower() not in seen:
                seen.add(text.lower())
                out.append(text)
    if required and not out:
        raise ToolError(f"Add at least one recipient in {field.capitalize()}.", field)
    if len(out) > 100:
        raise ToolError(f"{field.capitalize()} has more than 100 recipients.", field)
    return out


def get_message(session, message_id: str) -> Message:
    row = session.get(Message, message_id.strip())
    if row is None:
        raise NotFound(f"There is no message with id {message_id[:80]!r}.", "message_id")
    return row


def attachments_of(session, message_id: str) -> list[dict]:
    rows = session.scalars(select(Attachment).where(Attachment.message_id == message_id)
                           .order_by(Attachment.name, Attachment.id))
    return [{"id": a.id, "name": a.name, "doc_id": a.doc_id} for a in rows]


def summary(row: Message) -> dict:
    return {"id": row.message_id, "folder": row.folder, "from_name": row.from_name,
            "from_email": row.from_email, "to": json.loads(row.to_addrs), "subject": row.subject,
            "received_at": row.received_at, "is_read": row.is_read, "is_draft": row.is_draft,
            "categories": json.loads(row.categories), "has_attachments": row.has_attachments,
            "preview": " ".join(row.body.split())[:120]}


def full(session, row: Message) -> dict:
    return {**summary(row), "cc": json.loads(row.cc_addrs), "body": row.body, "created_at": row.created_at,
            "attachments": attachments_of(session, row.message_id)}


OWNER_NAME, OWNER_EMAIL = "Controller", "controller@companyA.com"


def check_paging(page: int, per_page: int) -> None:
    if page < 1:
        raise ToolError("Page must be 1 or more.", "page")
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise ToolError(f"Per page must be between 1 and {MAX_PER_PAGE}.", "per_page")


def plain_text(body: str) -> str:
    """Browsers post line breaks as CRLF; store one spelling so form and tool agree."""
    return body.replace("\r\n", "\n").replace("\r", "\n")
