"""Dense search with pgvector: HNSW per repository partition, filters that keep recall.

The ``embedding`` column has no fixed dimension (one table serves every embedder), so the HNSW
index is an expression index on ``embedding::vector(D)``, partial on ``dims = D``, built per
repository partition when vectors of that dimension first arrive.

Filtered search keeps recall by letting the index scan continue past filtered-out tuples
(``hnsw.iterative_scan = relaxed_order``, pgvector >= 0.8); the candidates are re-ordered
exactly. On older pgvector the scan over-fetches (``ef_search``) instead. Whenever the index
yields fewer than ``top_k`` rows, or the repository holds fewer than :data:`EXACT_BELOW`
vectors, the search is exact (a sequential scan ordered by the un-cast column, which no index
serves) — exact search on small repositories also makes results identical to the SQLite store.
"""

from __future__ import annotations

from typing import Any

from ragstrata.store.base import SearchFilters
from ragstrata.store.postgres.schema import partition_name

__all__ = [
    "EXACT_BELOW",
    "ann_sql",
    "ensure_hnsw",
    "exact_sql",
    "filter_sql",
    "hnsw_index_name",
    "vector_literal",
]

EXACT_BELOW = 5000
"""Repositories with fewer vectors of a fingerprint are searched exactly."""
EF_SEARCH = 200
HNSW_M, HNSW_EF_CONSTRUCTION = 16, 64


def vector_literal(values: Any) -> str:
    """pgvector's text form: ``[1.0,2.5]``."""
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


def _like_prefix(prefix: str) -> str:
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def filter_sql(filters: SearchFilters | None, alias: str) -> tuple[str, dict[str, Any]]:
    """A SQL condition on ``alias``'s layer/language/is_test/path columns and its parameters
    (named ``f_*``); empty when nothing is filtered. Mirrors :meth:`SearchFilters.matches`."""
    if filters is None:
        return "", {}
    conds: list[str] = []
    params: dict[str, Any] = {}
    if filters.layers:
        conds.append(f"{alias}.layer = ANY(%(f_layers)s::text[])")
        params["f_layers"] = [str(getattr(x, "value", x)) for x in filters.layers]
    if filters.languages:
        conds.append(f"{alias}.language = ANY(%(f_langs)s::text[])")
        params["f_langs"] = list(filters.languages)
    if filters.is_test is not None:
        conds.append(f"{alias}.is_test = %(f_test)s")
        params["f_test"] = bool(filters.is_test)
    if filters.path_prefixes:
        ors: list[str] = []
        for i, raw in enumerate(filters.path_prefixes):
            prefix = raw.replace("\\", "/")
            while prefix.startswith(("./", "/")):
                prefix = prefix[2:] if prefix.startswith("./") else prefix[1:]
            if prefix in ("", "."):
                ors = ["true"]
                break
            if prefix.endswith("/"):
                ors.append(f"{alias}.path LIKE %(f_p{i})s")
                params[f"f_p{i}"] = _like_prefix(prefix)
            else:
                ors.append(f"({alias}.path = %(f_e{i})s OR {alias}.path LIKE %(f_p{i})s)")
                params[f"f_e{i}"] = prefix
                params[f"f_p{i}"] = _like_prefix(prefix + "/")
        conds.append("(" + " OR ".join(ors) + ")")
    return " AND ".join(conds), params


def hnsw_index_name(repo_id: int, dims: int) -> str:
    """Name of a repository partition's HNSW index for one dimension."""
    return f"rs_vectors_r{int(repo_id)}_hnsw_{int(dims)}"


def ensure_hnsw(conn: Any, repo_id: int, dims: int, *, concurrently: bool = False) -> bool:
    """Build the partition's HNSW index for ``dims`` unless a valid one exists; True if built.

    ``concurrently`` (autocommit connection, no transaction open) builds it without blocking
    writers (``CREATE INDEX CONCURRENTLY``), as incremental index runs do after a write; a
    plain build inside a write transaction could deadlock with other repositories' builds.
    """
    name = hnsw_index_name(repo_id, dims)
    valid = conn.execute(
        "SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(%s)", (name,)
    ).fetchone()
    if valid is not None and valid[0]:
        return False
    how = "CONCURRENTLY " if concurrently else ""
    if valid is not None:  # an interrupted concurrent build leaves an invalid index
        conn.execute(f"DROP INDEX {how}IF EXISTS {name}")
    conn.execute(
        f"CREATE INDEX {how}IF NOT EXISTS {name} ON {partition_name('rs_vectors', repo_id)} "
        f"USING hnsw ((embedding::vector({int(dims)})) vector_cosine_ops) "
        f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) "
        f"WHERE dims = {int(dims)}"
    )
    return True


def ann_sql(dims: int, filter_cond: str) -> str:
    """HNSW candidates (``%(limit)s`` of them) re-ordered exactly, joined to rows."""
    cast = f"vector({int(dims)})"
    where = f"AND {filter_cond}" if filter_cond else ""
    return (
        "WITH cand AS MATERIALIZED (SELECT v.seq, "
        f"(v.embedding::{cast}) <=> %(q)s::{cast} AS dist FROM rs_vectors v "
        f"WHERE v.repo_id = %(r)s AND v.fingerprint = %(fp)s AND v.dims = {int(dims)} {where} "
        f"ORDER BY (v.embedding::{cast}) <=> %(q)s::{cast} LIMIT %(limit)s) "
        "SELECT r.seq, 1 - c.dist AS score, r.payload FROM cand c JOIN rs_rows r "
        "ON r.repo_id = %(r)s AND r.seq = c.seq "
        'ORDER BY c.dist, r.is_test, r.path COLLATE "C", r.start_line, r.id COLLATE "C" LIMIT %(k)s'
    )


def exact_sql(filter_cond: str) -> str:
    """Exact cosine search: the un-cast column matches no index, so every vector is scored."""
    where = f"AND {filter_cond}" if filter_cond else ""
    return (
        "WITH cand AS MATERIALIZED (SELECT v.seq, v.embedding <=> %(q)s::vector AS dist "
        "FROM rs_vectors v WHERE v.repo_id = %(r)s AND v.fingerprint = %(fp)s "
        f"{where} ORDER BY 2 LIMIT %(limit)s) "
        "SELECT r.seq, 1 - c.dist AS score, r.payload FROM cand c JOIN rs_rows r "
        "ON r.repo_id = %(r)s AND r.seq = c.seq "
        'ORDER BY c.dist, r.is_test, r.path COLLATE "C", r.start_line, r.id COLLATE "C" LIMIT %(k)s'
    )
