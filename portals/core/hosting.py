"""What one `cfab serve` process hosts: every app (the default), or the apps it was told to.

`cfab serve --app NAME` hosts a single app, as the paper's per-app shim does: its episodes hold
that app only, an episode asking for another app is refused (400), and its health names it.
The portals of the other apps stay mounted but can only answer that they are not part of the
episode. The clients (agent/remote.py) learn from `GET /api/health` which server hosts what.
"""
from __future__ import annotations

from werkzeug.exceptions import BadRequest

from .episode import EpisodeStore
from .registry import load_apps


class NotHosted(BadRequest):
    """An episode asked for apps this server does not host; nothing was opened."""


class HostedStore(EpisodeStore):
    """An episode store whose episodes hold only the hosted apps (by default, all of them)."""

    def __init__(self, apps: list[str], **kwargs):
        known = load_apps()
        unknown = sorted(set(apps) - set(known))
        if not apps or unknown:
            raise KeyError(f"no app named {', '.join(map(repr, unknown)) or 'at all'}; "
                           f"known apps: {', '.join(known)}")
        super().__init__(**kwargs)
        self.hosted = sorted(set(apps))

    def create(self, apps: list[str] | None = None):
        names = sorted(apps or self.hosted)
        outside = [name for name in names if name not in self.hosted]
        if outside:
            raise NotHosted(f"This server hosts {', '.join(self.hosted)} only; "
                            f"{', '.join(outside)} is served elsewhere. Nothing was opened.")
        return super().create(names)


def hosted_apps(store) -> list[str]:
    """The apps a store's episodes may hold."""
    return list(getattr(store, "hosted", None) or load_apps())
