"""docker-compose.yml and the Dockerfile, checked by real parsers (nothing is built or started
here: this machine has no Docker daemon and no `docker compose`).

- docker-compose.yml: PyYAML, then the Compose Specification's own JSON schema
  (tests/fixtures/compose-spec.json, from github.com/compose-spec/compose-spec, schema/, at
  commit 170098ba07d9f53c383a41bfd4c5166b0a4529a6, Apache-2.0) through jsonschema.
- Dockerfile: dockerfile-parse (the parser OpenShift's build system uses).
- docker/entrypoint.sh: run with sh against the installed project, `cfab` replaced by a stub.
"""
from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml
from dockerfile_parse import DockerfileParser

from portals.core.registry import load_apps

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "compose-spec.json").read_text())


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def dockerfile() -> list[dict]:
    return DockerfileParser(fileobj=io.BytesIO((ROOT / "Dockerfile").read_bytes())).structure


def problems(document) -> list[str]:
    return [f"{'/'.join(map(str, e.path))}: {e.message}"
            for e in jsonschema.Draft7Validator(SCHEMA).iter_errors(document)]


def test_the_compose_file_is_valid_by_the_compose_spec_schema(compose):
    assert problems(compose) == []
    # and the schema does catch what docker compose would refuse
    broken = copy.deepcopy(compose)
    broken["services"]["cfab"]["ports"] = "8300:8300"
    broken["services"]["cfab"]["healthcheck"]["intervals"] = "30s"  # a misspelt key
    broken["servics"] = {}
    found = "\n".join(problems(broken))
    assert "servics" in found and "ports" in found and "intervals" in found


def test_docker_compose_up_stands_the_whole_stack_up_and_each_app_has_a_server(compose):
    services = compose["services"]
    default = {name: s for name, s in services.items() if not s.get("profiles")}
    assert list(default) == ["cfab"], "plain `docker compose up` starts the whole stack alone"
    assert default["cfab"]["environment"]["APP"] == "all"
    assert default["cfab"]["ports"] == ["${CFAB_PORT:-8300}:8300"]
    per_app = {s["environment"]["APP"]: name for name, s in services.items() if "apps" in s.get("profiles", [])}
    assert sorted(per_app) == sorted(load_apps()), "one server per app, for every app and no other"
    host_ports = [s["ports"][0].split(":")[0] for s in services.values() if s.get("ports")]
    assert len(host_ports) == len(set(host_ports))
    for name, service in services.items():  # one image, built from this Dockerfile
        assert service["image"] == "cfagentbench:latest", name
        assert service["build"] == {"context": ".", "dockerfile": "Dockerfile"}, name
    runner = services["cfab-run"]
    assert runner["entrypoint"] == ["cfab"] and runner["command"][:2] == ["run", "--policy"]
    assert "/data/results/" in runner["command"][-1] and "./results:/data/results" in runner["volumes"]


def test_the_dockerfile_parses_and_installs_every_part_of_the_package(dockerfile):
    kinds = [i["instruction"] for i in dockerfile if i["instruction"] != "COMMENT"]
    assert kinds[0] == "FROM" and kinds[-1] == "ENTRYPOINT"
    base = next(i["value"] for i in dockerfile if i["instruction"] == "FROM")
    assert base.startswith("python:3.11")  # pyproject: requires-python >= 3.11
    copies = [i["value"].split() for i in dockerfile if i["instruction"] == "COPY"]
    sources = [src for parts in copies for src in parts[:-1]]
    for src in sources:
        assert (ROOT / src).exists(), f"COPY {src}: no such path in the checkout"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = {p.rstrip("*") for p in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}
    assert packages <= set(sources), f"the image leaves out {packages - set(sources)}"
    assert any("pip install" in i["value"] and " ." in i["value"] for i in dockerfile if i["instruction"] == "RUN")
    assert json.loads(next(i["value"] for i in dockerfile if i["instruction"] == "ENTRYPOINT")) == ["cfab-entrypoint"]
    assert any(i["value"] == "8300" for i in dockerfile if i["instruction"] == "EXPOSE")
    assert any(i["instruction"] == "USER" and i["value"] != "root" for i in dockerfile)


@pytest.fixture
def entry(tmp_path):
    """Runs docker/entrypoint.sh with a stub `cfab` that prints the arguments it was given."""
    stub = tmp_path / "bin" / "cfab"
    stub.parent.mkdir()
    stub.write_text('#!/bin/sh\necho "cfab $*"\n')
    stub.chmod(0o755)
    python = tmp_path / "bin" / "python"
    python.symlink_to(sys.executable)

    def run(app: str | None):
        env = {"PATH": f"{stub.parent}:/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
        if app is not None:
            env["APP"] = app
        return subprocess.run(["sh", str(ROOT / "docker" / "entrypoint.sh"), "--idle-hours", "2"],
                              capture_output=True, text=True, env=env, timeout=60)
    return run


def test_the_entry_point_serves_the_stack_or_introduces_one_app(entry):
    whole = entry(None)
    assert whole.returncode == 0, whole.stderr
    assert whole.stdout.strip() == "cfab serve --host 0.0.0.0 --port 8300 --recordings /data/recordings --idle-hours 2"
    one = entry("vista_erp")
    assert one.returncode == 0, one.stderr
    assert f"http://localhost:8300{load_apps()['vista_erp'].base_path}/" in one.stdout
    assert one.stdout.strip().endswith(
        "cfab serve --host 0.0.0.0 --port 8300 --recordings /data/recordings --app vista_erp --idle-hours 2")
    for bad in ("vista", "../agent/x", "Procore", "procore; ls"):
        refused = entry(bad)
        assert refused.returncode == 2 and "cfab serve" not in refused.stdout, bad
        assert "is not an app" in refused.stderr and all(name in refused.stderr for name in load_apps())
