"""Repository-wide relation resolution for an incremental run.

A C2 target depends on every definition of the repository, on the file's own imports and on
the inherits/implements relations of every file (``self.m()`` is looked up through base
classes). Call that the *resolution state*; each file contributes its *projection*: its
definitions' (symbol, name, parent, kind, language) and its imports/inherits/implements
relations' (relation, from_symbol, to_name, language), in order. The rule:

- **Fast path.** When no re-extracted or removed file changed its projection (the usual edit
  of a function body or a docstring), the resolution state is unchanged, so no other file's
  targets can move, and every relation of a changed file whose (relation, from_symbol,
  to_name) the file already had keeps its stored target. Only the changed files' stored C1/C2
  rows are read.
- **Full path.** Otherwise (or when a changed file has a relation it did not have before) ALL
  relations are resolved again, exactly as a clean run does: rows of unchanged files are read
  from the store, those of new/changed files come from extraction, all in path order and, in a
  file, in row order (the resolver is order-sensitive for duplicate names). An unchanged file
  is rewritten only when one of its stored targets changed. ``projection_changed`` lists the
  files whose projection changed: the indexer writes them after the others, so a killed run
  never leaves stored targets that the fast path of the next run would wrongly trust.

A run that touches only files without C1/C2 rows (docs) resolves nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from ragstrata.indexer.reach import affected_relations
from ragstrata.ingest.rows import DefinitionRow, FileRows, Layer, RelationRow, Row
from ragstrata.store.base import RelationKey, Store
from ragstrata.store.scan import rows_by_path

__all__ = ["Resolution", "resolve_changes"]


@dataclass(frozen=True, slots=True)
class Resolution:
    """Extracted files with relations resolved, and unchanged files whose rows must be
    rewritten because a relation target moved (path -> full new row list)."""

    files: tuple[FileRows, ...]
    rewrites: Mapping[str, tuple[Row, ...]]
    warnings: tuple[str, ...] = ()
    resolved: bool = False  # False: nothing needed resolving
    full: bool = False  # True: every relation of the repository was resolved again
    scoped: int = 0  # relations of unchanged files resolved again (the scoped path)
    projection_changed: frozenset[str] = frozenset()


def resolve_changes(store: Store, extracted: Sequence[FileRows], gone: Sequence[str]) -> Resolution:
    """Resolve relations after re-extracting ``extracted`` and dropping ``gone`` (changed
    paths are in ``extracted``; removed ones in ``gone``)."""
    from ragstrata.ingest.code import resolve_relations

    fresh = {fr.file.path: fr for fr in extracted}
    replaced = set(fresh) | set(gone)
    before = rows_by_path(store, (Layer.C1, Layer.C2), replaced)
    moved_state = frozenset(
        path
        for path in replaced
        if _projection(before.get(path, ()))
        != _projection(fresh[path].rows if path in fresh else ())
    )
    has_code = any(isinstance(r, (DefinitionRow, RelationRow)) for fr in extracted for r in fr.rows)
    if not (before or has_code):
        return Resolution(files=tuple(extracted), rewrites={})
    if not moved_state:
        reused = _reuse_targets(extracted, before)
        if reused is not None:
            return Resolution(files=reused, rewrites={}, resolved=True)
    stored_defs = rows_by_path(store, (Layer.C1,))
    keys: dict[str, list[RelationKey]] = {}
    for key in store.scan_relation_keys():  # light: only what reach matches
        keys.setdefault(key.path, []).append(key)
    definitions: list[DefinitionRow] = []
    named: list[RelationRow | RelationKey] = []
    for path in sorted((set(stored_defs) | set(keys)) - replaced | set(fresh)):
        if path in fresh:
            for row in fresh[path].rows:
                if isinstance(row, DefinitionRow):
                    definitions.append(row)
                elif isinstance(row, RelationRow):
                    named.append(row)
        else:
            definitions.extend(r for r in stored_defs.get(path, ()) if isinstance(r, DefinitionRow))
            named.extend(keys.get(path, ()))
    if not named:
        return Resolution(
            files=tuple(extracted), rewrites={}, resolved=True, projection_changed=moved_state
        )
    scope = _scope(before, fresh, gone, moved_state, definitions, named)
    # whole rows of unchanged files: only those in scope (all of them on the full path)
    stored = _stored_relations(store, named if scope is None else scope)
    try:
        resolved = resolve_relations(definitions, _whole(named if scope is None else scope, stored))
        again = scope is not None and _bases_moved(resolved, stored, set(fresh))
    except Exception as exc:  # same fallback as ingestion: relations stay unresolved
        return _failed(extracted, exc, moved_state)
    if again:  # a class hierarchy moved: ``self.m()`` anywhere may follow it
        scope = None
        stored = _stored_relations(store, named)
        try:
            resolved = resolve_relations(definitions, _whole(named, stored))
        except Exception as exc:
            return _failed(extracted, exc, moved_state)
    by_path: dict[str, list[RelationRow]] = {}
    for rel in resolved:
        by_path.setdefault(rel.path, []).append(rel)
    files = tuple(_splice(fr, by_path.get(fr.file.path, [])) for fr in extracted)
    moved: list[str] = []
    for path, rels in by_path.items():
        if path in fresh:
            continue
        old = {r.id: (r.to_symbol, r.resolution) for r in stored[path].values()}
        if any(old.get(r.id) != (r.to_symbol, r.resolution) for r in rels):
            moved.append(path)
    rewrites: dict[str, tuple[Row, ...]] = {}
    if moved:
        full = rows_by_path(store, None, moved)
        for path in moved:
            new = {r.id: r for r in by_path[path]}
            rewrites[path] = tuple(
                new.get(r.id, r) if isinstance(r, RelationRow) else r for r in full.get(path, [])
            )
    return Resolution(
        files=files,
        rewrites=rewrites,
        resolved=True,
        full=scope is None,
        scoped=0 if scope is None else sum(1 for r in scope if r.path not in fresh),
        projection_changed=moved_state,
    )


_STATE_RELATIONS = frozenset({"imports", "inherits", "implements"})
_BASES = frozenset({"inherits", "implements"})


def _projection(rows: Iterable[Row]) -> tuple[tuple[str | None, ...], ...]:
    """What a file contributes to the resolution state (see module docstring)."""
    out: list[tuple[str | None, ...]] = []
    for row in rows:
        if isinstance(row, DefinitionRow):
            out.append(("d", row.symbol, row.name, row.parent, row.kind, row.language))
        elif isinstance(row, RelationRow) and row.relation in _STATE_RELATIONS:
            out.append(("r", row.relation, row.from_symbol, row.to_name, row.language))
    return tuple(out)


def _failed(extracted: Sequence[FileRows], exc: Exception, moved: frozenset[str]) -> Resolution:
    return Resolution(
        files=tuple(extracted),
        rewrites={},
        warnings=(f"relation resolution failed: {type(exc).__name__}: {exc}",),
        projection_changed=moved,
    )


def _whole(
    named: Sequence[RelationRow | RelationKey], stored: Mapping[str, Mapping[str, RelationRow]]
) -> list[RelationRow]:
    """``named`` with each stored key replaced by its row (fresh rows as they are)."""
    return [r if isinstance(r, RelationRow) else stored[r.path][r.id] for r in named]


def _stored_relations(
    store: Store, named: Sequence[RelationRow | RelationKey]
) -> dict[str, dict[str, RelationRow]]:
    """Stored rows of the keys in ``named`` (not the fresh rows): path -> id -> row."""
    ids = [r.id for r in named if isinstance(r, RelationKey)]
    out: dict[str, dict[str, RelationRow]] = {}
    for row in store.get_rows(ids):
        if isinstance(row, RelationRow):
            out.setdefault(row.path, {})[row.id] = row
    return out


def _bases_moved(
    resolved: Sequence[RelationRow],
    stored: Mapping[str, Mapping[str, RelationRow]],
    fresh: set[str],
) -> bool:
    """True when a base-class relation of an unchanged file got another target (every base
    relation is in ``stored``: the scope holds them all)."""
    old: dict[str, tuple[str | None, str]] = {}
    for path, rows in stored.items():
        if path not in fresh:
            for r in rows.values():
                if r.relation in _BASES:
                    old[r.id] = (r.to_symbol, r.resolution)
    return any(
        r.id in old and old[r.id] != (r.to_symbol, r.resolution)
        for r in resolved
        if r.relation in _BASES
    )


def _scope(
    before: Mapping[str, Sequence[Row]],
    fresh: Mapping[str, FileRows],
    gone: Sequence[str],
    moved_state: frozenset[str],
    definitions: Sequence[DefinitionRow],
    relations: Sequence[RelationRow | RelationKey],
) -> list[RelationRow | RelationKey] | None:
    """The relations to resolve again (see :mod:`ragstrata.indexer.reach`), or None for all."""
    old = {p: [r for r in before.get(p, ()) if isinstance(r, DefinitionRow)] for p in moved_state}
    new = {
        p: [r for r in fresh[p].rows if isinstance(r, DefinitionRow)] if p in fresh else []
        for p in moved_state
    }
    changed_bases = any(
        [x for x in _projection(before.get(p, ())) if x[0] == "r" and x[1] != "imports"]
        != [
            x
            for x in _projection(fresh[p].rows if p in fresh else ())
            if x[0] == "r" and x[1] != "imports"
        ]
        for p in moved_state
    )
    if changed_bases:
        return None  # a class hierarchy changed: ``self.m()`` anywhere may move
    appeared = (set(fresh) - set(before)) | set(gone)
    return affected_relations(old, new, definitions, relations, set(fresh) | set(gone), appeared)


def _key(rel: RelationRow) -> tuple[str, str, str, str | None]:
    return (rel.relation, rel.from_symbol, rel.to_name, rel.receiver_type)


def _reuse_targets(
    extracted: Sequence[FileRows], before: Mapping[str, Sequence[Row]]
) -> tuple[FileRows, ...] | None:
    """The fast path: stored targets for every relation, or None when one is new."""
    out: list[FileRows] = []
    for file_rows in extracted:
        known = {
            _key(r): (r.to_symbol, r.resolution)
            for r in before.get(file_rows.file.path, ())
            if isinstance(r, RelationRow)
        }
        rows: list[Row] = []
        for row in file_rows.rows:
            if isinstance(row, RelationRow):
                if _key(row) not in known:
                    return None
                target, how = known[_key(row)]
                if (row.to_symbol, row.resolution) != (target, how):
                    row = replace(row, to_symbol=target, resolution=how)
            rows.append(row)
        out.append(replace(file_rows, rows=tuple(rows)))
    return tuple(out)


def _splice(file_rows: FileRows, relations: list[RelationRow]) -> FileRows:
    """The file's relation rows replaced, position by position, by the resolved ones."""
    if not relations:
        return file_rows
    pending = iter(relations)
    rows: list[Row] = []
    for row in file_rows.rows:
        rows.append(next(pending, row) if isinstance(row, RelationRow) else row)
    return replace(file_rows, rows=tuple(rows))
