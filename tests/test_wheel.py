"""A built wheel works as the editable install does: it carries every file read at run time,
and installed in a fresh virtualenv outside the checkout it runs a task through tools and
through the browser, and writes a report.

The fresh venv gets the project venv's installed dependencies through a .pth line (nothing is
downloaded, and the editable install's own finder is not activated: a .pth inside a directory
added that way is never run), so the only copy of the project it can import is the wheel's.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TASK = "cf_H_procore_erp_sync_2014"
DATA_DIRS = ("portals", "agent", "grader", "seeds", "tasks", "templates", "static")


def tracked_files() -> list[str]:
    """The checkout's files, as the working tree has them (tracked, and new ones git does not
    ignore), else a walk."""
    try:
        done = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                              cwd=ROOT, capture_output=True, check=True, timeout=30)
        return [f for f in done.stdout.decode().split("\0") if f and (ROOT / f).is_file()]
    except (OSError, subprocess.SubprocessError):
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".venv" not in p.parts]


def run(cmd, **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the checkout (the build writes nothing into it)."""
    src = tmp_path_factory.mktemp("src")
    for name in tracked_files():
        target = src / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((ROOT / name).read_bytes())
    out = tmp_path_factory.mktemp("dist")
    offline = []
    try:  # the test extra's setuptools and wheel build it offline; else pip fetches them
        import setuptools
        import wheel  # noqa: F401

        if int(setuptools.__version__.split(".")[0]) >= 68:
            offline = ["--no-build-isolation"]
    except ImportError:
        pass
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *offline, "-w", str(out), str(src)],
        timeout=300)
    (built,) = out.glob("cfagentbench-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv outside the checkout with only the wheel installed (dependencies borrowed)."""
    home = tmp_path_factory.mktemp("venv")
    base = getattr(sys, "_base_executable", sys.executable)
    run([base, "-m", "venv", "--without-pip", str(home)], timeout=120)
    python = home / "bin" / "python"
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "project_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
         str(wheel)], timeout=300)
    return home


def clean_env(tmp: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "CFAB_CACHE"))}
    env["CFAB_CACHE_DIR"] = str(tmp / "cache")
    return env


def test_the_wheel_carries_every_file_read_at_run_time(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = [f for f in tracked_files() if f.split("/")[0] in DATA_DIRS and "__pycache__" not in f]
    missing = sorted(f for f in wanted if f not in names)
    assert not missing, f"not in the wheel: {missing[:20]}"
    for needed in ("templates/base.html", "seeds/companyA_snapshot.json", "grader/calibration/judge_calibration.jsonl",
                   f"tasks/gold/{TASK}.json", "agent/reporting/templates/index.html"):
        assert needed in names
    assert any(n.startswith("static/htmx") for n in names)
    assert any(n.startswith("tasks/policies/") and n.endswith(".md") for n in names)
    assert not any(n.startswith(("tests/", "e2e/")) for n in names)


def test_the_installed_wheel_imports_itself_not_the_checkout(venv, tmp_path):
    where = run([str(venv / "bin" / "python"), "-c",
                 "import portals, agent, tasks, seeds, grader; print(portals.__file__, agent.__file__)"],
                cwd=tmp_path, env=clean_env(tmp_path)).stdout
    assert str(ROOT) not in where and str(venv) in where


@pytest.mark.parametrize("transport", ["tools", "browser"])
def test_the_installed_wheel_runs_a_task(venv, tmp_path, transport):
    env = clean_env(tmp_path)
    run([str(venv / "bin" / "cfab"), "run", "--policy", "oracle", "--transport", transport, "--tasks", TASK,
         "--quiet", "--out", "r.json"], cwd=tmp_path, env=env, timeout=600)
    results = json.loads((tmp_path / "r.json").read_text())
    assert results["pass1"] == 1.0, results["tasks"][0]["runs"][0]["verdict"]
    assert results["provenance"]["version"] == "0.1.0" and results["provenance"]["book_seed"] == 7
    if transport == "tools":  # the report's templates and assets come from the wheel too
        run([str(venv / "bin" / "cfab"), "report", "r.json", "--out", "report"], cwd=tmp_path, env=env, timeout=300)
        assert "<table" in (tmp_path / "report" / "index.html").read_text()
    else:  # the gold replays from the wheel's tasks/gold
        run([str(venv / "bin" / "cfab"), "run", "--policy", "gold", "--transport", "tools", "--tasks", TASK,
             "--quiet", "--out", "g.json"], cwd=tmp_path, env=env, timeout=600)
        assert json.loads((tmp_path / "g.json").read_text())["pass1"] == 1.0
