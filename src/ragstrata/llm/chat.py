"""What the HTTP chat runners share: the ``messages`` list, the transport, prices and the clock.

``ChatRunner`` holds the transport and the settings both chat endpoints take; the OpenAI and
Ollama runners add their request body and the reading of their reply.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ragstrata.core.transport import HttpTransport
from ragstrata.llm.base import Request
from ragstrata.llm.pricing import PriceTable

__all__ = ["ChatRunner", "as_int", "chat_messages"]


def chat_messages(request: Request, combine: bool) -> list[dict[str, str]]:
    """The ``messages`` list: system then user, or one user message of ``combined()``."""
    if combine:
        return [{"role": "user", "content": request.combined()}]
    messages = []
    if request.system_prompt:
        messages.append({"role": "system", "content": request.system_prompt})
    if request.user_prompt or not messages:
        messages.append({"role": "user", "content": request.user_prompt})
    return messages


def as_int(value: Any) -> int:
    """``value`` when it is an int (not a bool), else 0: token counts from a JSON reply."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


class ChatRunner:
    """Transport, temperature, prompt combining, a lazily loaded price table and a clock.

    ``combine_prompts`` sends ``Request.combined()`` as one user message, for servers or
    models whose chat template has no system role.
    """

    def __init__(
        self,
        transport: HttpTransport,
        *,
        temperature: float = 0.0,
        combine_prompts: bool = False,
        prices: PriceTable | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_tokens: int | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.transport = transport
        self.temperature = temperature
        self.combine_prompts = combine_prompts
        self.max_tokens = max_tokens  # a cap on the reply, for servers that take one
        self.options = dict(options or {})  # provider options sent as they are (Ollama)
        self._prices = prices
        self._clock = clock

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.transport!r})"

    def close(self) -> None:
        """Close the HTTP connection pool (the object stays usable: it reopens on demand)."""
        self.transport.close()

    @property
    def model(self) -> str:
        """The configured model name."""
        return self.transport.model

    @property
    def provider(self) -> str:
        """The provider name (``openai``, ``ollama``)."""
        return self.transport.provider

    def _messages(self, request: Request) -> list[dict[str, str]]:
        return chat_messages(request, self.combine_prompts)

    def _price_table(self) -> PriceTable:
        if self._prices is None:
            self._prices = PriceTable.load()
        return self._prices
