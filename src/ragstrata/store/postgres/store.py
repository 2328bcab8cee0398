"""PostgresStore: the :class:`~ragstrata.store.protocols.Store` on PostgreSQL + pgvector.

One database holds many repositories; this object is one repository (``repo_key``) in it.
Rows, files, relations, postings and vectors live in that repository's partitions (see
:mod:`.schema`). Writes are one transaction each, serialized per repository by an advisory
lock, so one index worker per repository writes while any number of searches read
(MVCC: readers never wait for writers, and see whole batches only).

Connections come from a ``psycopg_pool.ConnectionPool`` opened on first use; pass ``pool=`` to
share one pool between the stores of several repositories in a process.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ragstrata.core.checks import (
    check_summary_items,
    check_top_k,
    parse_direction,
    parse_layers,
    parse_mode,
    parse_summary_kind,
)
from ragstrata.core.names import normalize_symbol
from ragstrata.core.rows import Layer, Row
from ragstrata.core.texts import DEFAULT_EMBED_LAYERS, TextRules
from ragstrata.core.values import (
    CatalogEntry,
    DefinitionKey,
    Direction,
    Manifest,
    PendingVector,
    RelationKey,
    RelationScope,
    ScoredRow,
    SearchFilters,
    StoreStats,
    SummaryKind,
    SymbolMode,
)
from ragstrata.errors import IndexMissingError
from ragstrata.store.bm25 import query_hashes
from ragstrata.store.postgres import dense, lexical, reads, schema, symbols, writes
from ragstrata.store.postgres.connection import RepoDatabase, now
from ragstrata.store.protocols import RowTexts
from ragstrata.store.records import row_from_payload, unique_rows

__all__ = ["PostgresStore"]


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
        texts: RowTexts | None = None,
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
        self._db = RepoDatabase(
            url,
            repo_key,
            create=create,
            pool=pool,
            max_connections=max_connections,
            on_analyzer_change=lambda conn, repo_id: writes.reanalyze(conn, repo_id, self.texts),
        )
        self.texts: RowTexts = texts or TextRules(tuple(Layer(str(x)) for x in embed_layers))
        self.max_connections = max_connections
        self.lexical_budget = lexical_budget
        self.hnsw_on_write = hnsw_on_write

    def __repr__(self) -> str:
        return f"PostgresStore(repo_key={self.repo_key!r})"

    @property
    def embed_layers(self) -> tuple[Layer, ...]:
        """Layers whose rows get vectors (from the text policy)."""
        return self.texts.embed_layers

    @property
    def schema_version(self) -> int:
        return schema.ROW_SCHEMA_VERSION

    # ------------------------------------------------------------------ connections

    make_pool = staticmethod(RepoDatabase.make_pool)
    repositories = staticmethod(RepoDatabase.repositories)

    def migrate(self) -> int:
        """Apply pending schema migrations now (idempotent); returns the schema version."""
        return self._db.migrate()

    def drop(self) -> bool:
        """Delete this repository (its partitions and manifest); others are untouched."""
        return self._db.drop()

    def close(self) -> None:
        """Close the pool this store opened (a shared ``pool`` is left open)."""
        self._db.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ manifest, catalog

    def read_manifest(self) -> Manifest | None:
        with self._db.read() as (conn, repo_id):
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
            stamp = now()
            stored = manifest.stamped(created, stamp)
            conn.execute(
                "UPDATE rs_repos SET manifest = %s WHERE repo_id = %s",
                (stored.to_json(), repo_id),
            )
            return stored

        stored = self._db.transact(body)
        return stored

    def catalog(self) -> dict[str, CatalogEntry]:
        with self._db.read() as (conn, repo_id):
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
        entries = [entry for entry, _ in files.values()]
        self._db.transact(
            lambda conn, repo_id: writes.replace_files(conn, repo_id, entries, unique, self.texts)
        )

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

        known = self._db.transact(body)
        return int(known)

    def build_indexes(self, maintenance_work_mem: str = "512MB") -> list[str]:
        """Build the missing HNSW indexes of this repository (one per vector dimension) and
        vacuum/analyze its partitions; returns the indexes built. For bulk loads made with
        ``hnsw_on_write=False``."""
        if not re.fullmatch(r"\d+(kB|MB|GB)", maintenance_work_mem):
            raise ValueError(
                f"maintenance_work_mem must look like 512MB (kB/MB/GB), got {maintenance_work_mem!r}"
            )
        with self._db.conn() as conn:
            return dense.build_indexes(conn, self._db.repo(conn), maintenance_work_mem)

    # ------------------------------------------------------------------ vectors

    def pending_vectors(self, fingerprint: str, limit: int = 256) -> list[PendingVector]:
        check_top_k(limit)
        with self._db.read() as (conn, repo_id):
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

        stored = self._db.transact(body)
        if stored and self.hnsw_on_write:  # after the commit, in its own transaction
            self._db.retry(lambda: self._build_hnsw(dim))
        return len({h for (h,) in stored})

    def _build_hnsw(self, dim: int) -> bool:
        with self._db.conn() as conn, conn.transaction():
            return dense.ensure_hnsw(conn, self._db.repo(conn), dim)

    def drop_vectors(self, keep_fingerprint: str | None = None) -> int:
        def body(conn: Any, repo_id: int) -> Any:
            gone = conn.execute(
                "DELETE FROM rs_vectors WHERE repo_id = %s AND fingerprint IS DISTINCT FROM %s "
                "RETURNING fingerprint, text_hash",
                (repo_id, keep_fingerprint),
            ).fetchall()
            return gone

        gone = self._db.transact(body)
        return len(set(gone))

    # ------------------------------------------------------------------ summaries

    def get_summaries(self, kind: SummaryKind | str) -> dict[str, tuple[str, str]]:
        kind = parse_summary_kind(kind)
        with self._db.read() as (conn, repo_id):
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
        stamp = now()

        def body(conn: Any, repo_id: int) -> Any:
            conn.cursor().executemany(
                "INSERT INTO rs_summaries VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (repo_id, kind, key) DO UPDATE SET prompt_hash = "
                "EXCLUDED.prompt_hash, text = EXCLUDED.text, updated_at = EXCLUDED.updated_at",
                [(repo_id, kind.value, key, h, text, stamp) for key, h, text in clean],
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
            writes.reterm(
                conn, repo_id, [(int(q), row_from_payload(p)) for q, p in found], self.texts
            )

        self._db.transact(body)
        return len(clean)

    # ------------------------------------------------------------------ reads

    def get_rows(self, ids: Sequence[str]) -> list[Row]:
        with self._db.read() as (conn, repo_id):
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
        with self._db.read() as (conn, repo_id):
            if repo_id is None:
                return iter(())
            found = conn.execute(
                sql + ' ORDER BY path COLLATE "C", seq', (repo_id, *args)
            ).fetchall()
        return (row_from_payload(p) for (p,) in found)

    def scan_relation_keys(
        self, paths: Sequence[str] | None = None, scope: RelationScope | None = None
    ) -> Iterator[RelationKey]:
        sql, args = reads.relation_keys_sql(paths, scope)
        with self._db.read() as (conn, repo_id):
            if repo_id is None:
                return iter(())
            found = conn.execute(sql, (repo_id, *args)).fetchall()
        return iter([RelationKey(*k) for k in found])

    def scan_definition_keys(self) -> Iterator[DefinitionKey]:
        with self._db.read() as (conn, repo_id):
            if repo_id is None:
                return iter(())
            found = conn.execute(reads.DEFINITION_KEYS, (repo_id,)).fetchall()
        return iter([DefinitionKey(*k) for k in found])

    def has_index(self) -> bool:
        try:
            with self._db.read() as (conn, repo_id):
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
        with self._db.read() as (conn, repo_id):
            return reads.stats(conn, repo_id, fingerprint)

    # ------------------------------------------------------------------ search

    def search_lexical(
        self, query: str | Sequence[str], filters: SearchFilters | None = None, top_k: int = 10
    ) -> list[ScoredRow]:
        check_top_k(top_k)
        hashes = sorted(query_hashes(query))
        if not hashes:
            return []
        with self._db.read() as (conn, repo_id):
            if repo_id is None:
                return []
            return lexical.search(conn, repo_id, hashes, filters, top_k, self.lexical_budget)

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
        with self._db.read() as (conn, repo_id):
            if repo_id is None:
                return []
            return dense.search(conn, repo_id, query, fingerprint, filters, top_k, exact)

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
        with self._db.read() as (conn, repo_id):
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
        with self._db.read() as (conn, repo_id):
            if repo_id is None:
                return []
            return symbols.relations(conn, repo_id, symbol, direction, kinds, filters, limit)
