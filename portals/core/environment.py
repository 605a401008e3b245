"""The tools transport: what an agent is handed. Native tools of the task's apps, nothing else.

No snapshot, reset, diff or guard-log capability is reachable from here; those belong to the
runner and the admin API.
"""
from __future__ import annotations

from .dispatch import call_tool
from .errors import ToolError


class Environment:
    """The agent-facing view of one episode, restricted to the apps a task names."""

    def __init__(self, episode, apps: list[str]):
        self._episode = episode
        self._apps = sorted(apps)
        self._tools = {}
        for app in self._apps:
            spec = episode.app(app).spec
            for name, tool in spec.tools.items():
                self._tools[f"{app}.{name}"] = (app, tool)

    def tools(self) -> list[dict]:
        """JSON schemas of every native tool, named `<app>.<tool>`."""
        return [tool.schema() for _app, tool in self._tools.values()]

    def tool_names(self) -> list[str]:
        return list(self._tools)

    def call(self, name: str, args: dict | None = None) -> dict:
        """Call a tool by its full name; refusals come back as {"error", "message"}, never raise."""
        if name not in self._tools:
            return {"error": "unknown_tool",
                    "message": f"There is no tool named {name!r}. Available: {', '.join(self._tools)}"}
        app, tool = self._tools[name]
        try:  # malformed arguments too go through the one door, so a guarded attempt is logged
            return call_tool(self._episode, app, tool, args, source="api")
        except ToolError as err:
            return err.to_dict()
