"""From scores to hits: the best ``top_k`` (ties kept), ordered like ``rank_hits``."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from ragstrata.core.values import ScoredRow, scored_row
from ragstrata.store.records import row_from_payload
from ragstrata.store.sqlite.schema import chunks, marks

__all__ = ["MAX_TIES", "hits", "top"]

MAX_TIES = 256  # rows tied with the last place that are ranked by their metadata


def top(scores: np.ndarray, candidates: np.ndarray, top_k: int) -> list[tuple[int, float]]:
    """(index, score) of the best ``top_k`` candidates plus up to :data:`MAX_TIES` more that
    tie with the last of them, best first; :func:`hits` orders the ties."""
    if candidates.size == 0:
        return []
    cand_scores = scores[candidates]
    if candidates.size > top_k:
        kth = np.partition(-cand_scores, top_k - 1)[top_k - 1]
        keep = np.flatnonzero(-cand_scores <= kth)[: top_k + MAX_TIES]
        candidates, cand_scores = candidates[keep], cand_scores[keep]
    order = np.lexsort((candidates, -cand_scores))
    return [(int(candidates[i]), float(cand_scores[i])) for i in order]


def hits(
    conn: sqlite3.Connection, seq_scores: Sequence[tuple[int, float]], limit: int
) -> list[ScoredRow]:
    """The rows of ``(seq, score)`` pairs ranked like ``rank_hits`` (ties by is_test, path,
    line, id: independent of write order), first ``limit``; only those are decoded."""
    if not seq_scores:
        return []
    score_of = dict(seq_scores)
    keyed = []
    for part in chunks(list(score_of)):
        sql = f"SELECT seq, is_test, path, start_line, id FROM rows WHERE seq IN ({marks(part)})"
        for seq, is_test, path, start, rid in conn.execute(sql, list(part)):
            keyed.append((-score_of[seq], is_test, path, start, rid, seq))
    best = sorted(keyed)[:limit]
    payloads = dict(
        conn.execute(
            f"SELECT seq, payload FROM rows WHERE seq IN ({marks(best)})", [k[-1] for k in best]
        )
    )
    return [scored_row(row_from_payload(payloads[k[-1]]), -k[0]) for k in best]
