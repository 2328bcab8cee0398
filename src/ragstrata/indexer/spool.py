"""Extracted rows parked on disk while relations are resolved.

Relations are resolved among every definition of the repository, so a run writes nothing until
every file is extracted. Holding every extracted row until then made a first index's memory grow
with the repository (2,121 files: ~230 MB of rows, and Python keeps the arenas afterwards). The
indexer instead parks each file's rows in an unlinked temporary file as soon as the file is
extracted and keeps only what resolution reads (:func:`~ragstrata.relations.run.for_resolution`: definitions without
their text, relations); it takes the rows back one file at a time when it writes them, with the
resolved relations spliced in (:func:`~ragstrata.relations.run.with_relations`). A first index keeps even less: the
definitions' keys (:func:`~ragstrata.relations.run.definition_key`) and the context its relations are resolved against
(:func:`~ragstrata.relations.run.resolution_context`), and resolves each file's relations as it is written.

The file is the indexer's own, created empty in the index folder (never a path the repository
names) and deleted when the run ends, killed or not (``O_TMPFILE`` where the system has it).
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from ragstrata.core.rows import Row

__all__ = ["RowSpool"]


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
