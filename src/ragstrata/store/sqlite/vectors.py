"""Vectors of the SQLite store: content-addressed by (fingerprint, text hash), searched exactly.

Dense search is exact cosine over a float32 matrix per embedder fingerprint (``einsum``, not
BLAS: single-threaded, it does not stall when the machine is busy). Every function runs inside
the caller's transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from ragstrata.core.values import PendingVector
from ragstrata.store.sqlite.schema import bump, chunks, marks

__all__ = ["build_matrix", "check_vectors", "collect", "pending", "put"]


def build_matrix(
    conn: sqlite3.Connection, seq_order: np.ndarray, fingerprint: str
) -> dict[str, np.ndarray]:
    """Unit-normalized vectors of ``fingerprint`` in seq order (``matrix``) and, for each, its
    position in ``seq_order`` (``index``)."""
    found = conn.execute(
        "SELECT r.seq, v.vector FROM rows r JOIN vectors v ON v.fingerprint = ? "
        "AND v.text_hash = r.embed_hash",
        (fingerprint,),
    ).fetchall()  # no ORDER BY: sorting the blobs in SQLite is slow; numpy sorts below
    seqs = np.fromiter((s for s, _ in found), np.int64, len(found))
    order = np.argsort(seqs, kind="stable")
    if not found:
        return {"matrix": np.zeros((0, 0), np.float32), "index": seqs}
    matrix = np.frombuffer(b"".join(v for _, v in found), dtype=np.float32)
    matrix = matrix.reshape(len(found), -1)[order]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix /= np.where(norms == 0, 1.0, norms)
    return {"matrix": matrix, "index": np.searchsorted(seq_order, seqs[order])}


def pending(conn: sqlite3.Connection, fingerprint: str, limit: int) -> list[PendingVector]:
    """Distinct embedding texts without a vector of ``fingerprint``."""
    hashes = conn.execute(
        "SELECT DISTINCT embed_hash FROM rows r WHERE embed_hash IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.fingerprint = ? "
        "AND v.text_hash = r.embed_hash) LIMIT ?",
        (fingerprint, limit),
    ).fetchall()  # an index-only scan of rows_embed: cheap even when most are done
    out = []
    for (text_hash,) in hashes:
        row_id, text = conn.execute(
            "SELECT id, embed_text FROM rows WHERE embed_hash = ? ORDER BY seq LIMIT 1",
            (text_hash,),
        ).fetchone()
        out.append(PendingVector(row_id, text_hash, text))
    return out


def check_vectors(
    fingerprint: str, items: Sequence[tuple[str, Sequence[float]]]
) -> list[tuple[str, str, int, bytes]]:
    """``(fingerprint, text_hash, dims, blob)`` records; every vector finite, 1-D, one size."""
    blobs: list[tuple[str, str, int, bytes]] = []
    for text_hash, vector in items:
        arr = np.asarray(vector, dtype=np.float32)
        if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all():
            raise ValueError(f"vector for {text_hash} must be a finite 1-D sequence")
        blobs.append((fingerprint, text_hash, int(arr.size), arr.tobytes()))
    dims = {b[2] for b in blobs}
    if len(dims) > 1:
        raise ValueError(f"vectors for {fingerprint!r} have mixed dimensions {sorted(dims)}")
    return blobs


def put(conn: sqlite3.Connection, blobs: Sequence[tuple[str, str, int, bytes]]) -> int:
    """Store checked records (:func:`check_vectors`) whose hash a row uses; returns how many."""
    fingerprint, dims = blobs[0][0], blobs[0][2]
    found = conn.execute(
        "SELECT dims FROM vectors WHERE fingerprint = ? LIMIT 1", (fingerprint,)
    ).fetchone()
    if found is not None and found[0] != dims:
        raise ValueError(f"vectors for {fingerprint!r} have {found[0]} dimensions, got {dims}")
    before = conn.total_changes
    conn.executemany(
        "INSERT OR REPLACE INTO vectors (fingerprint, text_hash, dims, vector) "
        "SELECT ?, ?, ?, ? "
        "WHERE EXISTS (SELECT 1 FROM rows WHERE embed_hash = ?)",
        [(*blob, blob[1]) for blob in blobs],
    )
    stored = conn.total_changes - before
    bump(conn, vectors=True)
    return stored


def collect(conn: sqlite3.Connection, hashes: set[str]) -> None:
    """Drop vectors whose text no row uses any more."""
    for part in chunks(sorted(hashes)):
        conn.execute(
            f"DELETE FROM vectors WHERE text_hash IN ({marks(part)}) AND NOT "
            "EXISTS (SELECT 1 FROM rows WHERE rows.embed_hash = vectors.text_hash)",
            list(part),
        )
