"""A deterministic feature-hashing embedder: no model, no network (``provider = "hash"``).

It is what tests and quick local runs use where the packaged model is not the point.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from ragstrata.embed.base import ProgressCallback, apply_template, fingerprint
from ragstrata.text.tokens import identifier_parts, word_tokens

__all__ = ["HashEmbedder"]


class HashEmbedder:
    """Deterministic feature-hashing embedder; no model, no network."""

    def __init__(
        self,
        dimensions: int = 64,
        batch_size: int = 16,
        document_template: str = "",
        query_template: str = "",
    ) -> None:
        if dimensions <= 0:
            raise ValueError(f"dimensions must be > 0, got {dimensions}")
        if batch_size <= 0:
            raise ValueError(f"batch_size must be > 0, got {batch_size}")
        self._dims = dimensions
        self._batch = batch_size
        self._doc_template = document_template
        self._query_template = query_template
        self.calls = 0

    @property
    def dimensions(self) -> int:
        return self._dims

    @property
    def batch_size(self) -> int:
        return self._batch

    @property
    def fingerprint(self) -> str:
        return fingerprint("hash", "feature-hash-v1", self._dims, self._doc_template)

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self._dims
        features = [t.lower() for t in word_tokens(text)]
        features += [p.lower() for t in word_tokens(text) for p in identifier_parts(t)]
        for feat in features:
            digest = hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % self._dims
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[slot] += sign
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> list[list[float]]:
        texts = apply_template(self._doc_template, texts)
        out: list[list[float]] = []
        for start in range(0, len(texts), self._batch):
            out.extend(self._vector(t) for t in texts[start : start + self._batch])
            self.calls += 1
            if progress is not None:
                progress(len(out), len(texts))
        return out

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in apply_template(self._query_template, texts)]
