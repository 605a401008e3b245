"""The HTTP transport's client: the in-process environment's twin over the wire.

One or many `cfab serve` processes (each hosting every app, or `--app NAME` one of them) are
composed into one registry: an app is served by the first server listed that hosts it.
`RemoteStore` stands where an `EpisodeStore` stands in the single lifecycle of
tasks/lifecycle.py: `create(apps)` opens an episode on each server involved (over the admin
API) and returns a `RemoteEpisode`, whose `diff()`, `guard_log` and `calls` aggregate the
servers' into exactly what one in-process episode of those apps would hold. The agent gets a
`RemoteEnvironment`: the same `tools()`, `tool_names()` and `call(name, args)` as
portals.core.environment.Environment, with the union of the servers' tools, called with each
episode's agent token (never the admin token).

Known difference from in-process: arguments that are not a JSON object (a list, a string) are
refused by the client with the in-process message, but the server never sees the attempt, so
it is not in the call or guard log (the tool API refuses such a body before any tool runs).
"""
from __future__ import annotations

import json
import threading
import time

import httpx

from portals.core.clock import Clock
from portals.core.errors import ToolError
from portals.core.tools import GUARDED


class RemoteError(RuntimeError):
    """A server could not be reached, refused the admin token, or failed (5xx)."""


class Connection:
    """A server's URL and one httpx connection pool per thread (runner workers): requests with a
    bearer token, a transport failure raised as RemoteError. The admin API's Server and the
    private split's PrivateServer (agent/private_client.py) are both one."""

    url_option = "--server"  # what the user passed the URL as, for the error

    def __init__(self, url: str, token: str, *, timeout: float = 120.0):
        if not url.startswith(("http://", "https://")):
            raise RemoteError(f"{self.url_option} {url!r}: give the server's URL, like http://127.0.0.1:8300")
        self.url, self._token, self._timeout = url.rstrip("/"), token, timeout
        self._local = threading.local()
        self.received: list[bytes] | None = None  # a test may collect every body received

    @property
    def http(self) -> httpx.Client:
        client = getattr(self._local, "client", None)
        if client is None:
            client = self._local.client = httpx.Client(base_url=self.url, timeout=self._timeout)
        return client

    def request(self, method: str, path: str, *, token: str, body=None, params=None) -> httpx.Response:
        try:
            resp = self.http.request(method, path, json=body, params=params,
                                     headers={"Authorization": f"Bearer {token}"})
        except httpx.HTTPError as err:
            raise RemoteError(f"{self.url}: {type(err).__name__}: {err}") from None
        if self.received is not None:
            self.received.append(resp.content)
        return resp

    def close(self) -> None:
        client = getattr(self._local, "client", None)
        if client is not None:
            client.close()
            self._local.client = None


class Server(Connection):
    """One `cfab serve` process: its admin API and tool API, and what it hosts."""

    def __init__(self, url: str, admin_token: str, *, timeout: float = 120.0):
        super().__init__(url, admin_token, timeout=timeout)
        if not admin_token:
            raise RemoteError(f"no admin token for {url} (pass --admin-token or set $CFAB_ADMIN_TOKEN)")
        health = self.admin("GET", "/health")
        self.apps: dict[str, list[str]] = health["apps"]  # {app: [tool names]}
        self.clock = Clock.at(health["clock"])
        self.seed, self.book_seed = health.get("seed"), health.get("book_seed")

    def admin(self, method: str, path: str, body=None, params=None, *, raw: bool = False):
        resp = self.request(method, f"/admin{path}", token=self._token, body=body, params=params)
        if resp.status_code >= 400:
            raise RemoteError(f"{self.url}: {method} /admin{path} answered {resp.status_code}: "
                              f"{_message(resp)}")
        return resp if raw else resp.json()


def _message(resp: httpx.Response) -> str:
    try:
        return str(resp.json().get("message") or resp.text[:300])
    except (ValueError, AttributeError):
        return resp.text[:300]


