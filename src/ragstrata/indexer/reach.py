"""Which stored relations a change of definitions can reach (the scoped re-resolution).

When an edit adds, removes or changes definitions (but no class hierarchy), only relations
that could *name* one of those definitions may get another target. The resolver
(:mod:`ragstrata.ingest.code.resolve`) reaches a definition only through

- the parts of a relation's ``to_name`` and ``receiver_type`` (bare names, ``a.b.c`` parts,
  ``self.m``, imports, all split at separators) matched against a definition's name or the
  last segment of its symbol after any separator, or the last segment of a module, package or
  folder name that may have appeared or disappeared (a file's first or last definition, a
  file added or removed);
- the definitions enclosing the relation's ``from_symbol`` (scopes, enclosing class);
- the file's imports, which bind aliases (``import numpy as np``): a file that imports
  anything in reach is resolved again whole.

The *reach* of a change is the set of identifier tokens of those names (an over-approximation:
a relation sharing a token is resolved again even if its target stays). A relation of an
unchanged file is resolved again when it shares a token with the reach, when a definition on
its ``from_symbol``'s parent chain changed, or when its file imports something in reach. The
resolver also gets every import, every base-class relation and each file's first relation
(it learns modules, aliases and class hierarchies from them); if a base-class relation of an
unchanged file then moves, the caller resolves everything (``self.m()`` follows bases).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, TypeVar

from ragstrata.ingest.code.lang_python import python_module
from ragstrata.ingest.rows import DefinitionRow

__all__ = ["NamedRelation", "affected_relations", "name_tokens"]


class NamedRelation(Protocol):
    """What reach reads of a relation: a whole row, or a store's light
    :class:`~ragstrata.store.values.RelationKey`."""

    @property
    def path(self) -> str: ...
    @property
    def relation(self) -> str: ...
    @property
    def from_symbol(self) -> str: ...
    @property
    def to_name(self) -> str: ...
    @property
    def receiver_type(self) -> str | None: ...


R = TypeVar("R", bound=NamedRelation)

_TOKEN = re.compile(r"[A-Za-z0-9_$]+")
_SEPS = (".", "::", "#", "\\", "/", "->")
_BASES = frozenset({"inherits", "implements"})


def name_tokens(text: str) -> set[str]:
    """Identifier tokens of ``text`` (case kept: the resolver is case-sensitive)."""
    return set(_TOKEN.findall(text))


def _last_segments(symbol: str) -> set[str]:
    out = name_tokens(symbol.rsplit(".", 1)[-1])
    for sep in _SEPS:
        if sep in symbol:
            out |= name_tokens(symbol.rpartition(sep)[2])
    return out


def _definition_reach(d: DefinitionRow) -> set[str]:
    return name_tokens(d.name) | _last_segments(d.symbol)


def _modules(defs: Sequence[DefinitionRow]) -> set[str]:
    """The module / package names a file's definitions make known to the resolver."""
    out: set[str] = set()
    for d in defs:
        if d.kind == "module":
            out.add(d.symbol)
        elif d.parent is None and d.symbol != d.name and d.symbol.endswith(d.name):
            out.add(d.symbol[: -len(d.name)].rstrip(".:#\\/"))
        if d.language == "python":
            out.add(python_module(d.path))
    return out


def _changed(
    old: Mapping[str, Sequence[DefinitionRow]], new: Mapping[str, Sequence[DefinitionRow]]
) -> list[DefinitionRow]:
    """Definitions that differ between the stored and the new state of each file (all of a
    file's definitions when only their order changed: the resolver is order-sensitive)."""
    out: list[DefinitionRow] = []
    for path in sorted(set(old) | set(new)):
        before, after = list(old.get(path, ())), list(new.get(path, ()))

        def key(d: DefinitionRow) -> tuple[str | None, ...]:
            return (d.symbol, d.name, d.parent, d.kind, d.language)

        a, b = Counter(map(key, before)), Counter(map(key, after))
        if a == b:
            if [key(d) for d in before] != [key(d) for d in after]:
                out.extend([*before, *after])
            continue
        diff = (a - b) + (b - a)
        out.extend(d for d in [*before, *after] if key(d) in diff)
    return out


def affected_relations(
    old: Mapping[str, Sequence[DefinitionRow]],
    new: Mapping[str, Sequence[DefinitionRow]],
    definitions: Iterable[DefinitionRow],
    relations: Sequence[R],
    replaced: set[str],
    appeared: set[str],
) -> list[R]:
    """The relations to hand the resolver, in their original order: every relation of the
    ``replaced`` files (``appeared``: those new, removed or without code before), every
    base-class relation, the relations of other files the
    change can reach, every import and each file's first relation (see module docstring)."""
    changed = _changed(old, new)
    reach: set[str] = set()
    symbols: set[str] = set()
    for d in changed:
        reach |= _definition_reach(d)
        symbols.add(d.symbol)
    for path in set(old) | set(new):
        for module in _modules(old.get(path, ())) ^ _modules(new.get(path, ())):
            reach |= _last_segments(module)
    for path in appeared:  # a new or removed file's module and folder (modules of files
        reach |= _last_segments(path.rsplit(".", 1)[0])  # without definitions, Go folders)
        reach |= _last_segments(path.rpartition("/")[0] or path)
    parents: dict[str, str | None] = {}
    for d in definitions:
        parents.setdefault(d.symbol, d.parent)

    chains: dict[str, bool] = {}  # from_symbol -> chain_changed (many relations share one)
    touches: dict[tuple[str, str | None], bool] = {}  # (to_name, receiver) -> shares a token

    def touched(r: NamedRelation) -> bool:
        key = (r.to_name, r.receiver_type)
        found = touches.get(key)
        if found is None:
            found = touches[key] = bool(_tokens(r) & reach)
        return found

    def from_changed(symbol: str) -> bool:
        found = chains.get(symbol)
        if found is None:
            found = chains[symbol] = chain_changed(symbol) or (
                symbol not in parents and bool(_last_segments(symbol) & reach)
            )
        return found

    def chain_changed(symbol: str) -> bool:
        seen: set[str] = set()
        current: str | None = symbol
        while current is not None and current not in seen:
            if current in symbols:
                return True
            seen.add(current)
            current = parents.get(current)
        return False

    importing = {
        r.path
        for r in relations
        if r.relation == "imports" and r.path not in replaced and touched(r)
    }
    hit: set[int] = set()
    for i, r in enumerate(relations):
        if r.path in replaced:
            continue
        if r.path in importing or touched(r) or from_changed(r.from_symbol):
            hit.add(i)
    # every file's imports and first relation: the resolver learns modules and aliases from them
    first: set[int] = set()
    seen: set[str] = set()
    for i, r in enumerate(relations):
        if r.path not in seen:
            seen.add(r.path)
            first.add(i)
    return [
        r
        for i, r in enumerate(relations)
        if r.path in replaced
        or i in hit
        or i in first
        or r.relation in _BASES
        or r.relation == "imports"
    ]


def _tokens(rel: NamedRelation) -> set[str]:
    out = name_tokens(rel.to_name)
    receiver = rel.receiver_type
    return out | name_tokens(receiver) if receiver else out
