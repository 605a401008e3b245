"""A1 addresses and the workbook's small formula language: numbers, cell references, ranges,
SUM(...), + - * / and parentheses. It is what the seeded workbooks use; a formula outside it is
refused when written rather than stored as something that never calculates."""
from __future__ import annotations

import re
from decimal import Decimal, DivisionByZero, InvalidOperation

from portals.core.errors import ToolError

MAX_ROW, MAX_COL = 10000, 200  # far beyond any seeded sheet; keeps a range request bounded
CELL = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,5})$")
TOKEN = re.compile(r"\s*(?:(\$?[A-Za-z]{1,3}\$?[0-9]{1,5}(?::\$?[A-Za-z]{1,3}\$?[0-9]{1,5})?)|"
                   r"([0-9]+(?:\.[0-9]+)?)|(SUM)\s*\(|([-+*/(),]))", re.I)


def col_letter(col: int) -> str:
    out = ""
    while col:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


def col_number(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def cell_ref(text: str, field: str = "address") -> tuple[int, int]:
    """(row, col) of "B7" or "$B$7"."""
    match = CELL.match(text.strip())
    if not match:
        raise ToolError(f"{text.strip()[:20]!r} is not a cell address like B7.", field)
    row, col = int(match.group(2)), col_number(match.group(1))
    if not (1 <= row <= MAX_ROW and 1 <= col <= MAX_COL):
        raise ToolError(f"{text.strip()[:20]} is outside the sheet (rows 1-{MAX_ROW}, columns A-"
                        f"{col_letter(MAX_COL)}).", field)
    return row, col


def split_address(address: str) -> tuple[str | None, str]:
    """("May 2026", "A1:G9") from "'May 2026'!A1:G9"; the sheet is None when not given."""
    text = address.strip()
    if "!" not in text:
        return None, text
    sheet, _, cells = text.rpartition("!")
    if len(sheet) >= 2 and sheet[0] == sheet[-1] == "'":
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, cells


def area(cells: str, field: str = "address") -> tuple[int, int, int, int]:
    """(first row, first col, last row, last col) of "A1:G9" or a single "B7"."""
    first, _, last = cells.partition(":")
    r1, c1 = cell_ref(first, field)
    r2, c2 = cell_ref(last, field) if last else (r1, c1)
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def area_text(r1: int, c1: int, r2: int, c2: int) -> str:
    start, end = f"{col_letter(c1)}{r1}", f"{col_letter(c2)}{r2}"
    return start if start == end else f"{start}:{end}"


def sheet_prefix(name: str) -> str:
    return f"'{name}'" if re.search(r"[^A-Za-z0-9_]", name) else name


def number_text(value: Decimal) -> str:
    """A number as a cell stores it: plain decimal text, no exponent, no trailing zeros."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def tokens(formula: str) -> list[tuple[str, str]]:
    body, pos, out = formula.strip()[1:], 0, []
    while pos < len(body):
        match = TOKEN.match(body, pos)
        if not match or match.end() == pos:
            if body[pos:].strip() == "":
                break
            raise ToolError(f"The formula {formula[:60]!r} uses something this workbook does not calculate; "
                            "use numbers, cell references, SUM(...), + - * / and parentheses.", "values")
        ref, num, fn, op = match.groups()
        out.append(("ref", ref.upper()) if ref else ("num", num) if num else ("sum", "SUM") if fn else ("op", op))
        pos = match.end()
    return out


def references(formula: str) -> list[tuple[int, int, int, int]]:
    """Every area a formula reads."""
    return [area(t, "values") for kind, t in tokens(formula) if kind == "ref"]


class _Parser:
    def __init__(self, toks, lookup):
        self.toks, self.i, self.lookup = toks, 0, lookup

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else ("end", "")

    def take(self, kind, text=None):
        tok = self.peek()
        if tok[0] != kind or (text is not None and tok[1] != text):
            raise ToolError("The formula is not complete or has a misplaced operator.", "values")
        self.i += 1
        return tok

    def expr(self) -> Decimal:
        value = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take("op")[1]
            value = value + self.term() if op == "+" else value - self.term()
        return value

    def term(self) -> Decimal:
        value = self.factor()
        while self.peek() in (("op", "*"), ("op", "/")):
            op = self.take("op")[1]
            right = self.factor()
            value = value * right if op == "*" else value / right
        return value

    def factor(self) -> Decimal:
        kind, text = self.peek()
        if (kind, text) == ("op", "-"):
            self.take("op")
            return -self.factor()
        if (kind, text) == ("op", "("):
            self.take("op")
            value = self.expr()
            self.take("op", ")")
            return value
        if kind == "num":
            self.take("num")
            return Decimal(text)
        if kind == "ref":
            self.take("ref")
            return sum(self.lookup(area(text, "values")), Decimal(0))
        if kind == "sum":
            self.take("sum")
            total = self.expr()
            while self.peek() == ("op", ","):
                self.take("op")
                total += self.expr()
            self.take("op", ")")
            return total
        raise ToolError("The formula is not complete or has a misplaced operator.", "values")


def check_formula(formula: str) -> None:
    """Refuse a formula this workbook cannot calculate, before anything is written."""
    parser = _Parser(tokens(formula), lambda a: [Decimal(0)])
    parser.expr()
    if parser.peek()[0] != "end":
        raise ToolError("The formula has text left over after its end.", "values")


def evaluate(formula: str, lookup) -> str:
    """The formula's value as cell text; lookup(area) gives the numbers in an area (text counts as 0
    in SUM, as in Excel). A division by zero shows #DIV/0! as Excel does."""
    try:
        return number_text(_Parser(tokens(formula), lookup).expr())
    except (DivisionByZero, InvalidOperation, ZeroDivisionError):
        return "#DIV/0!"
