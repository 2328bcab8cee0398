"""Row writes of the SQLite store: rows with their terms and embedding texts, relations,
catalog entries, cached summaries. Every function runs inside the caller's write transaction.

A row's searchable text is its lexical text (the :class:`~ragstrata.store.protocols.RowTexts`
policy the store was given) plus its cached LLM summary, if one is stored.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ragstrata.core.names import last_segment, normalize_symbol
from ragstrata.core.rows import DefinitionRow, RelationRow, Row
from ragstrata.core.values import CatalogEntry, SummaryKind, row_symbol
from ragstrata.store.bm25 import SummaryOf, searchable
from ragstrata.store.protocols import RowTexts
from ragstrata.store.records import (
    embedding_hash,
    row_from_payload,
    row_to_payload,
    unique_rows,
)
from ragstrata.store.sqlite import vectors
from ragstrata.store.sqlite.lexical import encode_blobs
from ragstrata.store.sqlite.schema import INSERT_ROW, bump, chunks, marks

__all__ = [
    "delete_paths",
    "reanalyze",
    "replace_files",
    "resummarize",
    "summary_lookup",
]


_RETERM = "UPDATE rows SET n_terms=?, term_ids=?, term_tfs=? WHERE seq=?"


def summary_lookup(conn: sqlite3.Connection) -> SummaryOf | None:
    """``(kind, key) -> text`` lookups for rows being (re)written; None when there are none."""
    if conn.execute("SELECT 1 FROM summaries LIMIT 1").fetchone() is None:
        return None

    def lookup(kind: SummaryKind, key: str) -> str | None:
        found = conn.execute(
            "SELECT text FROM summaries WHERE kind = ? AND key = ?", (kind.value, key)
        ).fetchone()
        return None if found is None else str(found[0])

    return lookup


def _row_values(row: Row, texts: RowTexts, summaries: SummaryOf | None) -> tuple[Any, ...]:
    n_terms, ids, tfs = encode_blobs(searchable(row, texts, summaries))
    embed = texts.embedding(row)
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


def replace_files(
    conn: sqlite3.Connection,
    batch: Sequence[tuple[CatalogEntry, Sequence[Row]]],
    texts: RowTexts,
) -> None:
    """Per file: old rows out, new rows in, catalog entry updated; orphaned vectors dropped."""
    summaries = summary_lookup(conn)
    old_hashes: set[str] = set()
    for entry, rows in batch:
        old_hashes |= delete_paths(conn, [entry.path])
        conn.execute(
            "INSERT INTO files VALUES (?, ?, ?, ?)",
            (entry.path, entry.mtime_ns, entry.size, entry.sha256),
        )
        unique = unique_rows(rows)
        conn.executemany(INSERT_ROW, [_row_values(r, texts, summaries) for r in unique])
        conn.executemany(
            "INSERT INTO relations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (row.id, row.relation, row.from_symbol, last_segment(row.from_symbol),
                 row.to_name, row.to_symbol, last_segment(row.to_symbol or row.to_name),
                 row.line, row.receiver_type)
                for row in unique
                if isinstance(row, RelationRow)
            ],
        )  # fmt: skip
        conn.executemany(
            "INSERT INTO definitions (row_id, path, symbol, name, parent, kind, language, "
            "signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (row.id, row.path, row.symbol, row.name, row.parent, row.kind, row.language,
                 row.signature)
                for row in unique
                if isinstance(row, DefinitionRow)
            ],
        )  # fmt: skip
    vectors.collect(conn, old_hashes)
    bump(conn, rows=True)


def delete_paths(conn: sqlite3.Connection, paths: Sequence[str]) -> set[str]:
    """Delete the files' rows and catalog entries; returns their embedding hashes."""
    hashes: set[str] = set()
    for part in chunks(paths):
        hashes.update(
            h
            for (h,) in conn.execute(
                f"SELECT DISTINCT embed_hash FROM rows WHERE path IN ({marks(part)}) "
                "AND embed_hash IS NOT NULL",
                list(part),
            )
        )
        conn.execute(f"DELETE FROM rows WHERE path IN ({marks(part)})", list(part))
        conn.execute(f"DELETE FROM files WHERE path IN ({marks(part)})", list(part))
    return hashes


def reanalyze(conn: sqlite3.Connection, texts: RowTexts) -> None:
    """Recompute every row's terms (the analyzer changed since they were written)."""
    summaries = summary_lookup(conn)
    updates = []
    for seq, payload in conn.execute("SELECT seq, payload FROM rows"):
        row = row_from_payload(payload)
        n, ids, tfs = encode_blobs(searchable(row, texts, summaries))
        updates.append((n, ids, tfs, seq))
    conn.executemany(_RETERM, updates)
    if updates:
        bump(conn, rows=True)


def resummarize(
    conn: sqlite3.Connection, kind: SummaryKind, keys: Sequence[str], texts: RowTexts
) -> None:
    """Re-encode the terms of the rows the summaries of ``keys`` belong to."""
    layer, column = ("C0", "path") if kind is SummaryKind.FILE else ("C1", "symbol")
    summaries = summary_lookup(conn)
    updates = []
    for key in keys:
        # C1 by symbol_norm (indexed), then the exact symbol
        where = "path = ?" if column == "path" else "symbol_norm = ? AND symbol = ?"
        args = (key,) if column == "path" else (normalize_symbol(key), key)
        for seq, payload in conn.execute(
            f"SELECT seq, payload FROM rows WHERE layer = ? AND {where}", (layer, *args)
        ).fetchall():
            row = row_from_payload(payload)
            n, ids, tfs = encode_blobs(searchable(row, texts, summaries))
            updates.append((n, ids, tfs, seq))
    conn.executemany(_RETERM, updates)
    bump(conn, rows=bool(updates))
