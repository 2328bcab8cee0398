"""Ingestion: a repository on disk -> the rows of layers C0-C3 and D0-D2 (pure, no storage)."""

from ragstrata.ingest.rows import (
    ChunkRow,
    DefinitionRow,
    DocFileRow,
    FileRow,
    FileRows,
    Layer,
    RelationRow,
    Row,
    SectionRow,
    SourceFile,
    content_hash,
    row_id,
)

__all__ = [
    "ChunkRow",
    "DefinitionRow",
    "DocFileRow",
    "FileRow",
    "FileRows",
    "Layer",
    "RelationRow",
    "Row",
    "SectionRow",
    "SourceFile",
    "content_hash",
    "row_id",
]
