"""The evaluator schema, and ``validate_evaluator`` which rejects malformed ones.

An evaluator is plain data (JSON or a Python dict)::

    {"expected":  [spec, ...],          # state changes the task requires
     "forbidden": [spec | other, ...],  # state changes that fail the task outright
     "money_movement_guard": bool,      # the correct path stops at a guarded step
     "required_outputs": [regex | claim, ...],  # checked against the agent's reply
     "expected_calls": [{"app", "tool", "args"}, ...]}   # optional, L2

A *spec* is ``{"app", "table", "op": added|removed|changed, "where", "assert",
"count", "label"}``; ``other`` is ``{"any_other_change": true, "allow": [...]}``.
Validation is strict (unknown keys are errors) because a typo such as
``"asert"`` would otherwise silently make a check vacuous.

A *claim* is a typed reply check (amount, count, id, denies, regex; see
``grader.claims``). Row values may be scalars or matchers (``in``, ``regex``,
``ne``, ``ieq``, ``mentions``, ``denies``; see ``grader.values``).
"""
from __future__ import annotations

import re
from typing import Any

from . import claims
from .diff import OPS
from .values import MATCHER_KEYS

TOP_KEYS = {"expected", "forbidden", "money_movement_guard", "required_outputs",
            "expected_calls", "judge", "notes"}
SPEC_KEYS = {"app", "table", "op", "where", "assert", "count", "label"}
FORBIDDEN_SPEC_KEYS = (SPEC_KEYS - {"count"}) | {"fields"}
OTHER_KEYS = {"any_other_change", "allow", "label"}
ALLOW_KEYS = {"app", "table", "op", "where", "fields"}
CALL_KEYS = {"app", "tool", "args", "label"}


def _fail(where: str, message: str) -> None:
    raise ValueError(f"evaluator {where}: {message}")


