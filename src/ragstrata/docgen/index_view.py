"""What generated docs read from the index: the definitions of a file, the members of a type
wherever they are defined, and relations split into precise and possible.

One :class:`IndexView` per generation run memoises store lookups, so a whole-repository run
asks for each file and type once.

- *Definitions of a file*: every C1 row stored for it (:func:`ragstrata.retrieve.rows.outline`),
  including those whose owner is declared in another file (Go methods of a receiver type
  declared elsewhere, Ruby classes reopened, Rust ``impl`` blocks in another module).
- *Members of a type*: the ``contains`` relations out of it, in any file.
- *Precise* relation: the indexer resolved the site to this very symbol (``to_symbol``).
  *Possible*: only the written name matches (``obj.send`` for ``Gateway.send``), so the
  receiver may be another type; pages list these apart and never count them as uses.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from ragstrata.ingest.rows import DefinitionRow, FileRow, Layer, RelationRow
from ragstrata.retrieve.resolve import SymbolResolver
from ragstrata.retrieve.rows import file_row, file_rows, outline
from ragstrata.store.base import Direction, Store, SymbolMode, normalize_symbol

__all__ = ["CONTAINER_KINDS", "IndexView", "Site", "is_public"]

CONTAINER_KINDS = frozenset(
    {"class", "interface", "struct", "trait", "enum", "impl", "object", "module_def", "record"}
)
_BIG = 5000


def is_public(row: DefinitionRow) -> bool:
    """Exported, and not ``_private`` by name (``__init__`` is public)."""
    return row.is_exported and (not row.name.startswith("_") or row.name == "__init__")


@dataclass(frozen=True, slots=True)
class Site:
    """One relation site: the other end's name, where it is, and whether it is precise."""

    name: str
    path: str
    line: int
    precise: bool
    is_test: bool = False
    kind: str = "calls"  # the relation: calls | inherits | implements | imports
    about: str = ""  # the page's definition this site refers to (for "Used by": the callee)


