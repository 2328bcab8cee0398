"""Markdown documentation for a file, a package (folder) or a symbol, from C0/C1/C2 rows.

Template-based and deterministic (golden-testable): title; summary (the module docstring);
public API (classes with their methods, functions, constants) with signatures and docstrings;
relations (imports, calls, who uses it); examples quoted from test definitions that call the
target's symbols. Every item is cited as ``path:start-end``.

Target resolution, first match wins: an indexed file path; a folder; a folder or file named
like the target (``payments`` -> ``src/payments/``); a symbol, resolved by the one
:class:`~ragstrata.retrieve.resolve.SymbolResolver` that ``ask``, ``search``, MCP and HTTP use
(a module symbol documents its file, a package's ``__init__`` its folder). Anything else raises
:class:`~ragstrata.errors.UserError` listing near candidates.
"""

from __future__ import annotations

import difflib
import posixpath
from dataclasses import dataclass
from typing import Literal

from ragstrata.answer.base import Citation
from ragstrata.answer.graphs.base import CitationList, first_sentence, quote_block
from ragstrata.answer.graphs.messages import Messages, messages
from ragstrata.errors import UserError
from ragstrata.ingest.rows import DefinitionRow, FileRow, RelationRow
from ragstrata.llm.base import Runner
from ragstrata.retrieve.resolve import SymbolResolver
from ragstrata.retrieve.rows import file_row, outline
from ragstrata.store.base import Direction, SearchFilters, Store, SymbolMode

__all__ = [
    "MAX_EXAMPLES",
    "MAX_EXAMPLE_LINES",
    "MAX_RELATIONS",
    "GeneratedDocs",
    "Target",
    "build_docs",
    "generate_docs",
    "resolve_target",
]

MAX_RELATIONS = 15
MAX_EXAMPLES = 2
MAX_EXAMPLE_LINES = 20
_INIT_FILES = ("__init__.py", "mod.rs", "index.js", "index.ts")
_CONTAINER_KINDS = frozenset({"class", "interface", "struct", "trait", "enum", "impl", "object"})


@dataclass(frozen=True, slots=True)
class Target:
    """What a target string resolved to: a file path, a folder, or a definition."""

    kind: Literal["file", "package", "symbol"]
    value: str  # path, folder, or qualified name
    definition: DefinitionRow | None = None


@dataclass(frozen=True, slots=True)
class GeneratedDocs:
    """The Markdown and every span it cites."""

    target: Target
    markdown: str
    citations: tuple[Citation, ...]


def generate_docs(
    target: str, *, store: Store, runner: Runner | None = None, language: str = "en"
) -> str:
    """Markdown documentation for ``target`` (a file path, folder or symbol).

    ``runner`` is accepted for interface symmetry; the output is template-based either way so
    it stays deterministic.
    """
    return build_docs(target, store=store, language=language).markdown


def build_docs(target: str, *, store: Store, language: str = "en") -> GeneratedDocs:
    """The documentation of ``target`` with its citations (see :func:`generate_docs`)."""
    resolved = resolve_target(target, store)
    writer = _Writer(store, messages(language))
    if resolved.kind == "file":
        writer.file_doc(resolved.value)
    elif resolved.kind == "package":
        writer.package_doc(resolved.value)
    else:
        assert resolved.definition is not None
        writer.symbol_doc(resolved.definition)
    markdown = "\n".join(writer.lines).rstrip() + "\n"
    return GeneratedDocs(target=resolved, markdown=markdown, citations=writer.citations.items())


# --------------------------------------------------------------------------- resolution


def _clean(target: str) -> str:
    value = target.strip().strip("`'\"").replace("\\", "/")
    while value.startswith("./"):
        value = value[2:]
    return value.rstrip("/")


