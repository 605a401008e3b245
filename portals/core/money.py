"""Money as Decimal in code and as a canonical two-decimal string in storage and snapshots."""
from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from sqlalchemy import String
from sqlalchemy.types import TypeDecorator

from .errors import ToolError

CENT = Decimal("0.01")
MAX_AMOUNT = Decimal("1000000000000")  # a trillion: anything larger is a typo, not an invoice
_AMOUNT_TEXT = re.compile(r"^-?\$?-?[0-9][0-9,]*(\.[0-9]+)?$|^-?\$?-?\.[0-9]+$")


def canonical(value: Decimal | int | str) -> str:
    """The one spelling of an amount: "12345.67"."""
    return str(Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP))


def parse_amount(value: object, field: str = "amount", *, allow_negative: bool = False,
                 allow_zero: bool = True) -> Decimal:
    """Read an amount a person or a model typed ("12,345.67", "$12345", 12345) or refuse it clearly."""
    if isinstance(value, bool) or value is None:
        raise ToolError(f"{field} must be an amount such as 12345.67.", field)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ToolError(f"{field} must be a finite amount, not {value}.", field)
        text = repr(value)
    else:
        text = str(value).strip()
    if not _AMOUNT_TEXT.match(text):
        raise ToolError(f"{field} '{text[:40]}' is not an amount; write it like 12345.67.", field)
    cleaned = text.replace("$", "").replace(",", "")
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        raise ToolError(f"{field} '{text[:40]}' is not an amount; write it like 12345.67.", field) from None
    if abs(amount) >= MAX_AMOUNT:  # first: quantizing a 30-digit number overflows Decimal's context
        raise ToolError(f"{field} {text[:40]} is too large.", field)
    if amount != amount.quantize(CENT, rounding=ROUND_HALF_UP):
        raise ToolError(f"{field} {text[:40]} has more than two decimal places.", field)
    if amount < 0 and not allow_negative:
        raise ToolError(f"{field} cannot be negative ({canonical(amount)}).", field)
    if amount == 0 and not allow_zero:
        raise ToolError(f"{field} must be greater than zero.", field)
    return amount.quantize(CENT)


class Money(TypeDecorator):
    """A SQLAlchemy column type: Decimal in Python, canonical text in SQLite (never a float)."""

    impl = String(24)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        return canonical(value)

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        return Decimal(value)
