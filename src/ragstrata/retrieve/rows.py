"""One row reader: every stored row of a file, or of some layers for some paths, in file order.

The answer graphs, gendocs and the facade's ``outline`` read rows through here, never through a
top-k search (a search silently drops what ranks past its ``top_k``). :func:`rows_by_path` is
:func:`ragstrata.store.scan.rows_by_path`, over the store protocol's ``scan_rows``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ragstrata.core.rows import ChunkRow, DefinitionRow, FileRow, Layer, Row, SectionRow
from ragstrata.store.protocols import Store
from ragstrata.store.scan import rows_by_path

__all__ = ["file_row", "file_rows", "file_text", "outline", "rows_by_path", "sections"]


def file_rows(store: Store, path: str, layers: Iterable[Layer | str] | None = None) -> list[Row]:
    """Every row of one file (of ``layers`` when given), in the file's order."""
    return rows_by_path(store, layers, [path]).get(path, [])


def file_row(store: Store, path: str) -> FileRow | None:
    """The file's C0 row (code files only), or None."""
    rows = file_rows(store, path, (Layer.C0,))
    return next((r for r in rows if isinstance(r, FileRow)), None)


def outline(store: Store, path: str) -> list[DefinitionRow]:
    """The file's definitions (C1) by start line: modules, classes, their members, functions."""
    rows = [r for r in file_rows(store, path, (Layer.C1,)) if isinstance(r, DefinitionRow)]
    return sorted(rows, key=lambda r: (r.start_line, -r.end_line, r.symbol))


def sections(store: Store, path: str) -> list[SectionRow]:
    """The document's sections (D1) by start line."""
    rows = [r for r in file_rows(store, path, (Layer.D1,)) if isinstance(r, SectionRow)]
    return sorted(rows, key=lambda r: (r.start_line, r.end_line))


def file_text(store: Store, path: str) -> str | None:
    """The file's text as indexed, rebuilt from all its chunks (C3 for code and config, D2 for
    documents); None when the file has no chunks or they leave a gap."""
    rows = file_rows(store, path, (Layer.C3, Layer.D2))
    chunks = [r for r in rows if isinstance(r, ChunkRow)]
    for layer in (Layer.C3, Layer.D2):
        text = _stitch(sorted((c for c in chunks if c.layer is layer), key=_offsets))
        if text:
            return text
    return None


def _offsets(chunk: ChunkRow) -> tuple[int, int]:
    return chunk.start_offset, chunk.end_offset


def _stitch(chunks: Sequence[ChunkRow]) -> str:
    """The text covered by (possibly overlapping) chunks, from offset 0 with no gaps, else ''."""
    text = ""
    for chunk in chunks:
        if chunk.start_offset > len(text):
            return ""
        if chunk.end_offset > len(text):  # a chunk inside the text so far adds nothing
            text = text[: chunk.start_offset] + chunk.text
    return text
