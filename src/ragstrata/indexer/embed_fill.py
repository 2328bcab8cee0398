"""The vector fill loop: pending texts -> embedder -> stored vectors, one commit per batch.

Runs after the rows are written, so lexical and symbol search work before any vector exists.
Each round asks the store for up to ``round_size`` texts (default: :data:`ROUND_BATCHES`
embedder batches) that have no vector of the current fingerprint, sorts them shortest first
(so a batch is padded only to similar lengths) and embeds them one embedder batch at a time,
storing each batch's vectors in its own transaction: killing the run loses at most the batch in
flight, and the next run continues where this one stopped. Stores hand out pending texts in no
useful order, so a bigger round sorts better: padding costs ~20% of the encoder's work with
rounds of 8 batches and ~3% with 64.
"""

from __future__ import annotations

from collections.abc import Callable

from ragstrata.core.events import IndexEvent
from ragstrata.embed.base import Embedder
from ragstrata.store.protocols import Store

__all__ = ["ROUND_BATCHES", "fill_vectors"]

ROUND_BATCHES = 64
"""Embedder batches per fill round (texts fetched and sorted together)."""
_COST_TOKENS = 256  # tokens an encoder sees at most; longer texts are cut


def _cost(text: str) -> int:
    """A text's relative encoder cost: a fixed part, one per token (~3 characters of code) and
    attention's square term."""
    tokens = min(len(text) // 3, _COST_TOKENS) + 2
    return 16 + tokens + tokens * tokens // 128


class _Work:
    """The share of the fill's effort done: a text costs its (capped) length, and texts not
    fetched yet cost the mean of those seen. Shortest-first batches make the text rate fall
    within a round; the share of work does not, so an ETA drawn from it holds."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.seen = self.seen_cost = self.done_cost = 0

    def fetched(self, costs: list[int]) -> None:
        self.seen += len(costs)
        self.seen_cost += sum(costs)

    def share(self, done_cost: int) -> float:
        self.done_cost += done_cost
        mean = self.seen_cost / max(self.seen, 1)
        whole = self.seen_cost + max(self.total - self.seen, 0) * mean
        return min(self.done_cost / whole, 1.0) if whole else 1.0


def fill_vectors(
    store: Store,
    embedder: Embedder,
    progress: Callable[[IndexEvent], None] | None = None,
    *,
    round_size: int | None = None,
) -> int:
    """Embed every pending text; returns how many texts were embedded."""
    fingerprint = embedder.fingerprint
    size = round_size or max(embedder.batch_size * ROUND_BATCHES, 64)
    total = store.stats(fingerprint).pending_vectors
    done = 0
    work = _Work(total)
    if progress is not None:
        progress(IndexEvent("embed", 0, total))
    while True:
        pending = store.pending_vectors(fingerprint, limit=size)
        if not pending:
            break
        pending.sort(key=lambda p: (len(p.text), p.text_hash))
        work.fetched([_cost(p.text) for p in pending])
        stored = 0
        step = max(embedder.batch_size, 1)
        for start in range(0, len(pending), step):
            batch = pending[start : start + step]
            vectors = embedder.embed_documents([p.text for p in batch])
            stored += store.put_vectors(
                fingerprint, [(p.text_hash, v) for p, v in zip(batch, vectors, strict=True)]
            )
            done += len(batch)
            share = work.share(sum(_cost(p.text) for p in batch))
            if progress is not None:
                progress(IndexEvent("embed", done, max(total, done), work=share))
        if stored == 0:  # rows vanished under us (a concurrent run); stop instead of spinning
            break
    return done
