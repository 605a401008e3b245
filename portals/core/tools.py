"""Native tools: a service function's signature and docstring are its schema.

A service function is written once, `def create_bill(ctx, vendor_id: str, amount: Amount, ...)`
with a docstring whose `Args:` section describes each argument. `@service` marks whether it
reads, writes or is guarded (money movement); a vendor manifest gives it the product's own
tool name. The JSON schema handed to agents and the validation applied to every form post and
tool call both come from that one signature, so they cannot drift apart.
"""
from __future__ import annotations

import inspect
import re
import typing
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Annotated, Any, Callable, Literal, get_args, get_origin

from .errors import ToolError
from .money import parse_amount

READ, WRITE, GUARDED = "read", "write", "guarded"
DEFAULT_MAX_LEN = 200
MAX_INT = 2 ** 63 - 1  # SQLite's INTEGER range
MAX_PAGE = 1_000_000  # (page - 1) * per_page must stay an SQLite integer; no list is this long
MIN_DATE, MAX_DATE = date(1900, 1, 1), date(2199, 12, 31)  # room for "+30 days" and any real invoice


@dataclass(frozen=True)
class MaxLen:
    """Annotated[str, MaxLen(n)]: the longest text the argument accepts."""

    n: int


class _AmountMarker:
    pass


Amount = Annotated[Decimal, _AmountMarker()]
"""An amount of money, accepted as "12345.67", "12,345.67" or a number; never negative."""

Text = Annotated[str, MaxLen(5000)]
"""A long free-text argument (an email body, a memo)."""


class _GridMarker:
    pass


Grid = Annotated[list, _GridMarker()]
"""A block of cell values, rows of cells (Graph's `values`): text, numbers, true/false or null."""
GRID_CELLS = 2000  # the most cells one call may carry


@dataclass(frozen=True)
class ServiceInfo:
    kind: str


def service(kind: str = READ):
    """Mark a service function as a read, a write, or a guarded (money-moving) action."""
    if kind not in (READ, WRITE, GUARDED):
        raise ValueError(f"unknown service kind {kind}")

    def mark(func):
        func.__cfab_service__ = ServiceInfo(kind)
        return func

    return mark


@dataclass
class Param:
    name: str
    kind: str  # str | int | bool | amount | date | enum | list | grid
    required: bool
    default: Any
    description: str
    choices: tuple = ()
    max_len: int = DEFAULT_MAX_LEN
    nullable: bool = False
    minimum: int | None = None
    maximum: int | None = None

    def json_schema(self) -> dict:
        base: dict
        if self.kind == "int":
            base = {"type": "integer"}
            base.update({k: v for k, v in (("minimum", self.minimum), ("maximum", self.maximum))
                         if v is not None})
        elif self.kind == "bool":
            base = {"type": "boolean"}
        elif self.kind == "amount":
            base = {"type": "string", "pattern": r"^\$?[0-9][0-9,]*(\.[0-9]{1,2})?$",
                    "description_suffix": "an amount like 12345.67"}
        elif self.kind == "date":
            base = {"type": "string", "format": "date"}
        elif self.kind == "enum":
            base = {"type": "string", "enum": list(self.choices)}
        elif self.kind == "list":
            base = {"type": "array", "items": {"type": "string"}}
        elif self.kind == "grid":
            base = {"type": "array", "items": {"type": "array", "items": {
                "type": ["string", "number", "boolean", "null"]}}}
        else:
            base = {"type": "string", "maxLength": self.max_len}
        suffix = base.pop("description_suffix", "")
        desc = self.description + (f" ({suffix})" if suffix else "")
        if desc:
            base["description"] = desc
        return base


