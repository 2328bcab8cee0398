"""Repository-level resolution of C2 relations: ``to_symbol`` only where the code shows it.

Each relation gets a ``resolution``: ``exact`` (``to_symbol`` set), ``possible`` (not
resolved: a definition of the same name is only a candidate) or ``external`` (the code shows
the target is no definition of this repository). A call is resolved from what the site shows:

1. the receiver: ``self.m`` / ``this.m`` / ``cls.m`` / Rust ``Self::m`` -> a member of the
   enclosing class or of its resolved bases (JavaScript outside a class: the function the
   same file adds to its object, ``res.send = function () { this.set() }``); ``super().m`` / ``super.m`` -> a member of the
   bases; ``x.m`` where ``x`` is a local or parameter -> a member of ``x``'s type (declared, or
   the class it was constructed from, or the declared result of the function that produced
   it; ``receivers.py``); a local of unknown type stays possible, never a module;
2. a bare name: the scopes enclosing the caller (class scopes only where the language lets a
   bare name reach a member: Java, C#, Kotlin, C++), then the file's top level;
3. imported names and modules (``from m import f``, ``import java.util.List``, ``use a::B``,
   Go import paths matched to the repository's package folders, C / C++ ``#include "x.h"``
   of a header of the repository: its functions and macros); an import that names nothing
   in the repository makes the name external;
4. the caller's own module / package / namespace (Go and Java packages span files);
5. a path ``a.b.c`` / ``a::b::c``: ``a`` resolved as above (Rust ``crate`` / ``self`` /
   ``super`` too), then ``b.c`` looked up under it.

Pure and deterministic: same input, same output.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

from ragstrata.core.rows import RelationRow
from ragstrata.ingest.code.receivers import UNKNOWN, literal_type, type_hint
from ragstrata.relations.index import (
    CLASSY,
    JS,
    SPLIT,
    DefinitionLike,
    FileImports,
    Index,
    RelationLike,
    import_alias,
    module_of,
    normalise_import,
    return_type,
    rust_module_files,
)

__all__ = [
    "BASE_RELATIONS",
    "EXACT",
    "EXTERNAL",
    "POSSIBLE",
    "RelationResolver",
    "resolve_relations",
    "resolve_some",
]

EXACT, POSSIBLE, EXTERNAL = "exact", "possible", "external"
BASE_RELATIONS = frozenset({"inherits", "implements"})
"""Relations that build the class hierarchy (resolved before the others)."""
_SELF = frozenset({"self", "this", "$this", "cls", "Self", "static"})
_CLASS_SCOPE = CLASSY | {"module"}  # Ruby modules hold methods
_IMPLICIT_THIS = frozenset({"java", "csharp", "kotlin", "cpp", "ruby"})
_PREFIX_IMPORTS = JS | {"csharp", "cpp", "php"}
_C_FAMILY = frozenset({"c", "cpp"})
_JS_GLOBALS = frozenset({  # names a JavaScript call may start with that are no import
    "console", "Math", "JSON", "Object", "Array", "Promise", "String", "Number", "Boolean",
    "Symbol", "Date", "RegExp", "Error", "Map", "Set", "WeakMap", "WeakSet", "Reflect",
    "Proxy", "BigInt", "Intl", "globalThis", "window", "document", "process", "require",
    "module", "exports", "Buffer", "setTimeout", "clearTimeout", "parseInt", "parseFloat",
})  # fmt: skip
_BAD = frozenset("()[]{} <>,'\"=+*&|!")


class Target(NamedTuple):
    symbol: str | None
    resolution: str


_POSSIBLE = Target(None, POSSIBLE)
_EXTERNAL = Target(None, EXTERNAL)


class _Resolver:
    def __init__(
        self, definitions: Iterable[DefinitionLike], relations: Sequence[RelationLike]
    ) -> None:
        self.index = Index(definitions)
        self.bases: dict[str, list[str]] = defaultdict(list)  # class -> resolved bases
        self.open_bases: set[str] = set()  # classes with a base outside the repository
        # a file's imports are read when one of its relations is resolved (a scoped run
        # resolves a few files' relations among every import of the repository)
        self.imports: dict[str, FileImports] = {}
        self._unread: dict[str, list[RelationLike]] = defaultdict(list)
        self.index.add_files(relations)
        for rel in relations:
            if rel.relation == "imports":
                self._unread[rel.path].append(rel)

    def file_imports(self, path: str) -> FileImports | None:
        """What the file's imports bind (None: it has none)."""
        found = self.imports.get(path)
        if found is None and path in self._unread:
            found = self.imports[path] = FileImports()
            for rel in self._unread.pop(path):
                self._add_import(rel, found)
        return found

    def _add_import(self, rel: RelationLike, entry: FileImports) -> None:
        if rel.language in _C_FAMILY:
            entry.includes += self.index.included(rel.path, rel.to_name)
        full = normalise_import(rel, self.index)
        if not full:
            return
        alias = import_alias(rel) or SPLIT.split(full.rstrip("*").rstrip(".:"))[-1]
        if rel.language == "go" and not self.index.known(full) and not import_alias(rel):
            alias = full.rsplit("/", 1)[-1]
        if rel.language in JS:
            alias = ""  # JS imports name a module file: used as a prefix only
        if alias and full != alias:
            entry.aliases.setdefault(alias, full)
        # ``import os``: no module of this repository (a JS package name may be the
        # repository's own workspace package: never external)
        if alias and not self.index.inside(full) and rel.language not in JS:
            entry.external.add(alias)
        entry.modules.add(full)
        # bare names come from a star import (``from m import *``, ``use a::*``, ``import a.*``);
        # a JS import or a C#/C++ ``using`` does not say which names it binds
        star = rel.to_name.endswith("*")
        if (rel.language in _PREFIX_IMPORTS or star) and full not in entry.prefixes:
            entry.prefixes.append(full)

    def import_target(self, rel: RelationLike) -> Target:
        full = normalise_import(rel, self.index)
        return Target(full, EXACT) if self.index.known(full) else _EXTERNAL

    # -- scopes and classes -------------------------------------------------------------------
    def scopes(self, symbol: str, language: str) -> list[str]:
        chain: list[str] = []
        current: str | None = symbol
        while current is not None:
            d = self.index.by_symbol.get(current)
            if d is None:
                break
            classy = self.index.kinds[current] <= CLASSY and current != symbol
            if not classy or language in _IMPLICIT_THIS:
                chain.append(current)
            current = d.parent
        return chain

    def enclosing_class(self, symbol: str) -> str | None:
        current: str | None = symbol
        while current is not None:
            d = self.index.by_symbol.get(current)
            if d is None:
                return current if current != symbol else None  # Go: type in another file
            if d.kind in _CLASS_SCOPE:
                return current
            current = d.parent
        return None

    def inherited_member(self, cls: str, member: str, *, skip_self: bool = False) -> Target:
        """``member`` of ``cls`` or of its resolved bases, nearest first. Not found is only
        possible: a subclass may define it (``self.hook()``), or a base outside the
        repository; an external base class with no base here makes ``super()`` external."""
        queue, seen = [cls], {cls}
        while queue:
            current = queue.pop(0)
            hit = (
                None if skip_self and current == cls else self.index.members.get((current, member))
            )
            if hit:
                return Target(hit, EXACT)
            for base in self.bases.get(current, ()):
                if base not in seen:
                    seen.add(base)
                    queue.append(base)
        if skip_self and not self.bases.get(cls) and cls in self.open_bases:
            return _EXTERNAL
        return _POSSIBLE

    # -- names ----------------------------------------------------------------------------------
    def name(self, name: str, rel: RelationRow) -> Target:
        """Resolve one bare name at ``rel``'s site (steps 2-4)."""
        index = self.index
        for scope in self.scopes(rel.from_symbol, rel.language):
            hit = index.in_file.get((rel.path, scope, name))
            if hit:
                return Target(hit, EXACT)
            if rel.language in _IMPLICIT_THIS and index.is_class(scope):
                inherited = self.inherited_member(scope, name, skip_self=True)
                if inherited.symbol:
                    return inherited
        hit = index.in_file.get((rel.path, None, name))
        if hit and not (rel.language in JS and index.kinds[hit] == {"property"}):
            return Target(hit, EXACT)  # (a JS getter or added property binds no bare name)
        imports = self.file_imports(rel.path)
        if imports is not None:
            for header in imports.includes:  # C: a function or macro of an included header
                hit = index.in_file.get((header, None, name))
                if hit:
                    return Target(hit, EXACT)
            target = imports.aliases.get(name)
            if target and not index.known(target) and rel.language == "rust":
                target = self._rust_reexported(target, rel) or target
            if target and index.known(target):
                return Target(target, EXACT)
            if name in imports.external:
                return _EXTERNAL
            for prefix in imports.prefixes:
                found = index.member(prefix, [name])
                if found:
                    return Target(found, EXACT)
        for prefix in [*sorted(index.qualifiers.get(rel.path, ())), *self._package_prefixes(rel)]:
            found = index.member(prefix, [name])
            if found and not (rel.language in JS and index.kinds[found] == {"property"}):
                return Target(found, EXACT)
        if imports is not None and name in imports.modules and index.known(name):
            return Target(name, EXACT)
        if imports is not None and name in imports.aliases:
            return _POSSIBLE  # imported from this repository, but no definition (a variable)
        if rel.language in JS and name not in _JS_GLOBALS:
            return _POSSIBLE  # JS imports do not say which names they bind
        return _POSSIBLE if name in index.names else _EXTERNAL

    def _package_prefixes(self, rel: RelationRow) -> list[str]:
        index = self.index
        d = index.by_symbol.get(rel.from_symbol)
        if d is not None:
            top = d
            while top.parent and top.parent in index.by_symbol:
                top = index.by_symbol[top.parent]
            prefix = top.symbol[: -len(top.name)].rstrip(".:") if top.symbol != top.name else ""
            return [prefix] if prefix else []
        return [rel.from_symbol] if rel.from_symbol in index.modules else []

    def path(self, parts: list[str], rel: RelationRow) -> Target:
        """``a.b.c`` (step 5): the head resolved at the site, the rest under it."""
        index = self.index
        head = parts[0]
        if rel.language == "rust" and head in {"crate", "self", "super"}:
            module = "crate" if head == "crate" else module_of(rel)
            if head == "super":
                module = module.rpartition("::")[0] or module
            base = Target(module, EXACT)
        elif head == "Self":
            cls = self.enclosing_class(rel.from_symbol)
            base = Target(cls, EXACT) if cls else _POSSIBLE
        else:
            base = self.name(head, rel)
        if base.symbol is None or len(parts) == 1:
            if base.symbol is not None and base.symbol not in index.by_symbol:
                return _POSSIBLE  # a module is not callable
            return base
        found = index.member(base.symbol, parts[1:]) or self._reexported(base.symbol, parts[1:])
        if found:
            return Target(found, EXACT)
        if len(parts) == 2 and index.is_class(base.symbol):
            return self.inherited_member(base.symbol, parts[1])
        return _POSSIBLE

    def _reexported(self, module: str, rest: list[str]) -> str | None:
        """``pkg.Name`` where ``pkg/__init__.py`` imports ``Name`` from a submodule."""
        path = self.index.module_paths.get(module)
        imports = self.file_imports(path) if path else None
        target = imports.aliases.get(rest[0]) if imports is not None else None
        if target is None or not self.index.known(target):
            return None
        return target if len(rest) == 1 else self.index.member(target, rest[1:])

    def _rust_reexported(self, target: str, rel: RelationRow) -> str | None:
        """``use crate::parse_spec;`` where the crate root only ``use``s ``parser::parse_spec``:
        the definition the named module's own import binds (the crate of ``rel``'s file)."""
        module, _, last = target.rpartition("::")
        for path in rust_module_files(module, rel.path):
            imports = self.file_imports(path)
            found = imports.aliases.get(last) if imports is not None else None
            if found and self.index.known(found):
                return found
        return None

    # -- receivers ------------------------------------------------------------------------------
    def type_of(self, hint: str, rel: RelationRow, depth: int = 0) -> Target:
        """The class a receiver hint names (see ``receivers.py``), at ``rel``'s site."""
        if hint == UNKNOWN or depth > 3:
            return _POSSIBLE
        if hint.startswith("call:"):
            made = self.call(hint[5:], rel, None)
            d = self.index.by_symbol.get(made.symbol) if made.symbol else None
            if d is None:
                return made
            if d.kind in CLASSY:
                return made
            result = return_type(d)
            if not result:
                return _POSSIBLE
            if result.strip().startswith("Self") and d.parent:
                return Target(d.parent, EXACT)
            site = replace(rel, path=d.path, from_symbol=d.symbol, language=d.language)
            return self.type_of(type_hint(result), site, depth + 1)
        if hint == "Self":
            cls = self.enclosing_class(rel.from_symbol)
            return Target(cls, EXACT) if cls else _POSSIBLE
        found = self.path([p for p in SPLIT.split(hint) if p], rel)
        if found.symbol is not None and not self.index.is_class(found.symbol):
            return _POSSIBLE
        return found

    def call(self, text: str, rel: RelationRow, hint: str | None) -> Target:
        index = self.index
        text = text.strip().removeprefix("new ").removeprefix("await ")
        if text.endswith("!") and rel.language == "rust":  # a macro
            found = self.path([p for p in SPLIT.split(text[:-1]) if p], rel)
            d = index.by_symbol.get(found.symbol) if found.symbol else None
            return found if d is not None and d.kind == "macro" else _EXTERNAL
        super_call = text.startswith("super()") and rel.language == "python"
        if super_call or text.startswith("super."):
            text = "super." + text.partition(".")[2] if "." in text else "super"
        if hint is not None and hint.startswith("call:") and text.split("(")[0] != text:
            # ``f().m()``: a member of what ``f`` returns (receivers.py)
            method = SPLIT.split(text)[-1]
            cls_t = self.type_of(hint, rel)
            return self.inherited_member(cls_t.symbol, method) if cls_t.symbol else cls_t
        built, _, method = text.rpartition(".")
        if hint is not None and literal_type(built) is not None:
            # ``Iterator[T]{}.ForEach()``: a method of the type the literal builds (receivers.py)
            cls_t = self.type_of(hint, rel)
            return self.inherited_member(cls_t.symbol, method) if cls_t.symbol else cls_t
        plain = text.replace("->", ".").replace("?.", ".").rstrip("!?")  # Ruby ``save!``
        if not text or any(c in _BAD for c in plain):
            return _POSSIBLE
        parts = [p for p in SPLIT.split(text) if p]
        if not parts:
            return _POSSIBLE
        if parts[0] == "super" and rel.language != "rust":
            cls = self.enclosing_class(rel.from_symbol)
            if cls is None:
                return _POSSIBLE
            if len(parts) == 1:
                if rel.language == "python":
                    return _EXTERNAL  # super() itself makes a proxy object
                member = "constructor" if rel.language in JS else cls.rsplit(".", 1)[-1]
                return self.inherited_member(cls, member, skip_self=True)
            if len(parts) != 2:
                return _POSSIBLE
            return self.inherited_member(cls, parts[1], skip_self=True)
        if parts[0] in _SELF and not (rel.language == "rust" and "::" in text):
            if len(parts) <= 2:
                cls = self.enclosing_class(rel.from_symbol)
                if len(parts) == 1:  # cls(...) / self(...)
                    return Target(cls, EXACT) if parts[0] == "cls" and cls else _POSSIBLE
                if cls:
                    return self.inherited_member(cls, parts[1])
                return self._js_object_member(parts[1], rel) if rel.language in JS else _POSSIBLE
            if hint is None or len(parts) != 3:
                return _POSSIBLE
            cls_t = self.type_of(hint, rel)
            return self.inherited_member(cls_t.symbol, parts[2]) if cls_t.symbol else cls_t
        if hint is not None:  # the receiver is a local name: never a module or a global
            if len(parts) < 2:
                return _POSSIBLE
            cls_t = self.type_of(hint, rel)
            return self.inherited_member(cls_t.symbol, parts[-1]) if cls_t.symbol else cls_t
        # a fully qualified name (``com.x.Y.m``, ``crate::a::b``); Go names a package by its
        # import, never by the package name alone
        if len(parts) > 1 and text in index.by_symbol and rel.language != "go":
            return Target(text, EXACT)
        return self.path(parts, rel)

    def _js_object_member(self, name: str, rel: RelationRow) -> Target:
        """``this.m()`` in a top-level function of a CommonJS file that fills in one object
        (``res.send = function () { this.set(...) }``): ``this`` is that object, so ``m`` is
        the function the same file adds to it."""
        caller = self.index.by_symbol.get(rel.from_symbol)
        if caller is None or caller.parent is not None or caller.path != rel.path:
            return _POSSIBLE
        hit = self.index.in_file.get((rel.path, None, name))
        return Target(hit, EXACT) if hit else _POSSIBLE

    def add_base(self, rel: RelationLike, target: Target) -> None:
        """Record what a base-class relation resolved to (None: a base outside the repository)."""
        if target.symbol is None:
            self.open_bases.add(rel.from_symbol)
        elif target.symbol not in self.bases[rel.from_symbol]:
            self.bases[rel.from_symbol].append(target.symbol)

    def resolve(self, rel: RelationRow) -> Target:
        index = self.index
        text = rel.to_name.strip()
        if rel.relation == "contains":
            return Target(text, EXACT) if text in index.by_symbol else _POSSIBLE
        if rel.relation == "imports":
            return self.import_target(rel)
        if rel.relation == "calls":
            return self.call(text, rel, rel.receiver_type)
        if not text or any(c in _BAD for c in text.replace(" ", "")):
            return _POSSIBLE
        parts = [p for p in SPLIT.split(text) if p]
        if len(parts) > 1 and text in index.by_symbol:
            return Target(text, EXACT)
        return self.path(parts, rel) if parts else _POSSIBLE


