"""Implementations of the fakes exported by ``ragstrata.testing``."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Sequence

from ragstrata.embed.base import ProgressCallback, apply_template, fingerprint
from ragstrata.llm.base import LLMMetadata, Request, RunResult
from ragstrata.text.tokens import identifier_parts, word_tokens

__all__ = ["HashEmbedder", "ScriptedRunner"]

Reply = str | BaseException | Callable[[Request], str]


class ScriptedRunner:
    """Replays ``replies`` in order (the last one repeats); records requests in ``requests``.

    A reply may be a string, an exception instance (raised), or a callable of the request.
    """

    def __init__(self, replies: Iterable[Reply] | Reply = "", model: str = "scripted") -> None:
        if isinstance(replies, (str, BaseException)) or callable(replies):
            replies = [replies]
        self._replies: list[Reply] = list(replies)
        if not self._replies:
            raise ValueError("ScriptedRunner needs at least one reply")
        self.model = model
        self.requests: list[Request] = []

    def run(self, request: Request) -> RunResult:
        index = min(len(self.requests), len(self._replies) - 1)
        self.requests.append(request)
        reply = self._replies[index]
        if isinstance(reply, BaseException):
            raise reply
        text = reply(request) if callable(reply) else reply
        tokens_in = len(request.combined().split())
        meta = LLMMetadata(input_tokens=tokens_in, output_tokens=len(text.split()), num_turns=1)
        return RunResult(text=text, meta=meta)


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
