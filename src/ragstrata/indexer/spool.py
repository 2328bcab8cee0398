"""Extracted rows parked on disk while relations are resolved.

Relations are resolved among every definition of the repository, so a run writes nothing until
every file is extracted. Holding every extracted row until then made a first index's memory grow
with the repository (2,121 files: ~230 MB of rows, and Python keeps the arenas afterwards). The
indexer instead parks each file's rows in an unlinked temporary file as soon as the file is
extracted and keeps only what resolution reads (:func:`for_resolution`: definitions without
their text, relations); it takes the rows back one file at a time when it writes them, with the
resolved relations spliced in (:func:`with_relations`). A first index keeps even less: the
definitions' keys (:func:`definition_key`) and the context its relations are resolved against
(:func:`resolution_context`), and resolves each file's relations as it is written.

The file is the indexer's own, created empty in the index folder (never a path the repository
names) and deleted when the run ends, killed or not (``O_TMPFILE`` where the system has it).
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import IO

from ragstrata.core.rows import DefinitionRow, FileRows, RelationRow, Row
from ragstrata.core.values import DefinitionKey, RelationKey
from ragstrata.relations.resolve import BASE_RELATIONS

__all__ = ["RowSpool", "definition_key", "for_resolution", "resolution_context", "with_relations"]


class RowSpool:
    """Rows of files by path, pickled to an unlinked temporary file; each is taken once."""

    def __init__(self, folder: Path | None = None) -> None:
        where = folder if folder is not None and folder.is_dir() else None
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="spool-", dir=where)  # noqa: SIM115
        self._at: dict[str, int] = {}

    def put(self, path: str, rows: Sequence[Row]) -> None:
        if path in self._at:
            raise ValueError(f"rows of {path!r} are already spooled")
        self._at[path] = self._file.seek(0, 2)
        pickle.dump(tuple(rows), self._file, protocol=pickle.HIGHEST_PROTOCOL)

    def take(self, path: str) -> tuple[Row, ...]:
        """The rows put for ``path`` (a KeyError for a path never put or already taken)."""
        self._file.seek(self._at.pop(path))
        rows: tuple[Row, ...] = pickle.load(self._file)
        return rows

    def __len__(self) -> int:
        return len(self._at)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> RowSpool:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


def for_resolution(file_rows: FileRows) -> FileRows:
    """``file_rows`` with only what relation resolution reads: its definitions (without their
    text, docstring and content hash) and its relations (without their content hash), in their
    order; the file without its text. (~470 bytes per relation instead of ~580.)"""
    rows: list[Row] = []
    for row in file_rows.rows:
        if isinstance(row, DefinitionRow):
            rows.append(replace(row, text="", docstring=None, content_hash=""))
        elif isinstance(row, RelationRow):
            rows.append(replace(row, content_hash=""))
    return replace(file_rows, file=replace(file_rows.file, text=""), rows=tuple(rows))


def with_relations(rows: Sequence[Row], resolved: FileRows) -> tuple[Row, ...]:
    """``rows`` (a file's whole row list) with the targets its relations got in ``resolved``
    (the same file after resolution, from :func:`for_resolution`: the same relations, in
    order)."""
    targets = [
        (r.id, r.to_symbol, r.resolution) for r in resolved.rows if isinstance(r, RelationRow)
    ]
    if sum(isinstance(r, RelationRow) for r in rows) != len(targets):
        raise ValueError(f"{resolved.file.path}: resolution changed the number of relations")
    pending = iter(targets)
    out: list[Row] = []
    for row in rows:
        if isinstance(row, RelationRow):
            row_id, symbol, how = next(pending)
            if row_id != row.id:
                raise ValueError(f"{resolved.file.path}: relation {row.id} resolved out of order")
            if (row.to_symbol, row.resolution) != (symbol, how):
                row = replace(row, to_symbol=symbol, resolution=how)
        out.append(row)
    return tuple(out)


def definition_key(row: DefinitionRow) -> DefinitionKey:
    """What the relation resolver reads of a definition."""
    return DefinitionKey(
        row.path, row.symbol, row.name, row.parent, row.kind, row.language, row.signature
    )


def resolution_context(rows: Sequence[Row]) -> list[RelationRow | RelationKey]:
    """A file's part of the context a first index resolves against
    (:class:`~ragstrata.relations.resolve.RelationResolver`): its base-class relations as
    whole rows (without content hash), its imports and its first relation as light keys."""
    out: list[RelationRow | RelationKey] = []
    first = True
    for row in rows:
        if not isinstance(row, RelationRow):
            continue
        if row.relation in BASE_RELATIONS:
            out.append(replace(row, content_hash=""))
        elif first or row.relation == "imports":
            key = (row.path, row.id, row.relation, row.from_symbol, row.to_name)
            out.append(RelationKey(*key, row.receiver_type, row.language, row.to_symbol))
        first = False
    return out
