"""Schema of the SQLite store: numbered migrations tracked in ``user_version``, and the small
SQL helpers every module of the package shares (generation counters, meta values, chunking).

:data:`ROW_SCHEMA_VERSION` (the ``schema_version`` written into manifests) moves only when a
migration changes what rows mean, so additive migrations (2: the ``summaries`` table of cached
LLM summaries; 3: the ``definitions`` table and ``relations.receiver_type``, filled from the
stored rows) never force a rebuild.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragstrata.errors import IndexMismatchError
from ragstrata.store.analyzer import ANALYZER_VERSION

__all__ = [
    "INSERT_ROW",
    "MIGRATIONS",
    "ROW_SCHEMA_VERSION",
    "SCHEMA_VERSION",
    "bump",
    "chunks",
    "marks",
    "meta_value",
    "migrate",
    "now",
]

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
    (  # 3: light reads for the incremental relation resolver (rows unchanged: no rebuild)
        "ALTER TABLE relations ADD COLUMN receiver_type TEXT",
        """UPDATE relations SET receiver_type = (SELECT json_extract(payload, '$.receiver_type')
            FROM rows WHERE rows.id = relations.row_id)""",
        # what the resolver reads of a C1 row; seq keeps each file's row order
        """CREATE TABLE definitions (
            seq INTEGER PRIMARY KEY,
            row_id TEXT NOT NULL UNIQUE REFERENCES rows(id) ON DELETE CASCADE,
            path TEXT NOT NULL, symbol TEXT NOT NULL, name TEXT NOT NULL, parent TEXT,
            kind TEXT NOT NULL, language TEXT NOT NULL, signature TEXT NOT NULL)""",
        "CREATE INDEX definitions_path ON definitions(path)",
        # by layer, then path: each file's first C2 row from the index alone
        "DROP INDEX rows_layer",
        "CREATE INDEX rows_layer ON rows(layer, path)",
        """INSERT INTO definitions (row_id, path, symbol, name, parent, kind, language, signature)
            SELECT id, path, json_extract(payload, '$.symbol'), name,
            json_extract(payload, '$.parent'), json_extract(payload, '$.kind'), language,
            json_extract(payload, '$.signature') FROM rows WHERE layer = 'C1'
            ORDER BY path, seq""",
    ),
)
"""Numbered migrations: entry ``i`` takes ``user_version`` from ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)
ROW_SCHEMA_VERSION = 4
"""What manifests record as ``schema_version``: bumped when what the rows hold changes, so an
older index is refused with "rebuild" instead of answering from stale rows. 2: relations carry
their resolution (exact / possible / external) and receiver type, rows their secret
redactions, and containers are searched by their own lines. 3: ``constructs`` and
``references`` relations (uses of types that are no calls), Go import aliases, JavaScript
``module.exports = function`` named after its file. 4: doc comments attached across
attributes, annotations and blank lines; JavaScript members added to exported objects, Go
``var`` blocks and public dunders are definitions."""

INSERT_ROW = (
    "INSERT INTO rows (id, path, layer, language, is_test, start_line, end_line, symbol, "
    "name, name_lower, symbol_norm, symbol_last, content_hash, n_terms, term_ids, term_tfs, "
    f"embed_hash, embed_text, payload) VALUES ({', '.join('?' * 19)})"
)
_SQL_CHUNK = 500  # host parameters per IN (...) list


def now() -> str:
    """ISO-8601 UTC with microseconds."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def chunks(items: Sequence[Any], size: int = _SQL_CHUNK) -> Iterator[Sequence[Any]]:
    """``items`` in slices small enough for one ``IN (...)`` list."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def marks(items: Sequence[Any]) -> str:
    """``?,?,?`` for ``items``."""
    return ",".join("?" * len(items))


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    """A value of the ``meta`` table, or None."""
    found = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if found is None else str(found[0])


def bump(conn: sqlite3.Connection, rows: bool = False, vectors: bool = False) -> None:
    """Advance the generation counters the derived structures follow; stamp ``updated_at``."""
    for key, flag in (("rows_gen", rows), ("vec_gen", vectors)):
        if flag:
            conn.execute(
                "INSERT INTO meta VALUES (?, '1') ON CONFLICT(key) DO UPDATE "
                "SET value = CAST(value AS INTEGER) + 1",
                (key,),
            )
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('updated_at', ?)", (now(),))


def migrate(
    conn: sqlite3.Connection, path: Path, reanalyze: Callable[[sqlite3.Connection], None]
) -> None:
    """Apply pending migrations and, when the analyzer changed, ``reanalyze`` every row; one
    transaction. A schema newer than this code is refused with the rebuild path."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise IndexMismatchError(
                f"index {path} has schema {version}, this ragstrata knows up to "
                f"{SCHEMA_VERSION}; upgrade ragstrata or run `ragstrata index --rebuild`"
            )
        for number in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[number]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number + 1}")
        analyzer = conn.execute("SELECT value FROM meta WHERE key = 'analyzer'").fetchone()
        if analyzer is None or analyzer[0] != ANALYZER_VERSION:
            reanalyze(conn)
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('analyzer', ?)", (ANALYZER_VERSION,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