def resolve_target(target: str, store: Store) -> Target:
    """Resolve ``target`` (module docstring); raise ``UserError`` with candidates if unknown."""
    value = _clean(target)
    if not value:
        raise UserError("empty gendocs target; give a file path, a folder or a symbol")
    paths = sorted(store.catalog())
    folders = sorted({posixpath.dirname(p) for p in paths} - {""})
    folders = sorted({f for p in folders for f in _parents(p)})
    if value in paths:
        return Target("file", value)
    if value in folders:
        return Target("package", value)
    named = [f for f in folders if f.endswith("/" + value)]
    if named:
        return Target("package", min(named, key=lambda f: (f.count("/"), f)))
    files = [p for p in paths if p.endswith("/" + value)]
    if files:
        return Target("file", min(files, key=lambda p: (p.count("/"), p)))
    match = SymbolResolver(store).resolve(value)
    best = match.best
    if best is not None:
        if best.kind == "module":
            base = posixpath.basename(best.path)
            if base in _INIT_FILES and posixpath.dirname(best.path):
                return Target("package", posixpath.dirname(best.path))
            return Target("file", best.path)
        return Target("symbol", best.symbol, best)
    names = [s.row.symbol for s in match.candidates[:5] if isinstance(s.row, DefinitionRow)]
    raise UserError(_unknown_message(value, names, paths, folders))


def _parents(folder: str) -> list[str]:
    parts = folder.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _unknown_message(value: str, names: list[str], paths: list[str], folders: list[str]) -> str:
    msgs = messages("en")
    pool = paths + [f + "/" for f in folders]
    by_base = {posixpath.basename(p.rstrip("/")): p for p in sorted(pool, reverse=True)}
    close = difflib.get_close_matches(posixpath.basename(value), list(by_base), n=5, cutoff=0.6)
    found = list(dict.fromkeys([by_base[c] for c in close] + names))[:6]
    head = msgs.t("gendocs.unknown_target", target=value)
    if found:
        return head + msgs.t("gendocs.candidates", candidates=", ".join(found))
    return head + msgs.t("gendocs.no_candidates")


