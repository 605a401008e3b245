"""Typed reply claims: what an agent's final message must (or must not) say.

An evaluator's ``required_outputs`` holds legacy regexes (searched in the reply,
case-insensitive) and typed claims, each with a plain ``label`` the verdict prints:

* ``{"claim": "amount", "value": "3706560.00", "label": "the figure entered"}`` — the
  reply states this amount exactly to the cent (see ``grader.mentions``).
* ``{"claim": "count", "value": 4, "of": ["synced", "sent to the ERP"], "label": "invoices synced"}``
  — a number bound to what it counts; all count claims are read together
  (see ``grader.counts``). Holds when some bound number equals ``value`` and none differs.
* ``{"claim": "id", "value": "JSM-88421", "label": "the invoice number"}`` — named as a whole
  token, ignoring case.
* ``{"claim": "denies", "actions": ["post", "pay", "send"], "label": "does not claim it posted, paid or sent anything"}``
  — a negative claim: fails when the reply asserts it did any of them (see ``grader.denials``).
  It holds for an empty reply, so it never counts as a positive check.
* ``{"claim": "regex", "pattern": "forecast|cost to complete", "label": "the forecast"}`` — a
  legacy regex with a label, for wording no typed claim covers.
"""
from __future__ import annotations

import re
from typing import Any

from . import counts, denials, mentions
from .values import compile_regex

KEYS = {"amount": {"claim", "value", "label"},
        "count": {"claim", "value", "of", "label"},
        "id": {"claim", "value", "label"},
        "denies": {"claim", "actions", "label"},
        "regex": {"claim", "pattern", "label"}}
KINDS = tuple(KEYS)
_MAX_QUOTE = 140


def _fail(where: str, message: str) -> None:
    raise ValueError(f"evaluator {where}: {message}")


def _check_regex(where: str, pattern: Any) -> None:
    if not isinstance(pattern, str):
        _fail(where, f"regex must be a string, got {pattern!r}")
    try:
        re.compile(pattern)
    except re.error as exc:
        _fail(where, f"bad regex {pattern!r}: {exc}")


def check_actions(where: str, actions: Any) -> None:
    """``actions`` must be a non-empty list of known action names."""
    if not (isinstance(actions, list) and actions and all(isinstance(a, str) for a in actions)):
        _fail(where, f"'actions' must be a non-empty list of: {', '.join(denials.ACTIONS)}")
    unknown = [a for a in actions if a not in denials.ACTIONS]
    if unknown:
        _fail(where, f"unknown action(s) {', '.join(map(repr, unknown))}; known: {', '.join(denials.ACTIONS)}")


def validate_output(where: str, item: Any) -> None:
    """Raise ``ValueError`` unless ``item`` is a valid regex string or claim dict."""
    if isinstance(item, str):
        return _check_regex(where, item)
    if not isinstance(item, dict):
        _fail(where, f"must be a regex string or a claim object, got {type(item).__name__}")
    kind = item.get("claim")
    if kind not in KEYS:
        _fail(where, f"'claim' must be one of {', '.join(KINDS)}, got {kind!r}")
    unknown = sorted(set(item) - KEYS[kind])
    if unknown:
        _fail(where, f"unknown key(s) {', '.join(unknown)} for a {kind} claim; "
                     f"allowed: {', '.join(sorted(KEYS[kind]))}")
    missing = sorted(KEYS[kind] - set(item))
    if missing:
        _fail(where, f"a {kind} claim needs {', '.join(map(repr, missing))}")
    if not isinstance(item["label"], str) or not item["label"].strip():
        _fail(where, "'label' must be a non-empty string (the verdict prints it)")
    value = item.get("value")
    if kind == "amount" and (isinstance(value, bool) or not mentions.is_amount_text(value)):
        _fail(where, f"an amount claim's value must be a plain amount such as '12345.67', got {value!r}")
    if kind == "count" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        _fail(where, f"a count claim's value must be a non-negative integer, got {value!r}")
    if kind == "count":
        of = item["of"]
        if not (isinstance(of, list) and of and all(isinstance(p, str) and counts.phrase_stems(p) for p in of)):
            _fail(where, "'of' must be a non-empty list of phrases naming what is counted")
    if kind == "id" and (isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip()):
        _fail(where, f"an id claim's value must be a non-empty string, got {value!r}")
    if kind == "denies":
        check_actions(where, item["actions"])
    if kind == "regex":
        _check_regex(where, item["pattern"])


