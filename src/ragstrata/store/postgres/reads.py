"""Counts of one repository for ``ragstrata status`` (inside the caller's read snapshot)."""

from __future__ import annotations

from typing import Any

from ragstrata.ingest.rows import Layer
from ragstrata.store.base import Manifest, StoreStats
from ragstrata.store.postgres import schema

__all__ = ["stats"]


def stats(conn: Any, repo_id: int | None, fingerprint: str | None) -> StoreStats:
    """Rows per layer, files, vectors and pending texts of ``fingerprint`` (default: the
    manifest's); zeros for a repository not created yet (``repo_id`` None)."""
    counts: dict[str, int] = {}
    files = vectors = pending = 0
    manifest: Manifest | None = None
    updated: str | None = None
    if repo_id is not None:
        counts = dict(
            conn.execute(
                "SELECT layer, count(*) FROM rs_rows WHERE repo_id = %s GROUP BY layer",
                (repo_id,),
            ).fetchall()
        )
        files = conn.execute(
            "SELECT count(*) FROM rs_files WHERE repo_id = %s", (repo_id,)
        ).fetchone()[0]
        text, updated = conn.execute(
            "SELECT manifest, updated_at FROM rs_repos WHERE repo_id = %s", (repo_id,)
        ).fetchone()
        manifest = Manifest.from_json(text) if text else None
    fp = fingerprint or (manifest.embedder_fingerprint if manifest else None)
    if repo_id is not None:
        vectors = conn.execute(
            "SELECT count(DISTINCT text_hash) FROM rs_vectors "
            "WHERE repo_id = %s AND fingerprint = %s",
            (repo_id, fp or ""),
        ).fetchone()[0]
        pending = conn.execute(
            "SELECT count(DISTINCT embed_hash) FROM rs_rows r WHERE r.repo_id = %(r)s "
            "AND r.embed_hash IS NOT NULL AND NOT EXISTS (SELECT 1 FROM rs_vectors v "
            "WHERE v.repo_id = %(r)s AND v.fingerprint = %(fp)s "
            "AND v.text_hash = r.embed_hash)",
            {"r": repo_id, "fp": fp or ""},
        ).fetchone()[0]
    return StoreStats(
        rows={layer.value: int(counts.get(layer.value, 0)) for layer in Layer},
        files=int(files),
        vectors=int(vectors),
        pending_vectors=int(pending),
        fingerprint=fp,
        updated_at=updated or (manifest.updated_at if manifest else None),
        schema_version=schema.ROW_SCHEMA_VERSION,
    )
