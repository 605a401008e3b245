"""`--headed` opens a real window: `cfab replay --headed` and `pytest e2e --headed` (pytest-playwright's
option) run Chromium headful on a display. Xvfb stands in for a screen (make install puts Debian's
xvfb in place), and a display with no X server behind it must fail, which shows that the flag
reaches Chromium rather than being dropped for a headless launch."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from _display import NO_X_SERVER, xvfb_run

ROOT = Path(__file__).resolve().parents[1]
CFAB = str(Path(sys.executable).with_name("cfab"))
GOLD = str(ROOT / "tasks" / "gold" / "cf_A_change_order_3100.json")
E2E_ONE = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "e2e/test_portals.py",
           "-k", "outlook_compose_rejects", "--headed"]


def _env(display: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    if display:
        env["DISPLAY"] = display
    return env


def _run(argv, display=None):
    return subprocess.run(argv, cwd=ROOT, env=_env(display), capture_output=True, text=True, timeout=600)


def test_replay_headed_plays_a_gold_trajectory_in_a_window():
    proc = _run(xvfb_run() + [CFAB, "replay", GOLD, "--transport", "browser", "--headed"])
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "cf_A_change_order_3100 via browser: PASSED score 1.00" in proc.stdout


@pytest.mark.parametrize("display, message", [(None, "--headed needs a display"),
                                              (NO_X_SERVER, "Missing X server")])
def test_replay_headed_without_a_screen_fails_and_says_why(display, message):
    proc = _run([CFAB, "replay", GOLD, "--transport", "browser", "--headed"], display)
    assert proc.returncode != 0
    assert message in proc.stdout + proc.stderr


def test_pytest_e2e_headed_runs_in_a_window_and_needs_one():
    proc = _run(xvfb_run() + E2E_ONE)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout
    proc = _run(E2E_ONE, NO_X_SERVER)
    assert proc.returncode != 0 and "Missing X server" in proc.stdout + proc.stderr
