"""Finding a stated amount or an id in free text, the way a controller reads it.

* An **amount** is stated when the text holds that sum exactly to the cent in a
  common money format — ``3706560.00``, ``3,706,560.00``, ``$3,706,560.00``,
  ``USD 3,706,560.00``, or a whole ``$3,706,560`` when the cents are 00. The
  figure must stand alone: ``13,706,560.00``, ``3,706,560.99`` and
  ``3706560.001`` are other numbers, and the ``88421`` in ``JSM-88421`` is part
  of an id. A leading minus (or accounting parentheses) makes it negative.
* An **id** is stated when the text holds it case-insensitively as a whole token:
  ``JSM-884210`` and ``XJSM-88421`` are other ids. Any dash may stand for a dash.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

# A money figure. The look-behind keeps it from starting inside a word or an id
# (``JSM-88421``) or inside a longer number; the look-ahead from ending inside one.
_MONEY = re.compile(r"""
    (?<![\w.,/$])(?<![\w][-–—])
    (?P<neg>[-−])?
    (?P<cur>(?:USD|US\$|\$|usd)\s?)?
    (?P<whole>\d{1,3}(?:,\d{3})+|\d+)
    (?P<frac>\.\d+)?
    (?!\w|[.,]\d|[-/]\d)
""", re.VERBOSE)

_PLAIN_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_DASHES = "-‐‑‒–—−"


def parse_amount(value) -> Decimal:
    """The exact Decimal of an amount given in an evaluator (``"3706560.00"``)."""
    try:
        return Decimal(str(value).replace(",", "").replace("$", "").strip())
    except InvalidOperation:
        raise ValueError(f"{value!r} is not an amount (write it like 12345.67)") from None


def is_amount_text(value) -> bool:
    """True for a plain number such as ``14350.00`` (what ``mentions`` reads as an amount)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) or (
        isinstance(value, str) and bool(_PLAIN_NUMBER.match(value.strip())))


def amounts_in(text: str) -> list[tuple[Decimal, str, tuple[int, int], bool]]:
    """Every money-like figure in ``text``: ``(signed value, as written, span, in parentheses)``.

    Parentheses are reported, not applied: in a chat reply "(3,706,560.00)" is an aside far
    more often than an accountant's negative.
    """
    out = []
    for m in _MONEY.finditer(text or ""):
        value = Decimal(m.group("whole").replace(",", "") + (m.group("frac") or ""))
        start, end = m.span()
        wrapped = text[:start].rstrip().endswith("(") and text[end:].lstrip().startswith(")")
        out.append((-value if m.group("neg") else value, m.group(0).strip(), (start, end), wrapped))
    return out


def amount_spans(text: str) -> list[tuple[int, int]]:
    """Spans of figures that read as money (a currency sign, grouping or a fraction)."""
    return [span for _, written, span, _ in amounts_in(text)
            if "$" in written or "," in written or "." in written or "USD" in written.upper()]


def states_amount(text: str, value) -> bool:
    """Does ``text`` state the amount ``value`` exactly (see the module docstring)?"""
    want = parse_amount(value)
    return any(found == want or (want < 0 and wrapped and found == -want)
               for found, _, _, wrapped in amounts_in(text))


def other_amounts(text: str, value) -> list[str]:
    """The figures ``text`` states that are not ``value``, as written (for a verdict)."""
    want = parse_amount(value)
    return [written for found, written, _, _ in amounts_in(text)
            if found != want and ("." in written or "," in written or "$" in written)]


@lru_cache(maxsize=512)
def _id_pattern(value: str) -> re.Pattern:
    parts = [f"[{_DASHES}]" if ch in _DASHES else re.escape(ch) for ch in value.strip()]
    return re.compile(r"(?<![A-Za-z0-9])(?<![A-Za-z0-9][-_])" + "".join(parts)
                      + r"(?![A-Za-z0-9]|[-_][A-Za-z0-9]|\.\d)", re.IGNORECASE)


def states_id(text: str, value) -> bool:
    """Does ``text`` name the id ``value`` as a whole token, ignoring case?"""
    return bool(str(value).strip()) and _id_pattern(str(value)).search(text or "") is not None


def mentions(text: str, item) -> bool:
    """An amount-looking item is matched by the amount rule, anything else as an id."""
    return states_amount(text, item) if is_amount_text(item) else states_id(text, item)
