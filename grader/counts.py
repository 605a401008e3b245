"""Binding the numbers of a reply to what they count: the reader behind ``count`` claims.

All count claims of an evaluator are read together. Each claim names the thing it
counts with phrases (``["synced", "sent to the ERP"]``); phrases match
case-insensitively, tolerating inflections ("sync", "syncing", "synced"), hyphens
("already-synced") and articles ("sent to ERP"). Where phrases overlap the longest
wins, so "already synced" is not also a "synced".

A reply's numbers are digits or the words zero..twenty ("none", and "no" right
before a phrase, are zero). Numbers that are part of an amount, an id, a date, a
time or a percentage, or that follow "job", "#", "no.", "PO", "invoice" and the
like, are not counts.

Each sentence (split at . ! ? ; and newlines) is cut into clauses at commas,
dashes, "and", "but", "while" where both sides name a counted thing. In a clause
each number binds to the nearest phrase, never reaching past another number;
numbers in a bare list ("4, 0, 1") bind together. A clause part that names no
counted thing lends its numbers only when the rest of the clause has none: in
"Of the 7 approved invoices, 4 were synced" the 7 counts something else.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

WORD_NUMBERS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())} | {"none": 0}
_FILLERS = {"the", "a", "an", "been", "being"}
_SPLIT_WORDS = {"and", "but", "while", "whereas", "plus"}
_LIST_WORDS = {"or", "to", "and"}
_NOT_ONE = {"the", "this", "that", "each", "every", "any", "no", "which", "another", "same", "by", "at"}

_TOKEN = re.compile(r"(?P<num>\d+(?:[.,:/-]\d+)*)|(?P<word>[A-Za-z]+(?:['’][A-Za-z]+)*)"
                    r"|(?P<end>\.(?!\d)|[!?;\n])|(?P<sep>,|—|–|\s-\s|&)|(?P<other>\S)")
_MONTH = (r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_KEYWORD_BEFORE = re.compile(
    r"(?:\b(?:jobs?|projects?|po|p\.o\.|nos?\.?|numbers?|ids?|ref|refs|invoices?|bills?|requisitions?|"
    r"reqs?|commitments?|vendors?|checks?|phases?|lines?|pages?|steps?|versions?|accounts?|acct|rows?|"
    r"periods?|codes?|items?|app|applications?|units?|lots?|buildings?|floors?|rooms?|sections?|"
    r"contracts?|orders?|dr|cr|debits?|credits?|gl)\s*(?:#|no\.?|number)?\s*|#\s*)$", re.IGNORECASE)
_LABEL_BEFORE = re.compile(r"\b(?:job|project|po|id|no\.?|number)\s*(?:#|no\.?)?\s*:\s*$", re.IGNORECASE)
_LIST_GAP = re.compile(r"^\s*(?:,|&|/|\band\b|\bor\b|,\s*and\b|,\s*or\b)\s*$", re.IGNORECASE)


def stem(word: str) -> str:
    """A crude stem, applied alike to phrases and replies: synced/syncing/syncs -> sync."""
    w = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiou":
        w = w[:-1]
    return w


def phrase_stems(phrase: str) -> tuple[str, ...]:
    """The stems a phrase is matched by (articles dropped, hyphens as spaces)."""
    words = re.findall(r"[A-Za-z]+(?:['’][A-Za-z]+)*|\d+", phrase)
    return tuple(stem(w) for w in words if w.lower() not in _FILLERS)


@dataclass
class _Token:
    kind: str          # word | num | end | sep
    text: str
    start: int
    end: int
    value: int | None = None   # for a counting number


def _is_count(text: str, tok: _Token) -> bool:
    """A digit run that counts something (not an id, amount, date, time or percentage)."""
    if not tok.text.isdigit():
        return False  # 3,706,560.00 / 2025-01-15 / 9:00 / 4,5
    before, after = text[max(0, tok.start - 40):tok.start], text[tok.end:tok.end + 40]
    if re.search(r"(?:[A-Za-z0-9$#€£]|[A-Za-z0-9][-_/.])$", before):
        return False  # V1001, JSM-88421, $4, #4
    if re.match(r"(?:[A-Za-z%]|[-_/][A-Za-z0-9])", after) or re.match(r"\s*(?:percent|pct)\b", after, re.I):
        return False  # 4th, 4%, 4-part
    if _KEYWORD_BEFORE.search(before) or _LABEL_BEFORE.search(before):
        return False
    if re.search(_MONTH + r"\s*$", before, re.I) or re.match(r"\s*" + _MONTH + r"(?![a-z])", after, re.I):
        return False
    return not (len(tok.text) == 4 and 1900 <= int(tok.text) <= 2100)


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    listed_id = False  # inside "invoices 101, 102 and 103": every number is an id
    last_num_end, last_num_len = None, 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "other":
            continue
        tok = _Token(kind, m.group(), m.start(), m.end())
        if kind == "num":
            # An id list continues with ids of its own shape ("101, 102"), not with a count
            # ("job 1042, 4 were synced").
            continues = (last_num_end is not None and _LIST_GAP.match(text[last_num_end:tok.start])
                         and (len(tok.text) >= 3 or len(tok.text) == last_num_len))
            counting = _is_count(text, tok) and not (listed_id and continues)
            before = text[max(0, tok.start - 40):tok.start]
            listed_id = not counting and (bool(continues and listed_id) or bool(
                _KEYWORD_BEFORE.search(before) or _LABEL_BEFORE.search(before)))
            last_num_end, last_num_len = tok.end, len(tok.text)
            tok.value = int(tok.text) if counting else None
            tok.kind = "num" if counting else "word"
        elif kind == "word":
            low = tok.text.lower()
            if low in _SPLIT_WORDS:
                tok.kind = "sep"
            elif low in WORD_NUMBERS and not (low == "one" and (
                    out and out[-1].text.lower() in _NOT_ONE or re.match(r"\s+by\s+one\b", text[tok.end:tok.end + 9]))):
                tok.kind, tok.value = "num", WORD_NUMBERS[low]
        out.append(tok)
    return out


def _sentences(tokens: list[_Token]) -> list[list[_Token]]:
    out, cur = [], []
    for tok in tokens:
        if tok.kind == "end":
            out.append(cur)
            cur = []
        else:
            cur.append(tok)
    return [s for s in out + [cur] if s]


@dataclass
class _Occurrence:
    first: int                 # token index range within the sentence
    last: int
    claims: set


def _object_gap(seq: list, sentence: list[_Token], j: int, rest: tuple) -> int | None:
    """"sent 4 invoices to the ERP" for "sent to the ERP": after the phrase's first word, a
    count and up to three words may come before the rest. Returns where the rest starts."""
    k = j + 1
    while k < len(seq) and sentence[seq[k][0]].kind == "num":
        k += 1
    if k == j + 1:
        return None
    for start in range(k, min(k + 4, len(seq))):
        if tuple(s for _, s in seq[start:start + len(rest)]) == rest:
            return start
        if sentence[seq[start][0]].kind == "num":
            return None
    return None


def _occurrences(sentence: list[_Token], phrases: list[list[tuple[str, ...]]]) -> list[_Occurrence]:
    """Phrase matches in a sentence, longest first, without overlaps."""
    seq = [(i, stem(t.text)) for i, t in enumerate(sentence)
           if t.kind in ("word", "num") and t.text.lower() not in _FILLERS]
    stems = [s for _, s in seq]
    found: dict[tuple[int, int], set] = {}
    for ci, claim_phrases in enumerate(phrases):
        for p in claim_phrases:
            for j in range(len(stems) - len(p) + 1):
                if p and tuple(stems[j:j + len(p)]) == p:
                    found.setdefault((seq[j][0], seq[j + len(p) - 1][0]), set()).add(ci)
                elif len(p) > 1 and stems[j] == p[0]:
                    rest = _object_gap(seq, sentence, j, p[1:])
                    if rest is not None:
                        found.setdefault((seq[j][0], seq[rest + len(p) - 2][0]), set()).add(ci)
    chosen: list[_Occurrence] = []
    taken = [False] * len(sentence)
    for (first, last), claims in sorted(found.items(), key=lambda kv: (kv[0][0] - kv[0][1], kv[0][0])):
        if not any(taken[first:last + 1]):
            taken[first:last + 1] = [True] * (last + 1 - first)
            chosen.append(_Occurrence(first, last, claims))
    return sorted(chosen, key=lambda o: o.first)


def _parts(sentence: list[_Token], occ: list[_Occurrence]) -> list[tuple[list[int], bool, bool]]:
    """Split a sentence at separators outside phrases: ``(token indices, has_phrase, bare)``."""
    inside = {i for o in occ for i in range(o.first + 1, o.last)}
    firsts = {o.first for o in occ}
    parts, cur = [], []
    for i, tok in enumerate(sentence):
        if tok.kind == "sep" and i not in inside:
            parts.append(cur)
            cur = []
        elif (tok.kind in ("word", "num") or i in inside) and tok.text.lower() not in _FILLERS:
            cur.append(i)
    parts.append(cur)
    return [(idx, any(i in firsts for i in idx),
             all(sentence[i].kind == "num" or sentence[i].text.lower() in _LIST_WORDS for i in idx))
            for idx in parts if idx]


_NO_GAP = {"invoices", "invoice", "bills", "bill", "items", "item", "records", "ones", "requisitions",
           "more", "other", "further", "additional", "were", "was", "had", "have", "need", "needed",
           "to", "be", "are", "is", "approved", "entries", "lines", "of", "them"}
_LIST_BETWEEN = re.compile(r"^\s*(?:(?:,|&|/|\band\b|\bor\b|\bto\b)\s*)*$", re.IGNORECASE)


def _numbers(sentence: list[_Token], idx: list[int], occ_firsts: set) -> dict[int, int]:
    """Counting numbers of a part: token index -> value (resolving "no" and "N of M")."""
    out = {}
    for k, i in enumerate(idx):
        tok = sentence[i]
        if tok.kind == "num":
            before = [sentence[j] for j in idx[max(0, k - 5):k]]
            words = [t.text.lower() for t in before[-2:]]
            if (words[-1:] == ["of"] or words == ["of", "the"]) and any(t.kind == "num" for t in before):
                continue  # "4 of 7", "4 out of the 7": the 7 is a total
            out[i] = tok.value
        elif tok.text.lower() == "no":
            for j in idx[k + 1:k + 4]:
                if j in occ_firsts:
                    out[i] = 0
                    break
                if sentence[j].text.lower() not in _NO_GAP:
                    break
    return out


def _bind_group(text, sentence, parts, occ, bound) -> None:
    """Bind the numbers of one clause to the phrases in it (see the module docstring)."""
    firsts = {o.first for o in occ}
    own, borrowed = {}, {}
    for idx, has_phrase, bare in parts:
        (own if has_phrase or bare else borrowed).update(_numbers(sentence, idx, firsts))
    nums = own or borrowed
    if not nums or not occ:
        return
    lists: list[list[int]] = []
    for i in sorted(nums):
        if lists and _LIST_BETWEEN.match(text[sentence[lists[-1][-1]].end:sentence[i].start]):
            lists[-1].append(i)
        else:
            lists.append([i])
    # words before each token, so a distance is one subtraction
    words = [0]
    for tok in sentence:
        words.append(words[-1] + (tok.kind in ("word", "num") and tok.text.lower() not in _FILLERS))
    occ_firsts = [o.first for o in occ]
    list_starts = [lst[0] for lst in lists]

    def reachable(li):  # phrases between this list's neighbours: no other number in the way
        lo = lists[li - 1][-1] if li else -1
        hi = lists[li + 1][0] if li + 1 < len(lists) else len(sentence)
        return [o for o in occ[bisect.bisect_right(occ_firsts, lo):bisect.bisect_left(occ_firsts, hi)]
                if o.last < hi]

    def dist(lst, o):
        if o.first < lst[0] and lst[-1] < o.last:
            return 0  # the count sits inside the phrase: "sent 4 invoices to the ERP"
        a, b = (o.last, lst[0]) if o.last < lst[0] else (lst[-1], o.first)
        return words[b + 1] - words[a + 1]

    def nearest_lists(o):  # the lists that can reach a phrase: at most one on each side
        k = bisect.bisect_left(list_starts, o.first)
        return [li for li in (k - 1, k) if 0 <= li < len(lists) and o in reachable(li)]

    for li, lst in enumerate(lists):
        options = [(dist(lst, o), o) for o in reachable(li)]
        if not options:
            continue
        best = min(d for d, _ in options)
        tied = [o for d, o in options if d == best]
        if len(tied) > 1:  # "4 synced 3 skipped": the 3 goes to the phrase no other count is nearer to
            mutual = [o for o in tied if [m for m in nearest_lists(o) if dist(lists[m], o) <= best] == [li]]
            tied = mutual or [o for o in tied if o.last < lst[0]] or tied
        for ci in tied[0].claims:
            bound[ci].extend(nums[i] for i in lst)


def bind_counts(text: str, phrases: list[list[str]]) -> list[list[int]]:
    """For each count claim (given by its phrases), the numbers the text binds to it."""
    text = text or ""
    stems = [[phrase_stems(p) for p in claim] for claim in phrases]
    bound: list[list[int]] = [[] for _ in phrases]
    for sentence in _sentences(_tokens(text)):
        occ = _occurrences(sentence, stems)
        if not occ:
            continue
        group, has_phrase = [], False
        for part in _parts(sentence, occ):
            if part[1] and has_phrase:  # two parts that both name a counted thing: two clauses
                _bind_group(text, sentence, group, occ_in(group, occ), bound)
                group, has_phrase = [], False
            group.append(part)
            has_phrase = has_phrase or part[1]
        _bind_group(text, sentence, group, occ_in(group, occ), bound)
    return bound


def occ_in(group: list, occ: list[_Occurrence]) -> list[_Occurrence]:
    """The phrase matches that start inside a clause."""
    idx = {i for part in group for i in part[0]}
    return [o for o in occ if o.first in idx]
