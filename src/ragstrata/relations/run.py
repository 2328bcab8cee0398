"""One entry point for an index run's relations: :func:`relation_pass`.

An index run hands every extracted file to the pass (:meth:`RelationPass.add`), then asks it
once for the outcome (:meth:`RelationPass.resolve`), and writes every file through the one
method :meth:`RelationOutcome.rows` — a first index and an incremental run alike:

- **A first index** (nothing stored) keeps only definition keys and the resolution context
  (imports, base classes, each file's first relation) while files are extracted, and resolves a
  file's relations as that file is written (:class:`RelationResolver`), so the run holds no more
  than those.
- **An incremental run** keeps what resolution reads of each extracted file (definitions
  without text, relations) and resolves the changes against the stored index
  (:func:`~ragstrata.relations.rerun.resolve_changes`: fast, scoped or full path); unchanged
  files whose targets moved are rewritten (:attr:`RelationOutcome.rewrites`).

Either way the index written is the same, row for row (``tests/test_indexer.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from ragstrata.core.rows import DefinitionRow, FileRows, RelationRow, Row
from ragstrata.core.values import DefinitionKey, RelationKey
from ragstrata.relations.rerun import resolve_changes
from ragstrata.relations.resolve import BASE_RELATIONS, RelationResolver
from ragstrata.store.protocols import Store

__all__ = [
    "RelationOutcome",
    "RelationPass",
    "definition_key",
    "for_resolution",
    "relation_pass",
    "resolution_context",
    "with_relations",
]


@dataclass(frozen=True, slots=True)
class RelationOutcome:
    """What a run writes: extracted files in ``order`` through :meth:`rows`, and unchanged
    files whose relation targets moved (path -> row id -> new relation row)."""

    order: tuple[str, ...]
    message: str
    rewrites: Mapping[str, Mapping[str, RelationRow]] = field(default_factory=dict)
    _warnings: tuple[str, ...] = ()
    _resolved: Mapping[str, FileRows] = field(default_factory=dict)
    _resolver: _FileResolver | None = None

    def warnings(self) -> tuple[str, ...]:
        """What went wrong, once every file was written (a first index resolves as it writes)."""
        late = self._resolver.warnings() if self._resolver is not None else ()
        return (*self._warnings, *late)

    def rows(self, path: str, rows: Sequence[Row]) -> tuple[Row, ...]:
        """The file's whole row list as it is written: its relations resolved."""
        if self._resolver is not None:
            return self._resolver.rows(rows)
        return with_relations(rows, self._resolved[path])


class RelationPass:
    """Collects what resolution needs while files are extracted (see the module docstring)."""

    def __init__(self, store: Store, *, first: bool) -> None:
        self._store = store
        self._first = first
        self._paths: list[str] = []
        self._definitions: list[DefinitionKey] = []
        self._context: list[RelationRow | RelationKey] = []
        self._light: list[FileRows] = []

    def add(self, file_rows: FileRows) -> None:
        """One extracted file (called in path order)."""
        self._paths.append(file_rows.file.path)
        if self._first:
            rows = file_rows.rows
            self._definitions.extend(
                definition_key(r) for r in rows if isinstance(r, DefinitionRow)
            )
            self._context.extend(resolution_context(rows))
        else:
            self._light.append(for_resolution(file_rows))

    def resolve(self, removed: Sequence[str]) -> RelationOutcome:
        """Resolve, once every file was added; ``removed``: paths the run deletes."""
        if self._first:
            resolver = _FileResolver(self._definitions, self._context)
            self._definitions, self._context = [], []
            message = "relations resolved as files are written"
            return RelationOutcome(tuple(self._paths), message, _resolver=resolver)
        resolution = resolve_changes(self._store, self._light, removed)
        self._light = []
        how = (
            "all relations resolved again"
            if resolution.full
            else f"{resolution.scoped} relations of unchanged files resolved again"
        )
        late = resolution.projection_changed  # written last: see relations.rerun
        files = sorted(resolution.files, key=lambda fr: (fr.file.path in late, fr.file.path))
        return RelationOutcome(
            order=tuple(fr.file.path for fr in files),
            message=how if resolution.resolved else "nothing to do",
            rewrites=resolution.rewrites,
            _warnings=resolution.warnings,
            _resolved={fr.file.path: fr for fr in files},
        )


def relation_pass(store: Store, *, first: bool) -> RelationPass:
    """The relation pass of one index run; ``first``: nothing is stored yet."""
    return RelationPass(store, first=first)


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


class _FileResolver:
    """A first index's relations, resolved a file at a time (see the module docstring).
    If the resolver fails (a bug on odd input), relations stay unresolved, as in ingestion,
    and the run says so once."""

    def __init__(
        self, definitions: Sequence[DefinitionKey], context: Sequence[RelationRow | RelationKey]
    ) -> None:
        self._errors: list[str] = []
        self._failed = 0
        self._resolver: RelationResolver | None = None
        try:
            self._resolver = RelationResolver(definitions, context)
        except Exception as exc:  # same fallback as the incremental path
            self._errors.append(f"{type(exc).__name__}: {exc}")

    def rows(self, rows: Sequence[Row]) -> tuple[Row, ...]:
        if self._resolver is None:
            return tuple(rows)
        return tuple(self._one(r) if isinstance(r, RelationRow) else r for r in rows)

    def _one(self, rel: RelationRow) -> RelationRow:
        assert self._resolver is not None
        try:
            return self._resolver.resolve(rel)
        except Exception as exc:
            self._failed += 1
            if not self._errors:
                self._errors.append(f"{type(exc).__name__}: {exc}")
            return rel

    def warnings(self) -> tuple[str, ...]:
        if not self._errors:
            return ()
        what = "" if not self._failed else f" for {self._failed} relations"
        return (f"relation resolution failed{what}: {self._errors[0]}",)
