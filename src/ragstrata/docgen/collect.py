"""Gather the evidence of a file, package or symbol page (:class:`~ragstrata.docgen.model.Page`).

Overview, first match wins: the module's own doc comment read from the file
(:mod:`ragstrata.docgen.moduledoc`; for a package its ``doc.go`` / ``package-info.java`` /
``__init__.py`` / ``lib.rs`` / ``mod.rs`` / ``index.ts``, else the first file with one); the
indexer's module docstring; the folder's README; a README / docs section whose heading names
the module.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

from ragstrata.docgen.doccomment import parse_doc, to_markdown
from ragstrata.docgen.index_view import CONTAINER_KINDS, IndexView, Site, is_public
from ragstrata.docgen.model import Item, Overview, Page, PageFile
from ragstrata.docgen.moduledoc import PACKAGE_DOC_FILES, module_doc
from ragstrata.ingest.rows import DefinitionRow, SectionRow
from ragstrata.retrieve.rows import file_text
from ragstrata.retrieve.rows import sections as doc_sections
from ragstrata.store.base import SearchFilters

__all__ = ["Collector", "Reader"]

Reader = Callable[[str], "str | None"]  # repository path -> file text, or None
_README = re.compile(r"(?i)^readme(\.\w+)?$")


class Collector:
    """Builds pages from one :class:`IndexView` and a reader of the repository's files."""

    def __init__(self, view: IndexView, read: Reader | None = None) -> None:
        self.view = view
        # default: the file's text as indexed (rebuilt from its chunks)
        self.read = read or (lambda path: file_text(view.store, path))

    # ---------------------------------------------------------------- pages
    def file_page(self, path: str) -> Page:
        part = self.file_part(path)
        return self._page("file", path, part.overview, (part,), None, {path})

    def package_page(self, folder: str) -> Page:
        paths = self.package_files(folder)
        parts = tuple(self.file_part(p) for p in paths)
        overview = self.package_overview(folder, paths)
        return self._page("package", folder, overview, parts, None, set(paths))

    def symbol_page(self, row: DefinitionRow) -> Page:
        item = self.item(row)
        part = PageFile(row.path, None, ())
        return self._page("symbol", row.symbol, None, (part,), item, set())

    def package_files(self, folder: str) -> list[str]:
        """The indexed non-test code files with definitions directly in ``folder``."""
        out = []
        for p in self.view.paths():
            if posixpath.dirname(p) != folder:
                continue
            row = self.view.file_row(p)
            if row is not None and not row.is_test and self.view.definitions(p):
                out.append(p)
        return out

    # ---------------------------------------------------------------- parts
    def item(self, row: DefinitionRow, depth: int = 0) -> Item:
        """``row`` with its public members; nested types and namespaces become full items."""
        if (row.kind not in CONTAINER_KINDS and row.kind != "module") or depth > 4:
            return Item(row, parse_doc(row.docstring))
        members: list[Item] = []
        nested: list[Item] = []
        for m in self.view.members(row):
            if not is_public(m):
                continue
            if m.kind in CONTAINER_KINDS or m.kind == "module":
                nested.append(self.item(m, depth + 1))
            else:
                members.append(Item(m, parse_doc(m.docstring)))
        return Item(row, parse_doc(row.docstring), tuple(members), tuple(nested))

    def file_part(self, path: str) -> PageFile:
        defs = self.view.definitions(path)
        module = self.view.module_row(path)
        here = {r.symbol for r in defs}
        top: list[Item] = []
        orphans: dict[str, list[DefinitionRow]] = {}
        for row in defs:
            if module is not None and row.id == module.id:
                continue
            if row.parent is None or (module is not None and row.parent == module.symbol):
                if is_public(row):
                    top.append(self.item(row))
            elif row.parent not in here and is_public(row):
                orphans.setdefault(row.parent, []).append(row)
        elsewhere = []
        for owner, rows in sorted(orphans.items()):
            decl = self.view.definition(owner)
            where = f"{decl.path}:{decl.start_line}" if decl else "?"
            elsewhere.append((owner, where, tuple(Item(r, parse_doc(r.docstring)) for r in rows)))
        return PageFile(path, self.file_overview(path), tuple(top), tuple(elsewhere))

    # ---------------------------------------------------------------- overview
    def file_overview(self, path: str) -> Overview | None:
        file_row = self.view.file_row(path)
        text = self.read(path)
        if text is not None and file_row is not None:
            found = module_doc(text, file_row.language)
            if found is not None:
                return Overview(to_markdown(found.text), path, found.start_line, found.end_line)
        module = self.view.module_row(path)
        if module is not None and module.docstring:
            return Overview(to_markdown(module.docstring), path, module.start_line,
                            module.end_line)
        stem = posixpath.splitext(posixpath.basename(path))[0]
        if stem in ("__init__", "mod", "index", "lib", "main", "doc", "package-info"):
            return None
        return self.named_section(stem, posixpath.basename(path))

    def package_overview(self, folder: str, paths: list[str]) -> Overview | None:
        # every code file counts here: a Go doc.go holds only the package comment
        paths = [p for p in self.view.paths() if posixpath.dirname(p) == folder
                 and (row := self.view.file_row(p)) is not None and not row.is_test]
        by_name = {posixpath.basename(p): p for p in paths}
        # the package's own doc files; in Go any file's package comment documents the package,
        # elsewhere one module's header is not the package's overview
        ordered = [by_name[n] for n in PACKAGE_DOC_FILES if n in by_name]
        ordered += [p for p in paths if p.endswith(".go") and p not in ordered]
        for path in ordered:
            found = self.file_overview(path)
            if found is not None:
                return found
        return self.readme_overview(folder)

    def readme_overview(self, folder: str) -> Overview | None:
        """The folder's README, else a docs section whose heading names the folder."""
        name = posixpath.basename(folder) or folder
        readmes = [
            p for p in self.view.paths()
            if posixpath.dirname(p) == folder and _README.match(posixpath.basename(p))
        ]
        sections = [r for r in doc_sections(self.view.store, readmes[0]) if r.text.strip()] \
            if readmes else []
        for first in sections:
            text = readme_prose(first.text)
            if text:
                return Overview(text, first.path, first.start_line, first.end_line,
                                first.heading_path)
        return self.named_section(name)

    def named_section(self, name: str, file_name: str = "") -> Overview | None:
        """A docs section whose own heading names ``name`` as code or a path (`` `tag` ``,
        ``tag/``, ``tag.py``), or is just that name; a common word inside a heading
        ("Colorized output") does not count."""
        if not name or len(name) < 3:
            return None
        word = re.escape(name)
        names = rf"`{word}(?:\.\w+)?`|(?:^|[\s(/]){word}/|(?:^|[\s(`]){word}\.\w{{1,4}}\b"
        if file_name:
            names += rf"|{re.escape(file_name)}"
        pattern = re.compile(rf"(?i)(?:{names})|^\s*{word}\s*$")
        for sec in self._sections(name):
            last = sec.heading_path.split(" > ")[-1] if sec.heading_path else ""
            if pattern.search(last) and readme_prose(sec.text):
                return Overview(readme_prose(sec.text), sec.path, sec.start_line, sec.end_line,
                                sec.heading_path)
        return None

    def _sections(self, query: str) -> list[SectionRow]:
        """Doc sections that mention ``query`` (a search: the heading is checked after)."""
        found = self.view.store.search_lexical(query, SearchFilters(layers=("D1",)), top_k=20)
        return [s.row for s in found if isinstance(s.row, SectionRow) and s.row.text.strip()]

    # ---------------------------------------------------------------- relations
    def _page(
        self,
        kind: str,
        target: str,
        overview: Overview | None,
        parts: tuple[PageFile, ...],
        symbol: Item | None,
        own: set[str],
    ) -> Page:
        draft = Page(kind, target, overview, parts, symbol)  # type: ignore[arg-type]
        items = draft.items()
        owner_of = _owners(draft)
        imports: list[Site] = []
        if kind != "symbol":
            for part in parts:
                module = self.view.module_row(part.path)
                if module is not None:
                    imports += [
                        Site(r.to_symbol or r.to_name, r.path, r.line, r.to_symbol is not None)
                        for r in self.view.outgoing(module.symbol, ("imports",))
                    ]
        calls: list[Site] = []
        edges: set[tuple[str, str]] = set()
        bases: set[tuple[str, str]] = set()
        used: list[Site] = []
        possible: list[Site] = []
        tests: list[Site] = []
        for item in items:
            row = item.row
            for rel in self.view.outgoing(row.symbol, ("calls",)):
                precise = rel.to_symbol is not None
                if precise and rel.to_symbol:
                    callee = self.view.definition(rel.to_symbol)
                    hidden = callee is not None and callee.path in own and not is_public(callee)
                else:
                    hidden = False
                if not hidden:  # a private helper of the page itself is not worth a line
                    calls.append(Site(rel.to_symbol or rel.to_name, rel.path, rel.line, precise))
                if precise and rel.to_symbol in owner_of:
                    a, b = owner_of[row.symbol], owner_of[rel.to_symbol]
                    if a != b:
                        edges.add((a, b))
            for rel in self.view.outgoing(row.symbol, ("inherits", "implements")):
                if rel.to_symbol in owner_of and owner_of[rel.to_symbol] != row.symbol:
                    bases.add((owner_of[row.symbol], owner_of[rel.to_symbol]))
            for site in self.view.incoming(row.symbol, ("calls", "inherits", "implements")):
                if site.name in owner_of:
                    continue  # the page's own code
                if site.is_test:
                    if site.kind == "calls":
                        tests.append(site)
                elif site.path in own:
                    continue
                elif site.precise:
                    used.append(site)
                elif not (row.name.startswith("__") and row.name.endswith("__")):
                    possible.append(site)  # `super().__init__()` names every __init__: noise
        used = [self._named(u) for u in used]
        possible = [self._named(u) for u in possible]
        examples, examples_possible = self._examples(tests)
        sources = {p: self.view.sha256(p) or "" for p in sorted(own)}
        return Page(
            kind, target, overview, parts, symbol,  # type: ignore[arg-type]
            imports=_unique(imports),
            calls=_unique(calls),
            used_by=_unique(used),
            used_by_possible=_unique(s for s in possible if s.name not in {u.name for u in used}),
            examples=examples,
            examples_possible=examples_possible,
            edges=tuple(sorted(edges)),
            inherits=tuple(sorted(bases)),
            sources=sources,
        )

    def _named(self, site: Site) -> Site:
        """A use from module-level code (no definition of that name) is named by its file."""
        if self.view.definition(site.name) is not None:
            return site
        return Site(site.path, site.path, site.line, site.precise, site.is_test, site.kind,
                    site.about)

    def _examples(
        self, tests: list[Site]
    ) -> tuple[tuple[DefinitionRow, ...], tuple[Site, ...]]:
        found: dict[str, DefinitionRow] = {}
        possible: list[Site] = []
        for site in tests:
            if not site.precise:
                possible.append(site)
                continue
            row = self.view.definition(site.name)
            if row is not None and row.path == site.path:
                found.setdefault(row.id, row)
        chosen = tuple(found.values())
        names = {r.symbol for r in chosen}
        return chosen, _unique(self._named(s) for s in possible if s.name not in names)


def readme_prose(text: str, paragraphs: int = 3) -> str:
    """The first prose paragraphs of a doc section: no headings, badges, images or HTML."""
    kept: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        lines = [
            s for s in block.strip().split("\n")
            if s.strip() and not s.lstrip().startswith(("#", "<", "[![", "![", "---", "==="))
        ]
        if lines:
            kept.append("\n".join(lines))
        if len(kept) >= paragraphs:
            break
    return "\n\n".join(kept).strip()


def _owners(page: Page) -> dict[str, str]:
    """Symbol -> the page-level definition it belongs to (a member maps to its type)."""
    out: dict[str, str] = {}
    tops = [page.symbol] if page.symbol else [i for f in page.files for i in f.items]
    for item in tops:
        for member in item.walk():
            out[member.row.symbol] = item.row.symbol
    for part in page.files:
        for owner, _, methods in part.elsewhere:
            for m in methods:
                out[m.row.symbol] = owner
    return out


def _unique(sites: Iterable[Site]) -> tuple[Site, ...]:
    seen: dict[str, Site] = {}
    for s in sites:
        seen.setdefault(s.name, s)
    return tuple(sorted(seen.values(), key=lambda s: (not s.precise, s.name)))
