"""Ollama chat: ``POST {base_url}/api/chat`` with ``"stream": false``.

``base_url`` is the server root, e.g. ``http://localhost:11434``. The reply's
``message.content`` is the text; ``prompt_eval_count`` / ``eval_count`` are the input/output
tokens (Ollama omits ``prompt_eval_count`` when the whole prompt came from its cache) and
``total_duration`` (nanoseconds) is the server-side duration.
"""

from __future__ import annotations

from typing import Any

from ragstrata.errors import ProviderError
from ragstrata.llm.base import Request, RunResult
from ragstrata.llm.chat import ChatRunner, as_int
from ragstrata.llm.pricing import usage_metadata

__all__ = ["OllamaChatRunner"]


class OllamaChatRunner(ChatRunner):
    """A ``Runner`` over Ollama's native chat endpoint.

    ``combine_prompts`` sends ``Request.combined()`` as one user message, for models whose
    template ignores the system role. ``options`` go to Ollama as-is (``num_ctx``, ...).
    """

    def run(self, request: Request) -> RunResult:
        """Send ``request``; its reply text with tokens and durations (cost 0 unless priced)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": self._messages(request),
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
        server_ns = as_int(data.get("total_duration"))
        meta = usage_metadata(
            self.model,
            prices=self._price_table(),
            input_tokens=as_int(data.get("prompt_eval_count")),
            output_tokens=as_int(data.get("eval_count")),
            duration_s=self._clock() - started,
            duration_api_s=server_ns / 1e9 if server_ns else response.duration_api_s,
        )
        return RunResult(text=content, meta=meta)
