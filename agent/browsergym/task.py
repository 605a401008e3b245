"""A CFAgentBench instance as a BrowserGym task, played on a running `cfab serve`.

Only the standard library and browsergym-core are used here: the server is reached over HTTP
with its admin token (portals/core/admin_tasks.py), never imported, so this runs in
BrowserGym's own virtualenv with the Playwright it pins.

- `setup(page)` opens an evaluation episode of the task's apps on the server and sends the page
  through the episode's one-time link to the task's first app; the goal is the instruction.
- `validate(page, chat_messages)` is 0 and not done until the agent has spoken last (its
  `send_msg_to_user` is the reply the grader reads, as WebArena's answer is; `report_infeasible`
  is graded as a reply too). Then the server grades the episode: the reward is 1.0 when the run
  passes and 0.0 otherwise (the grader's partial credit is in the info as `score`), the message
  says which, and the info holds the verdict and the guard log.
- `teardown()` drops the episode.
"""
from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from typing import Tuple

import playwright.sync_api
from browsergym.core.task import AbstractBrowserTask

VIEWPORT = {"width": 1280, "height": 860}  # the project's own browser agents' viewport


class ServerError(RuntimeError):
    """`cfab serve` could not be reached, refused the admin token, or answered an error."""


def server_settings(url: str | None = None, admin_token: str | None = None) -> tuple[str, str]:
    """The server to play on: the arguments, else $CFAB_URL and $CFAB_ADMIN_TOKEN."""
    url = url or os.environ.get("CFAB_URL")
    token = admin_token or os.environ.get("CFAB_ADMIN_TOKEN")
    if not url or not token:
        raise ServerError("Say which cfab serve to play on: set CFAB_URL (e.g. http://127.0.0.1:8300) and "
                          "CFAB_ADMIN_TOKEN (cfab serve prints both), or pass task_kwargs "
                          "{'server_url': ..., 'admin_token': ...}.")
    return url.rstrip("/"), token


def admin(url: str, token: str, method: str, path: str, body: dict | None = None, timeout: float = 120):
    """One admin API call; its JSON answer, or a ServerError with the server's own message."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{url}/admin{path}", data=data, method=method,
                                     headers={"Authorization": f"Bearer {token}",
                                              **({"Content-Type": "application/json"} if data else {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        text = err.read().decode("utf-8", "replace")
        try:
            text = json.loads(text).get("message") or text
        except (ValueError, AttributeError):
            pass
        raise ServerError(f"{method} {url}/admin{path} answered {err.code}: {str(text)[:300]}") from None
    except (urllib.error.URLError, OSError) as err:
        raise ServerError(f"{url} could not be reached ({err}); is cfab serve running?") from None


def chromium_path() -> str | None:
    """Debian's Chromium (or $CFAB_CHROMIUM), for machines where Playwright's own is missing."""
    for candidate in (os.environ.get("CFAB_CHROMIUM"), "/usr/lib/chromium/chromium", "/usr/bin/chromium",
                      shutil.which("chromium")):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


class CfabTask(AbstractBrowserTask):
    """One instance; registered as `browsergym/cfab.<instance_id>` (see register_tasks)."""

    @classmethod
    def get_task_id(cls):
        return "cfab"

    def __init__(self, seed: int, instance_id: str, server_url: str | None = None,
                 admin_token: str | None = None) -> None:
        super().__init__(seed)
        self.instance_id = instance_id
        self.server_url, self.admin_token = server_settings(server_url, admin_token)
        self.viewport = dict(VIEWPORT)
        self.slow_mo = 0  # the portals answer at once; BrowserEnv's own settle waits suffice
        self.timeout = 10000
        self.episode: dict | None = None
        self.result: dict | None = None

    def _admin(self, method: str, path: str, body: dict | None = None):
        return admin(self.server_url, self.admin_token, method, path, body)

    def setup(self, page: playwright.sync_api.Page) -> tuple[str, dict]:
        self.episode = self._admin("POST", f"/tasks/{self.instance_id}/episodes")
        self.result = None
        page.goto(self.server_url + self.episode["enter_url"], timeout=30000)
        info = {k: self.episode[k] for k in ("instance_id", "episode_id", "apps", "start_path")}
        return self.episode["instruction"], info

    def validate(self, page: playwright.sync_api.Page, chat_messages: list[dict]
                 ) -> Tuple[float, bool, str, dict]:
        if self.result is not None:  # graded once; later steps change nothing
            return 0.0, True, "", dict(self.result)
        last = chat_messages[-1] if chat_messages else None
        if self.episode is None or not last or last.get("role") not in ("assistant", "infeasible"):
            return 0.0, False, "", {}
        graded = self._admin("POST", f"/episodes/{self.episode['episode_id']}/grade",
                             {"reply": str(last.get("message") or "")})
        self.result = {"passed": graded["passed"], "score": graded["score"], "verdict": graded["verdict"],
                       "guard_log": graded["guard_log"], "reply": last.get("message") or "",
                       "episode_id": self.episode["episode_id"]}
        reward = 1.0 if graded["passed"] else 0.0
        message = f"Graded: {'passed' if graded['passed'] else 'failed'} (score {graded['score']:.2f})."
        return reward, True, message, dict(self.result)

    def teardown(self) -> None:
        if self.episode is not None:
            try:
                self._admin("DELETE", f"/episodes/{self.episode['episode_id']}")
            except ServerError:
                pass  # already dropped (idle) or the server is gone: nothing is left to free
            self.episode = None
