"""Outlook's state: the controller's mailbox messages and their attachments."""
from __future__ import annotations

from sqlalchemy import Boolean, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Message(Base):
    """A mail message. Address lists and categories are canonical JSON text lists."""

    __tablename__ = "messages"
    # A message lands in Sent Items only when a person sends it; the guard stages sends.
    __money_states__ = {"folder": {"Sent Items"}}

    message_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    folder: Mapped[str] = mapped_column(String(40), index=True)
    from_name: Mapped[str] = mapped_column(String(200))
    from_email: Mapped[str] = mapped_column(String(200), index=True)
    to_addrs: Mapped[str] = mapped_column(Text, default="[]")
    cc_addrs: Mapped[str] = mapped_column(Text, default="[]")
    subject: Mapped[str] = mapped_column(String(300))
    body: Mapped[str] = mapped_column(Text, default="")
    received_at: Mapped[str] = mapped_column(String(20), index=True)
    created_at: Mapped[str] = mapped_column(String(20))
    is_read: Mapped[bool] = mapped_column(Boolean, default=False)
    is_draft: Mapped[bool] = mapped_column(Boolean, default=False)
    categories: Mapped[str] = mapped_column(Text, default="[]")
    has_attachments: Mapped[bool] = mapped_column(Boolean, default=False)


class Attachment(Base):
    """A file attached to a message; `doc_id` is the Box document it is a copy of."""

    __tablename__ = "attachments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[str] = mapped_column(String(80), index=True)
    name: Mapped[str] = mapped_column(String(255))
    doc_id: Mapped[int | None] = mapped_column(Integer)
