"""Build the controller's mailbox from the book's mail."""
from __future__ import annotations

from portals.core.ids import stable_id

from .mailbox import FOLDERS, dumps
from .models import Attachment, Message


def seed(session, book, rng, clock, spec) -> None:
    for mail in sorted(book.get("mail", []), key=lambda m: str(m["message_id"])):
        message_id = str(mail["message_id"])
        at = mail.get("received_at") or mail.get("created_at") or clock.iso()
        folder = mail.get("folder") if mail.get("folder") in FOLDERS else "Inbox"
        attachments = mail.get("attachments") or []
        session.add(Message(
            message_id=message_id, folder=folder, from_name=mail.get("from_name") or "",
            from_email=mail.get("from_email") or "", to_addrs=dumps(list(mail.get("to") or [])),
            cc_addrs=dumps(list(mail.get("cc") or [])), subject=mail.get("subject") or "",
            body=mail.get("body") or "", received_at=at, created_at=at,
            is_read=bool(mail.get("is_read", folder != "Inbox")), is_draft=folder == "Drafts",
            categories=dumps(list(mail.get("categories") or [])), has_attachments=bool(attachments)))
        for index, att in enumerate(attachments):
            doc = att.get("doc_id")
            session.add(Attachment(id=stable_id(spec.name, "attachment", message_id, index),
                                   message_id=message_id, name=att.get("name") or f"attachment-{index + 1}",
                                   doc_id=int(doc) if doc is not None else None))
    session.flush()