def resolve_relations(
    definitions: Iterable[DefinitionLike], relations: Iterable[RelationRow]
) -> list[RelationRow]:
    """Every relation, in input order, with ``to_symbol`` and ``resolution`` filled."""
    rels = list(relations)
    found, _ = _resolve(definitions, rels, range(len(rels)))
    return [found[i] for i in range(len(rels))]


def resolve_some(
    definitions: Iterable[DefinitionLike],
    relations: Sequence[RelationRow | RelationLike],
    wanted: Collection[int],
) -> tuple[dict[int, RelationRow], list[int]]:
    """The relations at the positions ``wanted`` (whole rows), resolved as
    :func:`resolve_relations` resolves them among all relations of the repository — when
    ``relations`` holds, in repository order, every import, every base-class relation and at
    least one relation of each file, and the base-class relations not wanted keep their
    stored targets (they build the class hierarchy as they are). Returns position -> row,
    and the positions of imports not wanted whose stored target no longer holds (then the
    premise failed: the caller resolves everything)."""
    return _resolve(definitions, relations, wanted, check_imports=True)


def _resolve(
    definitions: Iterable[DefinitionLike],
    rels: Sequence[RelationRow | RelationLike],
    wanted: Collection[int],
    check_imports: bool = False,
) -> tuple[dict[int, RelationRow], list[int]]:
    resolver = _Resolver(definitions, rels)
    wanted = set(wanted)
    # an import's target depends on the index alone: cheap to check every one
    stale = [
        i
        for i, rel in enumerate(rels)
        if check_imports
        and rel.relation == "imports"
        and i not in wanted
        and resolver.import_target(rel).symbol != rel.to_symbol
    ]
    targets: dict[int, Target] = {}
    # bases first: ``self.m()`` looks through the class hierarchy
    for i, rel in enumerate(rels):
        if rel.relation in BASE_RELATIONS:
            if i in wanted:
                target = targets[i] = resolver.resolve(_whole(rel))
            else:
                target = Target(rel.to_symbol, EXACT if rel.to_symbol else POSSIBLE)
            resolver.add_base(rel, target)
    out: dict[int, RelationRow] = {}
    for i in sorted(wanted):
        rel = _whole(rels[i])
        out[i] = _with_target(rel, targets[i] if i in targets else resolver.resolve(rel))
    return out, stale


