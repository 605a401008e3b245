"""A screen for headed runs on a machine without one: Xvfb (make install puts Debian's in place),
and a display number with no X server behind it, on which a headed Chromium must fail."""
from __future__ import annotations

import shutil

NO_X_SERVER = ":87"  # a display number nothing listens on


def xvfb_run() -> list[str]:
    """The command prefix that runs a program on a fresh Xvfb screen."""
    path = shutil.which("xvfb-run")
    assert path, "no xvfb-run: make install puts Debian's xvfb in place (apt-get install xvfb xauth)"
    return [path, "-a"]
