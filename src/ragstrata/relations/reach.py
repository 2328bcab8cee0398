"""Which stored relations a change of definitions can reach (the scoped re-resolution).

When an edit adds, removes or changes definitions (but no class hierarchy), only relations
that could *name* one of those definitions may get another target. The resolver
(:mod:`ragstrata.relations.resolve`) reaches a definition only through

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
its ``from_symbol``'s parent chain changed, or when its file imports something in reach.
Every such relation contains one of :meth:`Matcher.mentioning` as a substring, so the store
finds the candidates (:class:`~ragstrata.core.values.RelationScope`) and the matcher decides.
The resolver also gets every import, every base-class relation (with its stored target) and
each file's first relation, as light keys (it learns modules, aliases and class hierarchies
from them); if a base-class relation of an unchanged file then moves, the caller resolves
everything (``self.m()`` follows bases).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ragstrata.ingest.code.lang_python import python_module
from ragstrata.relations.index import DefinitionLike, RelationLike

__all__ = ["Matcher", "NamedRelation", "Reach", "change_reach", "name_tokens"]


class NamedRelation(RelationLike, Protocol):
    """What reach reads of a relation: what the resolver reads, and the receiver's type (a
    whole row, or a store's light :class:`~ragstrata.core.values.RelationKey`)."""

    @property
    def receiver_type(self) -> str | None: ...


_TOKEN = re.compile(r"[A-Za-z0-9_$]+")
_SEPS = (".", "::", "#", "\\", "/", "->")


def name_tokens(text: str) -> set[str]:
    """Identifier tokens of ``text`` (case kept: the resolver is case-sensitive)."""
    return set(_TOKEN.findall(text))


def _last_segments(symbol: str) -> set[str]:
    out = name_tokens(symbol.rsplit(".", 1)[-1])
    for sep in _SEPS:
        if sep in symbol:
            out |= name_tokens(symbol.rpartition(sep)[2])
    return out


def _definition_reach(d: DefinitionLike) -> set[str]:
    return name_tokens(d.name) | _last_segments(d.symbol)


def _modules(defs: Sequence[DefinitionLike]) -> set[str]:
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
    old: Mapping[str, Sequence[DefinitionLike]], new: Mapping[str, Sequence[DefinitionLike]]
) -> list[DefinitionLike]:
    """Definitions that differ between the stored and the new state of each file (all of a
    file's definitions when only their order changed: the resolver is order-sensitive)."""
    out: list[DefinitionLike] = []
    for path in sorted(set(old) | set(new)):
        before, after = list(old.get(path, ())), list(new.get(path, ()))

        def key(d: DefinitionLike) -> tuple[str | None, ...]:
            return (d.symbol, d.name, d.parent, d.kind, d.language)

        a, b = Counter(map(key, before)), Counter(map(key, after))
        if a == b:
            if [key(d) for d in before] != [key(d) for d in after]:
                out.extend([*before, *after])
            continue
        diff = (a - b) + (b - a)
        out.extend(d for d in [*before, *after] if key(d) in diff)
    return out


@dataclass(frozen=True, slots=True)
class Reach:
    """What a change of definitions can reach: identifier ``tokens`` and the ``symbols`` of
    the definitions that changed (see module docstring)."""

    tokens: frozenset[str]
    symbols: frozenset[str]


def change_reach(
    old: Mapping[str, Sequence[DefinitionLike]],
    new: Mapping[str, Sequence[DefinitionLike]],
    appeared: Iterable[str],
) -> Reach:
    """The reach of replacing each file's ``old`` definitions by its ``new`` ones
    (``appeared``: files new, removed or without code before)."""
    reach: set[str] = set()
    symbols: set[str] = set()
    for d in _changed(old, new):
        reach |= _definition_reach(d)
        symbols.add(d.symbol)
    for path in set(old) | set(new):
        for module in _modules(old.get(path, ())) ^ _modules(new.get(path, ())):
            reach |= _last_segments(module)
    for path in appeared:  # a new or removed file's module and folder (modules of files
        reach |= _last_segments(path.rsplit(".", 1)[0])  # without definitions, Go folders)
        reach |= _last_segments(path.rpartition("/")[0] or path)
    return Reach(frozenset(reach), frozenset(symbols))


class Matcher:
    """Which relations of unchanged files a :class:`Reach` reaches; ``parents``: every
    definition's symbol -> its parent (the first definition of a symbol wins)."""

    def __init__(self, reach: Reach, parents: Mapping[str, str | None]) -> None:
        self.reach = reach
        self.parents = parents
        self._chains: dict[str, bool] = {}  # from_symbol -> reached (many relations share one)
        self._touches: dict[tuple[str, str | None], bool] = {}  # (to_name, receiver) -> ...

    def mentioning(self) -> frozenset[str]:
        """Strings of which every reached relation contains one in its ``to_name``,
        ``receiver_type`` or ``from_symbol`` (a superset filter for the store): the reach's
        tokens, the changed symbols and every definition nested in one."""
        out = set(self.reach.tokens) | self.reach.symbols
        out.update(s for s in self.parents if self._chain_changed(s))
        out.discard("")
        if len(out) > 512:
            return frozenset(out)
        kept: list[str] = []  # one that contains another adds nothing
        for text in sorted(out, key=len):
            if not any(k in text for k in kept):
                kept.append(text)
        return frozenset(kept)

    def touched(self, r: NamedRelation) -> bool:
        """The relation names a token of the reach."""
        key = (r.to_name, r.receiver_type)
        found = self._touches.get(key)
        if found is None:
            receiver = r.receiver_type or ""
            # a token of the reach is a substring of the name first (cheaper than splitting)
            found = self._touches[key] = any(
                t in r.to_name or t in receiver for t in self.reach.tokens
            ) and bool(_tokens(r) & self.reach.tokens)
        return found

    def reached(self, r: NamedRelation) -> bool:
        """Named, or its site (a definition on ``from_symbol``'s parent chain) changed."""
        return self.touched(r) or self._from_changed(r.from_symbol)

    def importing(self, relations: Iterable[NamedRelation], replaced: set[str]) -> set[str]:
        """Files of unchanged relations (not in ``replaced``) that import something in reach:
        every relation of theirs is resolved again (aliases)."""
        return {
            r.path
            for r in relations
            if r.relation == "imports" and r.path not in replaced and self.touched(r)
        }

    def _from_changed(self, symbol: str) -> bool:
        found = self._chains.get(symbol)
        if found is None:
            found = self._chains[symbol] = self._chain_changed(symbol) or (
                symbol not in self.parents and bool(_last_segments(symbol) & self.reach.tokens)
            )
        return found

    def _chain_changed(self, symbol: str) -> bool:
        seen: set[str] = set()
        current: str | None = symbol
        while current is not None and current not in seen:
            if current in self.reach.symbols:
                return True
            seen.add(current)
            current = self.parents.get(current)
        return False


def _tokens(rel: NamedRelation) -> set[str]:
    out = name_tokens(rel.to_name)
    receiver = rel.receiver_type
    return out | name_tokens(receiver) if receiver else out
