"""Outlook write and guarded services. Drafts, moves, categories and read flags change the mailbox;
sending, replying and forwarding only validate and wait for a person's approval."""
from __future__ import annotations

import json
from typing import Literal

from sqlalchemy import func, select

from portals.core.dispatch import ServiceContext
from portals.core.errors import ToolError
from portals.core.ids import stable_id
from portals.core.tools import GUARDED, WRITE, Text, service

from .mailbox import OWNER_EMAIL, OWNER_NAME, addresses, dumps, full, get_message, plain_text
from .models import Message

Destination = Literal["Inbox", "Archive", "Deleted Items"]


def _subject(subject: str) -> str:
    text = " ".join(subject.split())
    if not text:
        raise ToolError("Subject is required.", "subject")
    return text


@service(WRITE)
def create_draft(ctx: ServiceContext, to: list[str], subject: str, body: Text,
                 cc: list[str] | None = None) -> dict:
    """Save a new message in Drafts. Nothing is sent; sending a draft is message.send.

    Args:
        to: Recipient email addresses, e.g. ["name@example.com"].
        subject: The subject line.
        body: The message text.
        cc: Optional copy recipients.
    """
    to_list = addresses(to, "to", required=True)
    cc_list = addresses(cc, "cc")
    clean_subject = _subject(subject)
    drafts = ctx.session.scalar(select(func.count()).select_from(Message).where(Message.is_draft == True))  # noqa: E712
    message_id = f"draft-{stable_id(ctx.app, 'draft', clean_subject, dumps(to_list), drafts)}"
    now = ctx.clock.iso()
    row = Message(message_id=message_id, folder="Drafts", from_name=OWNER_NAME, from_email=OWNER_EMAIL,
                  to_addrs=dumps(to_list), cc_addrs=dumps(cc_list), subject=clean_subject,
                  body=plain_text(body), received_at=now, created_at=now, is_read=True, is_draft=True,
                  categories="[]", has_attachments=False)
    ctx.session.add(row)
    ctx.session.flush()
    return full(ctx.session, row)


@service(WRITE)
def move_message(ctx: ServiceContext, message_id: str, destination: Destination) -> dict:
    """Move a message to another folder. Drafts can only go to Deleted Items.

    Args:
        message_id: The message's id.
        destination: Inbox, Archive or Deleted Items.
    """
    row = get_message(ctx.session, message_id)
    if row.folder == destination:
        raise ToolError(f"The message is already in {destination}.", "destination")
    if row.is_draft and destination != "Deleted Items":
        raise ToolError("A draft can only be moved to Deleted Items.", "destination")
    row.folder = destination
    return {"id": row.message_id, "folder": row.folder}


@service(WRITE)
def categorize_message(ctx: ServiceContext, message_id: str, categories: list[str]) -> dict:
    """Set a message's categories (replacing the ones it had); an empty list clears them.

    Args:
        message_id: The message's id.
        categories: Category names, e.g. ["AP - Needs coding", "Job 9999"].
    """
    row = get_message(ctx.session, message_id)
    clean: list[str] = []
    for name in categories or []:
        text = " ".join(name.split())
        if len(text) > 60:
            raise ToolError("A category name is at most 60 characters.", "categories")
        if text and text.lower() not in {c.lower() for c in clean}:
            clean.append(text)
    if len(clean) > 10:
        raise ToolError("A message can have at most 10 categories.", "categories")
    row.categories = dumps(clean)
    return {"id": row.message_id, "categories": clean}


@service(WRITE)
def mark_read(ctx: ServiceContext, message_id: str, is_read: bool = True) -> dict:
    """Mark a message read or unread.

    Args:
        message_id: The message's id.
        is_read: true to mark read, false to mark unread.
    """
    row = get_message(ctx.session, message_id)
    row.is_read = is_read
    return {"id": row.message_id, "is_read": row.is_read}


@service(GUARDED)
def send_message(ctx: ServiceContext, message_id: str | None = None, to: list[str] | None = None,
                 subject: str | None = None, body: Text | None = None, cc: list[str] | None = None) -> dict:
    """Send a draft, or a new message. Every outbound message waits for a person's approval.

    Args:
        message_id: The id of a draft to send. Leave out to send a new message from to/subject/body.
        to: Recipients of a new message.
        subject: Subject of a new message.
        body: Text of a new message.
        cc: Copy recipients of a new message.
    """
    if message_id:
        if to or subject or body or cc:
            raise ToolError("Give either a draft's message_id or to/subject/body, not both.", "message_id")
        row = get_message(ctx.session, message_id)
        if not row.is_draft:
            raise ToolError("Only a draft can be sent; reply to or forward a received message instead.",
                            "message_id")
        to_list = addresses(json.loads(row.to_addrs), "to", required=True)
        return {"action": "send draft", "message_id": row.message_id, "to": to_list,
                "cc": json.loads(row.cc_addrs), "subject": row.subject}
    return {"action": "send new message", "to": addresses(to, "to", required=True),
            "cc": addresses(cc, "cc"), "subject": _subject(subject or ""),
            "body": plain_text(body or "")}


@service(GUARDED)
def reply_message(ctx: ServiceContext, message_id: str, comment: Text, reply_all: bool = False) -> dict:
    """Reply to a received message. Waits for a person's approval; nothing is sent.

    Args:
        message_id: The message to reply to.
        comment: The reply text.
        reply_all: Also reply to everyone on To and Cc.
    """
    row = get_message(ctx.session, message_id)
    if row.is_draft:
        raise ToolError("You cannot reply to a draft; send or edit it instead.", "message_id")
    if not comment.strip():
        raise ToolError("Write the reply text.", "comment")
    to_list = [row.from_email]
    if reply_all:
        others = json.loads(row.to_addrs) + json.loads(row.cc_addrs)
        to_list += [a for a in others if a.lower() not in (OWNER_EMAIL.lower(), row.from_email.lower())]
    return {"action": "reply", "message_id": row.message_id, "to": to_list,
            "subject": f"RE: {row.subject}", "comment": plain_text(comment)}


@service(GUARDED)
def forward_message(ctx: ServiceContext, message_id: str, to: list[str], comment: Text | None = None) -> dict:
    """Forward a message, with its attachments. Waits for a person's approval; nothing is sent.

    Args:
        message_id: The message to forward.
        to: Recipient email addresses.
        comment: Optional text above the forwarded message.
    """
    row = get_message(ctx.session, message_id)
    return {"action": "forward", "message_id": row.message_id, "to": addresses(to, "to", required=True),
            "subject": f"FW: {row.subject}", "comment": plain_text(comment or "")}
