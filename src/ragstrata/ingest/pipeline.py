"""The ingestion facade: a repository on disk -> the rows of every layer, in memory.

``walk -> extract each file -> resolve relations across the repository``. Pure and
deterministic: no storage, no embeddings; files come out sorted by path.

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

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ragstrata.errors import one_line
from ragstrata.ingest.rows import (
    ChunkRow,
    DefinitionRow,
    DocFileRow,
    FileRow,
    FileRows,
    Layer,
    RelationRow,
    Row,
    SourceFile,
    row_id,
)
from ragstrata.settings import IndexSettings

__all__ = [
    "IngestEvent",
    "IngestResult",
    "extract_file",
    "ingest_repository",
    "iter_file_rows",
    "resolve_repository",
]


@dataclass(frozen=True, slots=True)
class IngestEvent:
    """Progress as data: one event per extracted file, then ``relations`` and ``done``."""

    kind: Literal["file", "relations", "done"]
    files_done: int
    path: str | None = None
    rows: int = 0  # rows of this file, or of the whole repository for ``done``


@dataclass(frozen=True, slots=True)
class IngestResult:
    """Everything ingestion produced for a repository, with its report."""

    files: tuple[FileRows, ...]
    skipped: Mapping[str, Any] = field(default_factory=dict)  # the walker's skip report
    warnings: tuple[str, ...] = ()

    def rows(self, layers: Iterable[Layer | str] | None = None) -> Iterator[Row]:
        """All rows in file order, optionally only those of ``layers``."""
        wanted = None if layers is None else {Layer(layer) for layer in layers}
        for file_rows in self.files:
            for row in file_rows.rows:
                if wanted is None or row.layer in wanted:
                    yield row

    def layer_counts(self) -> dict[str, int]:
        """Rows per layer id, every layer listed (zero included)."""
        counts = Counter(str(row.layer) for row in self.rows())
        return {str(layer): counts.get(str(layer), 0) for layer in Layer}

    def report(self) -> dict[str, Any]:
        """JSON-ready summary: files ingested, skip report, rows per layer, warnings."""
        return {
            "files": len(self.files),
            "skipped": dict(self.skipped),
            "rows": self.layer_counts(),
            "warnings": list(self.warnings),
        }


def ingest_repository(
    root: Path,
    settings: IndexSettings,
    *,
    progress: Callable[[IngestEvent], None] | None = None,
) -> IngestResult:
    """Walk ``root`` and return the rows of every layer with relations resolved repository-wide.

    Raises ``RepositoryNotFoundError`` when ``root`` is not a folder; nothing else in the input
    makes it raise.
    """
    from ragstrata.ingest.walker import Walker

    walker = Walker(root, settings)
    extracted: list[FileRows] = []
    for file_rows in iter_file_rows(walker.files(), settings):
        extracted.append(file_rows)
        if progress is not None:
            progress(IngestEvent("file", len(extracted), file_rows.file.path, len(file_rows.rows)))
    if progress is not None:
        progress(IngestEvent("relations", len(extracted)))
    files, resolve_warnings = resolve_repository(extracted)
    warnings = tuple(w for fr in files for w in fr.warnings) + resolve_warnings
    result = IngestResult(files=files, skipped=walker.report.to_dict(), warnings=warnings)
    if progress is not None:
        progress(IngestEvent("done", len(files), rows=sum(len(fr.rows) for fr in files)))
    return result


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
        warnings.append(f"{file.path}: {anchor.value[0]}-layer extraction failed: {_describe(exc)}")
        rows = _fallback_chunks(file, settings, warnings) if anchor is Layer.C0 else []
    if not any(row.layer is anchor for row in rows):
        rows.insert(0, _anchor_row(file, anchor))
    return rows


def _describe(exc: BaseException) -> str:
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
        from ragstrata.ingest.languages import ladder_for
        from ragstrata.ingest.rows import content_hash
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
        warnings.append(f"{file.path}: fallback chunking failed: {_describe(exc)}")
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


def resolve_repository(files: Iterable[FileRows]) -> tuple[tuple[FileRows, ...], tuple[str, ...]]:
    """Sort files by path and resolve every C2 relation against the repository's definitions.

    Returns the files with their relation rows replaced by the resolved ones, and warnings.
    """
    ordered = sorted(files, key=lambda fr: fr.file.path)
    definitions = [r for fr in ordered for r in fr.rows if isinstance(r, DefinitionRow)]
    relations = [r for fr in ordered for r in fr.rows if isinstance(r, RelationRow)]
    if not relations:
        return tuple(ordered), ()
    try:
        from ragstrata.ingest.code import resolve_relations

        resolved = list(resolve_relations(definitions, relations))
    except Exception as exc:
        return tuple(ordered), (f"relation resolution failed: {_describe(exc)}",)
    by_path: dict[str, list[RelationRow]] = defaultdict(list)
    for relation in resolved:
        by_path[relation.path].append(relation)
    out: list[FileRows] = []
    for file_rows in ordered:
        mine = by_path.get(file_rows.file.path, [])
        kept = [r for r in file_rows.rows if not isinstance(r, RelationRow)]
        if not mine and len(kept) == len(file_rows.rows):
            out.append(file_rows)
            continue
        out.append(replace(file_rows, rows=tuple(_splice(file_rows.rows, mine))))
    return tuple(out), ()


def _splice(rows: tuple[Row, ...], relations: list[RelationRow]) -> list[Row]:
    """Put ``relations`` where the file's old relation rows were (extras at the end)."""
    pending = iter(relations)
    out: list[Row] = []
    for row in rows:
        if isinstance(row, RelationRow):
            nxt = next(pending, None)
            if nxt is not None:
                out.append(nxt)
        else:
            out.append(row)
    out.extend(pending)
    return out
