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
- **Scoped path.** Otherwise, unless a changed file's base classes changed: the relations of
  the changed files and those of unchanged files the change can reach
  (:mod:`ragstrata.relations.reach`) are resolved again among every definition (light keys from
  the store) and, as context, every import and base-class relation and each file's first
  relation (light keys: no row decoded but the reached ones). If a reached base-class
  relation moves, the full path follows.
- **Full path.** Otherwise ALL relations are resolved again, exactly as a clean run does: rows of unchanged files are read
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

from ragstrata.core.rows import DefinitionRow, FileRows, Layer, RelationRow, Row
from ragstrata.core.values import DefinitionKey, RelationKey, RelationScope
from ragstrata.relations.index import DefinitionLike
from ragstrata.relations.reach import Matcher, change_reach
from ragstrata.relations.resolve import BASE_RELATIONS
from ragstrata.store.protocols import Store
from ragstrata.store.scan import rows_by_path

__all__ = ["Resolution", "resolve_changes"]


@dataclass(frozen=True, slots=True)
class Resolution:
    """Extracted files with relations resolved, and unchanged files whose rows must be
    rewritten because a relation target moved (path -> row id -> its new relation row; the
    file's other rows stay as stored)."""

    files: tuple[FileRows, ...]
    rewrites: Mapping[str, Mapping[str, RelationRow]]
    warnings: tuple[str, ...] = ()
    resolved: bool = False  # False: nothing needed resolving
    full: bool = False  # True: every relation of the repository was resolved again
    scoped: int = 0  # relations of unchanged files resolved again (the scoped path)
    projection_changed: frozenset[str] = frozenset()


def resolve_changes(store: Store, extracted: Sequence[FileRows], gone: Sequence[str]) -> Resolution:
    """Resolve relations after re-extracting ``extracted`` and dropping ``gone`` (changed
    paths are in ``extracted``; removed ones in ``gone``)."""
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
    definitions = _definitions(store.scan_definition_keys(), fresh, replaced)
    try:
        scoped = None
        if not _bases_changed(before, fresh, moved_state):
            scoped = _scoped(store, before, fresh, gone, moved_state, definitions)
        if scoped is None:  # a class hierarchy moved: ``self.m()`` anywhere may follow it
            resolved, stored = _resolve_all(store, fresh, replaced, definitions)
        else:
            resolved, stored = scoped
    except _ResolverFailed as failed:  # same fallback as ingestion: relations stay unresolved
        return _failed(extracted, failed.error, moved_state)
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
    rewrites = {path: {r.id: r for r in by_path[path]} for path in moved}
    return Resolution(
        files=files,
        rewrites=rewrites,
        resolved=True,
        full=scoped is None,
        scoped=0 if scoped is None else sum(1 for r in resolved if r.path not in fresh),
        projection_changed=moved_state,
    )


_STATE_RELATIONS = frozenset({"imports", "inherits", "implements"})


def _projection(rows: Iterable[Row]) -> tuple[tuple[str | None, ...], ...]:
    """What a file contributes to the resolution state (see module docstring)."""
    out: list[tuple[str | None, ...]] = []
    for row in rows:
        if isinstance(row, DefinitionRow):
            out.append(("d", row.symbol, row.name, row.parent, row.kind, row.language))
        elif isinstance(row, RelationRow) and row.relation in _STATE_RELATIONS:
            out.append(("r", row.relation, row.from_symbol, row.to_name, row.language))
    return tuple(out)


class _ResolverFailed(Exception):
    """The resolver raised (a bug on odd input): the run keeps going, relations unresolved."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _failed(extracted: Sequence[FileRows], exc: Exception, moved: frozenset[str]) -> Resolution:
    return Resolution(
        files=tuple(extracted),
        rewrites={},
        warnings=(f"relation resolution failed: {type(exc).__name__}: {exc}",),
        projection_changed=moved,
    )


def _definitions(
    stored: Iterable[DefinitionKey], fresh: Mapping[str, FileRows], replaced: set[str]
) -> list[DefinitionLike]:
    """Every definition of the repository after the change, in path then row order: the
    stored keys of unchanged files, the extracted rows of the others."""
    new = {path: [r for r in fr.rows if isinstance(r, DefinitionRow)] for path, fr in fresh.items()}
    pending = sorted(new)
    out: list[DefinitionLike] = []
    j = 0
    for key in stored:
        while j < len(pending) and pending[j] < key.path:
            out.extend(new[pending[j]])
            j += 1
        if key.path not in replaced:
            out.append(key)
    for path in pending[j:]:
        out.extend(new[path])
    return out


def _bases_changed(
    before: Mapping[str, Sequence[Row]], fresh: Mapping[str, FileRows], moved: frozenset[str]
) -> bool:
    """A changed file's base-class relations changed: ``self.m()`` anywhere may move."""

    def bases(rows: Iterable[Row]) -> list[tuple[str | None, ...]]:
        return [x for x in _projection(rows) if x[0] == "r" and x[1] != "imports"]

    return any(
        bases(before.get(p, ())) != bases(fresh[p].rows if p in fresh else ()) for p in moved
    )