class IndexView:
    """Memoised reads of C0/C1/C2 rows for documentation."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.resolver = SymbolResolver(store)
        self._catalog: list[str] | None = None
        self._entries: dict[str, str] | None = None
        self._file: dict[str, FileRow | None] = {}
        self._defs: dict[str, list[DefinitionRow]] = {}
        self._members: dict[str, list[DefinitionRow]] = {}
        self._by_symbol: dict[str, DefinitionRow | None] = {}
        self._declared: dict[str, set[str]] = {}

    # ---------------------------------------------------------------- files
    def paths(self) -> list[str]:
        """Every indexed path, sorted."""
        if self._catalog is None:
            self._catalog = sorted(self.store.catalog())
        return self._catalog

    def sha256(self, path: str) -> str | None:
        """The content hash of ``path`` as indexed."""
        if self._entries is None:
            self._entries = {p: e.sha256 for p, e in self.store.catalog().items()}
        return self._entries.get(path)

    def file_row(self, path: str) -> FileRow | None:
        """The C0 row of a code file (``None`` for docs and unknown paths)."""
        if path not in self._file:
            self._file[path] = file_row(self.store, path)
        return self._file[path]

    def definitions(self, path: str) -> list[DefinitionRow]:
        """Every C1 row of ``path`` (top level and nested), in line order."""
        if path not in self._defs:
            self._defs[path] = outline(self.store, path)
        return self._defs[path]

    def module_row(self, path: str) -> DefinitionRow | None:
        """The row standing for the file itself (Python's ``module pkg.mod``), if any.

        Other ``module`` rows are namespaces written in the code (Ruby ``module``, Rust
        ``mod``, TypeScript ``namespace``) and are documented like types."""
        for r in self.definitions(path):
            if r.kind == "module" and r.signature == f"module {r.symbol}" and r.parent is None \
                    and r.language == "python":
                return r
        return None

    def contains_in(self, path: str) -> list[RelationRow]:
        """The ``contains`` relations recorded in ``path`` (owner -> member)."""
        return [
            r
            for r in file_rows(self.store, path, (Layer.C2,))
            if isinstance(r, RelationRow) and r.relation == "contains"
        ]

    # ---------------------------------------------------------------- symbols
    def definition(self, symbol: str) -> DefinitionRow | None:
        """The definition with exactly this qualified name (non-test first)."""
        if symbol not in self._by_symbol:
            match = self.resolver.resolve(symbol, limit=20, modes=(SymbolMode.QUALIFIED,))
            rows = [
                h.row
                for h in match.hits
                if isinstance(h.row, DefinitionRow)
                and normalize_symbol(h.row.symbol) == normalize_symbol(symbol)
            ]
            rows.sort(key=lambda r: (r.symbol != symbol, r.is_test, r.kind == "module", r.path,
                                     r.start_line))
            self._by_symbol[symbol] = rows[0] if rows else None
        return self._by_symbol[symbol]

    def declared_in(self, symbol: str) -> set[str]:
        """The files that declare ``symbol`` (more than one: a reopened Ruby class or module,
        a TypeScript namespace merged across files, build-tag variants in Go)."""
        if symbol not in self._declared:
            match = self.resolver.resolve(symbol, limit=50, modes=(SymbolMode.QUALIFIED,))
            self._declared[symbol] = {
                h.row.path for h in match.hits
                if isinstance(h.row, DefinitionRow) and h.row.symbol == symbol
            }
        return self._declared[symbol]

    def members(self, owner: DefinitionRow) -> list[DefinitionRow]:
        """The definitions ``owner`` contains: in any file when only its file declares it (Go
        methods in another file than their receiver type), else in its own file (each
        declaration of a reopened class or namespace lists what it declares)."""
        key = f"{owner.path}\x00{owner.symbol}"
        if key in self._members:
            return self._members[key]
        anywhere = len(self.declared_in(owner.symbol)) <= 1
        out: dict[str, DefinitionRow] = {}
        found = self.resolver.relations(owner.symbol, Direction.CALLEES, ("contains",),
                                        limit=_BIG)
        for rel in found:
            row = rel.row
            if not isinstance(row, RelationRow) or row.from_symbol != owner.symbol:
                continue
            wanted = row.to_symbol or row.to_name
            if not anywhere and row.path != owner.path:
                continue
            for member in self.definitions(row.path):
                if member.symbol == wanted and member.parent == owner.symbol:
                    out.setdefault(member.id, member)
        rows = sorted(out.values(), key=lambda r: (r.path != owner.path, r.path, r.start_line))
        self._members[key] = rows
        return rows

    def folder_of(self, path: str) -> str:
        """The folder of ``path`` (``""`` at the root)."""
        return posixpath.dirname(path)

    # ---------------------------------------------------------------- relations
    def outgoing(self, symbol: str, kinds: tuple[str, ...]) -> list[RelationRow]:
        """Relations out of ``symbol`` itself (not out of a same-suffix namesake)."""
        found = self.resolver.relations(symbol, Direction.CALLEES, kinds, limit=500)
        rows = [
            s.row for s in found if isinstance(s.row, RelationRow) and s.row.from_symbol == symbol
        ]
        return sorted(rows, key=lambda r: (r.path, r.line, r.to_name))

    def plausible(self, rel: RelationRow, symbol: str) -> bool:
        """Whether a call the indexer resolved to ``symbol`` can be to it, judged from the
        receiver as written; a doubtful one is listed as possible, never as a use.

        - ``self.m()`` / ``this.m()`` / ``@m``: the caller's class must be the method's class
          or inherit from it through resolved bases (``class FlaskTask(celery.Task)`` calling
          ``self.run`` is not ``Flask.run``);
        - ``var.m()`` on a lower-case variable for a ``static`` method: a static method is
          called on its class (``cls.getName()`` is ``Class.getName``, not
          ``ClassUtils.getName``)."""
        if rel.relation != "calls":
            return True
        target = self.definition(symbol)
        if target is None or target.parent is None:
            return True
        head, sep, _ = rel.to_name.rpartition(".")
        if not sep:
            return True
        if head in ("self", "this") or rel.to_name.startswith("@"):
            caller = self.definition(rel.from_symbol)
            owner = caller.parent if caller is not None else None
            return owner is None or self._inherits(owner, target.parent)
        if head[:1].islower() and head.isidentifier() and " static " in f" {target.signature} ":
            owner = target.parent.rsplit(".", 1)[-1]
            return head == owner
        return True

    def _inherits(self, cls: str, base: str, depth: int = 0) -> bool:
        if cls == base:
            return True
        if depth > 6:
            return False
        owner = self.definition(cls)
        if owner is not None and owner.kind not in CONTAINER_KINDS:
            return self._inherits(owner.parent, base, depth + 1) if owner.parent else False
        for rel in self.outgoing(cls, ("inherits", "implements")):
            if rel.to_symbol and self._inherits(rel.to_symbol, base, depth + 1):
                return True
        return False

    def incoming(self, symbol: str, kinds: tuple[str, ...] = ("calls",)) -> list[Site]:
        """Sites that call / inherit ``symbol``: precise ones resolved to it, possible ones
        that only match by name."""
        found = self.resolver.relations(symbol, Direction.CALLERS, kinds, limit=500)
        out: dict[tuple[str, str, int], Site] = {}
        want = normalize_symbol(symbol)
        for s in found:
            row = s.row
            if not isinstance(row, RelationRow) or row.from_symbol == symbol:
                continue
            if row.to_symbol is not None:
                if normalize_symbol(row.to_symbol) != want:
                    continue  # resolved to another definition with the same suffix
                # the resolver sets to_symbol only when the code shows the target; an index
                # built before it recorded how (``resolution`` empty) gets the receiver check
                precise = row.resolution == "exact" or (
                    not row.resolution and self.plausible(row, symbol)
                )
            else:
                precise = False
            key = (row.from_symbol, row.path, row.line)
            out.setdefault(
                key,
                Site(row.from_symbol, row.path, row.line, precise, row.is_test, row.relation,
                     symbol),
            )
        return sorted(out.values(), key=lambda x: (not x.precise, x.path, x.line, x.name))
