"""Excel's state: workbooks in the PM's OneDrive, their worksheets, every non-empty cell, and tables.

A workbook is kept as its cells, one row each, so a written cell shows in the episode's diff by its
address; the .xlsx file itself is rebuilt from the cells (xlsx.py), byte for byte the same each time.
"""
from __future__ import annotations

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class Workbook(Base):
    __tablename__ = "workbooks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(255), index=True)
    folder: Mapped[str] = mapped_column(String(300))
    owner: Mapped[str] = mapped_column(String(200))
    modified_at: Mapped[str] = mapped_column(String(20))


class Worksheet(Base):
    __tablename__ = "worksheets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    workbook_id: Mapped[int] = mapped_column(Integer, index=True)
    name: Mapped[str] = mapped_column(String(31))
    position: Mapped[int] = mapped_column(Integer)


class Cell(Base):
    """One non-empty cell. `value` is what the cell shows as canonical text (numbers as written
    decimals); a formula cell keeps its formula and its last calculated value."""

    __tablename__ = "cells"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    worksheet_id: Mapped[int] = mapped_column(Integer, index=True)
    address: Mapped[str] = mapped_column(String(12))
    row: Mapped[int] = mapped_column(Integer)
    col: Mapped[int] = mapped_column(Integer)
    value_type: Mapped[str] = mapped_column(String(10))  # string | number | boolean
    value: Mapped[str] = mapped_column(Text, default="")
    formula: Mapped[str | None] = mapped_column(Text)
    number_format: Mapped[str] = mapped_column(String(40), default="General")


class Table(Base):
    """An Excel table (ListObject): a header row and data rows over `ref`, e.g. "A1:F9"."""

    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    worksheet_id: Mapped[int] = mapped_column(Integer, index=True)
    name: Mapped[str] = mapped_column(String(100))
    ref: Mapped[str] = mapped_column(String(20))
