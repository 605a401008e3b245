"""The injected clock. Nothing in the stack reads the wall clock: every timestamp comes from here."""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date, datetime, timezone

DEFAULT_CLOCK = "2026-06-30T17:00:00Z"


def parse_instant(text: str) -> datetime:
    """Parse an ISO-8601 instant ("2026-06-30T17:00:00Z"); naive values are taken as UTC."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


@dataclass(frozen=True)
class Clock:
    """A frozen clock: `now()` is the same instant for the whole episode, so runs repeat exactly."""

    instant: datetime

    @classmethod
    def from_env(cls) -> "Clock":
        return cls(parse_instant(os.environ.get("CFAB_CLOCK", DEFAULT_CLOCK)))

    @classmethod
    def at(cls, text: str) -> "Clock":
        return cls(parse_instant(text))

    def now(self) -> datetime:
        return self.instant

    def today(self) -> date:
        return self.instant.date()

    def iso(self) -> str:
        return self.instant.strftime("%Y-%m-%dT%H:%M:%SZ")
