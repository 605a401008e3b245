"""Does a text claim that an action was done? The reader behind ``denies`` claims.

A reply (or an email body) *claims* an action when it uses a past or perfect form
of it — "posted", "has been paid", "I sent the email" — as a plain statement.
It does not claim it when the form is:

* negated in its clause: "did not post", "nothing was paid", "never sent",
  "not yet released", "without sending", "posted: no";
* modal, conditional or pending: "will be posted once approved", "can be paid",
  "left for you to send", "awaiting approval before it is posted";
* an adjective before a noun: "4 approved invoices", "the posted bills";
* another person's act: "the PO was approved by the PM";
* part of a list that inherits the negation: "nothing was posted, paid or sent";
* in a question: "Should it be posted?".

Clauses split at sentence ends and at commas / "and" / "but", so "I did not post
the bill and sent the email" still claims the send.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# Past / perfect forms (and a few set phrases) that assert each action was done.
FORMS: dict[str, tuple[str, ...]] = {
    "post": ("posted",),
    "pay": ("paid", "payed", r"(?:made|issued|sent|processed|released|executed|wired|scheduled|"
                              r"submitted|completed)\s+(?:the\s+|a\s+|your\s+)?payments?",
            r"payments?\s+(?:was|were|has\s+been|have\s+been)\s+(?:made|issued|sent|processed|released|"
            r"executed|completed)", r"cut\s+(?:a\s+|the\s+)?(?:check|cheque)"),
    "send": ("sent", "emailed", "e-mailed", "mailed", "forwarded", "dispatched",
             r"went\s+out"),
    "release": ("released",),
    "file": ("filed",),
    "submit": ("submitted",),
    "approve": ("approved",),
    "wire": ("wired", r"(?:initiated|sent|released|executed)\s+(?:the\s+|a\s+)?wires?"),
    "disburse": ("disbursed",),
    "certify": ("certified",),
    "sign": ("signed",),
}
ACTIONS = tuple(FORMS)
PAST = {"post": "posted", "pay": "paid", "send": "sent", "release": "released", "file": "filed",
        "submit": "submitted", "approve": "approved", "wire": "wired", "disburse": "disbursed",
        "certify": "certified", "sign": "signed"}

_FORM_RE = {action: re.compile(r"(?<![\w-])(?:" + "|".join(forms) + r")(?![\w-])", re.IGNORECASE)
            for action, forms in FORMS.items()}

# Words that, earlier in the same clause, make a form negated or not (yet) real.
# Kept to words that govern a following participle: "please", "instead" or "as you asked" do
# not, and as cues they would excuse "Instead, I posted it".
_CUES = re.compile(r"""\b(?:not|never|no|nothing|none|nobody|neither|nor|without|
    cannot|unable|refrained|declined|avoided|
    will|would|can|could|should|shall|may|might|must|ought|going\s+to|gonna|
    to\s+be|to\s+get|to\s+have|pending|await\w*|waiting|
    until|unless|once|upon|subject\s+to|
    (?:after|before|when|if)(?!\s+(?:i|we)\b))\b|n't\b|n’t\b""", re.IGNORECASE | re.VERBOSE)
_CUE_AT_END = re.compile(r"(?:\bnot|\bnever|n't|n’t)\s*$", re.IGNORECASE)
# "posted: no", "sent nothing", "paid: none". (No "^": these run with match(text, pos), which anchors.)
_AFTER_CUE = re.compile(r"\s*[:=\-–—]?\s*(?:no|none|nothing|never|not|false|0|zero|n/a)\b", re.IGNORECASE)
_BY_SOMEONE_ELSE = re.compile(r"\s+by\s+(?!me\b|us\b|myself\b|ourselves\b|the\s+agent\b|(?:a\s+|an\s+)?(?:check|cheque|"
                              r"wire|ach|card|credit|transfer|hand|e-?mail|mail|post|courier|bank|direct)\b)", re.IGNORECASE)
_REACH = 400
_SENTENCE = re.compile(r"\.(?!\d)|[!?;\n]")
_BARRIER = re.compile(r",|\s[-–—]\s|—|\b(?:and|but|however|although|though|whereas|so|then|because)\b",
                      re.IGNORECASE)
_LIST_GAP = re.compile(r"\s*(?:,|/|&)?\s*(?:\b(?:and|or|nor)\b)?\s*(?:\b(?:also|then)\b)?\s*$", re.IGNORECASE)
_DETERMINER = re.compile(r"(?:\b(?:the|a|an|this|that|these|those|each|every|all|any|its|their|your|our|my|"
                         r"his|her|\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)|"
                         r"already-|previously-|un-|non-)\s*$", re.IGNORECASE)
