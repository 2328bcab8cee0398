"""The LLM runner contract (seed 003): ``Request`` in, ``RunResult`` out.

A ``Runner`` executes one structured request. Implementations choose model and transport;
tests pass ``ragstrata.testing.ScriptedRunner``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "LLMMetadata",
    "ModelUsage",
    "Request",
    "RunResult",
    "Runner",
    "call_meta",
    "summary_hash",
]


@dataclass(frozen=True, slots=True)
class Request:
    """A two-part prompt: a stable (cacheable) system part and a per-call user part."""

    system_prompt: str = ""
    user_prompt: str = ""

    def combined(self) -> str:
        """Both parts as one prompt, system first, for providers that cannot separate them."""
        parts = [p for p in (self.system_prompt, self.user_prompt) if p]
        return "\n\n".join(parts)


def summary_hash(request: Request) -> str:
    """First 16 bytes of SHA-256 over ``request.combined()``, lower-case hex (32 chars)."""
    return hashlib.sha256(request.combined().encode("utf-8")).digest()[:16].hex()


@dataclass(frozen=True, slots=True)
class ModelUsage:
    """Token and cost figures for one model."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_create_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(frozen=True, slots=True)
class LLMMetadata:
    """Per-call metrics reported by a provider."""

    total_cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_create_tokens: int = 0
    num_turns: int = 0
    duration_s: float = 0.0
    duration_api_s: float = 0.0
    models: dict[str, ModelUsage] = field(default_factory=dict)
    notes: tuple[str, ...] = ()  # e.g. "price unknown for model X"


@dataclass(frozen=True, slots=True)
class RunResult:
    """The model's reply text and optional metadata."""

    text: str
    meta: LLMMetadata | None = None


@runtime_checkable
class Runner(Protocol):
    """Executes one LLM request. Raises ``ProviderError`` when the transport fails."""

    def run(self, request: Request) -> RunResult: ...


def call_meta(runner: Runner, result: RunResult | None = None) -> dict[str, Any]:
    """What an answer reports about one LLM call: provider, model, tokens and cost.

    Provider and model come from the runner's public ``provider`` / ``model`` attributes when
    it has them; tokens and cost from the reply's metadata (``None`` before a reply).
    """
    meta = result.meta if result is not None else None
    return {
        "provider": str(getattr(runner, "provider", type(runner).__name__)),
        "model": str(getattr(runner, "model", "")) or None,
        "input_tokens": meta.input_tokens if meta else None,
        "output_tokens": meta.output_tokens if meta else None,
        "cost_usd": meta.total_cost_usd if meta else None,
    }
