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
from typing import Any

from ragstrata.errors import ConfigError
from ragstrata.llm.base import Runner
from ragstrata.llm.ollama import OllamaChatRunner
from ragstrata.llm.openai import OpenAIChatRunner
from ragstrata.llm.pricing import PriceTable
from ragstrata.llm.transport import HttpTransport, RetryPolicy
from ragstrata.settings import EmbedderSettings, LLMSettings

__all__ = ["PROVIDERS", "http_transport", "make_runner", "require"]

PROVIDERS = ("none", "openai", "ollama")

_EXAMPLE_URL = {"openai": "https://api.openai.com/v1", "ollama": "http://localhost:11434"}


def require(section: str, provider: str, name: str, value: str | None) -> str:
    """``value``, or a ``ConfigError`` naming the setting and its environment variable."""
    if value:
        return value
    example = f", e.g. {_EXAMPLE_URL[provider]}" if name == "base_url" else ""
    raise ConfigError(
        f"{section}.{name} is not set for provider {provider!r}: set {name} in the [{section}] "
        f"section of your config file (~/.config/ragstrata/config.toml) or "
        f"RAGSTRATA_{section.upper()}_{name.upper()}{example}"
    )


def http_transport(
    settings: LLMSettings | EmbedderSettings,
    base_url: str,
    model: str,
    *,
    requests_per_s: float | None,
) -> HttpTransport:
    """The HTTP transport of a chat runner or remote embedder configured by ``settings``."""
    return HttpTransport(
        settings.provider,
        base_url,
        model,
        api_key=settings.api_key,
        api_key_env=settings.api_key_env,
        timeout_s=settings.timeout_s,
        retry=RetryPolicy(max_retries=getattr(settings, "max_retries", RetryPolicy().max_retries)),
        requests_per_s=requests_per_s,
    )


def _optional(settings: Any, name: str, given: Any) -> Any:
    return given if given is not None else getattr(settings, name, None)


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
        requests_per_s=_optional(settings, "requests_per_s", requests_per_s),
    )
    price_path = _optional(settings, "price_file", price_file)
    prices = PriceTable.load(Path(price_path) if price_path else None)
    combine = bool(_optional(settings, "combine_prompts", combine_prompts))
    temperature = float(_optional(settings, "temperature", None) or 0.0)
    if provider == "openai":
        return OpenAIChatRunner(
            transport, temperature=temperature, combine_prompts=combine, prices=prices
        )
    return OllamaChatRunner(
        transport, temperature=temperature, combine_prompts=combine, prices=prices
    )