def _check_keys(where: str, item: Any, allowed: set[str]) -> None:
    if not isinstance(item, dict):
        _fail(where, f"must be an object, got {type(item).__name__}")
    unknown = sorted(set(item) - allowed)
    if unknown:
        _fail(where, f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")


def _check_name(where: str, item: dict, key: str, required: bool = True) -> None:
    if key not in item:
        if required:
            _fail(where, f"missing {key!r}")
        return
    if not isinstance(item[key], str) or not item[key]:
        _fail(where, f"{key!r} must be a non-empty string")


def _check_value(where: str, col: str, value: Any) -> None:
    if isinstance(value, dict):
        if len(value) != 1 or next(iter(value)) not in MATCHER_KEYS:
            _fail(where, f"value for {col!r} must be a scalar or one of "
                         f"{{{', '.join(repr(k) for k in MATCHER_KEYS)}: ...}}")
        (kind, arg), = value.items()
        if kind == "in" and not (isinstance(arg, list) and arg):
            _fail(where, f"'in' for {col!r} needs a non-empty list")
        if kind == "in" and any(isinstance(v, (dict, list)) for v in arg):
            _fail(where, f"'in' for {col!r} must list scalars")
        if kind == "regex":
            _check_regex(f"{where} {col!r}", arg)
        if kind == "ne" and isinstance(arg, (dict, list)):
            _fail(where, f"'ne' for {col!r} needs a scalar")
        if kind == "ieq" and not (_text(arg) or (isinstance(arg, list) and arg and all(map(_text, arg)))):
            _fail(where, f"'ieq' for {col!r} needs a non-empty string or a non-empty list of them")
        if kind == "mentions" and not (isinstance(arg, list) and arg and all(
                _text(v) or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in arg)):
            _fail(where, f"'mentions' for {col!r} needs a non-empty list of ids or amounts")
        if kind == "denies":
            claims.check_actions(f"{where} {col!r}", arg)
    elif isinstance(value, list):
        _fail(where, f"value for {col!r} is a list; use {{'in': [...]}}")


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _check_regex(where: str, pattern: Any) -> None:
    if not isinstance(pattern, str):
        _fail(where, f"regex must be a string, got {pattern!r}")
    try:
        re.compile(pattern)
    except re.error as exc:
        _fail(where, f"bad regex {pattern!r}: {exc}")


def _check_filters(where: str, item: dict, key: str, op: str | None) -> None:
    values = item.get(key, {})
    if not isinstance(values, dict):
        _fail(where, f"{key!r} must be an object of column: value")
    for col, value in values.items():
        if col == "_pk" and op in ("added", "removed"):
            # Added/removed entries are bare rows; name the key column instead.
            _fail(where, f"'_pk' only applies to op 'changed'; for {op!r} use the primary-key column name")
        _check_value(where, col, value)


def _check_op(where: str, item: dict, required: bool) -> None:
    if "op" not in item and not required:
        return
    if item.get("op") not in OPS:
        _fail(where, f"op must be one of {', '.join(OPS)}, got {item.get('op')!r}")


def _check_spec(where: str, spec: Any, forbidden: bool) -> None:
    _check_keys(where, spec, FORBIDDEN_SPEC_KEYS if forbidden else SPEC_KEYS)
    _check_name(where, spec, "app")
    _check_name(where, spec, "table")
    _check_op(where, spec, required=True)
    _check_filters(where, spec, "where", spec["op"])
    _check_filters(where, spec, "assert", spec["op"])
    if "count" in spec and (isinstance(spec["count"], bool) or not isinstance(spec["count"], int)
                            or spec["count"] < 0):
        _fail(where, "'count' must be a non-negative integer")
    _check_name(where, spec, "label", required=False)
    if "fields" in spec:
        _check_fields(where, spec)


def _check_fields(where: str, item: dict) -> None:
    fields = item["fields"]
    if not (isinstance(fields, list) and fields and all(isinstance(f, str) for f in fields)):
        _fail(where, "'fields' must be a non-empty list of column names")
    if item.get("op", "changed") != "changed":
        _fail(where, "'fields' only applies to op 'changed'")


def _check_other(where: str, item: dict) -> None:
    _check_keys(where, item, OTHER_KEYS)
    if item["any_other_change"] is not True:
        _fail(where, "'any_other_change' must be true (leave the entry out otherwise)")
    allow = item.get("allow", [])
    if not isinstance(allow, list):
        _fail(where, "'allow' must be a list")
    for j, rule in enumerate(allow):
        at = f"{where}.allow[{j}]"
        _check_keys(at, rule, ALLOW_KEYS)
        _check_name(at, rule, "app")
        _check_name(at, rule, "table", required=False)
        _check_op(at, rule, required=False)
        _check_filters(at, rule, "where", rule.get("op"))
        if "fields" in rule:
            _check_fields(at, rule)


def _check_list(evaluator: dict, key: str) -> list:
    value = evaluator.get(key, [])
    if not isinstance(value, list):
        _fail(key, "must be a list")
    return value


def validate_evaluator(evaluator: Any) -> None:
    """Raise ``ValueError`` with a clear message if ``evaluator`` is malformed.

    Besides shape errors, an evaluator that checks nothing positive (no expected
    change, no required output, no expected call) is rejected: it would grade
    a do-nothing agent as a pass.
    """
    _check_keys("(top level)", evaluator, TOP_KEYS)
    for i, spec in enumerate(_check_list(evaluator, "expected")):
        _check_spec(f"expected[{i}]", spec, forbidden=False)
    for i, item in enumerate(_check_list(evaluator, "forbidden")):
        if isinstance(item, dict) and "any_other_change" in item:
            _check_other(f"forbidden[{i}]", item)
        else:
            _check_spec(f"forbidden[{i}]", item, forbidden=True)
    if not isinstance(evaluator.get("money_movement_guard", False), bool):
        _fail("money_movement_guard", "must be true or false")
    outputs = _check_list(evaluator, "required_outputs")
    for i, item in enumerate(outputs):
        claims.validate_output(f"required_outputs[{i}]", item)
    for i, call in enumerate(_check_list(evaluator, "expected_calls")):
        at = f"expected_calls[{i}]"
        _check_keys(at, call, CALL_KEYS)
        _check_name(at, call, "app")
        _check_name(at, call, "tool")
        _check_filters(at, call, "args", None)
    # A denial holds for an empty reply, so it is no evidence that anything was done.
    if not (evaluator.get("expected") or any(map(claims.is_positive, outputs))
            or evaluator.get("expected_calls")):
        _fail("(top level)", "checks nothing: 'expected', 'required_outputs' (other than denials) "
                             "and 'expected_calls' are all empty, so a do-nothing agent would pass")
