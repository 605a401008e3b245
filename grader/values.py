"""How the grader compares a value in a row with a value in an evaluator.

Every value is first reduced to a *canonical string*, so an integer primary key
in the database and a string in a task file never disagree:

* ``None`` -> ``""``; ``True``/``False`` -> ``"true"``/``"false"``;
  numbers -> ``str`` (floats via their shortest ``repr``).
* Two money-like strings (``"14350"``, ``"14350.00"``, ``"-3.5"``) compare as
  ``Decimal`` numbers, so ``"14350" == "14350.00" == 14350.0``. The comparison is
  exact: quantising to two places would make a rate of ``"0.0825"`` equal
  ``"0.08"``, and money in our apps is stored with two places anyway.
* Identifier-like strings with leading zeros (``"007"``) are *not* numbers, so
  they only equal themselves.

An evaluator value may also be a *matcher*, a one-key dict:
``{"in": [v, ...]}``, ``{"regex": "..."}`` (``re.search``, case-insensitive, on the
canonical string), ``{"ne": v}``, or, for what people type:

* ``{"ieq": "name@example.com"}`` — equal after case-folding and trimming (ids and
  addresses the product itself treats case-insensitively). A list column (a JSON
  list, or values joined by commas/semicolons) must hold exactly the listed
  elements: ``{"ieq": "a@x.com"}`` fails on ``["a@x.com", "b@x.com"]``.
* ``{"mentions": ["ACME-0001", "12345.67"]}`` — a text column names every item: ids
  as whole tokens, amounts exactly to the cent in any money format.
* ``{"denies": ["post", "pay"]}`` — a text column claims none of these actions
  (negated or pending mentions such as "not yet posted" do not count).
"""
from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from . import denials, mentions

MATCHER_KEYS = ("in", "regex", "ne", "ieq", "mentions", "denies")

# Money-like: optional sign, no leading zeros (those are ids), optional fraction.
_NUMBER = re.compile(r"^-?(0|[1-9]\d*)(\.\d+)?$")


def canon(value: Any) -> str:
    """Return the canonical string form of a JSON scalar."""
    if value is None:
        return ""
    if isinstance(value, bool):  # before int: bool is a subclass of int
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):
        return str(value)
    return str(value)


def _as_decimal(text: str) -> Decimal | None:
    if not _NUMBER.match(text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:  # pragma: no cover - the regex already guards this
        return None


def values_equal(a: Any, b: Any) -> bool:
    """True when two scalars are equal under the canonical-string rules."""
    ca, cb = canon(a), canon(b)
    if ca == cb:
        return True
    da, db = _as_decimal(ca), _as_decimal(cb)
    return da is not None and db is not None and da == db


@lru_cache(maxsize=1024)
def compile_regex(pattern: str) -> re.Pattern:
    """Compile a matcher / required-output regex (case-insensitive), cached."""
    return re.compile(pattern, re.IGNORECASE)


def is_matcher(expected: Any) -> bool:
    """True when an evaluator value is a matcher dict rather than a scalar."""
    return isinstance(expected, dict)


def value_matches(actual: Any, expected: Any) -> bool:
    """Does a row value satisfy an evaluator value (scalar or matcher)?"""
    if not is_matcher(expected):
        return values_equal(actual, expected)
    (kind, arg), = expected.items()
    if kind == "in":
        return any(values_equal(actual, v) for v in arg)
    if kind == "regex":
        return compile_regex(arg).search(canon(actual)) is not None
    if kind == "ne":
        return not values_equal(actual, arg)
    if kind == "ieq":
        return ieq(actual, arg)
    if kind == "mentions":
        return all(mentions.mentions(canon(actual), item) for item in arg)
    if kind == "denies":
        return not denials.claimed(canon(actual), arg)
    raise ValueError(f"unknown matcher {kind!r}; use one of {', '.join(MATCHER_KEYS)}")


def _elements(value: Any) -> list[str]:
    """The case-folded elements of a list, a JSON list string or a comma-joined string."""
    if isinstance(value, (list, tuple)):
        items = [canon(v) for v in value]
    else:
        text = canon(value).strip()
        items = None
        if text.startswith("["):
            try:
                loaded = json.loads(text)
                items = [canon(v) for v in loaded] if isinstance(loaded, list) else None
            except ValueError:
                items = None
        if items is None:
            items = re.split(r"[,;]", text)
    return sorted(i.strip().casefold() for i in items if i.strip())


def ieq(actual: Any, expected: Any) -> bool:
    """Case-insensitive equality; list-like values must hold exactly the same elements."""
    if not isinstance(expected, (list, tuple)) and not isinstance(actual, (list, tuple)) \
            and canon(actual).strip().casefold() == canon(expected).strip().casefold():
        return True
    return _elements(actual) == _elements(expected)


def describe_expected(expected: Any) -> str:
    """Render an evaluator value for a verdict line: ``14350.00``, ``one of a/b``."""
    if not is_matcher(expected):
        return canon(expected) or "(empty)"
    (kind, arg), = expected.items()
    if kind == "in":
        return "one of " + "/".join(canon(v) or "(empty)" for v in arg)
    if kind == "regex":
        return f"matching /{arg}/"
    if kind == "ieq":
        shown = ", ".join(canon(v) for v in arg) if isinstance(arg, list) else canon(arg)
        return f"{shown or '(empty)'} (any case)"
    if kind == "mentions":
        return "text naming " + " and ".join(canon(v) for v in arg)
    if kind == "denies":
        return "text not claiming it " + " or ".join(denials.PAST[a] for a in arg)
    return f"anything but {canon(arg) or '(empty)'}"


def describe_actual(value: Any) -> str:
    """Render a row value for a verdict line."""
    return canon(value) or "(empty)"
