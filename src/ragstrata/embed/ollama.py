"""Ollama embeddings: ``POST {base_url}/api/embed`` (``base_url`` like ``http://localhost:11434``).

Request ``{"model", "input": [texts]}`` (plus ``"dimensions"`` when configured; servers that
ignore it are caught by the length check); reply ``{"model", "embeddings": [[...], ...],
"prompt_eval_count"}``.

The fingerprint is ``ollama/model[/dims][/d:<template hash>]`` with the CONFIGURED dimensions
only: seed 003's v0.4.0 appended the length learnt from the first reply, so the fingerprint
changed after the first call and every stored row looked stale (conformance fp-07).
"""

from __future__ import annotations

from typing import Any

from ragstrata.embed.openai import RemoteEmbedder

__all__ = ["OllamaEmbedder"]


class OllamaEmbedder(RemoteEmbedder):
    """Ollama's native batch embedding endpoint."""

    provider = "ollama"
    path = "/api/embed"

    def _body(self, texts: list[str]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.transport.model, "input": texts}
        if self._configured_dims:
            body["dimensions"] = self._configured_dims
        return body

    def _vectors(self, data: dict[str, Any]) -> list[list[float]]:
        items = data.get("embeddings")
        if not isinstance(items, list):
            raise self._malformed("no 'embeddings' list")
        return [self._floats(item) for item in items]

    def _tokens(self, data: dict[str, Any]) -> int:
        tokens = data.get("prompt_eval_count")
        return tokens if isinstance(tokens, int) else 0