@dataclass
class ToolSpec:
    """One native tool of one app: its product name, the service behind it and its schema."""

    app: str
    name: str
    func: Callable
    kind: str
    description: str
    params: list[Param] = field(default_factory=list)

    @property
    def mutates(self) -> bool:
        return self.kind == WRITE

    @property
    def guarded(self) -> bool:
        return self.kind == GUARDED

    def schema(self) -> dict:
        return {
            "name": f"{self.app}.{self.name}",
            "app": self.app,
            "tool": self.name,
            "description": self.description,
            "kind": self.kind,
            "parameters": {
                "type": "object",
                "properties": {p.name: p.json_schema() for p in self.params},
                "required": [p.name for p in self.params if p.required],
                "additionalProperties": False,
            },
        }

    def bind(self, args: dict | None) -> dict:
        """Check and convert raw arguments (JSON or form strings); refuse anything off-schema."""
        args = dict(args or {})
        known = {p.name for p in self.params}
        unknown = sorted(set(args) - known)
        if unknown:
            allowed = ", ".join(sorted(known)) or "none"
            raise ToolError(f"Unknown argument {unknown[0]!r} for {self.name}; it takes: {allowed}.",
                            unknown[0])
        bound = {}
        for p in self.params:
            raw = args.get(p.name, None)
            if isinstance(raw, str) and raw.strip() == "" and p.kind != "str":
                raw = None
            if raw is None or (raw == "" and not p.required):
                if p.required:
                    raise ToolError(f"{_label(p.name)} is required.", p.name)
                bound[p.name] = p.default
                continue
            bound[p.name] = _coerce(p, raw)
        return bound


def _label(name: str) -> str:
    return name.replace("_", " ").capitalize()


def _coerce(p: Param, raw: Any) -> Any:
    label = _label(p.name)
    if p.kind == "amount":
        return parse_amount(raw, p.name)
    if p.kind == "int":
        if isinstance(raw, bool):
            raise ToolError(f"{label} must be a whole number.", p.name)
        if isinstance(raw, str) and re.fullmatch(r"-?[0-9]{1,18}", raw.strip()):
            raw = int(raw.strip())
        # Beyond 64 bits the database driver itself fails, so such numbers stop here.
        if isinstance(raw, int) and abs(raw) <= MAX_INT:
            low = p.minimum if p.minimum is not None else -MAX_INT
            high = p.maximum if p.maximum is not None else MAX_INT
            if not low <= raw <= high:
                raise ToolError(f"{label} must be from {low} to {high}, not {raw}.", p.name)
            return raw
        raise ToolError(f"{label} must be a whole number, not {str(raw)[:40]!r}.", p.name)
    if p.kind == "bool":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.lower() in ("true", "on", "yes", "1", "false", "off", "no", "0"):
            return raw.lower() in ("true", "on", "yes", "1")
        raise ToolError(f"{label} must be true or false.", p.name)
    if p.kind == "date":
        try:
            value = date.fromisoformat(str(raw).strip())
        except ValueError:
            raise ToolError(f"{label} must be a date like 2026-06-30, not {str(raw)[:40]!r}.",
                            p.name) from None
        if not MIN_DATE <= value <= MAX_DATE:  # date arithmetic past year 9999 overflows
            raise ToolError(f"{label} must be a date from {MIN_DATE} to {MAX_DATE}, not {value}.", p.name)
        return value
    if p.kind == "grid":
        return _grid(raw, label, p.name)
    if p.kind == "list":
        items = raw if isinstance(raw, list) else [s for s in str(raw).split(",")]
        out = []
        for item in items:
            if not isinstance(item, str):
                raise ToolError(f"{label} must be a list of text values.", p.name)
            text = str(item).strip()
            _check_encodable(text, label, p.name)
            if len(text) > p.max_len:
                raise ToolError(f"An entry of {label} is longer than {p.max_len} characters.", p.name)
            if text:
                out.append(text)
        if len(out) > 100:
            raise ToolError(f"{label} has more than 100 entries.", p.name)
        return out
    if not isinstance(raw, str):  # the schema says text; a number sent here is refused, not guessed
        raise ToolError(f"{label} must be text, not {str(raw)[:40]!r}.", p.name)
    text = str(raw)
    _check_encodable(text, label, p.name)
    if "\x00" in text:
        raise ToolError(f"{label} contains a NUL character.", p.name)
    if len(text) > p.max_len:
        raise ToolError(f"{label} is longer than {p.max_len} characters.", p.name)
    if p.kind == "enum":
        if text not in p.choices:
            raise ToolError(f"{label} must be one of: {', '.join(p.choices)} (got {text[:40]!r}).",
                            p.name)
    return text


