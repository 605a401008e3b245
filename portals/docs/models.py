"""The document store's state: a folder tree, files (documents of the book plus uploads) and metadata."""
from __future__ import annotations

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Folder(Base):
    """A folder; the root "All Files" folder has id 0, as in Box."""

    __tablename__ = "folders"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    path: Mapped[str] = mapped_column(String(500), unique=True)
    parent_id: Mapped[int | None] = mapped_column(Integer, index=True)
    name: Mapped[str] = mapped_column(String(255))


class File(Base):
    """A stored document. `fields_json` holds what the PDF shows; uploads keep their text in `content`."""

    __tablename__ = "files"

    doc_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    folder_id: Mapped[int] = mapped_column(Integer, index=True)
    name: Mapped[str] = mapped_column(String(255), index=True)
    kind: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[str] = mapped_column(String(20))
    size: Mapped[int] = mapped_column(Integer)
    fields_json: Mapped[str] = mapped_column(Text, default="{}")
    content: Mapped[str | None] = mapped_column(Text)


class MetadataValue(Base):
    """One key of a metadata template instance on a file (Box metadata)."""

    __tablename__ = "metadata"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    file_id: Mapped[int] = mapped_column(Integer, index=True)
    template: Mapped[str] = mapped_column(String(60))
    key: Mapped[str] = mapped_column(String(60))
    value: Mapped[str] = mapped_column(String(500))
