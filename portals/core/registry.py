"""The registry: every app is an archetype (behaviour) plus a vendor manifest (data).

Manifests live at `portals/<archetype>/vendors/<vendor>.toml` and name the app, its label,
skin, vocabulary, screens, which service function backs each of the product's native tool
names, and the placeholders its tool docs are written with (`{vendor_id_format}`). Adding a
vendor is a manifest and a skin, not new Python.
"""
from __future__ import annotations

import importlib
import re
import tomllib
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from types import ModuleType
from typing import Callable

from sqlalchemy import MetaData

from .db import primary_keys
from .tools import GUARDED, ToolSpec, build_tool

PORTALS = Path(__file__).resolve().parent.parent
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


@dataclass(frozen=True)
class Archetype:
    """What one kind of system does: its tables, its services, how it seeds and how it looks."""

    name: str
    metadata: MetaData
    services: ModuleType
    seed: Callable  # seed(session, book, rng, clock, spec) -> None
    blueprint: Callable  # blueprint(spec) -> flask.Blueprint


@dataclass(frozen=True, eq=False)
class AppSpec:
    name: str
    label: str
    kind: str
    tier: str
    skin: str
    archetype: Archetype
    tool_map: dict  # product tool name -> service function name
    money_guarded_tools: tuple
    vocabulary: dict
    manifest: dict = field(repr=False)

    @property
    def base_path(self) -> str:
        return self.manifest.get("base_path", f"/{self.name}")

    @cached_property
    def pks(self) -> dict[str, str]:
        return primary_keys(self.archetype.metadata)

    @cached_property
    def tools(self) -> dict[str, ToolSpec]:
        out = {}
        for tool_name, service_name in self.tool_map.items():
            func = getattr(self.archetype.services, service_name, None)
            if func is None:
                raise LookupError(f"{self.name}: tool {tool_name} names missing service {service_name}")
            out[tool_name] = self._in_own_words(build_tool(self.name, tool_name, func))
        guarded = {n for n, s in out.items() if s.kind == GUARDED}
        if guarded != set(self.money_guarded_tools):
            raise ValueError(f"{self.name}: money_guarded_tools {sorted(self.money_guarded_tools)} "
                             f"disagree with guarded services {sorted(guarded)}")
        return out

    @cached_property
    def service_tool_names(self) -> dict[str, str]:
        return {service: tool for tool, service in self.tool_map.items()}

    def tool_for_service(self, service_name: str) -> ToolSpec:
        """The product's tool for a service; services not exposed as tools keep their own name."""
        name = self.service_tool_names.get(service_name)
        if name is not None:
            return self.tools[name]
        func = getattr(self.archetype.services, service_name)
        return self._in_own_words(build_tool(self.name, service_name, func))

    @property
    def placeholders(self) -> dict[str, str]:
        """Text the manifest puts into shared docstrings: `{vendor_id_format}` becomes this
        product's own id format, so one service documents itself in every vendor's words."""
        return dict(self.manifest.get("placeholders", {}))

    def fill(self, text: str) -> str:
        values = self.placeholders
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)

    def _in_own_words(self, tool: ToolSpec) -> ToolSpec:
        tool.description = self.fill(tool.description)
        for param in tool.params:
            param.description = self.fill(param.description)
        return tool

    def word(self, key: str) -> str:
        """The product's word for a thing ("Bill" in Intacct, "AP Invoice" in Vista)."""
        return self.vocabulary.get(key, key.replace("_", " ").title())


def _load_manifest(path: Path) -> AppSpec:
    data = tomllib.loads(path.read_text())
    module = importlib.import_module(f"portals.{data['kind']}")
    # an archetype with more than one line of business (compliance: payroll, tax) keys them by `line`
    archetype: Archetype = getattr(module, "ARCHETYPES", {}).get(data.get("line", ""), module.ARCHETYPE)
    return AppSpec(
        name=data["app"], label=data["label"], kind=data["kind"], tier=data.get("tier", "A"),
        skin=data.get("skin", data["app"]), archetype=archetype,
        tool_map=dict(data.get("tools", {})),
        money_guarded_tools=tuple(data.get("money_guarded_tools", [])),
        vocabulary=dict(data.get("vocabulary", {})), manifest=data)


@lru_cache(maxsize=1)
def load_apps() -> dict[str, AppSpec]:
    """Every app with a manifest, by registry name."""
    specs = [_load_manifest(p) for p in sorted(PORTALS.glob("*/vendors/*.toml"))]
    return {s.name: s for s in sorted(specs, key=lambda s: s.name)}


def get_app(name: str) -> AppSpec:
    apps = load_apps()
    if name not in apps:
        raise KeyError(f"no app named {name!r}; known apps: {', '.join(apps)}")
    return apps[name]