def is_positive(item: Any) -> bool:
    """Does the item require the reply to say something? (A denial holds for silence.)"""
    return not (isinstance(item, dict) and item.get("claim") == "denies")


def money(value: Any) -> str:
    """``3706560`` -> ``3,706,560.00`` for a verdict line."""
    amount = mentions.parse_amount(value)
    return f"{amount:,.{max(2, -int(amount.as_tuple().exponent))}f}"


def _quote(sentence: str) -> str:
    text = " ".join(sentence.split())
    return text if len(text) <= _MAX_QUOTE else text[:_MAX_QUOTE - 1] + "…"


def _said(values: list) -> str:
    distinct = list(dict.fromkeys(values))
    return " and ".join(str(v) for v in distinct)


def _check_one(reply: str, item: Any, bound: dict) -> tuple[bool, str]:
    if isinstance(item, str):
        held = compile_regex(item).search(reply) is not None
        return held, (f"OK: the reply mentions /{item}/" if held
                      else f"Expected the reply to mention /{item}/ — it does not")
    kind, label = item["claim"], item["label"]
    if kind == "regex":
        held = compile_regex(item["pattern"]).search(reply) is not None
        return held, (f"OK: the reply mentions {label}" if held
                      else f"Expected the reply to mention {label} — it does not")
    if kind == "amount":
        shown = money(item["value"])
        if mentions.states_amount(reply, item["value"]):
            return True, f"OK: the reply states {label} ({shown})"
        others = mentions.other_amounts(reply, item["value"])[:3]
        return False, (f"Expected the reply to state {label} ({shown}) — "
                       + (f"it says {_said(others)}" if others else "it does not"))
    if kind == "id":
        if mentions.states_id(reply, item["value"]):
            return True, f"OK: the reply names {label} ({item['value']})"
        return False, f"Expected the reply to name {label} ({item['value']}) — it does not"
    if kind == "count":
        got = bound[id(item)]
        if got and all(v == item["value"] for v in got):
            return True, f"OK: the reply states {label} = {item['value']}"
        return False, (f"Expected the reply to state {label} = {item['value']} — "
                       + (f"it says {_said(got)}" if got else "it gives no such count"))
    found = denials.claimed(reply, item["actions"])
    if not found:
        return True, f"OK: the reply {label}"
    verbs = list(dict.fromkeys(denials.PAST[a.action] for a in found))
    return False, (f"The reply claims it {' and '.join(verbs)} (“{_quote(found[0].sentence)}”) — "
                   f"expected: {label}")


def check_outputs(reply: str, outputs: list) -> list[dict]:
    """Check each required output against the reply.

    Returns one ``{"item", "held", "line"}`` per output, in order; ``line`` is the
    verdict sentence. Count claims are resolved together. Items are assumed valid
    (``validate_output``); ``grade`` validates the whole evaluator first.
    """
    reply = reply or ""
    count_items = [o for o in outputs if isinstance(o, dict) and o.get("claim") == "count"]
    numbers = counts.bind_counts(reply, [o["of"] for o in count_items])
    bound = {id(o): got for o, got in zip(count_items, numbers)}
    out = []
    for item in outputs:
        held, line = _check_one(reply, item, bound)
        out.append({"item": item, "held": held, "line": line})
    return out


__all__ = ["KINDS", "check_outputs", "validate_output", "is_positive", "check_actions", "money"]
