"""Dense candidate generation: the query embedding (cached per text) and cosine lists.

The query vector is cached per (embedder query fingerprint, text): a batch of questions,
sub-queries that repeat, or a session that re-asks cost one encoder call each. The query
fingerprint is the fingerprint plus what shapes the query side alone (its template, a query
map); an embedder without one is keyed by its fingerprint. For a mostly-Russian
question with an English-only encoder the expansions and identifiers are embedded as a second
query (``dense`` over the English terms), beside the raw question.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from ragstrata.core.values import ScoredRow, SearchFilters
from ragstrata.embed.base import Embedder
from ragstrata.store.protocols import Store

__all__ = ["QueryVectorCache", "dense_search", "query_vectors"]

_CACHE_SIZE = 4096


class QueryVectorCache:
    """A small thread-safe LRU of query vectors keyed by (query fingerprint, text)."""

    def __init__(self, size: int = _CACHE_SIZE) -> None:
        self._size = size
        self._items: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of ``texts``; only the texts not cached yet are embedded (in one call)."""
        fp = getattr(embedder, "query_fingerprint", embedder.fingerprint)
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if (fp, t) not in self._items]
        if missing:
            fresh = embedder.embed_queries(missing)
            with self._lock:
                for text, vec in zip(missing, fresh, strict=True):
                    self._items[(fp, text)] = vec
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
        with self._lock:
            out = []
            for t in texts:
                self._items.move_to_end((fp, t))
                out.append(self._items[(fp, t)])
            return out


_SHARED = QueryVectorCache()


def query_vectors(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Vectors of ``texts`` through the process-wide cache."""
    return _SHARED.vectors(embedder, texts)


def dense_search(
    store: Store,
    vector: Sequence[float],
    fingerprint: str,
    filters: SearchFilters,
    top_k: int,
) -> list[ScoredRow]:
    """Cosine search; layers without vectors of ``fingerprint`` simply return nothing."""
    return store.search_dense(vector, fingerprint, filters, top_k)
