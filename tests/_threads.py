"""Helpers the e2e modules share."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor


def in_own_thread(fn, *args, **kwargs):
    """Run `fn` in a thread of its own: sync Playwright allows one instance per thread, and the
    session's browser keeps one open in the main thread. Code that launches its own Chromium
    (the runner, the gym env) runs there."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(fn, *args, **kwargs).result()
