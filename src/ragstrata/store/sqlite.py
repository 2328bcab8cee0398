"""The embedded default store: one SQLite file (``REPO/.ragstrata/index.sqlite``), stdlib sqlite3.

SQLite is the source of truth: rows (with their JSON payload, metadata columns, the analyzed
terms as hashed term-frequency blobs, and the embedding text and its hash), relations, the file
catalog, content-addressed vectors and the manifest. WAL mode lets searches run while an index
run writes; every write method is one ``BEGIN IMMEDIATE`` transaction, so a batch is all there
or not there after a crash. Schema changes are numbered migrations tracked in ``user_version``;
:data:`ROW_SCHEMA_VERSION` (the ``schema_version`` written into manifests) moves only when a
migration changes what rows mean, so additive migrations (2: the ``summaries`` table of cached
LLM summaries) never force a rebuild. A summary's terms join the lexical terms of the C0 row of
its path or the C1 rows of its symbol (see :class:`~ragstrata.store.base.SummaryStore`).

Search runs on derived in-memory structures, rebuilt lazily when a generation counter (bumped by
every write, in the same transaction) differs, and read inside one read transaction with the
rows they return, so they never disagree with SQLite:

- lexical: BM25 over the hashed terms. Postings are bucketed by the low 16 bits of the term
  hash (a linear radix sort, ~0.3 s to build at 100k rows) and scored with numpy. Measured in
  ``bench/store_sqlite.py``: FTS5 ``bm25()`` over the same sub-tokens scans on frequent terms
  (≈126 ms p50 at 100k rows); this index answers in a few ms with filters.
- dense: exact cosine over a float32 matrix per embedder fingerprint (``einsum``, not BLAS:
  single-threaded, it does not stall when the machine is busy).

Building these at 100k rows takes one to a few seconds, which a fresh process (``ragstrata
search``) would pay on every query, so indexes of at least ``cache_min_rows`` rows also keep
them as ``.npy`` files in ``index.cache/`` beside the database, memory-mapped on load. A cache
folder's name carries the index's random id and the generations it was built at, so a stale
or foreign cache is never used; a damaged one is deleted and rebuilt.
"""

from __future__ import annotations

import array
import contextlib
import hashlib
import math
import os
import shutil
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from ragstrata.errors import IndexMismatchError, IndexMissingError, StoreError
from ragstrata.ingest.rows import DefinitionRow, Layer, RelationRow, Row
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
    embedding_hash,
    embedding_text,
    fuzzy_key,
    fuzzy_key_score,
    last_segment,
    lexical_text,
    normalize_symbol,
    parse_direction,
    parse_layers,
    parse_mode,
    parse_summary_kind,
    relation_score,
    row_from_payload,
    row_symbol,
    row_to_payload,
    scored_row,
    summary_key,
    symbol_score,
    unique_rows,
)

__all__ = ["MIGRATIONS", "ROW_SCHEMA_VERSION", "SCHEMA_VERSION", "SQLiteStore"]

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: initial schema
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE files (path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL, sha256 TEXT NOT NULL)""",
        # small columns first, blobs and long texts last: scans of metadata never touch them
        """CREATE TABLE rows (
            seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
            path TEXT NOT NULL REFERENCES files(path) ON DELETE CASCADE,
            layer TEXT NOT NULL, language TEXT NOT NULL, is_test INTEGER NOT NULL,
            start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, symbol TEXT, name TEXT,
            name_lower TEXT, symbol_norm TEXT, symbol_last TEXT, content_hash TEXT NOT NULL,
            embed_hash TEXT, n_terms INTEGER NOT NULL, term_ids BLOB NOT NULL,
            term_tfs BLOB NOT NULL, embed_text TEXT, payload TEXT NOT NULL)""",
        "CREATE INDEX rows_path ON rows(path)",
        "CREATE INDEX rows_layer ON rows(layer)",
        "CREATE INDEX rows_name ON rows(name_lower) WHERE name_lower IS NOT NULL",
        "CREATE INDEX rows_symbol_norm ON rows(symbol_norm) WHERE symbol_norm IS NOT NULL",
        "CREATE INDEX rows_symbol_last ON rows(symbol_last) WHERE symbol_last IS NOT NULL",
        "CREATE INDEX rows_embed ON rows(embed_hash) WHERE embed_hash IS NOT NULL",
        """CREATE TABLE relations (
            row_id TEXT PRIMARY KEY REFERENCES rows(id) ON DELETE CASCADE,
            relation TEXT NOT NULL, from_symbol TEXT NOT NULL, from_last TEXT NOT NULL,
            to_name TEXT NOT NULL, to_symbol TEXT, to_last TEXT NOT NULL, line INTEGER NOT NULL)""",
        "CREATE INDEX relations_from ON relations(from_last)",
        "CREATE INDEX relations_to ON relations(to_last)",
        "CREATE INDEX relations_to_symbol ON relations(to_symbol)",
        # a rowid table: WITHOUT ROWID suits small rows, not 1.5 kB vectors
        """CREATE TABLE vectors (fingerprint TEXT NOT NULL, text_hash TEXT NOT NULL,
            dims INTEGER NOT NULL, vector BLOB NOT NULL)""",
        "CREATE UNIQUE INDEX vectors_key ON vectors(fingerprint, text_hash)",
        "INSERT INTO meta VALUES ('index_id', lower(hex(randomblob(8))))",
    ),
    (  # 2: cached LLM summaries (rows unchanged: no rebuild)
        """CREATE TABLE summaries (kind TEXT NOT NULL, key TEXT NOT NULL,
            prompt_hash TEXT NOT NULL, text TEXT NOT NULL, updated_at TEXT NOT NULL,
            PRIMARY KEY (kind, key)) WITHOUT ROWID""",
    ),
)
"""Numbered migrations: entry ``i`` takes ``user_version`` from ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)
ROW_SCHEMA_VERSION = 1
"""What manifests record as ``schema_version``: bumped only by a migration that changes rows."""

