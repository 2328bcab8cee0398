"""Build the configured LLM runner from ``LLMSettings``: ``none`` -> ``None``, ``openai``, ``ollama``.

Settings (``[llm]`` in the user's ``~/.config/ragstrata/config.toml``, each overridable by
``RAGSTRATA_LLM_<NAME>``; a repository's own file may not set them):
``provider``, ``base_url``, ``model``, ``api_key_env`` (the variable holding the key, default
``RAGSTRATA_LLM_API_KEY``), ``timeout_s``, ``max_retries``. Optional settings read when the
settings object has them: ``requests_per_s``, ``price_file``, ``combine_prompts``,
``temperature``.
"""

from __future__ import annotations

from pathlib import Path

from ragstrata.core.transport import http_transport, require
from ragstrata.errors import ConfigError
from ragstrata.llm.base import Runner
from ragstrata.llm.ollama import OllamaChatRunner
from ragstrata.llm.openai import OpenAIChatRunner
from ragstrata.llm.pricing import PriceTable
from ragstrata.settings import LLMSettings

__all__ = ["PROVIDERS", "http_transport", "make_runner", "require"]

PROVIDERS = ("none", "openai", "ollama")


def make_runner(
    settings: LLMSettings,
    *,
    price_file: Path | None = None,
    requests_per_s: float | None = None,
    combine_prompts: bool | None = None,
) -> Runner | None:
    """The runner ``settings`` describe, or ``None`` for provider ``none`` (extractive answers).

    Cheap: no connection is made until the first ``run``. Raises ``ConfigError`` for an
    unknown provider or a missing ``base_url`` / ``model``.
    """
    provider = settings.provider
    if provider == "none":
        return None
    if provider not in PROVIDERS:
        raise ConfigError(f"unknown llm provider {provider!r}; valid: {', '.join(PROVIDERS)}")
    base_url = require("llm", provider, "base_url", settings.base_url)
    model = require("llm", provider, "model", settings.model)
    transport = http_transport(
        settings,
        base_url,
        model,
        requests_per_s=settings.requests_per_s if requests_per_s is None else requests_per_s,
    )
    price_path = settings.price_file if price_file is None else price_file
    prices = PriceTable.load(Path(price_path) if price_path else None)
    combine = settings.combine_prompts if combine_prompts is None else combine_prompts
    temperature = settings.temperature
    if provider == "openai":
        return OpenAIChatRunner(
            transport, temperature=temperature, combine_prompts=combine, prices=prices
        )
    return OllamaChatRunner(
        transport, temperature=temperature, combine_prompts=combine, prices=prices
    )
