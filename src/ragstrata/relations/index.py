"""The repository's definitions and each file's imports, as the resolver looks them up."""

from __future__ import annotations

import functools
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Protocol

from ragstrata.core.languages import rust_module
from ragstrata.ingest.code.lang_python import python_module

__all__ = [
    "CLASSY",
    "JS",
    "SPLIT",
    "DefinitionLike",
    "FileImports",
    "Index",
    "RelationLike",
    "import_alias",
    "module_of",
    "normalise_import",
    "prefix_of",
    "return_type",
    "rust_module_files",
]

SPLIT = re.compile(r"\?\.|->|::|\.|#|\\")
SEPS = (".", "::", "#", "\\")
CLASSY = frozenset({"class", "struct", "interface", "trait", "enum", "object", "record", "union"})
JS = frozenset({"javascript", "typescript", "tsx"})
_JS_EXT = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")


class DefinitionLike(Protocol):
    """What the resolver reads of a definition: a :class:`DefinitionRow`, or a store's light
    key of one."""

    @property
    def path(self) -> str: ...
    @property
    def symbol(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def parent(self) -> str | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def language(self) -> str: ...
    @property
    def signature(self) -> str: ...


class RelationLike(Protocol):
    """What the resolver reads of a relation it only learns from (imports, base classes, a
    file's presence): a :class:`RelationRow`, or a store's light key of one."""

    @property
    def path(self) -> str: ...
    @property
    def relation(self) -> str: ...
    @property
    def from_symbol(self) -> str: ...
    @property
    def to_name(self) -> str: ...
    @property
    def to_symbol(self) -> str | None: ...
    @property
    def language(self) -> str: ...


class Index:
    """Definitions by symbol, by (parent, name), by (path, parent, name); modules; Go dirs."""

    def __init__(self, definitions: Iterable[DefinitionLike]) -> None:
        self.by_symbol: dict[str, DefinitionLike] = {}
        self.members: dict[tuple[str, str], str] = {}
        self.in_file: dict[tuple[str, str | None, str], str] = {}
        self.names: set[str] = set()  # every definition name, for "defined nowhere" checks
        self.qualifiers: dict[str, set[str]] = defaultdict(set)  # path -> module prefixes
        self.modules: set[str] = set()
        self.go_dirs: dict[str, str] = {}  # Go folder -> its package name
        self.module_paths: dict[str, str] = {}  # Python module -> its file
        self.kinds: dict[str, set[str]] = defaultdict(set)  # a TS function + interface share one
        self.paths: set[str] = set()  # files with a definition
        self.method_owners: set[str] = set()  # Go types with methods (`type Celsius float64`)
        for d in definitions:
            self.paths.add(d.path)
            self.by_symbol.setdefault(d.symbol, d)
            self.kinds[d.symbol].add(d.kind)
            self.names.add(d.name)
            if d.parent:
                self.members.setdefault((d.parent, d.name), d.symbol)
                if d.kind == "method" and d.language == "go":
                    self.method_owners.add(d.parent)
            self.in_file.setdefault((d.path, d.parent, d.name), d.symbol)
            if d.kind == "module":
                self.modules.add(d.symbol)
            elif d.parent is None:
                prefix = prefix_of(d.symbol, d.name)
                if prefix:
                    self.qualifiers[d.path].add(prefix)
                    self.modules.add(prefix)
                    if d.language == "go":
                        self.go_dirs.setdefault(posixpath.dirname(d.path), prefix)
            if d.language == "python":
                module = _python_module(d.path)
                self.modules.add(module)
                self.module_paths.setdefault(module, d.path)
        for module in self.modules:
            self.names.add(SPLIT.split(module)[-1])
        self._nested: dict[str, set[str]] | None = None  # built on first use (nested_module)
        # (owner, last part) -> symbol, whichever separator joins them
        self.children: dict[tuple[str, str], str] = {}
        for symbol in [*self.by_symbol, *sorted(self.modules)]:
            for sep in SEPS:
                head, found, tail = symbol.rpartition(sep)
                if found and head and tail:
                    self.children.setdefault((head, tail), symbol)

    def add_files(self, relations: Iterable[RelationLike]) -> None:
        """Python modules of files without definitions (``__init__.py`` re-exporting names)."""
        for rel in relations:
            if rel.language == "python":
                module = _python_module(rel.path)
                self.module_paths.setdefault(module, rel.path)
                if module not in self.modules:
                    self.modules.add(module)
                    self._nested = None
                    self.names.add(module.rsplit(".", 1)[-1])
                    head, _, tail = module.rpartition(".")
                    if head:
                        self.children.setdefault((head, tail), module)

    def inside(self, name: str) -> bool:
        """``name`` or one of its dotted / ``::`` prefixes is a module of this repository."""
        while name:
            if self.known(name):
                return True
            cut = max(name.rfind("."), name.rfind("::"), name.rfind("/"))
            name = name[:cut] if cut > 0 else ""
        return False

    def nested_module(self, name: str) -> str:
        """``flaskr.db`` -> ``examples.tutorial.flaskr.db`` when exactly one module of the
        repository ends with the import's first part (a project nested in a folder)."""
        head, dot, rest = name.partition(".")
        if self._nested is None:
            self._nested = _nested_by_tail(self.modules)
        found = self._nested.get(head, set())
        if len(found) != 1:
            return name
        return next(iter(found)) + dot + rest

    def included(self, path: str, include: str) -> list[str]:
        """The files of the repository a C / C++ ``#include "x/y.h"`` in ``path`` names: beside
        the including file first, else any file ending with that path."""
        name = include.strip().strip('"<>')
        beside = posixpath.normpath(posixpath.join(posixpath.dirname(path), name))
        if beside in self.paths:
            return [beside]
        return sorted(p for p in self.paths if p == name or p.endswith("/" + name))

    def known(self, symbol: str) -> bool:
        return symbol in self.by_symbol or symbol in self.modules

    def member(self, base: str, rest: list[str]) -> str | None:
        """The definition named by ``base`` followed by the parts ``rest``, if it exists."""
        current: str | None = base
        for part in rest:
            current = self.children.get((current, part)) if current is not None else None
        return current if current in self.by_symbol else None

    def is_class(self, symbol: str | None) -> bool:
        """True for a class, struct, interface, …; and a Go type defined on another with methods
        of its own (`type Mapper[T any] Iterator[T]`): a value of it has them."""
        d = self.by_symbol.get(symbol) if symbol else None
        return d is not None and (d.kind in CLASSY or d.symbol in self.method_owners)

    def go_package(self, path: str) -> str | None:
        """The package of this repository that a Go import path names, else None."""
        best = ""
        for folder in self.go_dirs:
            if (
                folder
                and (path == folder or path.endswith("/" + folder))
                and len(folder) > len(best)
            ):
                best = folder
        if best:
            return self.go_dirs[best]
        root = self.go_dirs.get("")
        if root is not None and path.rsplit("/", 1)[-1] == root:
            return root
        return None


_python_module = functools.lru_cache(maxsize=4096)(python_module)  # ~10 definitions a file


def _nested_by_tail(modules: set[str]) -> dict[str, set[str]]:
    """Last dotted part -> the modules ending with it whose parent is not a module: what
    :meth:`Index.nested_module` looks up, built once instead of a scan per import."""
    out: dict[str, set[str]] = defaultdict(set)
    for module in modules:
        parent, dot, tail = module.rpartition(".")
        if dot and parent not in modules:
            out[tail].add(module)
    return dict(out)


def prefix_of(symbol: str, name: str) -> str:
    """``pkg.mod.f`` with name ``f`` -> ``pkg.mod`` ("" when the symbol is the bare name)."""
    if symbol == name or not symbol.endswith(name):
        return ""
    head = symbol[: -len(name)]
    for sep in SEPS:
        if head.endswith(sep):
            return head[: -len(sep)]
    return ""


def rust_module_files(module: str, path: str) -> list[str]:
    """The files that may hold the Rust ``module`` (``crate``, ``crate::a::b``) of the crate
    ``path`` belongs to: ``src/lib.rs`` / ``src/main.rs``, ``src/a/b.rs`` / ``src/a/b/mod.rs``."""
    parts = path.split("/")
    if module.split("::")[0] != "crate" or "src" not in parts[:-1]:
        return []
    base = "/".join(parts[: len(parts) - parts[::-1].index("src")])
    inner = "/".join(module.split("::")[1:])
    if not inner:
        return [f"{base}/lib.rs", f"{base}/main.rs"]
    return [f"{base}/{inner}.rs", f"{base}/{inner}/mod.rs"]


def module_of(rel: RelationLike) -> str:
    """The module / crate path of the file a relation is in (Rust and Python)."""
    if rel.language == "rust":
        return rust_module(rel.path)
    if rel.language == "python":
        return python_module(rel.path)
    return ""


class FileImports:
    """What one file's imports bind."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.prefixes: list[str] = []  # searched for bare names (star / namespace imports)
        self.modules: set[str] = set()  # imported names usable as ``module.member`` heads
        self.external: set[str] = set()  # bound names that name nothing in the repository
        self.includes: list[str] = []  # C / C++: the repository's files ``#include`` names


def import_alias(rel: RelationLike) -> str | None:
    """The name an aliased import binds (Python ``import a.b as c`` -> ``c``)."""
    head, found, alias = rel.to_name.partition(" as ")
    return alias.strip() if found and head else None


def normalise_import(rel: RelationLike, index: Index) -> str:
    """An import's target as a symbol / module of this repository would be spelled."""
    name = rel.to_name.strip().split(" as ")[0]
    if rel.language == "python" and not name.startswith(".") and not index.inside(name):
        return index.nested_module(name)
    if rel.language == "python" and name.startswith("."):
        dots = len(name) - len(name.lstrip("."))
        module = python_module(rel.path)
        package = module if rel.path.endswith("__init__.py") else module.rpartition(".")[0]
        parts = package.split(".") if package else []
        parts = parts[: len(parts) - (dots - 1)] if dots > 1 else parts
        rest = name[dots:]
        return ".".join([*parts, rest] if rest else parts)
    if rel.language in JS and name.startswith("."):
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(rel.path), name))
        for ext in _JS_EXT:
            if joined.endswith(ext):
                return joined[: -len(ext)]
        return joined
    if rel.language == "go":
        return index.go_package(name) or name
    if rel.language == "rust":
        head, _, tail = name.partition("::")
        if head in {"self", "super"}:
            module = module_of(rel)
            if head == "super":
                module = module.rpartition("::")[0] or module
            return module + "::" + tail if tail else module
        local = f"{module_of(rel)}::{name}"  # `use parser::parse_spec;` beside `mod parser;`
        if head != "crate" and tail and index.known(local):
            return local
    return name.removesuffix(".*").removesuffix("::*")


_RET = {
    "rust": re.compile(r"->\s*(.+?)(?:\s+where\b.*)?$"),
    "python": re.compile(r"->\s*(.+?)\s*:?$"),
}


def return_type(d: DefinitionLike) -> str | None:
    """The declared result type of a function from its signature, as written."""
    sig = d.signature
    pattern = _RET.get(d.language)
    if pattern is not None:
        m = pattern.search(sig)
        return m.group(1).strip() if m else None
    if d.language in {"go", "typescript", "tsx", "javascript"}:
        start = sig.find("(", sig.find(d.name) if d.name in sig else 0)
        depth, i = 0, start
        while 0 <= i < len(sig):
            depth += {"(": 1, ")": -1}.get(sig[i], 0)
            if depth == 0:
                break
            i += 1
        rest = sig[i + 1 :].strip() if i >= 0 else ""
        rest = rest.removeprefix(":").removeprefix("=>").strip()
        if rest.startswith("("):  # Go (T, error) / (c *Context, r *Engine)
            rest = rest[1:].split(",")[0].strip().rstrip(")")
            rest = rest.rsplit(" ", 1)[-1] if " " in rest else rest
        return rest.split("{")[0].strip() or None
    return None
