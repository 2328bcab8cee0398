"""``extract_code``: one source file -> its C0, C1, C2 and C3 rows."""

from __future__ import annotations

import logging

from ragstrata.core.rows import FileRow, Layer, Row, SourceFile, row_id
from ragstrata.errors import ConfigError
from ragstrata.ingest.code.analyze import Analysis, analyze
from ragstrata.ingest.code.chunks import code_chunks
from ragstrata.ingest.code.parsers import supported_languages
from ragstrata.ingest.code.source import Source

__all__ = ["extract_code"]

log = logging.getLogger(__name__)


def extract_code(
    file: SourceFile, *, chunk_size: int = 1200, chunk_overlap: int = 150
) -> list[Row]:
    """C0 + C1 + C2 + C3 rows of one code file, in that order.

    Languages with a grammar (:func:`supported_languages`) get definitions and relations; any
    other text file still yields its file row and chunks. Relations are unresolved here
    (``to_symbol`` None); :func:`resolve_relations` resolves them across the repository. When
    the parse has errors, the definitions that parsed are kept and chunks come from the plain
    recursive splitter.
    """
    if not isinstance(chunk_size, int) or chunk_size <= 0:
        raise ConfigError(f"chunk_size must be a positive integer, got {chunk_size!r}")
    if not isinstance(chunk_overlap, int) or not 0 <= chunk_overlap < chunk_size:
        raise ConfigError(
            f"chunk_overlap must be in [0, chunk_size={chunk_size}), got {chunk_overlap!r}"
        )
    src = Source(file.text)
    analysis: Analysis | None = None
    if file.language in supported_languages() and file.text.strip():
        try:
            analysis = analyze(file, src)
        except Exception:  # a grammar failure must never lose the file
            log.warning("tree-sitter analysis failed for %s", file.path, exc_info=True)
            analysis = None
    rows: list[Row] = [_file_row(file, analysis)]
    definitions = None
    if analysis is not None:
        rows.extend(d.row for d in analysis.definitions)
        rows.extend(analysis.relations)
        if not analysis.has_errors:
            definitions = analysis.definitions
    rows.extend(
        code_chunks(file, src, definitions, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    )
    return rows


def _file_row(file: SourceFile, analysis: Analysis | None) -> FileRow:
    end_line = max(file.line_count, 1)
    symbols: tuple[str, ...] = ()
    imports: tuple[str, ...] = ()
    if analysis is not None:
        seen: dict[str, None] = {}
        for d in analysis.definitions:
            if d.depth >= 0 and d.row.parent is None:
                seen.setdefault(d.row.name, None)
        symbols = tuple(seen)
        imports = analysis.imports
    return FileRow(
        id=row_id(Layer.C0, file.path, 1, end_line, file.sha256),
        path=file.path,
        language=file.language,
        is_test=file.is_test,
        start_line=1,
        end_line=end_line,
        content_hash=file.sha256,
        size=file.size,
        imports=imports,
        symbols=symbols,
    )
