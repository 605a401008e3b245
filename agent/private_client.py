"""The agent's side of the private split: `cfab run --remote URL --split private`.

`PrivateStore` stands where a store stands in the one lifecycle (tasks/lifecycle.py): it lists
the server's private instances as tasks that carry no evaluator, opens a run per attempt
(`open_task`), and its `PrivateEpisode` is graded by the server (`submit`), which answers pass
and score alone. The agent works the episode as on the http transport (agent/remote.py's
RemoteEnvironment, over the episode's agent token) or in a browser (the run's one-time link).
The runner keeps its journal and resume as for any sweep; what it records of a private run is
what the server told it.
"""
from __future__ import annotations

import threading

from portals.core.clock import Clock

from .remote import Connection, Part, RemoteEpisode, RemoteError, _message
from .private import PRO_SPLIT


class PrivateServer(Connection):
    """The private server as a RemoteEpisode's part needs it: its URL and requests."""

    url_option = "--remote"

    def __init__(self, url: str, token: str, *, timeout: float = 120.0):
        super().__init__(url, token, timeout=timeout)
        if not token:
            raise RemoteError("no participant token for the private split (pass --private-token or set "
                              "$CFAB_PRIVATE_TOKEN)")

    def private(self, method: str, path: str, body=None) -> dict:
        resp = self.request(method, f"/private{path}", token=self._token, body=body)
        if resp.status_code >= 400 and resp.status_code != 409:
            raise RemoteError(f"{self.url}: {method} /private{path} answered {resp.status_code}: {_message(resp)}")
        return resp.json()


def private_task(view: dict):
    """A task an agent can run from what the server shows: no evaluator, no oracle."""
    from tasks.model import Task

    return Task(instance_id=view["instance_id"], family=view["family"], domain_code=view["family"][0],
                difficulty=view["difficulty"], apps=tuple(view["apps"]), instruction=view["instruction"],
                policy_ref=view["policy_ref"], money_movement_guard=view["money_movement_guard"],
                evaluator={}, user_role=view.get("user_role", "Controller"))


class PrivateEpisode(RemoteEpisode):
    """One private run: an episode on the server, graded there."""

    graded_remotely = True

    def __init__(self, server: PrivateServer, made: dict):
        super().__init__([Part(server, made["episode_id"], made["agent_token"], made["apps"], made["enter_url"])])
        self.run_id, self.instance_id = made["run_id"], made["instance_id"]
        self.server = server

    def submit(self, reply: str, error: str | None = None) -> dict:
        body = {"reply": reply or ""}
        if error:
            body["error"] = error
        told = self.server.private("POST", f"/runs/{self.run_id}/submit", body)
        if not isinstance(told.get("passed"), bool):
            raise RemoteError(f"the private server answered no pass/fail for run {self.run_id}")
        return told

    def _no(self, *_args, **_kwargs):
        raise RemoteError("a private episode's state, diff and logs stay on its server")

    diff = snapshot = restore = reset = logs = _no

    @property
    def calls(self) -> list:
        return []

    @property
    def guard_log(self) -> list:
        return []


class PrivateStore:
    """The private server's instances and runs, as the runner's store."""

    def __init__(self, url: str, token: str, *, label: dict | None = None, timeout: float = 120.0):
        self.server = PrivateServer(url, token, timeout=timeout)
        listing = self.server.private("GET", "/instances")
        if listing.get("split") != PRO_SPLIT:
            raise RemoteError(f"{url} does not host the private split (cfab serve --split private)")
        self.private_world = listing["private_world"]
        self.views = listing["instances"]
        self.clock = Clock.at(listing["clock"])
        self.seed = None
        self.book = {"meta": {"seed": None, "private_split": self.private_world}}
        self.label = dict(label or {})
        self.episodes: dict[str, PrivateEpisode] = {}
        self._lock = threading.Lock()

    def tasks(self, ids: list[str] | None = None) -> list:
        views = {v["instance_id"]: v for v in self.views}
        if ids is None:
            return [private_task(v) for v in self.views]
        missing = [i for i in ids if i not in views]
        if missing:
            raise LookupError(f"the private server has no instance {', '.join(missing)}")
        return [private_task(views[i]) for i in ids]

    def open_task(self, task) -> PrivateEpisode:
        made = self.server.private("POST", "/runs", {"instance_id": task.instance_id, **self.label})
        episode = PrivateEpisode(self.server, made)
        with self._lock:
            self.episodes[episode.id] = episode
        return episode

    def create(self, apps=None):
        raise RemoteError("the private split opens a run per instance (open_task), not a bare episode")

    def get(self, episode_id: str):
        with self._lock:
            return self.episodes.get(episode_id)

    def drop(self, episode_id: str) -> None:
        with self._lock:  # the server dropped it when it graded the run
            self.episodes.pop(episode_id, None)

    def close(self) -> None:
        self.episodes.clear()
