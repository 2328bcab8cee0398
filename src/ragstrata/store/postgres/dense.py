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

import numpy as np

from ragstrata.core.values import ScoredRow, SearchFilters, scored_row
from ragstrata.store.postgres.schema import PARTITIONED, partition_name
from ragstrata.store.records import row_from_payload

__all__ = [
    "EXACT_BELOW",
    "ann_sql",
    "build_indexes",
    "ensure_hnsw",
    "exact_sql",
    "filter_sql",
    "hnsw_index_name",
    "search",
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


def search(
    conn: Any,
    repo_id: int,
    query: np.ndarray,
    fingerprint: str,
    filters: SearchFilters | None,
    top_k: int,
    exact: bool,
) -> list[ScoredRow]:
    """Nearest rows to ``query`` among the vectors of ``fingerprint`` (see module docstring)."""
    found = conn.execute(
        "SELECT dims FROM rs_vectors WHERE repo_id = %s AND fingerprint = %s LIMIT 1",
        (repo_id, fingerprint),
    ).fetchone()
    if found is None:
        return []
    dims = int(found[0])
    if query.shape != (dims,):
        raise ValueError(
            f"query vector has shape {query.shape}, vectors of {fingerprint!r} "
            f"have {dims} dimensions"
        )
    cond, fparams = filter_sql(filters, "v")
    params = {"r": repo_id, "fp": fingerprint, "q": vector_literal(query.tolist()),
              "k": top_k, "limit": top_k + 32} | fparams  # fmt: skip
    rows = None if exact else _ann(conn, repo_id, dims, cond, params)
    if rows is None or len(rows) < top_k:
        rows = conn.execute(exact_sql(cond), params).fetchall()
    return [scored_row(row_from_payload(p), float(s)) for _, s, p in rows]


def _ann(conn: Any, repo_id: int, dims: int, cond: str, params: dict[str, Any]) -> list[Any] | None:
    """HNSW search, or None when the repository is small enough to search exactly."""
    count = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM rs_vectors WHERE repo_id = %s "
        "AND fingerprint = %s LIMIT %s) x",
        (repo_id, params["fp"], EXACT_BELOW),
    ).fetchone()[0]
    if int(count) < EXACT_BELOW:
        return None
    if (
        conn.execute("SELECT to_regclass(%s)", (hnsw_index_name(repo_id, dims),)).fetchone()[0]
        is None
    ):
        return None
    ef = max(EF_SEARCH, int(params["limit"]))
    conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
    if _iterative(conn):
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
    return list(conn.execute(ann_sql(dims, cond), params).fetchall())


def _iterative(conn: Any) -> bool:
    version = conn.execute(
        "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
    ).fetchone()
    parts = tuple(int(x) for x in str(version[0]).split(".")[:2]) if version else (0, 0)
    return parts >= (0, 8)


def build_indexes(conn: Any, repo_id: int, maintenance_work_mem: str) -> list[str]:
    """Build the repository's missing HNSW indexes (one per dimension) and vacuum/analyze its
    partitions; returns the indexes built."""
    built = []
    dims = [
        int(d)
        for (d,) in conn.execute(
            "SELECT DISTINCT dims FROM rs_vectors WHERE repo_id = %s", (repo_id,)
        ).fetchall()
    ]
    with conn.transaction():
        conn.execute(f"SET LOCAL maintenance_work_mem = '{maintenance_work_mem}'")
        for dim in dims:
            if ensure_hnsw(conn, repo_id, dim):
                built.append(hnsw_index_name(repo_id, dim))
    for table in PARTITIONED:  # VACUUM: index-only scans of the postings
        conn.execute(f"VACUUM (ANALYZE) {partition_name(table, repo_id)}")
    return built
