"""Counts of one repository for ``ragstrata status`` (inside the caller's read snapshot), and
the SQL of the incremental resolver's light reads (relation and definition keys, from the
payloads: no row is decoded in Python)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragstrata.core.rows import Layer
from ragstrata.core.values import Manifest, RelationScope, StoreStats
from ragstrata.store.postgres import schema

__all__ = ["DEFINITION_KEYS", "relation_keys_sql", "stats"]

DEFINITION_KEYS = (
    "SELECT path, j->>'symbol', name, j->>'parent', j->>'kind', language, j->>'signature' "
    "FROM (SELECT path, seq, name, language, payload::jsonb AS j FROM rs_rows "
    "WHERE repo_id = %s AND layer = 'C1') AS c ORDER BY path COLLATE \"C\", seq"
)
"""Every :class:`~ragstrata.core.values.DefinitionKey` of a repository (argument: repo_id)."""


def relation_keys_sql(
    paths: Sequence[str] | None, scope: RelationScope | None
) -> tuple[str, list[Any]]:
    """The query of :meth:`scan_relation_keys` and its arguments after the repo_id."""
    inner = (
        "SELECT path, seq, id, language, payload::jsonb AS j, "
        "row_number() OVER (PARTITION BY path ORDER BY seq) AS n FROM rs_rows "
        "WHERE repo_id = %s AND layer = 'C2'"
    )
    args: list[Any] = []
    if paths is not None:
        inner += " AND path = ANY(%s)"
        args.append(sorted(set(paths)))
    where = ""
    if scope is not None:
        parts = ["j->>'relation' = ANY(%s)"]
        args.append(sorted(scope.relations))
        if scope.mentioning:
            parts.append(
                "EXISTS (SELECT 1 FROM unnest(%s::text[]) AS m(t) WHERE "
                "strpos(j->>'to_name', m.t) > 0 OR strpos(j->>'receiver_type', m.t) > 0 "
                "OR strpos(j->>'from_symbol', m.t) > 0)"
            )
            args.append(sorted(scope.mentioning))
        if scope.first_of_file:
            parts.append("n = 1")
        where = " WHERE " + " OR ".join(parts)
    sql = (
        "SELECT path, id, j->>'relation', j->>'from_symbol', j->>'to_name', "
        f"j->>'receiver_type', language, j->>'to_symbol' FROM ({inner}) AS c{where} "
        'ORDER BY path COLLATE "C", seq'
    )
    return sql, args


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