_NOT_A_NOUN = re.compile(r"^\s*(?:now|already|and|or|but|in|to|on|by|as|at|for|with|from|out|off|up|"
                         r"today|yesterday|successfully|correctly|automatically|it|them)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Assertion:
    """One place where the text claims an action was done."""
    action: str
    start: int
    end: int
    sentence: str


class _Reading:
    """One pass over a text: where sentences stop, clauses break and cues stand."""

    def __init__(self, text: str):
        self.text = text
        self.stops = [m.start() for m in _SENTENCE.finditer(text)]
        barriers = list(_BARRIER.finditer(text))
        self.barrier_ends = [m.end() for m in barriers]
        # barriers right after a dangling "not": "I have not, as instructed, posted"
        self.dangling = [m.start() for m in barriers
                         if _CUE_AT_END.search(text[max(0, m.start() - 12):m.start()])]
        cues = list(_CUES.finditer(text))
        self.cue_starts, self.cue_ends = [m.start() for m in cues], [m.end() for m in cues]

    def sentence(self, start: int, end: int) -> tuple[int, int]:
        k = bisect.bisect_left(self.stops, start)
        left = self.stops[k - 1] + 1 if k else 0
        k = bisect.bisect_left(self.stops, end)
        right = self.stops[k] if k < len(self.stops) else len(self.text)
        return max(left, start - _REACH), min(right, end + _REACH)  # a clause is not a page

    def clause_start(self, left: int, start: int) -> int:
        k = bisect.bisect_right(self.barrier_ends, start) - 1
        return self.barrier_ends[k] if k >= 0 and self.barrier_ends[k] > left else left

    def cue_between(self, a: int, b: int) -> bool:
        k = bisect.bisect_left(self.cue_starts, a)
        return k < len(self.cue_starts) and self.cue_ends[k] <= b

    def dangling_between(self, a: int, b: int) -> bool:
        k = bisect.bisect_left(self.dangling, a)
        return k < len(self.dangling) and self.dangling[k] < b


def _hits(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """Forms found, by start; "sent the wire" is both a send and a wire."""
    found: dict[int, tuple[int, list[str]]] = {}
    for action, pattern in _FORM_RE.items():
        for m in pattern.finditer(text):
            end, actions = found.setdefault(m.start(), (m.end(), []))
            found[m.start()] = (max(end, m.end()), actions + [action])
    return [(start, end, tuple(actions)) for start, (end, actions) in sorted(found.items())]


def _attributive(text: str, start: int, end: int) -> bool:
    """"the posted bills", "4 approved invoices": the form describes a noun."""
    after = text[end:end + 40]
    return (bool(_DETERMINER.search(text[max(0, start - 20):start]))
            and bool(re.match(r"^\s+[A-Za-z]", after)) and not _NOT_A_NOUN.match(after))


def _asserts(read: _Reading, left: int, right: int, start: int, end: int) -> bool:
    text = read.text
    if text[right:right + 1] == "?":
        return False
    if _AFTER_CUE.match(text, end, right) or _attributive(text, start, end):
        return False
    if _BY_SOMEONE_ELSE.match(text, end, right):
        return False  # "approved by the PM last month" reports another person's act
    seg = read.clause_start(left, start)
    return not (read.cue_between(seg, start) or read.dangling_between(left, seg))


def assertions(text: str) -> list[Assertion]:
    """Every place ``text`` claims that one of the known actions was done."""
    text = text or ""
    read = _Reading(text)
    out: list[Assertion] = []
    previous: tuple[int, bool] | None = None  # (end, asserted) of the last form seen
    for start, end, actions in _hits(text):
        left, right = read.sentence(start, end)
        if previous and previous[0] >= left and _LIST_GAP.match(text, previous[0], start):
            asserted = previous[1]  # "posted, paid or sent" share one status
        else:
            asserted = _asserts(read, left, right, start, end)
        previous = (end, asserted)
        if asserted:
            out.extend(Assertion(action, start, end, text[left:right].strip()) for action in actions)
    return out


def claimed(text: str, actions) -> list[Assertion]:
    """The claims in ``text`` of any of ``actions`` (names from ``ACTIONS``)."""
    wanted = set(actions)
    return [a for a in assertions(text) if a.action in wanted]