class RemoteStore:
    """What the lifecycle needs of a store (`create`, `get`, `drop`, `clock`, `seed`, `book`),
    over one or many servers. Every server must be built from the same world (clock, run seed,
    book seed): otherwise one episode's apps would not belong together."""

    def __init__(self, urls: list[str], admin_token: str | list[str], *, timeout: float = 120.0):
        if not urls:
            raise RemoteError("give at least one --server URL")
        tokens = admin_token if isinstance(admin_token, list) else [admin_token] * len(urls)
        self.servers = [Server(url, token, timeout=timeout) for url, token in zip(urls, tokens)]
        first = self.servers[0]
        for other in self.servers[1:]:
            if (other.clock.iso(), other.seed, other.book_seed) != (first.clock.iso(), first.seed, first.book_seed):
                raise RemoteError(f"{other.url} runs another world than {first.url} (clock, run seed or "
                                  "book seed differ): start every server with the same CFAB_CLOCK and seeds")
        self.route: dict[str, Server] = {}
        for server in self.servers:
            for app in server.apps:
                self.route.setdefault(app, server)  # the first server listed that hosts it
        self.clock, self.seed = first.clock, first.seed
        self.book = {"meta": {"seed": first.book_seed}}  # what provenance reads of a store's book
        self.episodes: dict[str, RemoteEpisode] = {}
        self._lock = threading.Lock()

    def create(self, apps: list[str] | None = None) -> "RemoteEpisode":
        names = sorted(apps or self.route)
        missing = [a for a in names if a not in self.route]
        if missing:
            raise KeyError(f"no server given hosts {', '.join(missing)}; they host "
                           f"{', '.join(sorted(self.route))}")
        groups: dict[int, list[str]] = {}
        for app in names:
            groups.setdefault(self.servers.index(self.route[app]), []).append(app)
        parts = []
        try:
            for index in sorted(groups):
                server = self.servers[index]
                made = server.admin("POST", "/episodes", {"apps": groups[index]})
                parts.append(Part(server, made["episode_id"], made["agent_token"], made["apps"],
                                  made["enter_url"]))
        except BaseException:
            for part in parts:  # all of it or none of it
                _drop(part)
            raise
        episode = RemoteEpisode(parts)
        with self._lock:
            self.episodes[episode.id] = episode
        return episode

    def get(self, episode_id: str) -> "RemoteEpisode | None":
        with self._lock:
            return self.episodes.get(episode_id)

    def drop(self, episode_id: str) -> None:
        with self._lock:
            episode = self.episodes.pop(episode_id, None)
        for part in episode.parts if episode is not None else ():
            _drop(part)

    def close(self) -> None:
        for episode_id in list(self.episodes):
            self.drop(episode_id)
        for server in self.servers:
            server.close()


class Part:
    """The piece of a remote episode one server holds."""

    def __init__(self, server: Server, episode_id: str, agent_token: str, apps: list[str], enter_url: str):
        self.server, self.id, self.agent_token = server, episode_id, agent_token
        self.apps, self.enter_url = list(apps), enter_url


def _drop(part: Part) -> None:
    resp = part.server.request("DELETE", f"/admin/episodes/{part.id}", token=part.server._token)
    if resp.status_code not in (200, 404):  # 404: already gone (dropped idle, or a restart)
        raise RemoteError(f"{part.server.url}: dropping episode {part.id} answered {resp.status_code}")


RATE_RETRIES = 4  # a tool call refused by the server's rate limit (429) is sent again this often


def _retry_after(resp: httpx.Response) -> float:
    """The seconds a 429 asks to wait (Retry-After), from 1 to 60."""
    try:
        return min(60.0, max(1.0, float(resp.headers.get("Retry-After", 1))))
    except ValueError:
        return 1.0


def _reached_the_tool(resp: httpx.Response) -> bool:
    """Whether the server's dispatcher saw this call (and so logged it): not a body refused
    unread, a token refused, a rate limit, or a proxy's error; a 500 is a tool that failed."""
    if resp.status_code in (401, 413, 429) or resp.status_code > 500:
        return False
    try:
        return not (resp.status_code == 400 and resp.json().get("error") == "invalid_body")
    except (ValueError, AttributeError):
        return resp.status_code < 500


