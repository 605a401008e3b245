"""`pytest e2e --video on --tracing on` (pytest-playwright's options) writes a playable video and
a Playwright trace per test on Debian's Chromium, with Debian's ffmpeg standing in for the one
Playwright downloads (e2e/conftest.py)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_e2e_video_and_tracing_write_their_files(tmp_path):
    assert shutil.which("ffmpeg"), "no ffmpeg: make install puts Debian's in place (apt-get install ffmpeg)"
    out = tmp_path / "results"
    env = {k: v for k, v in os.environ.items() if k != "PLAYWRIGHT_BROWSERS_PATH"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "e2e/test_portals.py", "-k", "outlook_compose_rejects", "--video", "on",
                           "--tracing", "on", "--output", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    [folder] = [p for p in out.iterdir() if p.is_dir()]
    assert "outlook-compose-rejects-a-bad-address" in folder.name
    video = folder / "video.webm"
    assert video.read_bytes()[:4] == b"\x1a\x45\xdf\xa3"  # a WebM (Matroska) file
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames",
                            "-of", "csv=p=0", str(video)], capture_output=True, text=True, check=True)
    assert int(probe.stdout.strip()) > 1  # frames, not an empty container
    with zipfile.ZipFile(folder / "trace.zip") as trace:
        names = trace.namelist()
    assert "trace.trace" in names and "trace.network" in names
    assert any(n.startswith("screencast/") for n in names)
