"""The ReAct loop both LLM policies share: ask the model, run its actions, feed back results.

A driver supplies the function specs, runs one named action, parses actions out of plain text
(for models that answer without function calls) and may append an observation after a turn.
Whatever the model sends — bad JSON, unknown names, endless loops — the loop ends cleanly with
`meter.stop_reason` set; only a provider failure (InfraError) escapes.

When the meter carries a transcript (a model client's meters do), the loop records the whole
conversation there as it happens: the tools offered, every message in the order it was added
(copied before any later elision of old pages), every raw model response with its token
counts, the full text of any tool result the model was shown cut short, and how the run ended.
"""
from __future__ import annotations

import copy
import json
import uuid

NUDGE = ("Reply with a function call. Call finish with your reply when the work is done; "
         "if you cannot call functions, write the action as JSON or code as described.")


class Driver:
    tools: list[dict] = []
    untruncated: str | None = None  # the full result when the last execute() returned a cut one

    def execute(self, name: str, args: dict) -> tuple[str, bool]:
        """Run one action: (result text for the model, whether the episode is finished)."""
        raise NotImplementedError

    def parse_text(self, text: str) -> list[tuple[str, dict]]:
        return []

    def after_turn(self, messages: list[dict]) -> None:
        """Hook to append an observation once a turn's actions have run."""

    def before_model(self, messages: list[dict]) -> None:
        """Hook to shrink old context before the next request."""

    def reply(self) -> str:
        raise NotImplementedError


def parse_arguments(raw) -> tuple[dict | None, str | None]:
    if isinstance(raw, dict):
        return raw, None
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError) as err:
        return None, f"the arguments are not valid JSON ({err}); send a JSON object"
    if not isinstance(value, dict):
        return None, "the arguments must be a JSON object of named values"
    return value, None


def _call_text(name: str, args) -> str:
    return f"{name}({json.dumps(args, ensure_ascii=False, sort_keys=True)[:240]})"


class Transcript:
    """Appends the conversation to `meter.transcript` (a no-op when the meter has none)."""

    def __init__(self, meter):
        self.events = getattr(meter, "transcript", None)
        self.seen = 0

    def add(self, event: dict) -> None:
        if self.events is not None:
            self.events.append(event)

    def sync(self, messages: list[dict]) -> None:
        """Record the messages added since the last sync, as they are now."""
        for message in messages[self.seen:]:
            self.add({"event": "message", "message": copy.deepcopy(message)})
        self.seen = len(messages)

    def response(self, message, step: int, tokens_in: int, tokens_out: int) -> None:
        if self.events is None:
            return
        dump = getattr(message, "model_dump", None)
        raw = dump(exclude_none=True) if callable(dump) else {"content": getattr(message, "content", None)}
        self.add({"event": "response", "step": step, "message": raw,
                  "tokens_in": tokens_in, "tokens_out": tokens_out})

    def executed(self, driver: Driver, name: str, call_id: str | None = None) -> None:
        full, driver.untruncated = driver.untruncated, None
        if full is not None:
            self.add({"event": "full_result", "tool": name, "tool_call_id": call_id, "result": full})


def run_loop(client, driver: Driver, messages: list[dict], meter, max_steps: int) -> str:
    """Drive the conversation until finish, a plain-text answer, or the step limit."""
    log = Transcript(meter)
    log.add({"event": "tools", "tools": copy.deepcopy(driver.tools)})
    try:
        reply = _loop(client, driver, messages, meter, max_steps, log)
    except BaseException as err:
        log.sync(messages)
        log.add({"event": "error", "error": f"{type(err).__name__}: {err}"})
        raise
    log.sync(messages)
    log.add({"event": "end", "stop_reason": meter.stop_reason, "reply": reply})
    return reply


def _loop(client, driver: Driver, messages: list[dict], meter, max_steps: int, log: Transcript) -> str:
    idle = 0  # consecutive turns with no action at all
    for _ in range(max_steps):
        log.sync(messages)  # before the driver elides anything
        driver.before_model(messages)
        before = (meter.tokens_in, meter.tokens_out)
        message = client.complete(messages, meter, tools=driver.tools)
        meter.steps += 1
        log.response(message, meter.steps, meter.tokens_in - before[0], meter.tokens_out - before[1])
        calls = list(getattr(message, "tool_calls", None) or [])
        text = getattr(message, "content", None) or ""
        if calls:
            idle = 0
            if _run_calls(driver, messages, meter, calls, text, log):
                meter.stop_reason = "finish"
                return driver.reply()
            driver.after_turn(messages)
            continue
        messages.append({"role": "assistant", "content": text})
        actions = driver.parse_text(text)
        if not actions:
            idle += 1
            if idle >= 2:  # said its piece twice without acting: take the text as the reply
                meter.stop_reason = "text_reply"
                return (driver.reply() + "\n" + text).strip()
            meter.record("(text without an action)", text[:200])
            messages.append({"role": "user", "content": NUDGE})
            continue
        idle = 0
        results = []
        for name, args in actions:
            result, done = driver.execute(name, args)
            log.executed(driver, name)
            meter.record(_call_text(name, args), result)
            results.append(f"{name}: {result}")
            if done:
                meter.stop_reason = "finish"
                return driver.reply()
        messages.append({"role": "user", "content": "\n\n".join(results)})
        driver.after_turn(messages)
    meter.stop_reason = "step_limit"
    return driver.reply()


def _run_calls(driver, messages, meter, calls, text, log=None) -> bool:
    """Echo the assistant's calls, answer each one; True once finish has been called."""
    echoed = []
    for call in calls:
        call_id = getattr(call, "id", None) or f"call_{uuid.uuid4().hex[:12]}"
        fn = getattr(call, "function", None)
        echoed.append({"id": call_id, "type": "function",
                       "function": {"name": getattr(fn, "name", "") or "",
                                    "arguments": getattr(fn, "arguments", "") or ""}})
    messages.append({"role": "assistant", "content": text or None, "tool_calls": echoed})
    finished = False
    for call in echoed:
        name, raw = call["function"]["name"], call["function"]["arguments"]
        if finished:  # every call must be answered, but nothing runs after finish
            result = "not run: the episode already finished"
        else:
            args, problem = parse_arguments(raw)
            if problem:
                result = f"error: {problem}"
            else:
                result, finished = driver.execute(name, args)
                if log is not None:
                    log.executed(driver, name, call["id"])
        meter.record(f"{name}({raw[:240]})", result)
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    return finished
