"""Outlook read services: folders, the message list, a message and its attachments. Reading never marks read."""
from __future__ import annotations

from sqlalchemy import case, func, or_, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import NotFound, ToolError
from portals.core.tools import READ, service

from .mailbox import FOLDERS, check_paging, full, get_message, summary
from .models import Attachment, Message


@service(READ)
def list_mail_folders(ctx: ServiceContext) -> dict:
    """List the mail folders with how many messages, and how many unread, each holds."""
    rows = ctx.session.execute(select(Message.folder, func.count(), func.sum(case((Message.is_read == False, 1), else_=0)))  # noqa: E712
                               .group_by(Message.folder)).all()
    counts = {folder: (total, int(unread or 0)) for folder, total, unread in rows}
    return {"items": [{"name": f, "total": counts.get(f, (0, 0))[0], "unread": counts.get(f, (0, 0))[1]}
                      for f in FOLDERS]}


@service(READ)
def list_messages(ctx: ServiceContext, folder: str = "Inbox", search: str | None = None,
                  from_address: str | None = None, unread_only: bool = False,
                  page: int = 1, per_page: int = 25) -> dict:
    """List messages in a mail folder, newest first, as summaries (no bodies; use messages.get for one).

    Args:
        folder: Inbox, Drafts, Sent Items, Archive or Deleted Items.
        search: Words to find in the subject, sender or body, e.g. "ACME-0001".
        from_address: Only messages from this sender address (or part of it), e.g. "example.com".
        unread_only: Only unread messages.
        page: Page number, starting at 1.
        per_page: Messages per page, 1 to 100.
    """
    if folder not in FOLDERS:
        raise ToolError(f"Folder must be one of: {', '.join(FOLDERS)}.", "folder")
    check_paging(page, per_page)
    stmt = select(Message).where(Message.folder == folder)
    for word in (search or "").split():
        pattern = f"%{word}%"
        stmt = stmt.where(or_(Message.subject.ilike(pattern), Message.from_name.ilike(pattern),
                              Message.from_email.ilike(pattern), Message.body.ilike(pattern)))
    if from_address and from_address.strip():
        stmt = stmt.where(Message.from_email.ilike(f"%{from_address.strip()}%"))
    if unread_only:
        stmt = stmt.where(Message.is_read == False)  # noqa: E712
    total = ctx.session.scalar(select(func.count()).select_from(stmt.subquery()))
    rows = ctx.session.scalars(stmt.order_by(Message.received_at.desc(), Message.message_id)
                               .offset((page - 1) * per_page).limit(per_page)).all()
    return {"folder": folder, "items": [summary(r) for r in rows], "page": page, "per_page": per_page,
            "total": total, "pages": (total + per_page - 1) // per_page}


@service(READ)
def get_message_detail(ctx: ServiceContext, message_id: str) -> dict:
    """Get one message in full: recipients, body, categories and its attachments. Does not mark it read.

    Args:
        message_id: The message's id from messages.list.
    """
    return full(ctx.session, get_message(ctx.session, message_id))


@service(READ)
def get_attachment(ctx: ServiceContext, message_id: str, attachment_id: int) -> dict:
    """Get an attachment of a message: its name and the Box file (doc_id) it is stored as; open that file in Box.

    Args:
        message_id: The message's id.
        attachment_id: The attachment's id from messages.get.
    """
    msg = get_message(ctx.session, message_id)
    row = ctx.session.get(Attachment, attachment_id)
    if row is None or row.message_id != msg.message_id:
        raise NotFound(f"Message {msg.message_id} has no attachment {attachment_id}.", "attachment_id")
    return {"id": row.id, "message_id": msg.message_id, "name": row.name, "doc_id": row.doc_id,
            "note": "The content is the Box file with this doc_id; read it with Box's ocr_pdf."}
