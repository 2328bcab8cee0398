"""OpenAI-compatible embeddings: ``POST {base_url}/embeddings`` (``base_url`` like ``.../v1``).

Request ``{"model", "input": [texts], "encoding_format": "float"[, "dimensions"]}``; reply
``{"data": [{"index", "embedding"}], "usage": {"prompt_tokens", "total_tokens"}}``.

``RemoteEmbedder`` holds what every HTTP embedder shares (the Ollama one subclasses it):
templates, one request per ``batch_size`` texts with a progress callback after each, a
fingerprint built only from configuration (``provider/model[/dims][/d:<template hash>]``, never
from a dimension learnt at run time), and validation of every returned vector's length.
A failed batch raises before anything is returned, so callers never store half a batch.
"""

from __future__ import annotations

import threading
from typing import Any

from ragstrata.core.transport import HttpTransport
from ragstrata.embed.base import ProgressCallback, fingerprint
from ragstrata.embed.batching import BatchedEmbedder, batches, check_positive, check_templates
from ragstrata.errors import ConfigError, ProviderError

__all__ = ["OpenAIEmbedder", "RemoteEmbedder"]

_PROBE = "dimension probe"


class RemoteEmbedder(BatchedEmbedder):
    """Batching, templates, fingerprint and dimension checks over an ``HttpTransport``.

    With ``dimensions=0`` the vector length is learnt from the first reply (or from
    ``probe_dimensions()``) and every later vector must match it; ``dimensions`` stays 0.
    """

    provider = "remote"
    path = ""

    def __init__(
        self,
        transport: HttpTransport,
        *,
        dimensions: int = 0,
        batch_size: int = 32,
        document_template: str = "",
        query_template: str = "",
    ) -> None:
        if dimensions < 0:
            raise ConfigError(f"embedder dimensions must be >= 0, got {dimensions}")
        check_positive("batch_size", batch_size)
        check_templates(document_template, query_template)
        super().__init__(
            batch_size=batch_size,
            document_template=document_template,
            query_template=query_template,
            fingerprint=fingerprint(self.provider, transport.model, dimensions, document_template),
        )
        self.transport = transport
        self._configured_dims = dimensions
        self._dims = dimensions
        self._lock = threading.Lock()
        self.tokens_used = 0
        """Prompt tokens the provider reported so far (0 when it does not report them)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.transport!r}, dimensions={self._configured_dims})"

    def close(self) -> None:
        """Close the HTTP connection pool (the object stays usable: it reopens on demand)."""
        self.transport.close()

    @property
    def dimensions(self) -> int:
        """The configured vector length; 0 means "whatever the model returns".

        Never a value learnt at run time (like the fingerprint), so an index manifest written
        before the first call matches one written after it. No I/O: see ``probe_dimensions``.
        """
        return self._configured_dims

    @property
    def discovered_dimensions(self) -> int:
        """The vector length seen in replies so far (the configured one if set), else 0."""
        return self._dims

    def probe_dimensions(self) -> int:
        """The real vector length, asking the provider once (one short text) if not yet known."""
        if self._dims == 0:
            self._embed_batch([_PROBE])
        return self._dims

    def _embed(
        self, texts: list[str], query_side: bool, progress: ProgressCallback | None
    ) -> list[list[float]]:
        out: list[list[float]] = []
        for _, batch in batches(texts, self._batch, progress):
            out.extend(self._embed_batch(list(batch)))
        return out

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        response = self.transport.post_json(self.path, self._body(texts))
        vectors = self._vectors(response.data)
        if len(vectors) != len(texts):
            raise ProviderError(
                f"{self.provider}: model {self.transport.model!r} returned {len(vectors)} "
                f"vectors for {len(texts)} texts"
            )
        with self._lock:
            self._check_lengths(vectors)
            self.tokens_used += self._tokens(response.data)
        return vectors

    def _check_lengths(self, vectors: list[list[float]]) -> None:
        expected = self._dims or len(vectors[0])
        for vector in vectors:
            if len(vector) != expected:
                where = "embedder.dimensions" if self._configured_dims else "earlier replies"
                raise ProviderError(
                    f"{self.provider}: model {self.transport.model!r} returned a "
                    f"{len(vector)}-dimensional vector, expected {expected} ({where})"
                )
        self._dims = expected

    def _malformed(self, what: str) -> ProviderError:
        return ProviderError(
            f"{self.provider}: malformed embeddings reply for model {self.transport.model!r}: "
            f"{what}"
        )

    def _floats(self, vector: Any) -> list[float]:
        if not isinstance(vector, list) or not vector:
            raise self._malformed("a vector is not a non-empty list of numbers")
        try:
            return [float(x) for x in vector]
        except (TypeError, ValueError):
            raise self._malformed("a vector holds a non-number") from None

    # -- wire format, per provider ---------------------------------------------------------

    def _body(self, texts: list[str]) -> dict[str, Any]:
        raise NotImplementedError

    def _vectors(self, data: dict[str, Any]) -> list[list[float]]:
        raise NotImplementedError

    def _tokens(self, data: dict[str, Any]) -> int:
        return 0


class OpenAIEmbedder(RemoteEmbedder):
    """An OpenAI-compatible ``/embeddings`` endpoint; ``dimensions`` > 0 is sent to the API."""

    provider = "openai"
    path = "/embeddings"

    def _body(self, texts: list[str]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.transport.model,
            "input": texts,
            "encoding_format": "float",
        }
        if self._configured_dims:
            body["dimensions"] = self._configured_dims
        return body

    def _vectors(self, data: dict[str, Any]) -> list[list[float]]:
        items = data.get("data")
        if not isinstance(items, list):
            raise self._malformed("no 'data' list")
        indexed: list[tuple[int, list[float]]] = []
        for position, item in enumerate(items):
            if not isinstance(item, dict):
                raise self._malformed("a 'data' item is not an object")
            index = item.get("index", position)
            if not isinstance(index, int):
                raise self._malformed("an 'index' is not an integer")
            indexed.append((index, self._floats(item.get("embedding"))))
        indexed.sort(key=lambda pair: pair[0])  # the API does not promise input order
        return [vector for _, vector in indexed]

    def _tokens(self, data: dict[str, Any]) -> int:
        usage = data.get("usage")
        tokens = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        return tokens if isinstance(tokens, int) else 0