def _resolve_all(
    store: Store,
    fresh: Mapping[str, FileRows],
    replaced: set[str],
    definitions: Sequence[DefinitionLike],
) -> tuple[list[RelationRow], dict[str, dict[str, RelationRow]]]:
    """Every relation of the repository resolved again (the full path), and the stored rows
    of the unchanged files: path -> id -> row."""
    from ragstrata.relations.resolve import resolve_relations

    keys = [k for k in store.scan_relation_keys() if k.path not in replaced]
    stored = _stored_relations(store, keys)
    named: dict[str, list[RelationRow]] = {}
    for key in keys:
        named.setdefault(key.path, []).append(stored[key.path][key.id])
    for path, fr in fresh.items():
        named[path] = [r for r in fr.rows if isinstance(r, RelationRow)]
    rels = [r for path in sorted(named) for r in named[path]]
    try:
        return resolve_relations(definitions, rels), stored
    except Exception as exc:
        raise _ResolverFailed(exc) from exc


_MAX_MENTIONING = 48
"""More strings than this (a large change): the scoped path reads every relation key and
matches in Python instead of asking the store for a substring search per string."""


def _scoped(
    store: Store,
    before: Mapping[str, Sequence[Row]],
    fresh: Mapping[str, FileRows],
    gone: Sequence[str],
    moved_state: frozenset[str],
    definitions: Sequence[DefinitionLike],
) -> tuple[list[RelationRow], dict[str, dict[str, RelationRow]]] | None:
    """The scoped path (see :mod:`ragstrata.relations.reach`): the relations of the changed
    files and those of unchanged files the change reaches, resolved again; None when a
    base-class relation of an unchanged file moved (the caller resolves everything)."""
    from ragstrata.relations.resolve import resolve_some

    replaced = set(fresh) | set(gone)
    old = {p: [r for r in before.get(p, ()) if isinstance(r, DefinitionRow)] for p in moved_state}
    new = {
        p: [r for r in fresh[p].rows if isinstance(r, DefinitionRow)] if p in fresh else []
        for p in moved_state
    }
    appeared = (set(fresh) - set(before)) | set(gone)
    parents: dict[str, str | None] = {}
    for d in definitions:
        parents.setdefault(d.symbol, d.parent)
    matcher = Matcher(change_reach(old, new, appeared), parents)
    mentioning = matcher.mentioning()
    wide = len(mentioning) > _MAX_MENTIONING
    scope = None if wide else RelationScope(_STATE_RELATIONS, mentioning)
    keys = [k for k in store.scan_relation_keys(None, scope) if k.path not in replaced]
    by_path: dict[str, list[RelationKey]] = {}
    for key in keys:
        by_path.setdefault(key.path, []).append(key)
    if not wide:  # each file's first relation, where the first query did not get it
        for key in store.scan_relation_keys(None, RelationScope(first_of_file=True)):
            if key.path not in replaced:
                known = by_path.setdefault(key.path, [])
                if not known or known[0].id != key.id:
                    known.insert(0, key)
    importing = matcher.importing(keys, replaced)
    if importing and not wide:  # the whole file: each of its relations may use the alias
        whole: dict[str, list[RelationKey]] = {}
        for key in store.scan_relation_keys(sorted(importing)):
            whole.setdefault(key.path, []).append(key)
        by_path.update(whole)
    hits = [k for p, ks in by_path.items() for k in ks if p in importing or matcher.reached(k)]
    stored = _stored_relations(store, hits)
    hit_ids = {k.id for k in hits}
    items: list[RelationRow | RelationKey] = []
    wanted: list[int] = []
    for path in sorted(set(by_path) | set(fresh)):
        if path in fresh:
            for row in fresh[path].rows:
                if isinstance(row, RelationRow):
                    wanted.append(len(items))
                    items.append(row)
            continue
        for key in by_path[path]:
            if key.id in hit_ids:
                wanted.append(len(items))
                items.append(stored[path][key.id])
            elif wide and not (key.relation in _STATE_RELATIONS or key is by_path[path][0]):
                continue
            else:
                items.append(key)
    try:
        found, stale = resolve_some(definitions, items, wanted)
    except Exception as exc:
        raise _ResolverFailed(exc) from exc
    resolved = [found[i] for i in wanted]
    if stale or _bases_moved(resolved, stored, set(fresh)):
        return None  # an import or a class hierarchy moved beyond the reach
    return resolved, stored


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
                if r.relation in BASE_RELATIONS:
                    old[r.id] = (r.to_symbol, r.resolution)
    return any(
        r.id in old and old[r.id] != (r.to_symbol, r.resolution)
        for r in resolved
        if r.relation in BASE_RELATIONS
    )


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
