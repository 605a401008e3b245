"""BrowserGym's own virtualenv for tests/test_browsergym_venv.py, built once and kept.

Building it is mostly waiting on PyPI (minutes on a fresh machine), so a test session that
will play BrowserGym starts the build in a background process at its start
(`start_background_build`, from tests/conftest.py) and the test's fixture waits for it under the
same file lock (`ensure_venv`) instead of holding a test worker idle for the whole build.
Run as a script, it builds the virtualenv and exits.
"""
from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_FILE = ROOT / "tests" / "test_browsergym_venv.py"


def venv_dir() -> Path:
    """Keyed by pyproject.toml and the Python version: a change to either builds a new one."""
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + sys.version.encode()).hexdigest()[:12]
    return ROOT / "build" / f"browsergym-venv-{key}"


def _build(folder: Path, python: Path) -> None:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv:  # uv resolves and installs in parallel: seconds where pip takes minutes
        subprocess.run([uv, "venv", "-q", "--seed", "--clear", "--python", sys.executable, str(folder)], check=True)
        subprocess.run([uv, "pip", "install", "-q", "--python", str(python), "-e", f"{ROOT}[browsergym]"],
                       check=True, timeout=1200)
    else:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", f"{ROOT}[browsergym]"], check=True,
                       timeout=1200)


def ensure_venv() -> Path:
    """The virtualenv's python, built here unless another process built it or is building it
    (then this waits for that build under the lock and reuses it)."""
    folder = venv_dir()
    python = folder / "bin" / "python"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".ready").exists():
            _build(folder, python)
            (folder / ".ready").write_text("ok\n")
    return python


def wanted(args: list[str]) -> bool:
    """Does a pytest run over `args` include the BrowserGym virtualenv test?"""
    for arg in args:
        path = Path(arg.split("::", 1)[0]).resolve()
        if path == TEST_FILE or (path.is_dir() and TEST_FILE.is_relative_to(path)):
            return True
    return False


def start_background_build(args: list[str]) -> subprocess.Popen | None:
    """Start building the virtualenv in the background if this run will need it and it is
    not built yet; its output goes to build/<venv>.log."""
    folder = venv_dir()
    if not wanted(args) or (folder / ".ready").exists():
        return None
    folder.parent.mkdir(parents=True, exist_ok=True)
    log = open(folder.parent / f"{folder.name}.log", "w")
    return subprocess.Popen([sys.executable, str(Path(__file__).resolve())], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True, cwd=ROOT)


if __name__ == "__main__":
    print(ensure_venv())
