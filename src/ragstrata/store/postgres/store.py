"""PostgresStore: the :class:`~ragstrata.store.base.Store` on PostgreSQL + pgvector.

One database holds many repositories; this object is one repository (``repo_key``) in it.
Rows, files, relations, postings and vectors live in that repository's partitions (see
:mod:`.schema`). Writes are one transaction each, serialized per repository by an advisory
lock, so one index worker per repository writes while any number of searches read
(MVCC: readers never wait for writers, and see whole batches only).

Connections come from a ``psycopg_pool.ConnectionPool`` opened on first use; pass ``pool=`` to
share one pool between the stores of several repositories in a process.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ragstrata.errors import IndexMissingError, StoreError
from ragstrata.ingest.rows import Layer, Row
from ragstrata.store.analyzer import ANALYZER_VERSION, analyze
from ragstrata.store.base import (
    DEFAULT_EMBED_LAYERS,
    CatalogEntry,
    Direction,
    Manifest,
    PendingVector,
    ScoredRow,
    SearchFilters,
    StoreStats,
    SummaryKind,
    SymbolMode,
    check_summary_items,
    check_top_k,
    normalize_symbol,
    parse_direction,
    parse_layers,
    parse_mode,
    parse_summary_kind,
    row_from_payload,
    scored_row,
    unique_rows,
)
from ragstrata.store.postgres import dense, lexical, schema, symbols, writes

__all__ = ["PostgresStore"]

_RETRYABLE = ("40P01", "40001")  # deadlock_detected, serialization_failure
_migrated: set[str] = set()
_migrate_lock = threading.Lock()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class PostgresStore:
    """One repository (``repo_key``) in a PostgreSQL database at ``url``.

    ``create=False`` raises :class:`IndexMissingError` when the repository was never indexed.
    ``embed_layers``: which layers get vectors. ``max_connections``: size of the pool this
    store opens when no ``pool`` is given. ``hnsw_on_write=False`` defers HNSW index builds to
    :meth:`build_indexes` (faster bulk loads). Methods behave as the Store protocol documents.
    """

    def __init__(
        self,
        url: str,
        repo_key: str,
        *,
        create: bool = True,
        embed_layers: Sequence[Layer | str] = DEFAULT_EMBED_LAYERS,
        pool: Any | None = None,
        max_connections: int = 4,
        lexical_budget: int = lexical.EXACT_POSTINGS,
        hnsw_on_write: bool = True,
    ) -> None:
        if not repo_key or len(repo_key) > 200:
            raise ValueError(f"repo_key must be 1..200 characters, got {repo_key!r}")
        self.url = url
        self.repo_key = repo_key
        self.create = create
        self.embed_layers = tuple(Layer(str(x)) for x in embed_layers)
        self.max_connections = max_connections
        self.lexical_budget = lexical_budget
        self.hnsw_on_write = hnsw_on_write
        self._pool = pool
        self._own_pool = pool is None
        self._repo_id: int | None = None
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"PostgresStore(repo_key={self.repo_key!r})"

    @property
    def schema_version(self) -> int:
        return schema.ROW_SCHEMA_VERSION

    # ------------------------------------------------------------------ connections

    @staticmethod
    def make_pool(url: str, max_size: int = 4) -> Any:
        """An open connection pool (autocommit connections) for ``url``."""
        from psycopg_pool import ConnectionPool

        def configure(conn: Any) -> None:
            conn.autocommit = True
            conn.prepare_threshold = None  # see _conn

        pool = ConnectionPool(
            url, min_size=1, max_size=max_size, configure=configure, open=False, timeout=60
        )
        try:
            pool.open(wait=True, timeout=30)
        except Exception as exc:
            pool.close()
            raise StoreError(f"cannot connect to the PostgreSQL store: {exc}") from exc
        return pool

    def _get_pool(self) -> Any:
        with self._lock:
            if self._pool is None:
                self._pool = self.make_pool(self.url, self.max_connections)
                self._own_pool = True
            return self._pool

    @contextmanager
    def _conn(self) -> Iterator[Any]:
        import psycopg

        pool = self._get_pool()
        try:
            with pool.connection() as conn:
                conn.autocommit = True
                # no server-side prepared statements: a generic plan of a partitioned table
                # locks EVERY partition (PostgreSQL <= 15), so writers of one repository
                # would block (and deadlock with) index builds of the others; custom plans
                # prune to the repository's partitions at plan time
                conn.prepare_threshold = None
                self._ensure_migrated(conn)
                yield conn
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL store {self.repo_key!r} failed: {exc}") from exc

    def _ensure_migrated(self, conn: Any) -> None:
        with _migrate_lock:
            if self.url not in _migrated:
                schema.migrate(conn)
                _migrated.add(self.url)

    def migrate(self) -> int:
        """Apply pending schema migrations now (idempotent); returns the schema version."""
        with self._conn() as conn:
            return schema.migrate(conn)

    @contextmanager
    def _read(self) -> Iterator[tuple[Any, int | None]]:
        """A consistent read-only snapshot and the repository id (None: not created yet)."""
        with self._conn() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            schema.lock_parents(conn, "ACCESS SHARE")
            yield conn, self._lookup_repo(conn)

    def _transact(self, body: Callable[[Any, int], Any]) -> Any:
        """Run ``body(conn, repo_id)`` in one write transaction (retried, see :meth:`_retry`)."""

        def once() -> Any:
            with self._write() as (conn, repo_id):
                return body(conn, repo_id)

        return self._retry(once)

    @staticmethod
    def _retry(fn: Callable[[], Any]) -> Any:
        """``fn()``, again (up to 4 more times, short random backoff) when PostgreSQL chose
        its transaction as a deadlock victim or it failed to serialize: partition DDL of
        other repositories (created or dropped meanwhile) can cross its locks."""
        for attempt in range(5):
            try:
                return fn()
            except StoreError as exc:
                code = getattr(exc.__cause__, "sqlstate", None)
                if code not in _RETRYABLE or attempt == 4:
                    raise
                time.sleep(0.05 * 2**attempt * (1 + random.random()))
        raise AssertionError("unreachable")

    @contextmanager
    def _write(self) -> Iterator[tuple[Any, int]]:
        """One write transaction holding the repository's writer lock."""
        with self._conn() as conn:
            repo_id = self._repo(conn)
            with conn.transaction():
                schema.lock_parents(conn, "ROW EXCLUSIVE")
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (0x5253, repo_id))
                yield conn, repo_id
                conn.execute(
                    "UPDATE rs_repos SET updated_at = %s WHERE repo_id = %s", (_now(), repo_id)
                )

    def _lookup_repo(self, conn: Any) -> int | None:
        if self._repo_id is not None:
            return self._repo_id
        found = conn.execute(
            "SELECT repo_id FROM rs_repos WHERE repo_key = %s", (self.repo_key,)
        ).fetchone()
        if found is None and not self.create:
            raise IndexMissingError(
                f"no index for repository {self.repo_key!r} in the PostgreSQL store; "
                "run `ragstrata index` first"
            )
        if found is not None:
            self._repo_id = int(found[0])
        return self._repo_id

    def _repo(self, conn: Any) -> int:
        """The repository id, registering it (and creating its partitions) when new."""
        repo_id = self._lookup_repo(conn)
        if repo_id is None:
            with conn.transaction():
                row = conn.execute(
                    "INSERT INTO rs_repos (repo_key, analyzer) VALUES (%s, %s) "
                    "ON CONFLICT (repo_key) DO UPDATE SET repo_key = EXCLUDED.repo_key "
                    "RETURNING repo_id",
                    (self.repo_key, ANALYZER_VERSION),
                ).fetchone()
                repo_id = int(row[0])
                schema.create_partitions(conn, repo_id)
            self._repo_id = repo_id
        self._check_analyzer(conn, repo_id)
        return repo_id

    def _check_analyzer(self, conn: Any, repo_id: int) -> None:
        found = conn.execute(
            "SELECT analyzer FROM rs_repos WHERE repo_id = %s", (repo_id,)
        ).fetchone()
        if found is not None and found[0] != ANALYZER_VERSION:
            with conn.transaction():
                schema.lock_parents(conn, "ROW EXCLUSIVE")
                conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (0x5253, repo_id))
                writes.reanalyze(conn, repo_id)

    def close(self) -> None:
        """Close the pool this store opened (a shared ``pool`` is left open)."""
        with self._lock:
            if self._pool is not None and self._own_pool:
                self._pool.close()
                self._pool = None
            self._repo_id = None

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def drop(self) -> bool:
        """Delete this repository (its partitions and manifest); others are untouched."""

        def once() -> bool:
            with self._conn() as conn, conn.transaction():
                found = conn.execute(
                    "SELECT repo_id FROM rs_repos WHERE repo_key = %s FOR UPDATE",
                    (self.repo_key,),
                ).fetchone()
                if found is None:
                    return False
                schema.drop_partitions(conn, int(found[0]))
                conn.execute("DELETE FROM rs_repos WHERE repo_id = %s", (found[0],))
            return True

        dropped = bool(self._retry(once))
        self._repo_id = None
        return dropped

    @staticmethod
    def repositories(url: str) -> list[str]:
        """Repository keys stored in the database at ``url``."""
        import psycopg

        with psycopg.connect(url) as conn:
            exists = conn.execute("SELECT to_regclass('rs_repos') IS NOT NULL").fetchone()
            if not exists or not exists[0]:
                return []
            return [r[0] for r in conn.execute("SELECT repo_key FROM rs_repos ORDER BY 1")]

    # ------------------------------------------------------------------ manifest, catalog

    def read_manifest(self) -> Manifest | None:
        with self._read() as (conn, repo_id):
            if repo_id is None:
                return None
            row = conn.execute(
                "SELECT manifest FROM rs_repos WHERE repo_id = %s", (repo_id,)
            ).fetchone()
        return Manifest.from_json(row[0]) if row and row[0] else None

    def write_manifest(self, manifest: Manifest) -> Manifest:
        def body(conn: Any, repo_id: int) -> Any:
            row = conn.execute(
                "SELECT manifest FROM rs_repos WHERE repo_id = %s", (repo_id,)
            ).fetchone()
            created = Manifest.from_json(row[0]).created_at if row and row[0] else ""
            now = _now()
            stored = Manifest(
                schema_version=manifest.schema_version,
                package_version=manifest.package_version,
                embedder_fingerprint=manifest.embedder_fingerprint,
                dimensions=manifest.dimensions,
                splitter=dict(manifest.splitter),
                created_at=manifest.created_at or created or now,
                updated_at=now,
            )
            conn.execute(
                "UPDATE rs_repos SET manifest = %s WHERE repo_id = %s",
                (stored.to_json(), repo_id),
            )
            return stored

        stored = self._transact(body)
        return stored

    def catalog(self) -> dict[str, CatalogEntry]:
        with self._read() as (conn, repo_id):
            if repo_id is None:
                return {}
            found = conn.execute(
                "SELECT path, mtime_ns, size, sha256 FROM rs_files WHERE repo_id = %s", (repo_id,)
            ).fetchall()
        return {p: CatalogEntry(p, int(m), int(s), h) for p, m, s, h in found}

    # ------------------------------------------------------------------ writes

    def replace_files(self, batch: Sequence[tuple[CatalogEntry, Sequence[Row]]]) -> None:
        """One transaction: per file, old rows out, new rows in, catalog entry updated.
        Vectors of texts that did not change are carried over to the new rows."""
        for entry, rows in batch:
            for row in rows:
                if row.path != entry.path:
                    raise ValueError(f"row {row.id} has path {row.path!r}, file is {entry.path!r}")
        if not batch:
            return
        files = {entry.path: (entry, rows) for entry, rows in batch}  # the last one wins
        unique: list[Row] = []
        for _, rows in files.values():
            unique.extend(unique_rows(rows))

        def body(conn: Any, repo_id: int) -> Any:
            old_seqs = writes.delete_rows(conn, repo_id, list(files))
            conn.cursor().executemany(
                "INSERT INTO rs_files VALUES (%s, %s, %s, %s, %s)",
                [(repo_id, e.path, e.mtime_ns, e.size, e.sha256) for e, _ in files.values()],
            )
            new_seqs = writes.insert_rows(conn, repo_id, unique, self.embed_layers)
            if new_seqs:
                # carry vectors over by text hash (from any row of the repository, old rows
                # of these files included: their vectors are deleted only after this)
                conn.execute(
                    "INSERT INTO rs_vectors SELECT r.repo_id, r.seq, v.fingerprint, "
                    "r.embed_hash, v.dims, r.layer, r.language, r.is_test, r.path, v.embedding "
                    "FROM rs_rows r CROSS JOIN LATERAL (SELECT DISTINCT ON (x.fingerprint) "
                    "x.fingerprint, x.dims, x.embedding FROM rs_vectors x WHERE x.repo_id = %(r)s "
                    "AND x.text_hash = r.embed_hash ORDER BY x.fingerprint) v "
                    "WHERE r.repo_id = %(r)s AND r.seq = ANY(%(s)s) AND r.embed_hash IS NOT NULL",
                    {"r": repo_id, "s": new_seqs},
                )
            if old_seqs:
                conn.execute(
                    "DELETE FROM rs_vectors WHERE repo_id = %s AND seq = ANY(%s)",
                    (repo_id, old_seqs),
                )

        self._transact(body)

    def remove_files(self, paths: Sequence[str]) -> int:
        """Delete files with their rows and vectors; returns how many files were known."""
        paths = list(dict.fromkeys(paths))
        if not paths:
            return 0

        def body(conn: Any, repo_id: int) -> Any:
            known = conn.execute(
                "SELECT count(*) FROM rs_files WHERE repo_id = %s AND path = ANY(%s)",
                (repo_id, paths),
            ).fetchone()[0]
            seqs = writes.delete_rows(conn, repo_id, paths)
            if seqs:
                conn.execute(
                    "DELETE FROM rs_vectors WHERE repo_id = %s AND seq = ANY(%s)", (repo_id, seqs)
                )
            return known

        known = self._transact(body)
        return int(known)

    def build_indexes(self, maintenance_work_mem: str = "512MB") -> list[str]:
        """Build the missing HNSW indexes of this repository (one per vector dimension) and
        vacuum/analyze its partitions; returns the indexes built. For bulk loads made with
        ``hnsw_on_write=False``."""
        if not re.fullmatch(r"\d+(kB|MB|GB)", maintenance_work_mem):
            raise ValueError(
                f"maintenance_work_mem must look like 512MB (kB/MB/GB), got {maintenance_work_mem!r}"
            )
        built = []
        with self._conn() as conn:
            repo_id = self._repo(conn)
            dims = [
                int(d)
                for (d,) in conn.execute(
                    "SELECT DISTINCT dims FROM rs_vectors WHERE repo_id = %s", (repo_id,)
                ).fetchall()
            ]
            with conn.transaction():
                conn.execute(f"SET LOCAL maintenance_work_mem = '{maintenance_work_mem}'")
                for dim in dims:
                    if dense.ensure_hnsw(conn, repo_id, dim):
                        built.append(dense.hnsw_index_name(repo_id, dim))
            for table in schema.PARTITIONED:  # VACUUM: index-only scans of the postings
                conn.execute(f"VACUUM (ANALYZE) {schema.partition_name(table, repo_id)}")
        return built

    # ------------------------------------------------------------------ vectors

    def pending_vectors(self, fingerprint: str, limit: int = 256) -> list[PendingVector]:
        check_top_k(limit)
        with self._read() as (conn, repo_id):
            if repo_id is None:
                return []
            found = conn.execute(
                "SELECT DISTINCT ON (r.embed_hash) r.embed_hash, r.id, r.embed_text "
                "FROM rs_rows r WHERE r.repo_id = %(r)s AND r.embed_hash IS NOT NULL "
                "AND NOT EXISTS (SELECT 1 FROM rs_vectors v WHERE v.repo_id = %(r)s AND "
                "v.fingerprint = %(fp)s AND v.text_hash = r.embed_hash) "
                "ORDER BY r.embed_hash, r.seq LIMIT %(n)s",
                {"r": repo_id, "fp": fingerprint, "n": limit},
            ).fetchall()
        return [PendingVector(rid, h, text) for h, rid, text in found]

    def put_vectors(self, fingerprint: str, items: Sequence[tuple[str, Sequence[float]]]) -> int:
        """Store vectors by text hash (for every row with that text); unknown hashes are
        ignored; all vectors of one fingerprint share one dimension."""
        if not items:
            return 0
        literals: dict[str, str] = {}
        dims: set[int] = set()
        for text_hash, vector in items:
            arr = np.asarray(vector, dtype=np.float32)
            if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all():
                raise ValueError(f"vector for {text_hash} must be a finite 1-D sequence")
            dims.add(int(arr.size))
            literals[text_hash] = dense.vector_literal(arr.tolist())
        if len(dims) != 1:
            raise ValueError(f"vectors for {fingerprint!r} have mixed dimensions {sorted(dims)}")
        dim = dims.pop()

        def body(conn: Any, repo_id: int) -> Any:
            found = conn.execute(
                "SELECT dims FROM rs_vectors WHERE repo_id = %s AND fingerprint = %s LIMIT 1",
                (repo_id, fingerprint),
            ).fetchone()
            if found is not None and int(found[0]) != dim:
                raise ValueError(
                    f"vectors for {fingerprint!r} have {found[0]} dimensions, got {dim}"
                )
            stored = conn.execute(
                "INSERT INTO rs_vectors SELECT r.repo_id, r.seq, %(fp)s, r.embed_hash, %(d)s, "
                "r.layer, r.language, r.is_test, r.path, x.e::vector "
                "FROM unnest(%(h)s::text[], %(e)s::text[]) AS x(h, e) JOIN rs_rows r "
                "ON r.repo_id = %(r)s AND r.embed_hash = x.h "
                "ON CONFLICT (repo_id, seq, fingerprint) DO UPDATE SET "
                "embedding = EXCLUDED.embedding, dims = EXCLUDED.dims "
                "RETURNING text_hash",
                {"fp": fingerprint, "d": dim, "h": list(literals),
                 "e": list(literals.values()), "r": repo_id},
            ).fetchall()  # fmt: skip
            return stored

        stored = self._transact(body)
        if stored and self.hnsw_on_write:  # after the commit, in its own transaction
            self._retry(lambda: self._build_hnsw(dim))
        return len({h for (h,) in stored})

    def _build_hnsw(self, dim: int) -> bool:
        with self._conn() as conn, conn.transaction():
            return dense.ensure_hnsw(conn, self._repo(conn), dim)

    def drop_vectors(self, keep_fingerprint: str | None = None) -> int:
        def body(conn: Any, repo_id: int) -> Any:
            gone = conn.execute(
                "DELETE FROM rs_vectors WHERE repo_id = %s AND fingerprint IS DISTINCT FROM %s "
                "RETURNING fingerprint, text_hash",
                (repo_id, keep_fingerprint),
            ).fetchall()
            return gone

        gone = self._transact(body)
        return len(set(gone))

    # ------------------------------------------------------------------ summaries

    def get_summaries(self, kind: SummaryKind | str) -> dict[str, tuple[str, str]]:
        kind = parse_summary_kind(kind)
        with self._read() as (conn, repo_id):
            if repo_id is None:
                return {}
            found = conn.execute(
                "SELECT key, prompt_hash, text FROM rs_summaries WHERE repo_id = %s AND kind = %s",
                (repo_id, kind.value),
            ).fetchall()
        return {k: (h, t) for k, h, t in found}

    def put_summaries(self, kind: SummaryKind | str, items: Sequence[tuple[str, str, str]]) -> int:
        """Upsert the summaries and re-encode the terms of the rows they belong to."""
        kind = parse_summary_kind(kind)
        clean = check_summary_items(items)
        if not clean:
            return 0
        now = _now()

        def body(conn: Any, repo_id: int) -> Any:
            conn.cursor().executemany(
                "INSERT INTO rs_summaries VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (repo_id, kind, key) DO UPDATE SET prompt_hash = "
                "EXCLUDED.prompt_hash, text = EXCLUDED.text, updated_at = EXCLUDED.updated_at",
                [(repo_id, kind.value, key, h, text, now) for key, h, text in clean],
            )
            keys = [key for key, _, _ in clean]
            if kind is SummaryKind.FILE:
                sql = "layer = 'C0' AND path = ANY(%s)"
                args: tuple[Any, ...] = (keys,)
            else:  # C1 by symbol_norm (indexed), then the exact symbol
                sql = "layer = 'C1' AND symbol_norm = ANY(%s) AND symbol = ANY(%s)"
                args = ([normalize_symbol(k) for k in keys], keys)
            found = conn.execute(
                f"SELECT seq, payload FROM rs_rows WHERE repo_id = %s AND {sql}",
                (repo_id, *args),
            ).fetchall()
            writes.reterm(conn, repo_id, [(int(q), row_from_payload(p)) for q, p in found])

        self._transact(body)
        return len(clean)

    # ------------------------------------------------------------------ reads

    def get_rows(self, ids: Sequence[str]) -> list[Row]:
        with self._read() as (conn, repo_id):
            if repo_id is None or not ids:
                return []
            found = dict(
                conn.execute(
                    "SELECT id, payload FROM rs_rows WHERE repo_id = %s AND id = ANY(%s)",
                    (repo_id, list(ids)),
                ).fetchall()
            )
        rows = {i: row_from_payload(p) for i, p in found.items()}
        return [rows[i] for i in ids if i in rows]

    def scan_rows(
        self, layers: Sequence[Layer | str] | None = None, paths: Sequence[str] | None = None
    ) -> Iterator[Row]:
        wanted = parse_layers(layers)
        sql = "SELECT payload FROM rs_rows WHERE repo_id = %s"
        args: list[Any] = []
        if wanted is not None:
            sql += " AND layer = ANY(%s)"
            args.append([layer.value for layer in wanted])
        if paths is not None:
            sql += " AND path = ANY(%s)"
            args.append(sorted(set(paths)))
        with self._read() as (conn, repo_id):
            if repo_id is None:
                return iter(())
            found = conn.execute(
                sql + ' ORDER BY path COLLATE "C", seq', (repo_id, *args)
            ).fetchall()
        return (row_from_payload(p) for (p,) in found)

    def has_index(self) -> bool:
        try:
            with self._read() as (conn, repo_id):
                if repo_id is None:
                    return False
                found = conn.execute(
                    "SELECT manifest IS NOT NULL OR EXISTS (SELECT 1 FROM rs_files "
                    "WHERE repo_id = %(r)s) FROM rs_repos WHERE repo_id = %(r)s",
                    {"r": repo_id},
                ).fetchone()
        except IndexMissingError:  # create=False and never indexed
            return False
        return bool(found and found[0])

    def stats(self, fingerprint: str | None = None) -> StoreStats:
        with self._read() as (conn, repo_id):
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

    # ------------------------------------------------------------------ search

    def search_lexical(
        self, query: str | Sequence[str], filters: SearchFilters | None = None, top_k: int = 10
    ) -> list[ScoredRow]:
        check_top_k(top_k)
        terms = analyze(query) if isinstance(query, str) else [t for q in query for t in analyze(q)]
        hashes = sorted({lexical.term_hash(t) for t in terms})
        if not hashes:
            return []
        with self._read() as (conn, repo_id):
            if repo_id is None:
                return []
            n_docs, sum_len = conn.execute(
                "SELECT n_docs, sum_len FROM rs_repos WHERE repo_id = %s", (repo_id,)
            ).fetchone()
            dfs = conn.execute(
                "SELECT t, (SELECT count(*) FROM rs_postings p WHERE p.repo_id = %s "
                "AND p.term = t) FROM unnest(%s::bigint[]) AS t",
                (repo_id, hashes),
            ).fetchall()
            params, all_cheap = lexical.bm25_params(
                repo_id, dfs, int(n_docs), int(sum_len), top_k, self.lexical_budget
            )
            if not params["terms"]:
                return []
            cond, fparams = dense.filter_sql(filters, "m")
            found = conn.execute(lexical.bm25_sql(cond, all_cheap), params | fparams).fetchall()
        return [scored_row(row_from_payload(p), float(s)) for _, s, p in found]

    def search_dense(
        self,
        vector: Sequence[float],
        fingerprint: str,
        filters: SearchFilters | None = None,
        top_k: int = 10,
        *,
        exact: bool = False,
    ) -> list[ScoredRow]:
        """``exact=True`` skips the HNSW index (the reference for recall measurements)."""
        check_top_k(top_k)
        query = np.asarray(vector, dtype=np.float32)
        with self._read() as (conn, repo_id):
            if repo_id is None:
                return []
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
            cond, fparams = dense.filter_sql(filters, "v")
            params = {"r": repo_id, "fp": fingerprint, "q": dense.vector_literal(query.tolist()),
                      "k": top_k, "limit": top_k + 32} | fparams  # fmt: skip
            rows = None if exact else self._ann(conn, repo_id, dims, cond, params)
            if rows is None or len(rows) < top_k:
                rows = conn.execute(dense.exact_sql(cond), params).fetchall()
        return [scored_row(row_from_payload(p), float(s)) for _, s, p in rows]

    def _ann(
        self, conn: Any, repo_id: int, dims: int, cond: str, params: dict[str, Any]
    ) -> list[Any] | None:
        """HNSW search, or None when the repository is small enough to search exactly."""
        count = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM rs_vectors WHERE repo_id = %s "
            "AND fingerprint = %s LIMIT %s) x",
            (repo_id, params["fp"], dense.EXACT_BELOW),
        ).fetchone()[0]
        if int(count) < dense.EXACT_BELOW:
            return None
        if (
            conn.execute(
                "SELECT to_regclass(%s)", (dense.hnsw_index_name(repo_id, dims),)
            ).fetchone()[0]
            is None
        ):
            return None
        ef = max(dense.EF_SEARCH, int(params["limit"]))
        conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
        if self._iterative(conn):
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        return list(conn.execute(dense.ann_sql(dims, cond), params).fetchall())

    def _iterative(self, conn: Any) -> bool:
        version = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        parts = tuple(int(x) for x in str(version[0]).split(".")[:2]) if version else (0, 0)
        return parts >= (0, 8)

    # ------------------------------------------------------------------ symbols, relations

    def lookup_symbol(
        self,
        name: str,
        mode: SymbolMode | str = SymbolMode.EXACT,
        filters: SearchFilters | None = None,
        limit: int = 10,
    ) -> list[ScoredRow]:
        mode = parse_mode(mode)
        check_top_k(limit)
        if not name.strip():
            return []
        with self._read() as (conn, repo_id):
            if repo_id is None:
                return []
            return symbols.lookup_symbol(conn, repo_id, name, mode, filters, limit)

    def relations(
        self,
        symbol: str,
        direction: Direction | str = Direction.CALLERS,
        kinds: Sequence[str] | None = ("calls",),
        filters: SearchFilters | None = None,
        limit: int = 50,
    ) -> list[ScoredRow]:
        direction = parse_direction(direction)
        check_top_k(limit)
        if not symbol.strip():
            return []
        with self._read() as (conn, repo_id):
            if repo_id is None:
                return []
            return symbols.relations(conn, repo_id, symbol, direction, kinds, filters, limit)
