"""Repository-level resolution of C2 relations: fill ``to_symbol`` where scope or imports allow.

Order of look-ups for a name as written at a call / base / import site:

1. ``self.m`` / ``this.m`` / ``$this->m``: a member ``m`` of the enclosing class, else the
   only method named ``m`` in the whole repository;
2. the same file: the scopes enclosing the caller, innermost first, then top-level names;
3. imported names (``from m import f``, ``import java.util.List``, ``use a::B``) and imported
   modules / packages / relative JS paths used as prefixes (``m.f``);
4. the caller's own module / package / namespace (Go packages and Java packages span files);
5. a dotted name ``a.b.c``: ``a`` resolved as above, then ``.b.c`` looked up under it.

Anything else keeps ``to_symbol=None``. Pure and deterministic: same input, same output.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace

from ragstrata.ingest.code.lang_python import python_module
from ragstrata.ingest.rows import DefinitionRow, RelationRow

__all__ = ["resolve_relations"]

_SPLIT = re.compile(r"\?\.|->|::|\.|#|\\")
_SEPS = (".", "::", "#", "\\")
_SELF = frozenset({"self", "this", "$this", "cls", "Self", "static"})
_CLASSY = frozenset({"class", "struct", "interface", "trait", "enum", "object", "record", "module"})
_JS = frozenset({"javascript", "typescript", "tsx"})
_JS_EXT = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")


class _Index:
    def __init__(self, definitions: Iterable[DefinitionRow]) -> None:
        self.by_symbol: dict[str, DefinitionRow] = {}
        self.members: dict[tuple[str, str], str] = {}
        self.in_file: dict[tuple[str, str | None, str], str] = {}
        self.methods: dict[str, list[str]] = defaultdict(list)
        self.qualifiers: dict[str, set[str]] = defaultdict(set)  # path -> module prefixes
        self.modules: set[str] = set()
        for d in definitions:
            self.by_symbol.setdefault(d.symbol, d)
            if d.parent:
                self.members.setdefault((d.parent, d.name), d.symbol)
            self.in_file.setdefault((d.path, d.parent, d.name), d.symbol)
            if d.kind == "method" and d.symbol not in self.methods[d.name]:
                self.methods[d.name].append(d.symbol)
            if d.kind == "module":
                self.modules.add(d.symbol)
            elif d.parent is None:
                prefix = _prefix(d.symbol, d.name)
                if prefix:
                    self.qualifiers[d.path].add(prefix)
                    self.modules.add(prefix)
            if d.language == "python":
                self.modules.add(python_module(d.path))

        # (owner, last part) -> symbol, whichever separator joins them
        self.children: dict[tuple[str, str], str] = {}
        for symbol in [*self.by_symbol, *sorted(self.modules)]:
            for sep in _SEPS:
                head, found, tail = symbol.rpartition(sep)
                if found and head and tail:
                    self.children.setdefault((head, tail), symbol)

    def known(self, symbol: str) -> bool:
        return symbol in self.by_symbol or symbol in self.modules

    def member(self, base: str, rest: list[str]) -> str | None:
        """The definition named by ``base`` followed by the parts ``rest``, if it exists."""
        current: str | None = base
        for part in rest:
            current = self.children.get((current, part)) if current is not None else None
        return current if current in self.by_symbol else None


def _prefix(symbol: str, name: str) -> str:
    if symbol == name or not symbol.endswith(name):
        return ""
    head = symbol[: -len(name)]
    for sep in _SEPS:
        if head.endswith(sep):
            return head[: -len(sep)]
    return ""


class _FileImports:
    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.prefixes: list[str] = []  # searched for bare names (star / namespace imports)
        self.modules: set[str] = set()  # imported names usable as ``module.member`` heads


def _normalise_import(rel: RelationRow) -> str:
    name = rel.to_name.strip()
    if rel.language == "python" and name.startswith("."):
        dots = len(name) - len(name.lstrip("."))
        module = python_module(rel.path)
        package = module if rel.path.endswith("__init__.py") else module.rpartition(".")[0]
        parts = package.split(".") if package else []
        parts = parts[: len(parts) - (dots - 1)] if dots > 1 else parts
        rest = name[dots:]
        return ".".join([*parts, rest] if rest else parts)
    if rel.language in _JS and name.startswith("."):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(rel.path), name))
        for ext in _JS_EXT:
            if joined.endswith(ext):
                return joined[: -len(ext)]
        return joined
    if rel.language == "go":
        return name.rsplit("/", 1)[-1]
    return name.removesuffix(".*").removesuffix("::*")


class _Resolver:
    def __init__(self, definitions: Iterable[DefinitionRow], relations: list[RelationRow]) -> None:
        self.index = _Index(definitions)
        self.bases: dict[str, list[str]] = defaultdict(list)  # class -> resolved bases
        self.imports: dict[str, _FileImports] = defaultdict(_FileImports)
        for rel in relations:
            if rel.relation != "imports":
                continue
            full = _normalise_import(rel)
            if not full:
                continue
            entry = self.imports[rel.path]
            alias = _SPLIT.split(full.rstrip("*").rstrip(".:"))[-1]
            if rel.language in _JS:
                alias = ""  # JS imports name a module file: used as a prefix only
            if alias and full != alias:
                entry.aliases.setdefault(alias, full)
            entry.modules.add(full)
            # Python binds bare names only through ``from m import *``
            star = rel.to_name.endswith("*")
            if (rel.language != "python" or star) and full not in entry.prefixes:
                entry.prefixes.append(full)

    def scopes(self, symbol: str, language: str) -> list[str]:
        chain: list[str] = []
        current: str | None = symbol
        while current is not None:
            d = self.index.by_symbol.get(current)
            if d is None:
                break
            if not (language == "python" and d.kind == "class" and current != symbol):
                chain.append(current)
            current = d.parent
        return chain

    def enclosing_class(self, symbol: str) -> str | None:
        current: str | None = symbol
        while current is not None:
            d = self.index.by_symbol.get(current)
            if d is None:
                return None
            if d.kind in _CLASSY:
                return current
            current = d.parent
        return None

    def inherited_member(self, cls: str, member: str) -> str | None:
        """``member`` of ``cls`` or of its resolved bases, nearest first."""
        queue, seen = [cls], {cls}
        while queue:
            current = queue.pop(0)
            hit = self.index.members.get((current, member))
            if hit:
                return hit
            for base in self.bases.get(current, ()):
                if base not in seen:
                    seen.add(base)
                    queue.append(base)
        return None

    def name(self, name: str, rel: RelationRow) -> str | None:
        """Resolve one bare name at ``rel``'s site (steps 2-4)."""
        index = self.index
        for scope in self.scopes(rel.from_symbol, rel.language):
            hit = index.in_file.get((rel.path, scope, name))
            if hit:
                return hit
        hit = index.in_file.get((rel.path, None, name))
        if hit:
            return hit
        imports = self.imports.get(rel.path)
        if imports is not None:
            target = imports.aliases.get(name)
            if target and index.known(target):
                return target
            for prefix in imports.prefixes:
                found = index.member(prefix, [name])
                if found:
                    return found
        for prefix in sorted(index.qualifiers.get(rel.path, ())):
            found = index.member(prefix, [name])
            if found:
                return found
        for prefix in self._package_prefixes(rel):
            found = index.member(prefix, [name])
            if found:
                return found
        return None

    def _package_prefixes(self, rel: RelationRow) -> list[str]:
        index = self.index
        d = index.by_symbol.get(rel.from_symbol)
        if d is not None:
            top = d
            while top.parent and top.parent in index.by_symbol:
                top = index.by_symbol[top.parent]
            prefix = _prefix(top.symbol, top.name)
            return [prefix] if prefix else []
        return [rel.from_symbol] if rel.from_symbol in index.modules else []

    def resolve(self, rel: RelationRow) -> str | None:
        index = self.index
        text = rel.to_name.strip().removeprefix("new ").removeprefix("await ")
        if rel.relation == "contains":
            return text if text in index.by_symbol else None
        if rel.relation == "imports":
            full = _normalise_import(rel)
            if index.known(full):
                return full
            return None
        if not text or "(" in text or " " in text:
            return None
        parts = [p for p in _SPLIT.split(text) if p]
        if not parts:
            return None
        if parts[0] in _SELF:
            if len(parts) != 2:
                return None  # self.a.b(): the type of self.a is unknown here
            member = parts[1]
            cls = self.enclosing_class(rel.from_symbol)
            if cls is not None:
                hit = self.inherited_member(cls, member)
                if hit:
                    return hit
            candidates = index.methods.get(member, [])
            return candidates[0] if len(candidates) == 1 else None
        if text in index.by_symbol and len(parts) > 1:
            return text
        base = self.name(parts[0], rel)
        if base is None:
            imports = self.imports.get(rel.path)
            if imports is not None:
                target = imports.aliases.get(parts[0])
                if target is None and parts[0] in imports.modules:
                    target = parts[0]
                base = target if target and index.known(target) else None
        if base is None:
            return None
        if len(parts) == 1:
            return base if base in index.by_symbol else None
        return index.member(base, parts[1:])


def resolve_relations(
    definitions: Iterable[DefinitionRow], relations: Iterable[RelationRow]
) -> list[RelationRow]:
    """Every relation, in input order, with ``to_symbol`` filled where it can be resolved."""
    rels = list(relations)
    resolver = _Resolver(definitions, rels)
    targets: dict[int, str | None] = {}
    # bases first: ``self.m()`` looks through the class hierarchy
    for i, rel in enumerate(rels):
        if rel.relation in {"inherits", "implements"}:
            target = targets[i] = resolver.resolve(rel)
            if target is not None and target not in resolver.bases[rel.from_symbol]:
                resolver.bases[rel.from_symbol].append(target)
    out: list[RelationRow] = []
    for i, rel in enumerate(rels):
        target = targets[i] if i in targets else resolver.resolve(rel)
        out.append(rel if target == rel.to_symbol else replace(rel, to_symbol=target))
    return out