class RemoteEpisode:
    """An episode spread over servers, read as one: what `grade_episode` reads of an episode."""

    def __init__(self, parts: list[Part]):
        self.parts = parts
        self.id = "+".join(p.id for p in parts)
        self.apps = sorted(a for p in parts for a in p.apps)
        self.meta: dict = {}
        self._order: list[int] = []  # the part each tool call went to, in the order made
        self._lock = threading.Lock()

    def part_of(self, app: str) -> int:
        for index, part in enumerate(self.parts):
            if app in part.apps:
                return index
        raise KeyError(app)

    @property
    def enter_url(self) -> str:
        """The server's one-time link into this episode, for a browser (one server only)."""
        if len(self.parts) != 1:
            raise RemoteError("the browser transport needs every app of the task on one server")
        return self.parts[0].enter_url

    def call(self, app: str, name: str, args: dict) -> httpx.Response:
        index = self.part_of(app)
        part = self.parts[index]
        for _ in range(RATE_RETRIES):  # a 429 never reached the tool: waiting and sending again is safe
            resp = part.server.request("POST", f"/api/tools/{name}", token=part.agent_token, body=args)
            if resp.status_code != 429:
                break
            time.sleep(_retry_after(resp))
        if _reached_the_tool(resp):
            with self._lock:
                self._order.append(index)
        return resp

    def _admin(self, part: Part, what: str, params=None):
        return part.server.admin("GET", f"/episodes/{part.id}/{what}", params=params)

    def diff(self) -> dict:
        out = {}
        for part in self.parts:
            out.update(self._admin(part, "state_diff"))
        return {app: out[app] for app in sorted(out)}

    def snapshot(self) -> dict[str, bytes]:
        """{app: its canonical snapshot bytes}, byte for byte what the server holds."""
        out = {}
        for part in self.parts:
            for app in part.apps:
                body = self._admin_raw(part, "snapshot", {"app": app})
                prefix = b"{" + json.dumps(app).encode() + b":"
                if not (body.startswith(prefix) and body.endswith(b"}")):
                    raise RemoteError(f"{part.server.url}: the snapshot of {app} is not one app's")
                out[app] = body[len(prefix):-1]
        return dict(sorted(out.items()))

    def _admin_raw(self, part: Part, what: str, params=None) -> bytes:
        return part.server.admin("GET", f"/episodes/{part.id}/{what}", params=params, raw=True).content

    def restore(self, blobs: dict[str, bytes]) -> None:
        """The paper's reset: these exact snapshots restored (each server: all its apps or none)."""
        for part in self.parts:
            mine = {app: json.loads(blob) for app, blob in blobs.items() if app in part.apps}
            if mine:
                part.server.admin("POST", f"/episodes/{part.id}/reset", mine)

    def reset(self) -> None:
        for part in self.parts:
            part.server.admin("POST", f"/episodes/{part.id}/reset")
        with self._lock:
            self._order.clear()

    def logs(self) -> tuple[list, list]:
        """(calls, guard_log) as one in-process episode would hold them: each server's entries
        interleaved in the order the calls were made, calls numbered across the episode."""
        per = [(self._admin(p, "calls"), self._admin(p, "guarded_calls")) for p in self.parts]
        if len(per) == 1:
            return per[0]
        with self._lock:
            order = list(self._order)
        order += [i for i, (calls, _) in enumerate(per) for _ in calls]  # anything not made here
        taken, guards_taken = [0] * len(per), [0] * len(per)
        calls, guard_log = [], []
        for index in order:
            server_calls, server_guards = per[index]
            if taken[index] >= len(server_calls):
                continue  # a call the server refused before any tool ran
            entry = dict(server_calls[taken[index]])
            taken[index] += 1
            entry["seq"] = len(calls) + 1
            calls.append(entry)
            if entry.get("kind") == GUARDED and guards_taken[index] < len(server_guards):
                guard_log.append(server_guards[guards_taken[index]])
                guards_taken[index] += 1
        for index, (_, server_guards) in enumerate(per):
            guard_log += server_guards[guards_taken[index]:]  # never lose an entry
        return calls, guard_log

    @property
    def calls(self) -> list:
        return self.logs()[0]

    @property
    def guard_log(self) -> list:
        return self.logs()[1]


class RemoteEnvironment:
    """The agent-facing view of a remote episode: the native tools of the task's apps."""

    def __init__(self, episode: RemoteEpisode, apps: list[str]):
        self._episode = episode
        self._apps = sorted(apps)
        outside = [a for a in self._apps if a not in episode.apps]
        if outside:
            raise KeyError(f"{', '.join(outside)} is not part of this episode")
        schemas: dict[int, list[dict]] = {}
        self._tools: dict[str, tuple[str, dict]] = {}
        for app in self._apps:  # the in-process order: apps sorted, each app's tools as declared
            index = episode.part_of(app)
            if index not in schemas:
                part = episode.parts[index]
                resp = part.server.request("GET", "/api/tools", token=part.agent_token)
                if resp.status_code != 200:
                    raise RemoteError(f"{part.server.url}: GET /api/tools answered {resp.status_code}: "
                                      f"{_message(resp)}")
                schemas[index] = resp.json()
            prefix = f"{app}."
            for schema in schemas[index]:
                if schema["name"].startswith(prefix):
                    self._tools[schema["name"]] = (app, schema)

    def tools(self) -> list[dict]:
        """JSON schemas of every native tool, named `<app>.<tool>`."""
        return [schema for _app, schema in self._tools.values()]

    def tool_names(self) -> list[str]:
        return list(self._tools)

    def call(self, name: str, args: dict | None = None) -> dict:
        """Call a tool by its full name; refusals come back as {"error", "message"}, never raise
        (a server failure, 5xx or unreachable, raises RemoteError as an in-process bug would)."""
        if name not in self._tools:
            return {"error": "unknown_tool",
                    "message": f"There is no tool named {name!r}. Available: {', '.join(self._tools)}"}
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return ToolError("Tool arguments must be an object of named values.").to_dict()
        app, _schema = self._tools[name]
        resp = self._episode.call(app, name, args)
        if resp.status_code >= 500 or resp.status_code in (401, 413, 429):
            raise RemoteError(f"{resp.request.url.host}: {name} answered {resp.status_code}: {_message(resp)}")
        try:
            return resp.json()
        except ValueError:
            raise RemoteError(f"{name} answered {resp.status_code} with a body that is not JSON") from None
