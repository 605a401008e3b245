"""A local chat-completions server whose "models" are scripts, for tests without a network.

It speaks enough of the OpenAI protocol for the real `openai` client: POST
/v1/chat/completions with tools in, a ChatCompletion (tool calls or text, plus usage) out, or
an HTTP error. A script is `script(body, n) -> reply`, where `n` counts that model's requests
so far and `reply` is {"tool_calls": [(name, args | raw str)], "content", "usage"} or
{"status": 429, "headers": {...}}.
"""
from __future__ import annotations

import json
import re
import threading

from flask import Flask, jsonify, request
from werkzeug.serving import make_server


class FakeOpenAI:
    def __init__(self):
        self.scripts: dict = {}
        self.requests: list[dict] = []
        self.headers: list[dict] = []  # each request's HTTP headers, in arrival order
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()
        app = Flask("fake_openai")
        app.add_url_rule("/v1/chat/completions", "chat", self._chat, methods=["POST"])
        self._server = make_server("127.0.0.1", 0, app, threaded=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def add(self, model: str, script) -> None:
        self.scripts[model] = script

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()

    def _chat(self):
        body = request.get_json()
        model = body["model"]
        with self._lock:
            n = self.counts.get(model, 0)
            self.counts[model] = n + 1
            self.requests.append(body)
            self.headers.append(dict(request.headers))
        reply = self.scripts[model](body, n)
        if "status" in reply:
            resp = jsonify({"error": {"message": "scripted failure", "type": "server_error"}})
            resp.status_code = reply["status"]
            for key, value in reply.get("headers", {}).items():
                resp.headers[key] = value
            return resp
        calls = [{"id": f"call_{n}_{i}", "type": "function",
                  "function": {"name": name,
                               "arguments": args if isinstance(args, str) else json.dumps(args)}}
                 for i, (name, args) in enumerate(reply.get("tool_calls", []))]
        message = {"role": "assistant", "content": reply.get("content")}
        if calls:
            message["tool_calls"] = calls
        tokens_in, tokens_out = reply.get("usage") or (len(json.dumps(body["messages"])) // 4, 20)
        return jsonify({"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0,
                        "model": model,
                        "choices": [{"index": 0, "message": message,
                                     "finish_reason": "tool_calls" if calls else "stop"}],
                        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                                  "total_tokens": tokens_in + tokens_out}})


# --- helpers the scripts use ---------------------------------------------------------------

def turn(body) -> int:
    """How many times the model has already answered in this conversation."""
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


def offered(body, real: str) -> str:
    """The function name the agent offered for a real tool name, found by reading `tools`."""
    squash = lambda s: re.sub(r"[^a-z0-9]", "", s.lower())  # noqa: E731
    for tool in body.get("tools") or []:
        if squash(tool["function"]["name"]) == squash(real):
            return tool["function"]["name"]
    raise AssertionError(f"the agent does not offer {real!r}")


def first_user_text(body) -> str:
    for m in body["messages"]:
        if m["role"] == "user":
            return m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
    return ""


def last_user_text(body) -> str:
    for m in reversed(body["messages"]):
        if m["role"] == "user":
            return m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
    return ""


def oracle_script(plans: dict):
    """Replays each task's oracle: `plans` maps a task's instruction to (calls, reply); the longest
    instruction found in the prompt wins, since one family's instruction may open with another's.
    Consecutive calls to the same tool go out in one turn (parallel tool calls)."""
    def script(body, n):
        text = first_user_text(body)
        calls, reply = plans[max((key for key in plans if key in text), key=len)]
        groups = []
        for name, args in calls:
            if groups and groups[-1][0][0] == name:
                groups[-1].append((name, args))
            else:
                groups.append([(name, args)])
        step = turn(body)
        if step < len(groups):
            return {"tool_calls": [(offered(body, name), args) for name, args in groups[step]]}
        return {"tool_calls": [("finish", {"summary": reply})]}
    return script


class Recorder:
    """Wraps a tools Environment and keeps the (name, args) of every call."""

    def __init__(self, env):
        self.env, self.calls = env, []

    def tools(self):
        return self.env.tools()

    def tool_names(self):
        return self.env.tool_names()

    def call(self, name, args=None):
        self.calls.append((name, dict(args or {})))
        return self.env.call(name, args)