def _grid(raw: Any, label: str, name: str) -> list[list]:
    """Rows of cell values; each row a list of text, numbers, true/false or null."""
    if not isinstance(raw, list) or not all(isinstance(row, list) for row in raw) or not raw:
        raise ToolError(f"{label} must be a list of rows, each a list of cell values, e.g. [[\"A\", 1]].", name)
    if sum(len(row) for row in raw) > GRID_CELLS:
        raise ToolError(f"{label} has more than {GRID_CELLS} cells.", name)
    for row in raw:
        for cell in row:
            if isinstance(cell, float) and cell != cell or cell in (float("inf"), float("-inf")):
                raise ToolError(f"{label} holds a number that is not finite.", name)
            if isinstance(cell, int) and not isinstance(cell, bool) and abs(cell) > MAX_INT:
                raise ToolError(f"{label} holds a number too large for a cell.", name)
            if isinstance(cell, str):
                _check_encodable(cell, label, name)
                if len(cell) > 1000 or "\x00" in cell:
                    raise ToolError(f"A cell of {label} is longer than 1000 characters or holds a NUL.", name)
            elif cell is not None and not isinstance(cell, (int, float, bool)):
                raise ToolError(f"{label} holds a value that is not text, a number, true/false or null.", name)
    return [list(row) for row in raw]


def _check_encodable(text: str, label: str, name: str) -> None:
    """JSON can carry lone UTF-16 surrogates ("\\ud800") that no database can store; refuse them
    here rather than let the driver fail deep inside a service."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ToolError(f"{label} contains characters that are not valid text.", name) from None


def _doc_params(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into its description and per-argument lines."""
    doc = inspect.cleandoc(doc or "")
    head, _, rest = doc.partition("\nArgs:\n")
    described: dict[str, str] = {}
    current = None
    for line in rest.splitlines():
        match = re.match(r"^\s{2,}(\w+):\s*(.*)$", line)
        if match:
            current = match.group(1)
            described[current] = match.group(2).strip()
        elif current and line.strip() and line.startswith("        "):
            described[current] += " " + line.strip()
        elif line.strip() and not line.startswith(" "):
            current = None
    return " ".join(head.split()), described


def _param_from(name: str, annotation: Any, default: Any, description: str) -> Param:
    required = default is inspect.Parameter.empty
    nullable = False
    origin = get_origin(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        nullable = len(inner) < len(get_args(annotation))
        annotation = inner[0]
        origin = get_origin(annotation)
    max_len = DEFAULT_MAX_LEN
    kind = "str"
    choices: tuple = ()
    if origin is Annotated:
        base, *extras = get_args(annotation)
        for extra in extras:
            if isinstance(extra, MaxLen):
                max_len = extra.n
            if isinstance(extra, _AmountMarker):
                kind = "amount"
            if isinstance(extra, _GridMarker):
                kind = "grid"
        annotation = base
        origin = get_origin(annotation)
    if kind not in ("amount", "grid"):
        if origin is Literal:
            kind, choices = "enum", tuple(get_args(annotation))
        elif origin is list:
            kind = "list"
        elif annotation is bool:
            kind = "bool"
        elif annotation is int:
            kind = "int"
        elif annotation is date:
            kind = "date"
        elif annotation is Decimal:
            kind = "amount"
    minimum, maximum = (1, MAX_PAGE) if (kind, name) == ("int", "page") else (None, None)
    return Param(name, kind, required, None if required else default, description, choices,
                 max_len, nullable, minimum, maximum)


def build_tool(app: str, name: str, func: Callable) -> ToolSpec:
    """Make the ToolSpec for `func` exposed under the product's tool `name`."""
    info: ServiceInfo | None = getattr(func, "__cfab_service__", None)
    if info is None:
        raise TypeError(f"{func.__qualname__} is not marked with @service")
    hints = typing.get_type_hints(func, include_extras=True)
    description, described = _doc_params(func.__doc__ or "")
    params = []
    for pname, parameter in list(inspect.signature(func).parameters.items())[1:]:  # skip ctx
        params.append(_param_from(pname, hints.get(pname, str), parameter.default,
                                  described.get(pname, "")))
    return ToolSpec(app, name, func, info.kind, description, params)
