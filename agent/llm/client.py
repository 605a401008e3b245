"""One chat-completions client for agents and the judge: retries, usage, and infra errors.

Only the `openai` package's protocol is assumed, so any compatible server works (OpenAI,
vLLM, llama.cpp, Ollama, a router). The SDK's own retries are off: we retry 429, 5xx and
connection failures ourselves, a bounded number of times, so each retry is counted on the
run's meter and a failure that survives them becomes an `InfraError`, not a task failure.

The endpoint and key are found as the openai client finds them: `base_url`, else
`$OPENAI_BASE_URL`, else OpenAI; the key in `$<api_key_env>` (default `$OPENAI_API_KEY`). A
server other than OpenAI's needs no key. Sampling is pinned by `temperature`, `seed` and
`max_tokens`; `extra_body` is merged into every request body (vLLM's and Ollama's own
options, e.g. {"top_k": 1} or {"options": {"num_ctx": 16384}}).
"""
from __future__ import annotations

import os
import threading
import time

from ..accounting import InfraError, Meter, Price
from .pricing import price_for

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


class ChatClient:
    def __init__(self, model: str, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 price_in: float | None = None, price_out: float | None = None,
                 max_retries: int = 4, backoff: float = 1.0, max_backoff: float = 30.0,
                 timeout: float = 120.0, temperature: float = 0.0, seed: int | None = None,
                 max_tokens: int | None = None, extra_body: dict | None = None):
        if extra_body is not None and not isinstance(extra_body, dict):
            raise ValueError("extra_body must be a JSON object")
        self.model = model
        self.base_url = resolve_base_url(base_url)
        self.api_key_env = api_key_env
        self.price: Price = price_for(model, price_in, price_out)
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self._sdk = None
        self._lock = threading.Lock()

    def __getstate__(self):
        """Picklable (a Ray worker gets the policy by value): the SDK client and its lock are
        made again where the client is used."""
        state = dict(self.__dict__)
        state["_sdk"], state["_lock"] = None, None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _client(self):
        # Built on first use (and once, under a lock): importing the SDK and reading the key
        # should not happen for a sweep that never calls a model.
        with self._lock:
            if self._sdk is None:
                from openai import OpenAI

                key = os.environ.get(self.api_key_env)
                if not key:
                    if needs_key(self.base_url):
                        raise InfraError(f"no API key: set ${self.api_key_env} or pass --base-url")
                    key = "not-needed"  # local servers (vLLM, llama.cpp, Ollama) ignore it
                self._sdk = OpenAI(api_key=key, base_url=self.base_url, max_retries=0,
                                   timeout=self.timeout)
            return self._sdk

    def meter(self) -> Meter:
        return Meter(price=self.price, transcript=[])

    def sampling(self) -> dict:
        """What every request pins, for provenance and the transcript header."""
        return {"model": self.model, "base_url": self.base_url or OPENAI_DEFAULT_URL,
                "temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens,
                "extra_body": self.extra_body or None}

    def request_kwargs(self, messages: list[dict], tools: list[dict] | None = None) -> dict:
        kwargs = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.seed is not None:
            kwargs["seed"] = self.seed
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        if self.extra_body:
            kwargs["extra_body"] = dict(self.extra_body)
        if tools:
            kwargs["tools"] = tools
        return kwargs

    def complete(self, messages: list[dict], meter: Meter, tools: list[dict] | None = None):
        """One completion; returns the assistant message (SDK object). Raises InfraError."""
        import openai

        kwargs = self.request_kwargs(messages, tools)
        attempt = 0
        while True:
            try:
                response = self._client().chat.completions.create(**kwargs)
                break
            except (openai.APIConnectionError, openai.APIStatusError) as err:
                status = getattr(err, "status_code", None)
                retryable = status is None or status in RETRY_STATUS or status >= 500
                if not retryable or attempt >= self.max_retries:
                    raise InfraError(_describe(err, attempt)) from err
                meter.retries += 1
                time.sleep(self._delay(attempt, err))
                attempt += 1
            except openai.OpenAIError as err:  # malformed responses and the like
                raise InfraError(_describe(err, attempt)) from err
        usage = getattr(response, "usage", None)
        meter.add_usage(getattr(usage, "prompt_tokens", 0), getattr(usage, "completion_tokens", 0))
        if not response.choices:
            raise InfraError("the provider returned no choices")
        return response.choices[0].message

    def _delay(self, attempt: int, err) -> float:
        """The server's Retry-After when it sends one, else exponential backoff; both capped."""
        delay = min(self.max_backoff, self.backoff * (2 ** attempt))
        response = getattr(err, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        try:
            if header is not None:
                return max(0.0, min(float(header), self.max_backoff))
        except ValueError:
            pass
        return delay


OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


def resolve_base_url(base_url: str | None) -> str | None:
    """The endpoint the openai client would use: the argument, else $OPENAI_BASE_URL, else
    None (OpenAI's own)."""
    return base_url or os.environ.get("OPENAI_BASE_URL") or None


def needs_key(base_url: str | None) -> bool:
    """OpenAI's own API needs a key; a local or other server may not."""
    return resolve_base_url(base_url) in (None, OPENAI_DEFAULT_URL)


def _describe(err, attempt: int) -> str:
    status = getattr(err, "status_code", None)
    head = f"HTTP {status}" if status else type(err).__name__
    return f"{head} from the model provider after {attempt + 1} attempt(s): {str(err)[:300]}"