# --------------------------------------------------------------------------- writing


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _Writer:
    """Accumulates Markdown lines and citations for one target."""

    def __init__(self, store: Store, msgs: Messages) -> None:
        self.store = store
        self.resolver = SymbolResolver(store)
        self.msgs = msgs
        self.lines: list[str] = []
        self.citations = CitationList()

    # ---------------------------------------------------------------- lookups
    def _file_row(self, path: str) -> FileRow | None:
        return file_row(self.store, path)

    def _in_file(self, name: str, path: str, mode: SymbolMode) -> list[DefinitionRow]:
        scope = SearchFilters(path_prefixes=(path,))
        found = self.resolver.resolve(name, scope, limit=20, widen=False, modes=(mode,))
        return [
            s.row for s in found.hits if isinstance(s.row, DefinitionRow) and s.row.path == path
        ]

    def _module_row(self, path: str) -> DefinitionRow | None:
        modules = [r for r in outline(self.store, path) if r.kind == "module"]
        return modules[0] if modules else None

    def _top_level(self, path: str, file_row: FileRow | None) -> list[DefinitionRow]:
        module = self._module_row(path)
        out: dict[str, DefinitionRow] = {}
        for name in file_row.symbols if file_row else ():
            for row in self._in_file(name, path, SymbolMode.EXACT):
                if row.kind != "module" and (row.parent is None or row.parent == _sym(module)):
                    out.setdefault(row.id, row)
        return sorted(out.values(), key=lambda r: (r.start_line, r.symbol))

    def _members(self, row: DefinitionRow) -> list[DefinitionRow]:
        rels = self.store.relations(
            row.symbol,
            Direction.CALLEES,
            kinds=("contains",),
            filters=SearchFilters(path_prefixes=(row.path,)),
            limit=200,
        )
        out: dict[str, DefinitionRow] = {}
        for rel in rels:
            if not isinstance(rel.row, RelationRow) or rel.row.from_symbol != row.symbol:
                continue
            target = rel.row.to_symbol or rel.row.to_name
            for member in self._in_file(target, row.path, SymbolMode.QUALIFIED):
                if member.parent == row.symbol:
                    out.setdefault(member.id, member)
        return sorted(out.values(), key=lambda r: (r.start_line, r.symbol))

    def _relations(
        self, symbol: str, direction: Direction, kinds: tuple[str, ...]
    ) -> list[RelationRow]:
        found = self.store.relations(symbol, direction, kinds=kinds, limit=200)
        rows = [s.row for s in found if isinstance(s.row, RelationRow)]
        if direction is Direction.CALLEES:
            rows = [r for r in rows if r.from_symbol == symbol]
        return sorted(rows, key=lambda r: (r.path, r.line, r.to_name, r.from_symbol))

    # ---------------------------------------------------------------- documents
    def file_doc(self, path: str, level: int = 1) -> list[DefinitionRow]:
        """Write a file's documentation; returns its public definitions."""
        h = "#" * level
        self.lines += [f"{h} {self.msgs.t('gendocs.file_title', target=path)}", ""]
        file_row = self._file_row(path)
        module = self._module_row(path)
        self._summary(module, path, level + 1)
        public = [r for r in self._top_level(path, file_row) if _public(r)]
        self.lines += [f"{h}# {self.msgs.t('gendocs.public_api')}", ""]
        if not public:
            self.lines += [self.msgs.t("gendocs.no_public_api"), ""]
        for row in public:
            self._definition(row, level + 2)
        if level == 1:
            self._relations_section(public, module, {path}, level + 1)
            self._examples_section(public, level + 1)
        return public

    def package_doc(self, folder: str) -> None:
        self.lines += [f"# {self.msgs.t('gendocs.package_title', target=folder)}", ""]
        paths = sorted(p for p in self.store.catalog() if p.startswith(folder + "/"))
        code = [p for p in paths if self._file_row(p) is not None]
        init = [p for p in code if posixpath.basename(p) in _INIT_FILES]
        self._summary(self._module_row(init[0]) if init else None, folder, 2)
        self.lines += [f"## {self.msgs.t('gendocs.files')}", ""]
        for p in code:
            module = self._module_row(p)
            summary = first_sentence(module.docstring) if module and module.docstring else ""
            self.lines.append(f"- `{p}`" + (f" — {summary}" if summary else ""))
        self.lines.append("")
        public: list[DefinitionRow] = []
        for p in code:
            public += self.file_doc(p, level=2)
        self._relations_section(public, None, set(paths), 2)
        self._examples_section(public, 2)

    def symbol_doc(self, row: DefinitionRow) -> None:
        title = self.msgs.t(
            "gendocs.symbol_title", kind=self.msgs.kind(row.kind), target=row.symbol
        )
        self.lines += [f"# {title}", ""]
        self._definition(row, 2, heading=False)
        self._relations_section([row], None, set(), 2)
        self._examples_section([row], 2)

    # ---------------------------------------------------------------- sections
    def _summary(self, module: DefinitionRow | None, where: str, level: int) -> None:
        self.lines += [f"{'#' * level} {self.msgs.t('gendocs.summary')}", ""]
        if module is not None and module.docstring:
            cited = self.citations.add(module.path, module.start_line, module.end_line)
            self.lines += [module.docstring.strip(), "", f"*`{cited}`*", ""]
        else:
            self.lines += [self.msgs.t("gendocs.no_summary"), ""]

    def _definition(self, row: DefinitionRow, level: int, heading: bool = True) -> None:
        cited = self.citations.add(row.path, row.start_line, row.end_line)
        if heading:
            self.lines += [f"{'#' * level} {self.msgs.kind(row.kind)} `{row.name}`", ""]
        self.lines += [f"`{cited}`", "", quote_block(row.path, row.signature, row.start_line), ""]
        if row.docstring:
            self.lines += [row.docstring.strip(), ""]
        if row.kind in _CONTAINER_KINDS:
            members = [m for m in self._members(row) if _public(m)]
            if members:
                self.lines += [self.msgs.t("gendocs.methods"), ""]
                for m in members:
                    mcite = self.citations.add(m.path, m.start_line, m.end_line)
                    doc = f" — {first_sentence(m.docstring)}" if m.docstring else ""
                    self.lines.append(f"- `{_one_line(m.signature)}`{doc} (`{mcite}`)")
                self.lines.append("")

    def _relations_section(
        self,
        public: list[DefinitionRow],
        module: DefinitionRow | None,
        own_paths: set[str],
        level: int,
    ) -> None:
        self.lines += [f"{'#' * level} {self.msgs.t('gendocs.relations')}", ""]
        imports = self._relations(module.symbol, Direction.CALLEES, ("imports",)) if module else []
        calls: list[RelationRow] = []
        used: list[RelationRow] = []
        for row in public:
            for owner in [row, *self._members(row)]:
                calls += self._relations(owner.symbol, Direction.CALLEES, ("calls",))
                used += [
                    r
                    for r in self._relations(owner.symbol, Direction.CALLERS, ("calls", "inherits"))
                    if r.path not in own_paths and not r.is_test
                ]
        wrote = False
        for key, rows, name_of in (
            ("gendocs.imports", imports, lambda r: r.to_symbol or r.to_name),
            ("gendocs.calls", calls, lambda r: r.to_symbol or r.to_name),
            ("gendocs.used_by", used, lambda r: r.from_symbol),
        ):
            items = self._relation_items(rows, name_of)
            if items:
                wrote = True
                self.lines += [self.msgs.t(key), "", *items, ""]
        if not wrote:
            self.lines += [self.msgs.t("gendocs.no_relations"), ""]

    def _relation_items(self, rows: list[RelationRow], name_of: object) -> list[str]:
        seen: dict[str, RelationRow] = {}
        for rel in rows:
            name = name_of(rel)  # type: ignore[operator]
            seen.setdefault(str(name), rel)
        items = []
        # resolved names (this repository's code) first, then builtins and library calls
        for name in sorted(seen, key=lambda n: (seen[n].to_symbol is None, n))[:MAX_RELATIONS]:
            rel = seen[name]
            cited = self.citations.add(rel.path, rel.line, rel.line)
            items.append(f"- `{name}` (`{cited}`)")
        if len(seen) > MAX_RELATIONS:
            items += ["", self.msgs.t("more", count=len(seen) - MAX_RELATIONS)]
        return items

    def _examples_section(self, public: list[DefinitionRow], level: int) -> None:
        self.lines += [f"{'#' * level} {self.msgs.t('gendocs.examples')}", ""]
        tests: dict[str, DefinitionRow] = {}
        for row in public:
            for owner in [row, *self._members(row)]:
                for rel in self.store.relations(
                    owner.symbol,
                    Direction.CALLERS,
                    kinds=("calls",),
                    filters=SearchFilters(is_test=True),
                    limit=50,
                ):
                    if not isinstance(rel.row, RelationRow):
                        continue
                    for d in self._in_file(rel.row.from_symbol, rel.path, SymbolMode.QUALIFIED):
                        tests.setdefault(d.id, d)
        chosen = sorted(
            tests.values(), key=lambda d: (d.end_line - d.start_line, d.path, d.start_line)
        )[:MAX_EXAMPLES]
        if not chosen:
            self.lines += [self.msgs.t("gendocs.no_examples"), ""]
        for d in sorted(chosen, key=lambda d: (d.path, d.start_line)):
            cited = self.citations.add(d.path, d.start_line, d.end_line)
            block = quote_block(d.path, d.text, d.start_line, MAX_EXAMPLE_LINES)
            self.lines += [f"`{cited}` — `{d.symbol}`", "", block, ""]


def _sym(row: DefinitionRow | None) -> str | None:
    return row.symbol if row else None


def _public(row: DefinitionRow) -> bool:
    return row.is_exported and (not row.name.startswith("_") or row.name == "__init__")
