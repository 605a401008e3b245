"""`llm-browser`: a model works the task in the portals, one BrowserGym-style action at a time."""
from __future__ import annotations

from ..policies import Policy
from . import prompt
from .loop import Driver, run_loop
from .observe import ActionError, BrowserActions, format_observation, normalize, parse_actions
from .tools_agent import FINISH_ARG, finish_reply, finish_spec, function_spec

OBS_MARK = "Observation after your action"
_S = {"type": "string"}
_NUM = {"type": "number"}


def _action(name: str, doc: str, props: dict | None = None, required: tuple = ()) -> dict:
    return function_spec(name, doc, {"type": "object", "properties": props or {}, "required": list(required)})


# BrowserGym's high-level action set, under its parameter names (observe.normalize also takes
# the older text/value/dx/dy).
BROWSER_TOOLS = [
    _action("click", "Click the element with this ref or bid.",
            {"bid": _S, "button": {"type": "string", "enum": ["left", "middle", "right"]},
             "modifiers": {"type": "array", "items": {"type": "string",
                           "enum": ["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]}}}, ("bid",)),
    _action("fill", "Type value into the input with this ref or bid (replaces its value).",
            {"bid": _S, "value": _S}, ("bid", "value")),
    _action("select_option", "Choose an option (by value or label; a list for a multiple select).",
            {"bid": _S, "options": {"anyOf": [_S, {"type": "array", "items": _S}]}}, ("bid", "options")),
    _action("clear", "Empty the input with this ref or bid.", {"bid": _S}, ("bid",)),
    _action("hover", "Move the mouse over the element.", {"bid": _S}, ("bid",)),
    _action("focus", "Focus the element.", {"bid": _S}, ("bid",)),
    _action("press", "Press a key combination (e.g. Enter, Control+a) in the element.",
            {"bid": _S, "key_comb": _S}, ("bid", "key_comb")),
    _action("keyboard_press", "Press a key combination in whatever has the focus.", {"key": _S}, ("key",)),
    _action("goto", "Open a URL or path on this site.", {"url": _S}, ("url",)),
    _action("go_back", "Go back one page in this tab."),
    _action("go_forward", "Go forward one page in this tab."),
    _action("scroll", "Scroll by delta_x, delta_y pixels (the scrolling part under the centre, else the page).",
            {"delta_x": _NUM, "delta_y": _NUM}, ("delta_x", "delta_y")),
    _action("noop", "Do nothing this turn (waits for anything still loading).", {"wait_ms": _NUM}),
    _action("new_tab", "Open a blank tab and make it the active one."),
    _action("tab_focus", "Make tab index (0 is the first) the active one.", {"index": {"type": "integer"}}, ("index",)),
    _action("tab_close", "Close the active tab."),
    _action("send_msg_to_user", "Tell the person who asked something; it becomes part of your reply.",
            {"text": _S}, ("text",)),
    finish_spec(),
]


class BrowserDriver(Driver):
    tools = BROWSER_TOOLS

    def __init__(self, portal, screenshots: bool = False):
        self.actions = BrowserActions(portal.page, portal.base_url)
        self.screenshots = screenshots
        self.messages_to_user: list[str] = []
        self.final = ""

    def observation_message(self, note: str) -> dict:
        obs = self.actions.observe(screenshot=self.screenshots)
        text = format_observation(obs, note)
        if not self.screenshots:
            return {"role": "user", "content": text}
        return {"role": "user", "content": [
            {"type": "text", "text": text},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + obs["screenshot"]}}]}

    def execute(self, name: str, args: dict) -> tuple[str, bool]:
        if name == "finish":  # finish(reply); summary= is accepted as another name
            args = {FINISH_ARG: finish_reply(args)}
        try:
            outcome = self.actions.execute(name, args)
            args = normalize(name, args)
        except ActionError as err:
            return f"error: {err}", False
        if name == "send_msg_to_user":
            self.messages_to_user.append(args["text"])
        if name == "report_infeasible":  # BrowserGym's way to give up: the reason is the reply
            self.final = args["reason"]
            return outcome, True
        if name == "finish":
            self.final = args[FINISH_ARG]
            return outcome, True
        return outcome, False

    def parse_text(self, text: str) -> list[tuple[str, dict]]:
        return parse_actions(text)

    def after_turn(self, messages: list[dict]) -> None:
        messages.append(self.observation_message(f"{OBS_MARK}(s):"))

    def before_model(self, messages: list[dict]) -> None:
        # Only the newest page is sent in full: old trees and screenshots would re-bill
        # thousands of tokens every step and say nothing about the current page.
        seen_latest = False
        for message in reversed(messages):
            if message.get("role") != "user":
                continue
            content = message["content"]
            text = content[0]["text"] if isinstance(content, list) else content
            if OBS_MARK not in text[:200]:
                continue
            if seen_latest:
                url = next((line for line in text.splitlines() if line.startswith("URL: ")), "")
                message["content"] = f"{OBS_MARK}(s): (older page, elided) {url}"
            seen_latest = True

    def reply(self) -> str:
        return "\n".join([*self.messages_to_user, self.final]).strip()


class LLMBrowserPolicy(Policy):
    """A chat model in a ReAct loop over the portals in Chromium."""

    name = "llm-browser"
    uses_model = True

    def __init__(self, client, max_steps: int = 24, screenshots: bool = False, **_ignored):
        self.client = client
        self.model = client.model
        self.max_steps = max_steps
        self.screenshots = screenshots

    def run_browser(self, task, portal, meter=None) -> str:
        meter = meter if meter is not None else self.client.meter()
        driver = BrowserDriver(portal, self.screenshots)
        # The request and the first page are separate messages, so eliding old pages later
        # never loses the request.
        messages = [{"role": "system", "content": prompt.BROWSER_SYSTEM},
                    {"role": "user", "content": prompt.browser_task(task.instruction)},
                    driver.observation_message(f"{OBS_MARK}(s): (start page)")]
        return run_loop(self.client, driver, messages, meter, self.max_steps)

    def run_tools(self, task, env, meter=None) -> str:
        raise NotImplementedError("llm-browser drives the portals; use --policy llm-tools for tools")
