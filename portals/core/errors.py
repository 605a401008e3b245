"""Errors a controller can read. Every failure a user sees is one of these, never a stack trace."""
from __future__ import annotations


class ToolError(Exception):
    """A rejected call: bad input, an unknown record, a rule of the business.

    `field` names the argument at fault when there is one, so a form can show the message
    beside the right input. The HTTP layer answers these with a 4xx status.
    """

    status = 400

    def __init__(self, message: str, field: str | None = None, code: str = "invalid"):
        super().__init__(message)
        self.message = message
        self.field = field
        self.code = code

    def to_dict(self) -> dict:
        out = {"error": self.code, "message": self.message}
        if self.field:
            out["field"] = self.field
        return out


class NotFound(ToolError):
    status = 404

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message, field, code="not_found")


class ReadOnly(ToolError):
    """A write to an episode that is finished: it stays exactly as it was graded."""

    status = 409

    def __init__(self, message: str):
        super().__init__(message, None, code="read_only")


class MoneyMovementRefused(RuntimeError):
    """The data layer's second line of defence: a money-moving row that did not come through the guard."""
