"""CFAgentBench as gymnasium environments: one id per task, `cfab/<instance_id>`.

    from agent.gym_env import register_envs; register_envs()
    env = gymnasium.make("cfab/cf_H_procore_erp_sync_1042")                 # tools
    env = gymnasium.make("cfab/cf_H_procore_erp_sync_1042", transport="browser")

Actions are text. Tools: a JSON object {"tool": "<app>.<tool>", "args": {...}} or
{"finish": "<reply>"}. Browser: one call of BrowserGym's action set, with its keyword names, e.g.
click('e12'), fill(bid='invoice-X-sync', value='9140'), select_option(bid=..., options=...),
scroll(0, 200), go_back(), noop(), goto('/procore/'), send_msg_to_user('...'), finish('reply').
The browser observation is the page as text, or with `observation="dict"` BrowserGym's
observation dict (goal, chat_messages, axtree_txt, pruned_html, url, open_pages_urls,
last_action, last_action_error, ..., and `screenshot` as an RGB array when `screenshot=True`).
The episode ends on finish (terminated) or after
`max_steps` actions (truncated); either way the reward is the grader's score for the state
left behind, and `info` carries the verdict. A malformed action is an error observation.
"""
from __future__ import annotations

import json
import string
from contextlib import ExitStack

import gymnasium as gym
from gymnasium import spaces

from portals.core.environment import Environment
from portals.core.episode import EpisodeStore
from tasks.lifecycle import grade_episode, open_episode

MAX_TEXT = 200_000


class AnyText(spaces.Text):
    """Text over any characters (pages and tool results are not limited to an alphabet);
    samples are drawn from printable ASCII."""

    def __init__(self, max_length: int):
        super().__init__(max_length, min_length=0, charset=string.printable)

    def contains(self, x) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length


class CfabEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, instance_id: str, transport: str = "tools", max_steps: int = 50,
                 store: EpisodeStore | None = None, observation: str = "text", screenshot: bool = False):
        from tasks.registry import get

        if transport not in ("tools", "browser"):
            raise ValueError("transport must be 'tools' or 'browser'")
        if observation not in ("text", "dict"):
            raise ValueError("observation must be 'text' or 'dict' (BrowserGym's observation dict)")
        if (observation == "dict" or screenshot) and transport != "browser":
            raise ValueError("observation='dict' and screenshot=True are for transport='browser'")
        self.task = get(instance_id)
        self.transport = transport
        self.max_steps = max_steps
        self.observation_mode, self.screenshot = observation, screenshot
        self.observation_space = AnyText(MAX_TEXT) if observation == "text" else _dict_space(screenshot)
        self.action_space = AnyText(MAX_TEXT)
        self._store = store
        self._stack = ExitStack()
        self._episode = None
        self._context = None
        self._server = self._flask = None

    # --- lifecycle -------------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._end_episode()
        if self._store is None:
            self._store = EpisodeStore()
        apps = list(self.task.apps)
        self._episode = open_episode(self._store, self.task)  # an evaluation episode
        self._steps, self._messages, self._done = 0, [], False
        self._chat, self._error = [], ""
        head = f"Request: {self.task.instruction}\n"
        if self.transport == "tools":
            self._env = Environment(self._episode, apps)
            first = head + "Tools: " + ", ".join(self._env.tool_names())
            info = {"tools": self._env.tools()}
        else:
            first = head + self._open_browser()
            info = {}
        info.update({"instance_id": self.task.instance_id, "apps": apps})
        if self.observation_mode == "dict":
            return self._gym_observation(), info
        return self._clip(first), info

    def step(self, action):
        if self._episode is None or self._done:
            raise RuntimeError("call reset() before step(), and again after an episode ends")
        self._steps += 1
        observation, finished = self._apply(str(action))
        truncated = not finished and self._steps >= self.max_steps
        reward, info = 0.0, {}
        if finished or truncated:
            self._done = True
            reply = "\n".join(self._messages).strip()
            result = grade_episode(self._episode, self.task, reply).grade
            reward = float(result.score)
            info = {"passed": result.passed, "verdict": list(result.verdict), "reply": reply}
        if self.observation_mode == "dict":
            return self._gym_observation(str(action), self._error), reward, finished, truncated, info
        return self._clip(observation), reward, finished, truncated, info

    def close(self):
        self._end_episode()
        if self._context is not None:
            self._context.close()
        self._stack.close()
        self._server = self._context = self._flask = None

    # --- the two transports -----------------------------------------------------------------
    def _apply(self, action: str) -> tuple[str, bool]:
        if self.transport == "tools":
            return self._apply_tool(action)
        return self._apply_browser(action)

    def _apply_tool(self, action: str) -> tuple[str, bool]:
        try:
            data = json.loads(action)
        except ValueError:
            data = None
        if isinstance(data, dict) and "finish" in data:
            self._messages.append(str(data["finish"]))
            return "finished", True
        if not (isinstance(data, dict) and isinstance(data.get("tool"), str)):
            return ('error: an action is JSON: {"tool": "<app>.<tool>", "args": {...}} '
                    'or {"finish": "<reply>"}'), False
        result = self._env.call(data["tool"], data.get("args") or {})
        return json.dumps(result, ensure_ascii=False, sort_keys=True, default=str), False

    def _apply_browser(self, action: str) -> tuple[str, bool]:
        from .llm.observe import ActionError, normalize, parse_actions

        self._error = ""
        parsed = parse_actions(action)
        if not parsed:
            self._error = "write one action, e.g. click('e12') or finish('reply')"
            return f"error: {self._error}\n" + self._observe(), False
        name, args = parsed[0]
        try:
            self._actions.execute(name, args)
            args = normalize(name, args)
        except ActionError as err:
            self._error = str(err)
            return f"error: {err}\n" + self._observe(), False
        said = {"send_msg_to_user": "text", "finish": "reply", "report_infeasible": "reason"}.get(name)
        if said:
            self._messages.append(args[said])
            if name == "send_msg_to_user":
                self._chat.append({"role": "assistant", "message": args[said]})
        return self._observe(), name in ("finish", "report_infeasible")

    def _gym_observation(self, last_action: str = "", error: str = "") -> dict:
        return self._actions.gym_observation(goal=self.task.instruction, chat_messages=self._chat,
                                             last_action=last_action, last_action_error=error,
                                             screenshot=self.screenshot)

    def _open_browser(self) -> str:
        from portals.core.web import create_app, enter_url

        from .browser import PortalServer, chromium
        from .llm.observe import BrowserActions

        if self._server is None:  # one server, Chromium and context per env, kept across resets
            self._flask = create_app(self._store)
            self._server = self._stack.enter_context(PortalServer(self._flask))
            browser = self._stack.enter_context(chromium())
            self._context = browser.new_context(viewport={"width": 1280, "height": 860})
            self._context.set_default_timeout(15000)
        else:
            for page in list(self._context.pages):  # the last episode's tabs
                page.close()
        # A fresh page per episode keeps element refs identical run to run (refs count up
        # within a page); the enter link rebinds the session to the new episode.
        page = self._context.new_page()
        page.goto(self._server.url + enter_url(self._flask, self._episode.id, "/"))
        self._actions = BrowserActions(page, self._server.url)
        return self._observe()

    def _observe(self) -> str:
        from .llm.observe import format_observation

        return format_observation(self._actions.observe())

    def _end_episode(self):
        if self._episode is not None:
            self._store.drop(self._episode.id)
            self._episode = None

    @staticmethod
    def _clip(text: str) -> str:
        return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 20] + "\n… [cut short]"


def _dict_space(screenshot: bool) -> spaces.Dict:
    """BrowserGym's observation space, for the keys this environment fills."""
    text = AnyText(MAX_TEXT)
    fields = {name: text for name in ("goal", "url", "axtree_txt", "pruned_html", "focused_element_bid",
                                      "last_action", "last_action_error")}
    fields.update({
        "goal_object": spaces.Sequence(spaces.Dict({"type": text, "text": text})),
        "chat_messages": spaces.Sequence(spaces.Dict({"role": text, "message": text})),
        "open_pages_urls": spaces.Sequence(text), "open_pages_titles": spaces.Sequence(text),
        "active_page_index": spaces.Discrete(64),
    })
    if screenshot:
        fields["screenshot"] = spaces.Box(0, 255, shape=(860, 1280, 3), dtype="uint8")
    return spaces.Dict(fields)


def register_envs() -> list[str]:
    """Register `cfab/<instance_id>` for every task (idempotent); returns the ids."""
    from tasks.registry import all_tasks

    ids = []
    for task in all_tasks():
        env_id = f"cfab/{task.instance_id}"
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="agent.gym_env:CfabEnv",
                         kwargs={"instance_id": task.instance_id})
        ids.append(env_id)
    return ids
