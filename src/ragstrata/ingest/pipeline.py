"""One file on disk -> its rows of every layer (resolution across files is ``relations/``).

Pure and deterministic: no storage, no embeddings.

Routing: a file the walker marks ``is_doc`` (Markdown, reStructuredText, plain-text docs) goes
to the docs extractor and yields D-layer rows only (D0, D1, D2); every other text file goes to
the code extractor and yields C-layer rows only (C0 always; C1/C2 where a grammar exists; C3).
A README therefore has no C0 row: file-level questions about docs are answered from D0.

Bad input never stops ingestion: an exception inside one file's extraction becomes a warning
and the file still yields its anchor row (C0 or D0; code files also keep plain splitter chunks
when the splitter itself still works). Relation resolution failing leaves relations unresolved
and is reported the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ragstrata.core.rows import (
    ChunkRow,
    DocFileRow,
    FileRow,
    FileRows,
    Layer,
    Row,
    SourceFile,
    row_id,
)
from ragstrata.errors import one_line
from ragstrata.settings import IndexSettings

__all__ = ["describe_failure", "extract_file", "iter_file_rows"]


def iter_file_rows(files: Iterable[SourceFile], settings: IndexSettings) -> Iterator[FileRows]:
    """Extract each file as it comes (relations still unresolved; see
    :func:`resolve_repository`). For an indexer that streams files."""
    for file in files:
        yield extract_file(file, settings)


def extract_file(file: SourceFile, settings: IndexSettings) -> FileRows:
    """The rows of one file, its secrets redacted first; never raises for bad content (see the
    module docstring)."""
    from ragstrata.ingest.secrets import redact_source

    file, redaction = redact_source(file)
    warnings: list[str] = []
    if file.decode_errors:
        warnings.append(f"{file.path}: invalid UTF-8 replaced with U+FFFD")
    if file.is_doc:
        rows = _guarded(file, settings, warnings, _docs_rows, Layer.D0)
    else:
        rows = _guarded(file, settings, warnings, _code_rows, Layer.C0)
    return FileRows(
        file=file, rows=tuple(rows), warnings=tuple(warnings), redactions=redaction.kinds
    )


_Extractor = Callable[[SourceFile, IndexSettings], list[Row]]


def _docs_rows(file: SourceFile, settings: IndexSettings) -> list[Row]:
    from ragstrata.ingest.docs import extract_docs

    return extract_docs(file, chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap)


def _code_rows(file: SourceFile, settings: IndexSettings) -> list[Row]:
    from ragstrata.ingest.code import extract_code

    return extract_code(file, chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap)


def _guarded(
    file: SourceFile,
    settings: IndexSettings,
    warnings: list[str],
    extractor: _Extractor,
    anchor: Layer,
) -> list[Row]:
    try:
        rows = list(extractor(file, settings))
    except Exception as exc:  # one bad file must not stop a repository
        warnings.append(
            f"{file.path}: {anchor.value[0]}-layer extraction failed: {describe_failure(exc)}"
        )
        rows = _fallback_chunks(file, settings, warnings) if anchor is Layer.C0 else []
    if not any(row.layer is anchor for row in rows):
        rows.insert(0, _anchor_row(file, anchor))
    return rows


def describe_failure(exc: BaseException) -> str:
    message = one_line(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _anchor_row(file: SourceFile, anchor: Layer) -> Row:
    end = max(file.line_count, 1)
    common: dict[str, Any] = {
        "id": row_id(anchor, file.path, 1, end, file.sha256),
        "path": file.path,
        "language": file.language,
        "is_test": file.is_test,
        "start_line": 1,
        "end_line": end,
        "content_hash": file.sha256,
    }
    if anchor is Layer.D0:
        return DocFileRow(**common, title=file.path.rsplit("/", 1)[-1])
    return FileRow(**common, size=file.size)


def _fallback_chunks(file: SourceFile, settings: IndexSettings, warnings: list[str]) -> list[Row]:
    """Plain splitter chunks (C3) for a code file whose extractor failed."""
    try:
        from ragstrata.core.languages import ladder_for
        from ragstrata.core.rows import content_hash
        from ragstrata.ingest.splitter import chunk_id, split_spans

        if not file.text.strip():
            return []
        spans = split_spans(
            file.text,
            chunk_size=settings.chunk_size,
            overlap=settings.chunk_overlap,
            separators=ladder_for(file.language),
        )
    except Exception as exc:
        warnings.append(f"{file.path}: fallback chunking failed: {describe_failure(exc)}")
        return []
    rows: list[Row] = []
    for span in spans:
        digest = content_hash(span.text)
        rows.append(
            ChunkRow(
                id=chunk_id(file.path, span, Layer.C3),
                path=file.path,
                language=file.language,
                is_test=file.is_test,
                start_line=span.start_line,
                end_line=span.end_line,
                content_hash=digest,
                start_offset=span.start_offset,
                end_offset=span.end_offset,
                text=span.text,
            )
        )
    return rows
