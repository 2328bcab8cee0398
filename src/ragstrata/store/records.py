"""Rows as the backends store and return them: JSON payloads, hits, summary keys, vector keys."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from ragstrata.core.rows import (
    ChunkRow,
    DefinitionRow,
    DocFileRow,
    FileRow,
    Layer,
    RelationRow,
    Row,
    SectionRow,
    content_hash,
)
from ragstrata.core.values import ScoredRow, SummaryKind
from ragstrata.errors import IndexCorruptError

__all__ = [
    "embedding_hash",
    "rank_hits",
    "row_from_payload",
    "row_to_payload",
    "summary_key",
    "unique_rows",
]


def embedding_hash(text: str) -> str:
    """Key of a vector under one fingerprint (first 32 hex of SHA-256)."""
    return content_hash(text)[:32]


def summary_key(row: Row) -> tuple[SummaryKind, str] | None:
    """The summary a row carries as extra lexical terms: C0 by path, C1 by qualified symbol.

    Summaries are kept out of the row payloads and of :func:`embedding_text` on purpose: rows
    stay exactly what ingestion produced (content-addressed ids and vectors do not move when a
    summary is regenerated), and the default embedded layers already cover definitions.
    """
    if isinstance(row, FileRow):
        return SummaryKind.FILE, row.path
    if isinstance(row, DefinitionRow):
        return SummaryKind.DEFINITION, row.symbol
    return None


def unique_rows(rows: Sequence[Row]) -> list[Row]:
    """``rows`` with repeated ids dropped: the first row of an id, at its first position
    (what every backend writes and :meth:`RowReader.scan_rows` returns, in this order)."""
    unique: dict[str, Row] = {}
    for row in rows:
        unique.setdefault(row.id, row)
    return list(unique.values())


def rank_hits(hits: Sequence[ScoredRow]) -> list[ScoredRow]:
    """Best score first; then non-test code, then path and line for a stable order."""
    return sorted(hits, key=lambda h: (-h.score, h.row.is_test, h.path, h.start_line, h.row_id))


def row_to_payload(row: Row) -> str:
    """Compact JSON of every field of the row (tuples as lists)."""
    data = {f.name: getattr(row, f.name) for f in dataclasses.fields(row)}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


_ROW_TYPES: dict[str, type] = {
    Layer.C0: FileRow,
    Layer.C1: DefinitionRow,
    Layer.C2: RelationRow,
    Layer.C3: ChunkRow,
    Layer.D0: DocFileRow,
    Layer.D1: SectionRow,
    Layer.D2: ChunkRow,
}

_DECODE = json.JSONDecoder().raw_decode  # one call per row: the indexer reads ~10^5 of them
_LAYER_OF: dict[str, tuple[Layer, type]] = {
    layer.value: (layer, _ROW_TYPES[layer]) for layer in Layer
}


def row_from_payload(payload: str) -> Row:
    """Inverse of :func:`row_to_payload`; a payload that is not one raises
    ``IndexCorruptError`` (the stored index is damaged)."""
    try:
        data: dict[str, Any]
        data, end = _DECODE(payload)
        if end != len(payload):
            raise ValueError("trailing data after the row")
        layer, cls = _LAYER_OF[data["layer"]]
        data["layer"] = layer
        for key, value in data.items():
            if type(value) is list:
                data[key] = tuple(value)
        row: Row = cls(**data)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise IndexCorruptError(f"a stored row is damaged ({type(exc).__name__})") from exc
    return row
