"""Ollama chat: ``POST {base_url}/api/chat`` with ``"stream": false``.

``base_url`` is the server root, e.g. ``http://localhost:11434``. The reply's
``message.content`` is the text; ``prompt_eval_count`` / ``eval_count`` are the input/output
tokens (Ollama omits ``prompt_eval_count`` when the whole prompt came from its cache) and
``total_duration`` (nanoseconds) is the server-side duration.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ragstrata.errors import ProviderError
from ragstrata.llm.base import Request, RunResult
from ragstrata.llm.openai import chat_messages
from ragstrata.llm.pricing import PriceTable, usage_metadata
from ragstrata.llm.transport import HttpTransport

__all__ = ["OllamaChatRunner"]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class OllamaChatRunner:
    """A ``Runner`` over Ollama's native chat endpoint.

    ``combine_prompts`` sends ``Request.combined()`` as one user message, for models whose
    template ignores the system role. ``options`` go to Ollama as-is (``num_ctx``, ...).
    """

    def __init__(
        self,
        transport: HttpTransport,
        *,
        temperature: float = 0.0,
        combine_prompts: bool = False,
        options: dict[str, Any] | None = None,
        prices: PriceTable | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.transport = transport
        self.temperature = temperature
        self.combine_prompts = combine_prompts
        self.options = dict(options or {})
        self._prices = prices
        self._clock = clock

    def __repr__(self) -> str:
        return f"OllamaChatRunner({self.transport!r})"

    def close(self) -> None:
        """Close the HTTP connection pool (the object stays usable: it reopens on demand)."""
        self.transport.close()

    @property
    def model(self) -> str:
        """The configured model name."""
        return self.transport.model

    def run(self, request: Request) -> RunResult:
        """Send ``request``; its reply text with tokens and durations (cost 0 unless priced)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": chat_messages(request, self.combine_prompts),
            "stream": False,
            "options": {"temperature": self.temperature, **self.options},
        }
        started = self._clock()
        response = self.transport.post_json("/api/chat", body)
        data = response.data
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise ProviderError(
                f"{self.transport.provider}: reply for model {self.model!r} has no message.content"
            )
        server_ns = _int(data.get("total_duration"))
        if self._prices is None:
            self._prices = PriceTable.load()
        meta = usage_metadata(
            self.model,
            prices=self._prices,
            input_tokens=_int(data.get("prompt_eval_count")),
            output_tokens=_int(data.get("eval_count")),
            duration_s=self._clock() - started,
            duration_api_s=server_ns / 1e9 if server_ns else response.duration_api_s,
        )
        return RunResult(text=content, meta=meta)
