"""OpenAI-compatible chat: ``POST {base_url}/chat/completions`` (OpenAI, vLLM, llama.cpp, ...).

``base_url`` includes the API version, e.g. ``https://api.openai.com/v1``. The request is
``{"model", "messages": [system?, user], "temperature"[, "max_tokens"]}``; the reply's
``choices[0].message.content`` is the text and ``usage`` (``prompt_tokens``,
``completion_tokens``, ``prompt_tokens_details.cached_tokens``) gives tokens and cost.
"""

from __future__ import annotations

from typing import Any

from ragstrata.errors import ProviderError
from ragstrata.llm.base import Request, RunResult
from ragstrata.llm.chat import ChatRunner, as_int, chat_messages
from ragstrata.llm.pricing import usage_metadata

__all__ = ["OpenAIChatRunner", "chat_messages"]


class OpenAIChatRunner(ChatRunner):
    """A ``Runner`` over an OpenAI-compatible chat-completions endpoint.

    ``combine_prompts`` sends ``Request.combined()`` as one user message, for servers whose
    chat template has no system role.
    """

    def run(self, request: Request) -> RunResult:
        """Send ``request``; its reply text with tokens, cost and durations."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": self._messages(request),
            "temperature": self.temperature,
        }
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        started = self._clock()
        response = self.transport.post_json("/chat/completions", body)
        data = response.data
        text = self._text(data)
        raw_usage = data.get("usage")
        usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
        details = usage.get("prompt_tokens_details")
        cached = as_int(details.get("cached_tokens")) if isinstance(details, dict) else 0
        prompt = as_int(usage.get("prompt_tokens"))
        reported = data.get("model")
        meta = usage_metadata(
            reported if isinstance(reported, str) and reported else self.model,
            prices=self._price_table(),
            input_tokens=max(prompt - cached, 0),
            output_tokens=as_int(usage.get("completion_tokens")),
            cached_tokens=cached,
            duration_s=self._clock() - started,
            duration_api_s=response.duration_api_s,
            also_priced_as=self.model,
        )
        return RunResult(text=text, meta=meta)

    def _text(self, data: dict[str, Any]) -> str:
        choices = data.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        message = first.get("message") if isinstance(first, dict) else None
        if not isinstance(message, dict):
            raise ProviderError(
                f"{self.transport.provider}: reply for model {self.model!r} has no "
                "choices[0].message"
            )
        content = message.get("content")
        if isinstance(content, str):
            return content
        refusal = message.get("refusal")
        reason = first.get("finish_reason") if isinstance(first, dict) else None
        detail = f"refusal: {refusal}" if refusal else f"finish_reason={reason}"
        raise ProviderError(
            f"{self.transport.provider}: model {self.model!r} returned no text ({detail})"
        )