_LAYERS: tuple[Layer, ...] = tuple(Layer)
_K1, _B = 1.2, 0.75
_BUCKETS = 1 << 16
_SQL_CHUNK = 500  # host parameters per IN (...) list
_INSERT_ROW = (
    "INSERT INTO rows (id, path, layer, language, is_test, start_line, end_line, symbol, "
    "name, name_lower, symbol_norm, symbol_last, content_hash, n_terms, term_ids, term_tfs, "
    f"embed_hash, embed_text, payload) VALUES ({', '.join('?' * 19)})"
)


@lru_cache(maxsize=1 << 18)
def _term_hash(term: str) -> int:
    digest = hashlib.blake2b(term.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def _encode_terms(text: str) -> tuple[int, bytes, bytes]:
    counts = Counter(analyze(text))
    ids = array.array("q", (_term_hash(t) for t in counts))
    tfs = array.array("H", (min(c, 65535) for c in counts.values()))
    return sum(counts.values()), ids.tobytes(), tfs.tobytes()


_Summaries = Callable[[str, str], str | None] | None
"""Looks up a summary's text by ``(kind, key)``; None when the index holds no summaries."""


def _searchable(row: Row, summaries: _Summaries) -> str:
    """The row's lexical text plus its summary, if one is stored."""
    text = lexical_text(row)
    key = summary_key(row) if summaries is not None else None
    if key is not None and summaries is not None:
        summary = summaries(key[0].value, key[1])
        if summary:
            text = f"{text}\n{summary}"
    return text


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _chunks(items: Sequence[Any], size: int = _SQL_CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class _Meta:
    """Per-row metadata arrays at one rows generation, aligned with ``seq`` order."""

    def __init__(self, arrays: dict[str, np.ndarray], generation: int) -> None:
        self.generation = generation
        self.seq = arrays["seq"]
        self.layer = arrays["layer"]
        self.language = arrays["language"]
        self.is_test = arrays["is_test"]
        self.path = arrays["path"]
        self.languages = {str(x): i for i, x in enumerate(arrays["language_names"])}
        self.paths = {str(x): i for i, x in enumerate(arrays["path_names"])}
        self.lexical: _Lexical | None = None
        self.dense: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}
        self.names: dict[str, list[int]] | None = None  # fuzzy key of a name -> C1 seqs

    @staticmethod
    def build(rows: list[tuple[int, str, str, int, str]]) -> dict[str, np.ndarray]:
        """The arrays from ``(seq, layer, language, is_test, path)`` rows in seq order."""
        n = len(rows)
        layer_code = {layer.value: i for i, layer in enumerate(_LAYERS)}
        languages: dict[str, int] = {}
        paths: dict[str, int] = {}
        return {
            "seq": np.fromiter((r[0] for r in rows), np.int64, n),
            "layer": np.fromiter((layer_code[r[1]] for r in rows), np.uint8, n),
            "language": np.fromiter(
                (languages.setdefault(r[2], len(languages)) for r in rows), np.int32, n
            ),
            "is_test": np.fromiter((bool(r[3]) for r in rows), np.bool_, n),
            "path": np.fromiter((paths.setdefault(r[4], len(paths)) for r in rows), np.int32, n),
            "language_names": np.array(list(languages), dtype=str),
            "path_names": np.array(list(paths), dtype=str),
        }

    def mask(self, filters: SearchFilters | None) -> np.ndarray | None:
        """Boolean mask of rows passing ``filters`` (None when nothing is filtered)."""
        if filters is None:
            return None
        mask: np.ndarray | None = None

        def both(m: np.ndarray) -> np.ndarray:
            return m if mask is None else mask & m

        if filters.layers:
            codes = [_LAYERS.index(layer) for layer in filters.layers]
            mask = both(np.isin(self.layer, codes))
        if filters.languages:
            codes = [self.languages[x] for x in filters.languages if x in self.languages]
            mask = both(np.isin(self.language, codes))
        if filters.is_test is not None:
            mask = both(self.is_test == filters.is_test)
        if filters.path_prefixes:
            codes = [code for p, code in self.paths.items() if filters.matches_path(p)]
            mask = both(np.isin(self.path, codes))
        return mask


class _Lexical:
    """BM25 postings bucketed by the low 16 bits of the term hash."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.terms = arrays["terms"]
        self.owner = arrays["owner"]
        self.weight = arrays["weight"]
        self.offsets = arrays["offsets"]
        self.n = int(arrays["n"][0])

    @staticmethod
    def build(rows: list[tuple[int, bytes, bytes]]) -> dict[str, np.ndarray]:
        """Postings from ``(n_terms, term_ids, term_tfs)`` rows in seq order."""
        n = len(rows)
        doclen = np.fromiter((r[0] for r in rows), np.float32, n)
        counts = np.fromiter((len(r[1]) // 8 for r in rows), np.int64, n)
        terms = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.int64)
        tfs = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.uint16).astype(np.float32)
        owner = np.repeat(np.arange(n, dtype=np.int32), counts)
        avg = float(doclen.mean()) if n else 1.0
        avg = avg if avg > 0 else 1.0
        norm = np.float32(_K1) * (np.float32(1.0 - _B) + np.float32(_B / avg) * doclen[owner])
        weight = tfs * np.float32(_K1 + 1.0) / (tfs + norm)
        bucket = (terms & (_BUCKETS - 1)).astype(np.uint16)
        order = np.argsort(bucket, kind="stable")  # radix sort on 16-bit keys: linear
        offsets = np.zeros(_BUCKETS + 1, dtype=np.int64)
        np.cumsum(np.bincount(bucket, minlength=_BUCKETS), out=offsets[1:])
        return {
            "terms": terms[order],
            "owner": owner[order],
            "weight": weight[order],
            "offsets": offsets,
            "n": np.array([n], dtype=np.int64),
        }

    def scores(self, hashes: Iterable[int]) -> np.ndarray:
        """BM25 score of every row for the query term hashes."""
        scores = np.zeros(self.n, dtype=np.float32)
        for h in hashes:
            b = h & (_BUCKETS - 1)
            lo, hi = int(self.offsets[b]), int(self.offsets[b + 1])
            hit = self.terms[lo:hi] == h
            df = int(hit.sum())
            if df == 0:
                continue
            idf = math.log(1.0 + (self.n - df + 0.5) / (df + 0.5))
            scores[self.owner[lo:hi][hit]] += idf * self.weight[lo:hi][hit]
        return scores


def _save_arrays(root: Path, name: str, arrays: dict[str, np.ndarray]) -> None:
    """Write ``root/name/*.npy`` atomically (rename of a finished folder); drop older
    folders of the same kind. Best effort: a failure only costs a rebuild next time."""
    kind = name.rsplit("-", 3 if name.startswith("dense-") else 2)[0] + "-"
    tmp = root / f".tmp-{name}-{os.getpid()}-{threading.get_ident()}"
    try:
        tmp.mkdir(parents=True, exist_ok=True)
        for key, value in arrays.items():
            np.save(tmp / f"{key}.npy", np.ascontiguousarray(value), allow_pickle=False)
        os.replace(tmp, root / name)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return
    for old in root.glob(kind + "*"):
        if old.name != name:
            shutil.rmtree(old, ignore_errors=True)
    for tmp_left in root.glob(".tmp-*"):  # left by a killed writer; an hour is plenty to finish
        with contextlib.suppress(OSError):
            if time.time() - tmp_left.stat().st_mtime > 3600:
                shutil.rmtree(tmp_left, ignore_errors=True)


_MAX_TIES = 256  # rows tied with the last place that are ranked by their metadata


def _top(scores: np.ndarray, candidates: np.ndarray, top_k: int) -> list[tuple[int, float]]:
    """(index, score) of the best ``top_k`` candidates plus up to :data:`_MAX_TIES` more that
    tie with the last of them, best first; the caller orders ties (see ``SQLiteStore._hits``)."""
    if candidates.size == 0:
        return []
    cand_scores = scores[candidates]
    if candidates.size > top_k:
        kth = np.partition(-cand_scores, top_k - 1)[top_k - 1]
        keep = np.flatnonzero(-cand_scores <= kth)[: top_k + _MAX_TIES]
        candidates, cand_scores = candidates[keep], cand_scores[keep]
    order = np.lexsort((candidates, -cand_scores))
    return [(int(candidates[i]), float(cand_scores[i])) for i in order]


class SQLiteStore:
    """The embedded :class:`~ragstrata.store.base.Store` (see module docstring); methods behave
    as the protocol documents. ``embed_layers``: which layers get vectors (see
    :func:`~ragstrata.store.base.embedding_text`); ``cache_min_rows=None`` disables the disk cache.

    Cheap to construct; the file is opened (and created and migrated, unless ``create`` is
    False) on first use. Safe to share between threads: each thread gets its own connection.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        create: bool = True,
        embed_layers: Sequence[Layer | str] = DEFAULT_EMBED_LAYERS,
        busy_timeout_s: float = 30.0,
        cache_min_rows: int | None = 20_000,
    ) -> None:
        self.path = Path(path)
        self.cache_dir = self.path.parent / (self.path.stem + ".cache")
        self.cache_min_rows = cache_min_rows
        self.create = create
        self.embed_layers = tuple(Layer(str(x)) for x in embed_layers)
        self.busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.RLock()
        self._migrated = False
        self._meta: _Meta | None = None

    @classmethod
    def for_repo(
        cls, repo: str | Path, index_dir_name: str = ".ragstrata", **kw: Any
    ) -> SQLiteStore:
        """The store of a repository: ``REPO/<index_dir_name>/index.sqlite``."""
        return cls(Path(repo) / index_dir_name / "index.sqlite", **kw)

    @property
    def schema_version(self) -> int:
        return ROW_SCHEMA_VERSION

    # ------------------------------------------------------------------ connections

    def _conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        if not self.path.exists():
            if not self.create:
                raise IndexMissingError(f"no index at {self.path}; run `ragstrata index` first")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("*\n", encoding="utf-8")
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=self.busy_timeout_s,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open index {self.path}: {exc}") from exc
        with self._lock:
            try:
                if not self._migrated:
                    self._migrate(conn)
                    self._migrated = True
            except BaseException:
                conn.close()
                raise
            self._connections.append(conn)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Close every connection this store opened and drop its caches."""
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
            self._local = threading.local()
            self._migrated = False
            self._meta = None

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot start a write on {self.path}: {exc}") from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise StoreError(f"write to {self.path} failed: {exc}") from exc
            raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        conn.execute("BEGIN")
        try:
            yield conn
        except sqlite3.Error as exc:
            raise StoreError(f"read from {self.path} failed: {exc}") from exc
        finally:
            conn.execute("COMMIT")

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise IndexMismatchError(
                    f"index {self.path} has schema {version}, this ragstrata knows up to "
                    f"{SCHEMA_VERSION}; upgrade ragstrata or run `ragstrata index --rebuild`"
                )
            for number in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[number]:
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number + 1}")
            analyzer = conn.execute("SELECT value FROM meta WHERE key = 'analyzer'").fetchone()
            if analyzer is None or analyzer[0] != ANALYZER_VERSION:
                self._reanalyze(conn)
                conn.execute(
                    "INSERT OR REPLACE INTO meta VALUES ('analyzer', ?)", (ANALYZER_VERSION,)
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _reanalyze(self, conn: sqlite3.Connection) -> None:
        """Recompute every row's terms (the analyzer changed since they were written)."""
        summaries = self._summary_lookup(conn)
        updates = []
        for seq, payload in conn.execute("SELECT seq, payload FROM rows"):
            row = row_from_payload(payload)
            n, ids, tfs = _encode_terms(_searchable(row, summaries))
            updates.append((n, ids, tfs, seq))
        conn.executemany("UPDATE rows SET n_terms=?, term_ids=?, term_tfs=? WHERE seq=?", updates)
        if updates:
            self._bump(conn, rows=True)

    @staticmethod
    def _bump(conn: sqlite3.Connection, rows: bool = False, vectors: bool = False) -> None:
        for key, flag in (("rows_gen", rows), ("vec_gen", vectors)):
            if flag:
                conn.execute(
                    "INSERT INTO meta VALUES (?, '1') ON CONFLICT(key) DO UPDATE "
                    "SET value = CAST(value AS INTEGER) + 1",
                    (key,),
                )
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('updated_at', ?)", (_now(),))

    @staticmethod
    def _meta_value(conn: sqlite3.Connection, key: str) -> str | None:
        found = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if found is None else str(found[0])

    # ------------------------------------------------------------------ manifest, catalog

    def read_manifest(self) -> Manifest | None:
        with self._read() as conn:
            text = self._meta_value(conn, "manifest")
        return None if text is None else Manifest.from_json(text)

    def write_manifest(self, manifest: Manifest) -> Manifest:
        with self._write() as conn:
            old = self._meta_value(conn, "manifest")
            created = Manifest.from_json(old).created_at if old else ""
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
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('manifest', ?)", (stored.to_json(),))
        return stored

    def catalog(self) -> dict[str, CatalogEntry]:
        with self._read() as conn:
            found = conn.execute("SELECT path, mtime_ns, size, sha256 FROM files").fetchall()
        return {p: CatalogEntry(p, m, s, h) for p, m, s, h in found}

    # ------------------------------------------------------------------ writes

    def _row_values(self, row: Row, summaries: _Summaries) -> tuple[Any, ...]:
        n_terms, ids, tfs = _encode_terms(_searchable(row, summaries))
        embed = embedding_text(row, self.embed_layers)
        name = name_lower = symbol_norm = symbol_last = None
        if isinstance(row, DefinitionRow):
            name, name_lower = row.name, row.name.lower()
            symbol_norm = normalize_symbol(row.symbol)
            symbol_last = last_segment(row.symbol)
        return (
            row.id, row.path, row.layer.value, row.language, int(row.is_test), row.start_line,
            row.end_line, row_symbol(row), name, name_lower, symbol_norm, symbol_last,
            row.content_hash, n_terms, ids, tfs,
            None if embed is None else embedding_hash(embed), embed, row_to_payload(row),
        )  # fmt: skip

    def replace_files(self, batch: Sequence[tuple[CatalogEntry, Sequence[Row]]]) -> None:
        """One transaction: per file, old rows out, new rows in, catalog entry updated."""
        for entry, rows in batch:
            for row in rows:
                if row.path != entry.path:
                    raise ValueError(f"row {row.id} has path {row.path!r}, file is {entry.path!r}")
        if not batch:
            return
        with self._write() as conn:
            summaries = self._summary_lookup(conn)
            old_hashes: set[str] = set()
            for entry, rows in batch:
                old_hashes |= self._delete_paths(conn, [entry.path])
                conn.execute(
                    "INSERT INTO files VALUES (?, ?, ?, ?)",
                    (entry.path, entry.mtime_ns, entry.size, entry.sha256),
                )
                unique = unique_rows(rows)
                conn.executemany(_INSERT_ROW, [self._row_values(r, summaries) for r in unique])
                conn.executemany(
                    "INSERT INTO relations VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (row.id, row.relation, row.from_symbol, last_segment(row.from_symbol),
                         row.to_name, row.to_symbol, last_segment(row.to_symbol or row.to_name),
                         row.line)
                        for row in unique
                        if isinstance(row, RelationRow)
                    ],
                )  # fmt: skip
            self._collect_vectors(conn, old_hashes)
            self._bump(conn, rows=True)

    def remove_files(self, paths: Sequence[str]) -> int:
        """Delete files with their rows (and now-orphaned vectors); returns files removed."""
        paths = list(dict.fromkeys(paths))
        if not paths:
            return 0
        with self._write() as conn:
            removed = 0
            for part in _chunks(paths):
                sql = f"SELECT COUNT(*) FROM files WHERE path IN ({','.join('?' * len(part))})"
                removed += conn.execute(sql, list(part)).fetchone()[0]
            hashes = self._delete_paths(conn, paths)
            self._collect_vectors(conn, hashes)
            self._bump(conn, rows=True)
        return int(removed)

    def _delete_paths(self, conn: sqlite3.Connection, paths: Sequence[str]) -> set[str]:
        hashes: set[str] = set()
        for part in _chunks(paths):
            marks = ",".join("?" * len(part))
            hashes.update(
                h
                for (h,) in conn.execute(
                    f"SELECT DISTINCT embed_hash FROM rows WHERE path IN ({marks}) "
                    "AND embed_hash IS NOT NULL",
                    list(part),
                )
            )
            conn.execute(f"DELETE FROM rows WHERE path IN ({marks})", list(part))
            conn.execute(f"DELETE FROM files WHERE path IN ({marks})", list(part))
        return hashes

    @staticmethod
    def _collect_vectors(conn: sqlite3.Connection, hashes: set[str]) -> None:
        """Drop vectors whose text no row uses any more."""
        for part in _chunks(sorted(hashes)):
            conn.execute(
                f"DELETE FROM vectors WHERE text_hash IN ({','.join('?' * len(part))}) AND NOT "
                "EXISTS (SELECT 1 FROM rows WHERE rows.embed_hash = vectors.text_hash)",
                list(part),
            )

    # ------------------------------------------------------------------ vectors

    def pending_vectors(self, fingerprint: str, limit: int = 256) -> list[PendingVector]:
        check_top_k(limit)
        with self._read() as conn:
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

    def put_vectors(self, fingerprint: str, items: Sequence[tuple[str, Sequence[float]]]) -> int:
        """Store vectors by text hash; all of one fingerprint must share one dimension."""
        if not items:
            return 0
        blobs: list[tuple[str, str, int, bytes]] = []
        for text_hash, vector in items:
            arr = np.asarray(vector, dtype=np.float32)
            if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all():
                raise ValueError(f"vector for {text_hash} must be a finite 1-D sequence")
            blobs.append((fingerprint, text_hash, int(arr.size), arr.tobytes()))
        dims = {b[2] for b in blobs}
        if len(dims) != 1:
            raise ValueError(f"vectors for {fingerprint!r} have mixed dimensions {sorted(dims)}")
        with self._write() as conn:
            found = conn.execute(
                "SELECT dims FROM vectors WHERE fingerprint = ? LIMIT 1", (fingerprint,)
            ).fetchone()
            if found is not None and found[0] not in dims:
                raise ValueError(
                    f"vectors for {fingerprint!r} have {found[0]} dimensions, got {dims.pop()}"
                )
            before = conn.total_changes
            conn.executemany(
                "INSERT OR REPLACE INTO vectors (fingerprint, text_hash, dims, vector) "
                "SELECT ?, ?, ?, ? "
                "WHERE EXISTS (SELECT 1 FROM rows WHERE embed_hash = ?)",
                [(*blob, blob[1]) for blob in blobs],
            )
            stored = conn.total_changes - before
            self._bump(conn, vectors=True)
        return stored

    def drop_vectors(self, keep_fingerprint: str | None = None) -> int:
        with self._write() as conn:
            cur = conn.execute(
                "DELETE FROM vectors WHERE fingerprint IS NOT ?", (keep_fingerprint,)
            )
            self._bump(conn, vectors=True)
            return cur.rowcount

    # ------------------------------------------------------------------ summaries

    @staticmethod
    def _summary_lookup(conn: sqlite3.Connection) -> _Summaries:
        """``(kind, key) -> text`` lookups for rows being (re)written; None when there are none."""
        if conn.execute("SELECT 1 FROM summaries LIMIT 1").fetchone() is None:
            return None

        def lookup(kind: str, key: str) -> str | None:
            found = conn.execute(
                "SELECT text FROM summaries WHERE kind = ? AND key = ?", (kind, key)
            ).fetchone()
            return None if found is None else str(found[0])

        return lookup

    def get_summaries(self, kind: SummaryKind | str) -> dict[str, tuple[str, str]]:
        kind = parse_summary_kind(kind)
        with self._read() as conn:
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
        layer, column = ("C0", "path") if kind is SummaryKind.FILE else ("C1", "symbol")
        now = _now()
        with self._write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?, ?)",
                [(kind.value, key, h, text, now) for key, h, text in clean],
            )
            summaries = self._summary_lookup(conn)
            updates = []
            for key, _, _ in clean:
                # C1 by symbol_norm (indexed), then the exact symbol
                where = "path = ?" if column == "path" else "symbol_norm = ? AND symbol = ?"
                args = (key,) if column == "path" else (normalize_symbol(key), key)
                for seq, payload in conn.execute(
                    f"SELECT seq, payload FROM rows WHERE layer = ? AND {where}", (layer, *args)
                ).fetchall():
                    n, ids, tfs = _encode_terms(_searchable(row_from_payload(payload), summaries))
                    updates.append((n, ids, tfs, seq))
            conn.executemany(
                "UPDATE rows SET n_terms=?, term_ids=?, term_tfs=? WHERE seq=?", updates
            )
            self._bump(conn, rows=bool(updates))
        return len(clean)

    # ------------------------------------------------------------------ reads

    def get_rows(self, ids: Sequence[str]) -> list[Row]:
        found: dict[str, Row] = {}
        with self._read() as conn:
            for part in _chunks(list(ids)):
                sql = f"SELECT id, payload FROM rows WHERE id IN ({','.join('?' * len(part))})"
                found.update((i, row_from_payload(p)) for i, p in conn.execute(sql, list(part)))
        return [found[i] for i in ids if i in found]

    def scan_rows(
        self, layers: Sequence[Layer | str] | None = None, paths: Sequence[str] | None = None
    ) -> Iterator[Row]:
        wanted = parse_layers(layers)
        where: list[str] = []
        args: list[str] = []
        if wanted is not None:
            where.append(f"layer IN ({','.join('?' * len(wanted))})")
            args.extend(layer.value for layer in wanted)
        sql = "SELECT payload FROM rows"
        payloads: list[str] = []
        with self._read() as conn:  # one snapshot; rows are decoded lazily after it
            if paths is None:
                clause = f" WHERE {' AND '.join(where)}" if where else ""
                payloads = [p for (p,) in conn.execute(sql + clause + " ORDER BY path, seq", args)]
            else:
                only = sorted(set(paths))
                for part in _chunks(only):
                    marks = f"path IN ({','.join('?' * len(part))})"
                    clause = " WHERE " + " AND ".join([*where, marks])
                    found = conn.execute(sql + clause + " ORDER BY path, seq", [*args, *part])
                    payloads.extend(p for (p,) in found)
        return map(row_from_payload, payloads)

    def has_index(self) -> bool:
        if not self.path.exists():
            return False
        with self._read() as conn:
            if self._meta_value(conn, "manifest") is not None:
                return True
            return conn.execute("SELECT 1 FROM files LIMIT 1").fetchone() is not None

    def stats(self, fingerprint: str | None = None) -> StoreStats:
        with self._read() as conn:
            counts = dict(conn.execute("SELECT layer, COUNT(*) FROM rows GROUP BY layer"))
            files = conn.execute("SELECT COUNT(*) FROM files").fetchone()[0]
            manifest_text = self._meta_value(conn, "manifest")
            manifest = Manifest.from_json(manifest_text) if manifest_text else None
            fp = fingerprint or (manifest.embedder_fingerprint if manifest else None)
            vectors = pending = 0
            if fp:
                vectors = conn.execute(
                    "SELECT COUNT(*) FROM vectors WHERE fingerprint = ?", (fp,)
                ).fetchone()[0]
            pending = conn.execute(
                "SELECT COUNT(DISTINCT embed_hash) FROM rows r WHERE embed_hash IS NOT NULL "
                "AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.fingerprint = ? "
                "AND v.text_hash = r.embed_hash)",
                (fp or "",),
            ).fetchone()[0]
            updated = self._meta_value(conn, "updated_at") or (
                manifest.updated_at if manifest else None
            )
        return StoreStats(
            rows={layer.value: int(counts.get(layer.value, 0)) for layer in Layer},
            files=int(files),
            vectors=int(vectors),
            pending_vectors=int(pending),
            fingerprint=fp,
            updated_at=updated,
            schema_version=ROW_SCHEMA_VERSION,
        )

    # ------------------------------------------------------------------ derived structures

    def _derived(
        self,
        conn: sqlite3.Connection,
        name: str,
        build: Callable[[], dict[str, np.ndarray]],
        n_rows: int,
    ) -> dict[str, np.ndarray]:
        """Arrays ``name`` from the on-disk cache, else built (and cached when large)."""
        folder = self.cache_dir / name
        if self.cache_min_rows is not None and folder.is_dir():
            try:
                return {p.stem: np.load(p, mmap_mode="r") for p in folder.glob("*.npy")}
            except (OSError, ValueError):
                shutil.rmtree(folder, ignore_errors=True)  # damaged: rebuild from SQLite
        arrays = build()
        if self.cache_min_rows is not None and n_rows >= self.cache_min_rows:
            _save_arrays(self.cache_dir, name, arrays)
        return arrays

    def _index_id(self, conn: sqlite3.Connection) -> str:
        return self._meta_value(conn, "index_id") or "0"

    def _snapshot(self, conn: sqlite3.Connection) -> _Meta:
        """The metadata arrays for the generation visible in this read transaction."""
        gen = int(self._meta_value(conn, "rows_gen") or 0)
        meta = self._meta
        if meta is None or meta.generation != gen:
            n_rows = int(conn.execute("SELECT COUNT(*) FROM rows").fetchone()[0])

            def build() -> dict[str, np.ndarray]:
                sql = "SELECT seq, layer, language, is_test, path FROM rows ORDER BY seq"
                return _Meta.build(conn.execute(sql).fetchall())

            name = f"meta-{self._index_id(conn)}-{gen}"
            meta = self._meta = _Meta(self._derived(conn, name, build, n_rows), gen)
        return meta

    def _lexical(self, conn: sqlite3.Connection, meta: _Meta) -> _Lexical:
        if meta.lexical is None:

            def build() -> dict[str, np.ndarray]:
                sql = "SELECT n_terms, term_ids, term_tfs FROM rows ORDER BY seq"
                return _Lexical.build(conn.execute(sql).fetchall())

            name = f"lex-{self._index_id(conn)}-{meta.generation}"
            meta.lexical = _Lexical(self._derived(conn, name, build, len(meta.seq)))
        return meta.lexical

    def _dense(
        self, conn: sqlite3.Connection, meta: _Meta, fingerprint: str
    ) -> tuple[np.ndarray, np.ndarray]:
        gen = int(self._meta_value(conn, "vec_gen") or 0)
        cached = meta.dense.get(fingerprint)
        if cached is not None and cached[0] == gen:
            return cached[1], cached[2]

        def build() -> dict[str, np.ndarray]:
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
            return {"matrix": matrix, "index": np.searchsorted(meta.seq, seqs[order])}

        digest = hashlib.blake2b(fingerprint.encode(), digest_size=6).hexdigest()
        name = f"dense-{digest}-{self._index_id(conn)}-{meta.generation}-{gen}"
        arrays = self._derived(conn, name, build, len(meta.seq))
        meta.dense[fingerprint] = (gen, arrays["matrix"], arrays["index"])
        return arrays["matrix"], arrays["index"]

    def _hits(
        self, conn: sqlite3.Connection, seq_scores: Sequence[tuple[int, float]], limit: int
    ) -> list[ScoredRow]:
        """The rows of ``(seq, score)`` pairs ranked like ``rank_hits`` (ties by is_test, path,
        line, id: independent of write order), first ``limit``; only those are decoded."""
        if not seq_scores:
            return []
        score_of = dict(seq_scores)
        keyed = []
        for part in _chunks(list(score_of)):
            sql = (
                "SELECT seq, is_test, path, start_line, id FROM rows "
                f"WHERE seq IN ({','.join('?' * len(part))})"
            )
            for seq, is_test, path, start, rid in conn.execute(sql, list(part)):
                keyed.append((-score_of[seq], is_test, path, start, rid, seq))
        best = sorted(keyed)[:limit]
        marks = ",".join("?" * len(best))
        payloads = dict(
            conn.execute(
                f"SELECT seq, payload FROM rows WHERE seq IN ({marks})", [k[-1] for k in best]
            )
        )
        return [scored_row(row_from_payload(payloads[k[-1]]), -k[0]) for k in best]

    # ------------------------------------------------------------------ search

    def search_lexical(
        self, query: str | Sequence[str], filters: SearchFilters | None = None, top_k: int = 10
    ) -> list[ScoredRow]:
        check_top_k(top_k)
        terms = analyze(query) if isinstance(query, str) else [t for q in query for t in analyze(q)]
        hashes = {_term_hash(t) for t in terms}
        if not hashes:
            return []
        with self._lock, self._read() as conn:
            meta = self._snapshot(conn)
            scores = self._lexical(conn, meta).scores(hashes)
            mask = meta.mask(filters)
            if mask is not None:
                scores[~mask] = 0.0
            best = _top(scores, np.flatnonzero(scores > 0), top_k)
            return self._hits(conn, [(int(meta.seq[i]), s) for i, s in best], top_k)

    def search_dense(
        self,
        vector: Sequence[float],
        fingerprint: str,
        filters: SearchFilters | None = None,
        top_k: int = 10,
    ) -> list[ScoredRow]:
        check_top_k(top_k)
        query = np.asarray(vector, dtype=np.float32)
        with self._lock, self._read() as conn:
            meta = self._snapshot(conn)
            matrix, index = self._dense(conn, meta, fingerprint)
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
            mask = meta.mask(filters)
            if mask is not None:
                candidates = np.flatnonzero(mask[index])
            best = _top(scores, candidates, top_k)
            return self._hits(conn, [(int(meta.seq[index[i]]), s) for i, s in best], top_k)

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
        cols = "SELECT seq, name, symbol, layer, path, language, is_test, start_line, id FROM rows"
        with self._lock, self._read() as conn:
            if mode is SymbolMode.FUZZY:
                found = self._fuzzy_candidates(conn, cols, name)
            else:
                column, key = {
                    SymbolMode.EXACT: ("name_lower", name.lower()),
                    SymbolMode.QUALIFIED: ("symbol_norm", normalize_symbol(name)),
                    SymbolMode.SUFFIX: ("symbol_last", last_segment(name)),
                }[mode]
                found = conn.execute(f"{cols} WHERE {column} = ?", (key,)).fetchall()
            ranked = []
            for seq, row_name, row_symbol_, layer, path, language, is_test, start, rid in found:
                if filters is not None and not filters.matches(layer, path, language, is_test):
                    continue
                score = symbol_score(mode, name, row_name, row_symbol_)
                if score > 0:
                    ranked.append((-score, is_test, path, start, rid, seq))
            ranked.sort()
            return self._hits(conn, [(r[-1], -r[0]) for r in ranked[:limit]], limit)

    def _fuzzy_candidates(
        self, conn: sqlite3.Connection, cols: str, name: str
    ) -> list[tuple[Any, ...]]:
        meta = self._snapshot(conn)
        if meta.names is None:
            names: dict[str, list[int]] = {}
            sql = "SELECT seq, name_lower FROM rows WHERE name_lower IS NOT NULL"  # index only
            for seq, low in conn.execute(sql):
                names.setdefault(fuzzy_key(low), []).append(seq)
            meta.names = names
        query = fuzzy_key(last_segment(name))
        seqs = [s for key, ss in meta.names.items() if fuzzy_key_score(query, key) > 0 for s in ss]
        out: list[tuple[Any, ...]] = []
        for part in _chunks(seqs):
            sql = f"{cols} WHERE seq IN ({','.join('?' * len(part))})"
            out.extend(conn.execute(sql, list(part)))
        return out

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
        column = "to_last" if direction is Direction.CALLERS else "from_last"
        sql = (
            "SELECT r.seq, x.relation, x.from_symbol, x.to_name, x.to_symbol, r.layer, r.path, "
            "r.language, r.is_test, r.start_line, r.id FROM relations x "
            f"JOIN rows r ON r.id = x.row_id WHERE x.{column} = ?"
        )
        with self._read() as conn:
            ranked = []
            for (
                seq,
                kind,
                src,
                to_name,
                to_symbol,
                layer,
                path,
                lang,
                is_test,
                start,
                rid,
            ) in conn.execute(sql, (last_segment(symbol),)):
                if kinds is not None and kind not in kinds:
                    continue
                if filters is not None and not filters.matches(layer, path, lang, is_test):
                    continue
                score = relation_score(src, to_name, to_symbol, symbol, direction)
                if score > 0:
                    ranked.append((-score, is_test, path, start, rid, seq))
            ranked.sort()
            return self._hits(conn, [(r[-1], -r[0]) for r in ranked[:limit]], limit)