class RelationResolver:
    """Resolves relations one at a time, each exactly as :func:`resolve_relations` resolves it
    among all relations of the repository, from a *context* that holds, in repository order,
    every import, every base-class relation and at least one relation of each file (light keys
    will do, base-class relations need their whole rows: they are resolved here, first, and
    build the class hierarchy). What it holds grows with the definitions and that context, not
    with the relations resolved: the indexer resolves a first index a file at a time."""

    def __init__(
        self,
        definitions: Iterable[DefinitionLike],
        context: Sequence[RelationRow | RelationLike],
    ) -> None:
        self._resolver = _Resolver(definitions, context)
        self._bases: dict[str, Target] = {}  # base-class relation id -> its target
        for rel in context:
            if rel.relation in BASE_RELATIONS:
                target = self._bases[_whole(rel).id] = self._resolver.resolve(_whole(rel))
                self._resolver.add_base(rel, target)

    def resolve(self, rel: RelationRow) -> RelationRow:
        """``rel`` with ``to_symbol`` and ``resolution`` filled (``rel`` itself if unchanged)."""
        target = self._bases.get(rel.id) if rel.relation in BASE_RELATIONS else None
        return _with_target(rel, target or self._resolver.resolve(rel))


def _with_target(rel: RelationRow, target: Target) -> RelationRow:
    if (target.symbol, target.resolution) == (rel.to_symbol, rel.resolution):
        return rel
    return replace(rel, to_symbol=target.symbol, resolution=target.resolution)


def _whole(rel: RelationRow | RelationLike) -> RelationRow:
    if not isinstance(rel, RelationRow):
        raise TypeError(f"a wanted relation must be a whole row, got {type(rel).__name__}")
    return rel
