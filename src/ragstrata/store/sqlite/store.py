"""SQLiteStore: the embedded default :class:`~ragstrata.store.protocols.Store`, one file
(``REPO/.ragstrata/index.sqlite``), stdlib sqlite3.

SQLite is the source of truth: rows (with their JSON payload, metadata columns, the analyzed
terms as hashed term-frequency blobs, and the embedding text and its hash), relations, the file
catalog, content-addressed vectors, cached summaries and the manifest (see :mod:`.schema`). WAL
mode lets searches run while an index run writes; every write method is one ``BEGIN
IMMEDIATE`` transaction, so a batch is all there or not there after a crash. A summary's terms
join the lexical terms of the C0 row of its path or the C1 rows of its symbol. Searches run on
derived numpy structures (:mod:`.derived`, :mod:`.lexical`, :mod:`.vectors`) read in the same
transaction as the rows they return.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
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
from ragstrata.store.bm25 import query_hashes
from ragstrata.store.locks import advisory_lock
from ragstrata.store.protocols import RowTexts, Store
from ragstrata.store.records import row_from_payload
from ragstrata.store.sqlite import keys, symbols, vectors, writes
from ragstrata.store.sqlite.connection import Connections, swap_in
from ragstrata.store.sqlite.derived import Derived
from ragstrata.store.sqlite.hits import hits, top
from ragstrata.store.sqlite.schema import (
    ROW_SCHEMA_VERSION,
    bump,
    chunks,
    marks,
    meta_value,
    migrate,
    now,
)

__all__ = ["SQLiteStore"]


class SQLiteStore:
    """The embedded store (see module docstring); methods behave as the protocol documents.

    ``texts``: the text policy applied to written rows (default: ``TextRules(embed_layers)``;
    ``embed_layers`` is the shorthand for which layers get vectors). Indexes of at least
    ``cache_min_rows`` rows keep their derived arrays on disk (a fresh ``ragstrata ask`` on a
    few-hundred-file repository would otherwise rebuild them, ~0.1-0.3 s); ``None`` disables
    that cache. Cheap to construct; the file is opened (and
    created and migrated, unless ``create`` is False) on first use. Safe to share between
    threads: each thread gets its own connection.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = True,
        embed_layers: Sequence[Layer | str] = DEFAULT_EMBED_LAYERS,
        texts: RowTexts | None = None,
        busy_timeout_s: float = 30.0,
        cache_min_rows: int | None = 2_000,
        repo: str | Path | None = None,
    ) -> None:
        self.path = Path(path)
        self.cache_dir = self.path.parent / (self.path.stem + ".cache")
        self.cache_min_rows = cache_min_rows
        self.create = create
        self.texts: RowTexts = texts or TextRules(tuple(Layer(str(x)) for x in embed_layers))
        self.busy_timeout_s = busy_timeout_s
        self.repo = None if repo is None else Path(repo)
        self._db = Connections(
            self.path,
            create=create,
            busy_timeout_s=busy_timeout_s,
            on_first_open=lambda c: migrate(
                c, self.path, lambda t: writes.reanalyze(t, self.texts)
            ),
            repo=self.repo,
        )
        self.derived = Derived(self.cache_dir, cache_min_rows)
        self._rebuild_hold: contextlib.ExitStack | None = None  # see beside()

    @classmethod
    def for_repo(
        cls, repo: str | Path, index_dir_name: str = ".ragstrata", **kw: Any
    ) -> SQLiteStore:
        """The store of a repository: ``REPO/<index_dir_name>/index.sqlite``."""
        return cls(Path(repo) / index_dir_name / "index.sqlite", repo=repo, **kw)

    @property
    def embed_layers(self) -> tuple[Layer, ...]:
        """Layers whose rows get vectors (from the text policy)."""
        return self.texts.embed_layers

    @property
    def schema_version(self) -> int:
        return ROW_SCHEMA_VERSION

    def close(self) -> None:
        """Close every connection this store opened and drop its caches."""
        with self._db.lock:
            self._db.close()
            self.derived.reset()
        hold, self._rebuild_hold = self._rebuild_hold, None
        if hold is not None:  # a rebuild given up: let the next one in
            hold.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ rebuilds

    def beside(self) -> SQLiteStore:
        """A new, empty store at ``<file>.rebuild`` (leftovers of an earlier attempt are
        deleted): a rebuild is written there while this file keeps answering."""
        path = self.path.with_name(self.path.name + ".rebuild")
        hold = contextlib.ExitStack()
        # One rebuild at a time, across processes (a CLI rebuild beside a server's rebuild
        # job): the next waits here until this one is swapped in or given up (close()).
        hold.enter_context(
            advisory_lock(self.path.with_name(self.path.name + ".one-rebuild.lock"), exclusive=True)
        )
        try:
            for suffix in ("", "-wal", "-shm", "-journal", ".lock"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            built = SQLiteStore(
                path, texts=self.texts, busy_timeout_s=self.busy_timeout_s, cache_min_rows=None
            )
        except BaseException:
            hold.close()
            raise
        built._rebuild_hold = hold
        return built

    def replace_with(self, built: Store) -> None:
        """Swap the file of ``built`` (from :meth:`beside`) in for this one, atomically.
        Connections of this store move to the new file at their next transaction."""
        if not isinstance(built, SQLiteStore) or built.path.parent != self.path.parent:
            raise ValueError(f"{built!r} was not built beside {self.path}")
        hold, built._rebuild_hold = built._rebuild_hold, None
        try:
            built.close()
            swap_in(built.path, self.path)
            Path(str(built.path) + ".lock").unlink(missing_ok=True)
        finally:
            if hold is not None:
                hold.close()

    # ------------------------------------------------------------------ manifest, catalog

    def read_manifest(self) -> Manifest | None:
        with self._db.read() as conn:
            text = meta_value(conn, "manifest")
        return None if text is None else Manifest.from_json(text)

    def write_manifest(self, manifest: Manifest) -> Manifest:
        with self._db.write() as conn:
            old = meta_value(conn, "manifest")
            created = Manifest.from_json(old).created_at if old else ""
            stamp = now()
            stored = manifest.stamped(created, stamp)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('manifest', ?)", (stored.to_json(),))
        return stored

    def catalog(self) -> dict[str, CatalogEntry]:
        with self._db.read() as conn:
            found = conn.execute("SELECT path, mtime_ns, size, sha256 FROM files").fetchall()
        return {p: CatalogEntry(p, m, s, h) for p, m, s, h in found}

    # ------------------------------------------------------------------ writes

    def replace_files(self, batch: Sequence[tuple[CatalogEntry, Sequence[Row]]]) -> None:
        """One transaction: per file, old rows out, new rows in, catalog entry updated."""
        for entry, rows in batch:
            for row in rows:
                if row.path != entry.path:
                    raise ValueError(f"row {row.id} has path {row.path!r}, file is {entry.path!r}")
        if not batch:
            return
        with self._db.write() as conn:
            writes.replace_files(conn, batch, self.texts)

    def remove_files(self, paths: Sequence[str]) -> int:
        """Delete files with their rows (and now-orphaned vectors); returns files removed."""
        paths = list(dict.fromkeys(paths))
        if not paths:
            return 0
        with self._db.write() as conn:
            removed = 0
            for part in chunks(paths):
                sql = f"SELECT COUNT(*) FROM files WHERE path IN ({marks(part)})"
                removed += conn.execute(sql, list(part)).fetchone()[0]
            vectors.collect(conn, writes.delete_paths(conn, paths))
            bump(conn, rows=True)
        return int(removed)

    # ------------------------------------------------------------------ vectors

    def pending_vectors(self, fingerprint: str, limit: int = 256) -> list[PendingVector]:
        check_top_k(limit)
        with self._db.read() as conn:
            return vectors.pending(conn, fingerprint, limit)

    def put_vectors(self, fingerprint: str, items: Sequence[tuple[str, Sequence[float]]]) -> int:
        """Store vectors by text hash; all of one fingerprint must share one dimension."""
        if not items:
            return 0
        blobs = vectors.check_vectors(fingerprint, items)
        with self._db.write() as conn:
            return vectors.put(conn, blobs)

    def drop_vectors(self, keep_fingerprint: str | None = None) -> int:
        with self._db.write() as conn:
            cur = conn.execute(
                "DELETE FROM vectors WHERE fingerprint IS NOT ?", (keep_fingerprint,)
            )
            bump(conn, vectors=True)
            return cur.rowcount

    # ------------------------------------------------------------------ summaries

    def get_summaries(self, kind: SummaryKind | str) -> dict[str, tuple[str, str]]:
        kind = parse_summary_kind(kind)
        with self._db.read() as conn:
            found = conn.execute(
                "SELECT key, prompt_hash, text FROM summaries WHERE kind = ?", (kind.value,)
            ).fetchall()
        return {k: (h, t) for k, h, t in found}

    def put_summaries(self, kind: SummaryKind | str, items: Sequence[tuple[str, str, str]]) -> int:
        """Upsert the summaries and re-encode the terms of the rows they belong to."""
        kind = parse_summary_kind(kind)
        clean = check_summary_items(items)
        if not clean:
            return 0
        stamp = now()
        with self._db.write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?, ?)",
                [(kind.value, key, h, text, stamp) for key, h, text in clean],
            )
            writes.resummarize(conn, kind, [key for key, _, _ in clean], self.texts)
        return len(clean)

    # ------------------------------------------------------------------ reads

    def get_rows(self, ids: Sequence[str]) -> list[Row]:
        found: dict[str, Row] = {}
        with self._db.read() as conn:
            for part in chunks(list(ids)):
                sql = f"SELECT id, payload FROM rows WHERE id IN ({marks(part)})"
                found.update((i, row_from_payload(p)) for i, p in conn.execute(sql, list(part)))
        return [found[i] for i in ids if i in found]

    def scan_rows(
        self, layers: Sequence[Layer | str] | None = None, paths: Sequence[str] | None = None
    ) -> Iterator[Row]:
        wanted = parse_layers(layers)
        where: list[str] = []
        args: list[str] = []
        if wanted is not None:
            where.append(f"layer IN ({marks(wanted)})")
            args.extend(layer.value for layer in wanted)
        sql = "SELECT payload FROM rows"
        payloads: list[str] = []
        with self._db.read() as conn:  # one snapshot; decoded inside it (damage is reported)
            if paths is None:
                clause = f" WHERE {' AND '.join(where)}" if where else ""
                payloads = [p for (p,) in conn.execute(sql + clause + " ORDER BY path, seq", args)]
            else:
                for part in chunks(sorted(set(paths))):
                    clause = " WHERE " + " AND ".join([*where, f"path IN ({marks(part)})"])
                    found = conn.execute(sql + clause + " ORDER BY path, seq", [*args, *part])
                    payloads.extend(p for (p,) in found)
            rows = [row_from_payload(p) for p in payloads]
        return iter(rows)

    def scan_relation_keys(
        self, paths: Sequence[str] | None = None, scope: RelationScope | None = None
    ) -> Iterator[RelationKey]:
        with self._db.read() as conn:
            return iter(keys.relation_keys(conn, paths, scope))

    def scan_definition_keys(self) -> Iterator[DefinitionKey]:
        with self._db.read() as conn:
            return iter(keys.definition_keys(conn))

    def has_index(self) -> bool:
        if not self.path.exists() and not self.path.is_symlink():
            return False
        with self._db.read() as conn:
            if meta_value(conn, "manifest") is not None:
                return True
            return conn.execute("SELECT 1 FROM files LIMIT 1").fetchone() is not None

    def stats(self, fingerprint: str | None = None) -> StoreStats:
        with self._db.read() as conn:
            counts = dict(conn.execute("SELECT layer, COUNT(*) FROM rows GROUP BY layer"))
            files = conn.execute("SELECT COUNT(*) FROM files").fetchone()[0]
            manifest_text = meta_value(conn, "manifest")
            manifest = Manifest.from_json(manifest_text) if manifest_text else None
            fp = fingerprint or (manifest.embedder_fingerprint if manifest else None)
            stored = 0
            if fp:
                stored = conn.execute(
                    "SELECT COUNT(*) FROM vectors WHERE fingerprint = ?", (fp,)
                ).fetchone()[0]
            pending = conn.execute(
                "SELECT COUNT(DISTINCT embed_hash) FROM rows r WHERE embed_hash IS NOT NULL "
                "AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.fingerprint = ? "
                "AND v.text_hash = r.embed_hash)",
                (fp or "",),
            ).fetchone()[0]
            updated = meta_value(conn, "updated_at") or (manifest.updated_at if manifest else None)
        return StoreStats(
            rows={layer.value: int(counts.get(layer.value, 0)) for layer in Layer},
            files=int(files),
            vectors=int(stored),
            pending_vectors=int(pending),
            fingerprint=fp,
            updated_at=updated,
            schema_version=ROW_SCHEMA_VERSION,
        )

    # ------------------------------------------------------------------ search

    def search_lexical(
        self, query: str | Sequence[str], filters: SearchFilters | None = None, top_k: int = 10
    ) -> list[ScoredRow]:
        check_top_k(top_k)
        hashes = query_hashes(query)
        if not hashes:
            return []
        with self._db.lock, self._db.read() as conn:
            snap = self.derived.snapshot(conn)
            scores = self.derived.postings(conn, snap).scores(hashes)
            mask = snap.mask(filters)
            if mask is not None:
                scores[~mask] = 0.0
            best = top(scores, np.flatnonzero(scores > 0), top_k)
            return hits(conn, [(int(snap.seq[i]), s) for i, s in best], top_k)

    def search_dense(
        self,
        vector: Sequence[float],
        fingerprint: str,
        filters: SearchFilters | None = None,
        top_k: int = 10,
    ) -> list[ScoredRow]:
        check_top_k(top_k)
        query = np.asarray(vector, dtype=np.float32)
        with self._db.lock, self._db.read() as conn:
            snap = self.derived.snapshot(conn)
            matrix, index = self.derived.dense(conn, snap, fingerprint)
            if matrix.shape[0] == 0:
                return []
            if query.shape != (matrix.shape[1],):
                raise ValueError(
                    f"query vector has shape {query.shape}, vectors of {fingerprint!r} "
                    f"have {matrix.shape[1]} dimensions"
                )
            norm = float(np.linalg.norm(query)) or 1.0
            # einsum, not BLAS: single-threaded, so it does not stall on a busy machine
            scores = np.einsum("ij,j->i", matrix, query / norm)
            candidates = np.arange(len(index))
            mask = snap.mask(filters)
            if mask is not None:
                candidates = np.flatnonzero(mask[index])
            best = top(scores, candidates, top_k)
            return hits(conn, [(int(snap.seq[index[i]]), s) for i, s in best], top_k)

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
        with self._db.lock, self._db.read() as conn:
            snap = self.derived.snapshot(conn) if mode is SymbolMode.FUZZY else None
            return symbols.lookup_symbol(conn, snap, name, mode, filters, limit)

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
        with self._db.read() as conn:
            return symbols.relations(conn, symbol, direction, kinds, filters, limit)
