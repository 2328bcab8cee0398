"""A repository on disk -> the rows of every layer, relations resolved, in memory.

``walk -> extract each file (ingest) -> resolve relations across the repository``. Pure and
deterministic: no storage, no embeddings; files come out sorted by path. Relation resolution
failing leaves relations unresolved and is reported as a warning.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ragstrata.core.rows import DefinitionRow, FileRows, Layer, RelationRow, Row
from ragstrata.ingest.pipeline import describe_failure, iter_file_rows
from ragstrata.settings import IndexSettings

__all__ = ["IngestEvent", "IngestResult", "ingest_repository", "resolve_repository"]


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
        from ragstrata.relations.resolve import resolve_relations

        resolved = list(resolve_relations(definitions, relations))
    except Exception as exc:
        return tuple(ordered), (f"relation resolution failed: {describe_failure(exc)}",)
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
