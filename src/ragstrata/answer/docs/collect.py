"""Gather the evidence of a file, package or symbol page (:class:`~ragstrata.answer.docs.model.Page`).

Overview, first match wins: the module's own doc comment read from the file
(:mod:`ragstrata.answer.docs.moduledoc`; for a package its ``doc.go`` / ``package-info.java`` /
``__init__.py`` / ``lib.rs`` / ``mod.rs`` / ``index.ts``, else the first file with one); the
indexer's module docstring; the folder's README; a README / docs section whose heading names
the module.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

from ragstrata.answer.docs.doccomment import parse_doc, to_markdown
from ragstrata.answer.docs.index_view import CONTAINER_KINDS, IndexView, Site, is_public
from ragstrata.answer.docs.model import Item, Overview, Page, PageFile
from ragstrata.answer.docs.moduledoc import PACKAGE_DOC_FILES, module_doc
from ragstrata.core.rows import DefinitionRow, Layer, RelationRow, SectionRow
from ragstrata.core.values import SymbolMode

__all__ = ["Collector", "Reader"]

Reader = Callable[[str], "str | None"]  # repository path -> file text, or None
_README = re.compile(r"(?i)^readme(\.\w+)?$")
# folders of data under tests/: formatter cases, snapshots, fixtures (not tests themselves)
# method names every standard library has (`x.clone()`, `f.read()`, `res.json()`): a call by
# one of these names alone says nothing about which definition it reaches
_COMMON_NAMES = (
    "clone fmt eq ne cmp partial_cmp hash drop deref deref_mut into from default to_string "
    "to_owned as_ref as_mut borrow borrow_mut next iter iter_mut into_iter len is_empty get "
    "set put add remove delete insert contains read write close open flush call apply bind "
    "toString valueOf equals hashCode compareTo send run start stop push pop map filter "
    "reduce emit on off once then catch use all format render json status header end "
    "write_all parse load dump dumps loads update keys values items copy size count "
    "append extend join split replace match find search test exec init setup close_all "
    "__str__ __repr__ __eq__ __hash__ __len__ __iter__ __next__ __call__ __enter__ __exit__ "
    "__getitem__ __setitem__ __contains__"
)
_COMMON = frozenset(_COMMON_NAMES.split())
_SELF = frozenset({"this", "self", "Self", "super", "cls", "$this", "@", "static", "parent"})
_FIXTURE_DIRS = frozenset(
    {
        "fixtures",
        "fixture",
        "testdata",
        "data",
        "cases",
        "snapshots",
        "__snapshots__",
        "golden",
        "samples",
        "resources",
        "vendor",
    }
)


class Collector:
    """Builds pages from one :class:`IndexView` and a reader of the repository's files."""

    def __init__(self, view: IndexView, read: Reader | None = None) -> None:
        self.view = view
        # default: the file's text as indexed (rebuilt from its chunks)
        self.read = read or view.reader.file_text
        self._texts: dict[str, str] = {}
        self._imported: dict[str, set[str]] = {}
        self._counts: dict[str, int] = {}

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
            return Overview(to_markdown(module.docstring), path, module.start_line, module.end_line)
        stem = posixpath.splitext(posixpath.basename(path))[0]
        if stem in ("__init__", "mod", "index", "lib", "main", "doc", "package-info"):
            return None
        return self.named_section(stem, posixpath.basename(path))

    def package_overview(self, folder: str, paths: list[str]) -> Overview | None:
        # every code file counts here: a Go doc.go holds only the package comment
        paths = [
            p
            for p in self.view.paths()
            if posixpath.dirname(p) == folder
            and (row := self.view.file_row(p)) is not None
            and not row.is_test
        ]
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
            p
            for p in self.view.paths()
            if posixpath.dirname(p) == folder and _README.match(posixpath.basename(p))
        ]
        sections = (
            [r for r in self.view.reader.sections(readmes[0]) if r.text.strip()] if readmes else []
        )
        for first in sections:
            text = readme_prose(first.text)
            if text:
                return Overview(
                    text, first.path, first.start_line, first.end_line, first.heading_path
                )
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
                return Overview(
                    readme_prose(sec.text), sec.path, sec.start_line, sec.end_line, sec.heading_path
                )
        return None

    def _sections(self, query: str) -> list[SectionRow]:
        """Doc sections that mention ``query`` (a search: the heading is checked after)."""
        found = self.view.reader.rows_writing(query, ("D1",), 20)
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
        imports = self._module_imports(parts) if kind != "symbol" else []
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
                if site.is_test and _FIXTURE_DIRS & set(site.path.split("/")[:-1]):
                    continue  # fixture data under tests/ is neither a test nor a use
                if not site.precise and not self._possible(site, row):
                    continue  # a common name called on who knows what: not even a possible use
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
            kind,  # type: ignore[arg-type]
            target,
            overview,
            parts,
            symbol,
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

    def _module_imports(self, parts: tuple[PageFile, ...]) -> list[Site]:
        """What the page's modules import."""
        imports: list[Site] = []
        for part in parts:
            module = self.view.module_row(part.path)
            if module is not None:
                imports += [
                    Site(r.to_symbol or r.to_name, r.path, r.line, r.to_symbol is not None)
                    for r in self.view.outgoing(module.symbol, ("imports",))
                ]
        return imports

    def _possible(self, site: Site, row: DefinitionRow) -> bool:
        """Whether a call that only matches ``row`` by name may still be a use of it.

        Not when the name is common in the repository (defined more than once: ``path``,
        ``fmt``, ``set``) or the receiver as written contradicts it (``this.set`` in another
        file, ``User.all`` for ``app.all``, a module alias ``proxyaddr.all``). Otherwise the
        receiver must name ``row``'s type or module (``Error::new``, ``reader.read``), or the
        calling file must import it (an import the indexer resolved into it)."""
        receiver = re.split(r"(?:::|\.|->|#)(?=[^.:#>]*$)", site.written, maxsplit=1)
        written = receiver[0] if len(receiver) == 2 else ""
        last = re.split(r"::|\.|->", written.removesuffix("()"))[-1] if written else ""
        if last and last in _evidence_words(row) | {_module_stem(row.path)}:
            return True
        if row.name in _COMMON or self._defined_more_than_once(row):
            return False  # a common name here: a name-only call cannot say which one
        if not written and self._required_elsewhere(site.path, site.written, row):
            return False  # `request(app)` where request = require('supertest')
        if last in _SELF or "(" in last or ")" in written:
            return False  # the caller's own object, or a value made on the spot: not this one
        if last and (
            last[:1].isupper() or "::" in written or self._imported_module(site.path, last)
        ):
            return False  # another named type, namespace or imported module
        return self._imports(site.path, row)

    def _defined_more_than_once(self, row: DefinitionRow) -> bool:
        if row.name not in self._counts:
            found = self.view.resolver.resolve(row.name, limit=5, modes=(SymbolMode.EXACT,))
            self._counts[row.name] = len(
                {
                    h.row.symbol
                    for h in found.definitions
                    if isinstance(h.row, DefinitionRow)
                    and h.row.name == row.name
                    and not h.row.is_test
                }
            )
        return self._counts[row.name] > 1

    def _text(self, path: str) -> str:
        if path not in self._texts:
            self._texts[path] = self.read(path) or ""
        return self._texts[path]

    def _imported_module(self, path: str, name: str) -> bool:
        """Whether ``name`` is bound to an imported module in the file at ``path``."""
        n = re.escape(name)
        pattern = (
            rf"(?:var|let|const)\s+{n}\s*=\s*require\(|import\s+(?:\*\s+as\s+)?{n}\b"
            rf"|import\s+[\w.]+\s+as\s+{n}\b|^\s*import\s+{n}\s*$|use\s+[\w:]*\b{n};"
        )
        return re.search(pattern, self._text(path), re.M) is not None

    def _required_elsewhere(self, path: str, name: str, row: DefinitionRow) -> bool:
        """``name`` is bound by ``require('m')`` / ``import name from 'm'`` in the file at
        ``path``, and ``m`` is not ``row``'s module."""
        n = re.escape(name)
        m = re.search(
            rf"(?:(?:var|let|const)\s+{n}\s*=\s*require\(|import\s+{n}\s+from\s*)"
            rf"\s*['\"]([^'\"]+)['\"]",
            self._text(path),
        )
        if m is None:
            return False
        stem = posixpath.splitext(posixpath.basename(m.group(1).rstrip("/")))[0]
        return stem != _module_stem(row.path)

    def _imports(self, path: str, row: DefinitionRow) -> bool:
        """Whether the file at ``path`` imports ``row``, its owner or its module (resolved)."""
        if path not in self._imported:
            self._imported[path] = {
                r.to_symbol
                for r in self.view.reader.file_rows(path, (Layer.C2,))
                if isinstance(r, RelationRow) and r.relation == "imports" and r.to_symbol
            }
        for target in self._imported[path]:
            if row.symbol == target or (row.parent and row.parent == target):
                return True
            if any(row.symbol.startswith(target + sep) for sep in (".", "::", "/", "#")):
                return True
        return False

    def _named(self, site: Site) -> Site:
        """A use from module-level code (no definition of that name) is named by its file."""
        if self.view.definition(site.name) is not None:
            return site
        return Site(
            site.path, site.path, site.line, site.precise, site.is_test, site.kind, site.about
        )

    def _examples(self, tests: list[Site]) -> tuple[tuple[DefinitionRow, ...], tuple[Site, ...]]:
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
            s
            for s in block.strip().split("\n")
            if s.strip() and not s.lstrip().startswith(("#", "<", "[![", "![", "---", "==="))
        ]
        if lines:
            kept.append("\n".join(lines))
        if len(kept) >= paragraphs:
            break
    return "\n\n".join(kept).strip()


def _evidence_words(row: DefinitionRow) -> set[str]:
    """The names a file would have to write to use ``row``: its owner type's name (a method),
    else its module's name (the file's stem, or its folder's for ``__init__``/``mod``/``index``
    files)."""
    words: set[str] = set()
    if row.parent:
        owner = re.split(r"::|\.|#|/", row.parent)[-1]
        if row.kind == "method" or owner[:1].isupper():
            words.add(owner)
    stem = _module_stem(row.path)
    if not words and stem:
        words.add(stem)
    return {w for w in words if len(w) >= 3}


def _module_stem(path: str) -> str:
    """A module's name: the file's stem, or its folder's for ``__init__``/``mod``/``index``."""
    stem = posixpath.splitext(posixpath.basename(path))[0]
    if stem in ("__init__", "mod", "index", "lib", "main", "doc"):
        stem = posixpath.basename(posixpath.dirname(path))
    return stem


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
