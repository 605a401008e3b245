"""Determinism: seeding in two separate processes gives byte-identical snapshots."""
from __future__ import annotations

import hashlib
import subprocess
import sys

from portals.core.registry import load_apps

SCRIPT = """
import hashlib
from portals.core.episode import EpisodeStore
from portals.core.registry import load_apps
store = EpisodeStore()
for name in sorted(load_apps()):
    print(name, hashlib.sha256(store.template(name).snapshot()).hexdigest())
"""


def _hashes_in_a_new_process() -> dict[str, str]:
    out = subprocess.run([sys.executable, "-c", SCRIPT], check=True, capture_output=True, text=True,
                         env={"CFAB_TEMPLATE_CACHE": "off", "CFAB_SEED": "7", "CFAB_CLOCK": "2026-06-30T17:00:00Z", "PATH": "/usr/bin:/bin",
                              "PYTHONHASHSEED": "random"})
    return dict(line.split() for line in out.stdout.strip().splitlines())


def test_two_processes_seed_byte_identical_snapshots(store):
    first = _hashes_in_a_new_process()
    second = _hashes_in_a_new_process()
    assert first == second
    assert set(first) == set(load_apps())
    # the store of this test process may have come from the template cache: it must agree too
    here = {name: hashlib.sha256(store.template(name).snapshot()).hexdigest() for name in first}
    assert here == first

