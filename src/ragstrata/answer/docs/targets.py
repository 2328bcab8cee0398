"""Markdown documentation for a file, a package (folder) or a symbol, from C0/C1/C2 rows.

Deterministic without an LLM (golden-testable): title; overview (the module's own doc comment
or the README section naming it); public API with signatures, doc comments converted to
Markdown (parameters, returns, raises, examples, deprecations), members defined in any file;
a Mermaid diagram of the calls between the main definitions; relations (precise, and possible
ones apart); examples quoted from the tests that call it. Every item is cited
``path:start-end``. Gathering is :mod:`ragstrata.answer.docs.collect`, writing
:mod:`ragstrata.answer.docs.render`; LLM prose :mod:`ragstrata.answer.docs.prose`.

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

from ragstrata.answer.docs.collect import Collector, Reader
from ragstrata.answer.docs.index_view import IndexView
from ragstrata.answer.docs.model import Page
from ragstrata.answer.docs.render import Link, render_page
from ragstrata.answer.docs.strings import strings
from ragstrata.core.answer import Citation
from ragstrata.core.rows import DefinitionRow
from ragstrata.core.values import ScoredRow
from ragstrata.errors import UserError
from ragstrata.retrieve.reader import IndexReader

__all__ = [
    "GeneratedDocs",
    "Target",
    "build_docs",
    "collect_page",
    "generate_docs",
    "resolve_target",
]

_INIT_FILES = ("__init__.py", "mod.rs", "index.js", "index.ts")
_TEST_DIRS = frozenset({"test", "tests", "spec", "specs", "__tests__", "testdata", "testing"})


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
    page: Page | None = None


def generate_docs(
    target: str, *, reader: IndexReader, language: str = "en", read: Reader | None = None
) -> str:
    """Markdown documentation for ``target`` (a file path, folder or symbol)."""
    return build_docs(target, reader=reader, language=language, read=read).markdown


def collect_page(resolved: Target, collector: Collector) -> Page:
    """The evidence of the page for an already resolved target."""
    if resolved.kind == "file":
        return collector.file_page(resolved.value)
    if resolved.kind == "package":
        return collector.package_page(resolved.value)
    assert resolved.definition is not None
    return collector.symbol_page(resolved.definition)


def build_docs(
    target: str,
    *,
    reader: IndexReader,
    language: str = "en",
    read: Reader | None = None,
    header: bool = False,
    link: Link | None = None,
    module: bool = False,
    tests: bool = True,
) -> GeneratedDocs:
    """The documentation of ``target`` with its citations (see :func:`generate_docs`).

    ``read`` (path -> text) lets module documentation be read from the files themselves;
    ``module`` and ``tests`` are passed to :func:`resolve_target`.
    """
    s = strings(language)
    resolved = resolve_target(target, reader, module=module, tests=tests)
    page = collect_page(resolved, Collector(IndexView(reader), read))
    out = render_page(page, s, header=header, link=link)
    return GeneratedDocs(target=resolved, markdown=out.markdown, citations=out.citations, page=page)


# --------------------------------------------------------------------------- resolution


def _clean(target: str) -> str:
    value = target.strip().strip("`'\"").replace("\\", "/")
    while value.startswith("./"):
        value = value[2:]
    return value.rstrip("/")


def resolve_target(
    target: str, reader: IndexReader, *, module: bool = False, tests: bool = True
) -> Target:
    """Resolve ``target`` (module docstring); raise ``UserError`` with candidates if unknown.

    ``module``: the request names a module, package or file ("модуль X", "module X"), so a
    file named ``X`` (``X.py``, ``X.rs``; ``a.b.X`` as ``a/b/X``) wins over any definition.
    ``tests=False``: a test file or a definition in one is never the target (a request that
    does not ask for tests); otherwise a non-test definition still comes before a test one.
    """
    if target.strip() in (".", "./"):
        return Target("package", "")  # the repository's root folder
    value = _clean(target)
    if not value:
        raise UserError("empty gendocs target; give a file path, a folder or a symbol")
    paths = reader.paths()
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
    found = _module_file(value, paths, reader, tests) if module else None
    if found is not None:
        return found
    match = reader.resolver.resolve(value)
    best = _first_definition(match.definitions, tests)
    if best is not None:
        if best.kind == "module":
            base = posixpath.basename(best.path)
            if base in _INIT_FILES and posixpath.dirname(best.path):
                return Target("package", posixpath.dirname(best.path))
            return Target("file", best.path)
        return Target("symbol", best.symbol, best)
    names = [s.row.symbol for s in match.candidates[:5] if isinstance(s.row, DefinitionRow)]
    raise UserError(_unknown_message(value, names, paths, folders))


def _is_test_path(reader: IndexReader, path: str) -> bool:
    row = reader.file_row(path)
    return bool(row is not None and row.is_test)


def _module_file(value: str, paths: list[str], reader: IndexReader, tests: bool) -> Target | None:
    """The file or folder a module name stands for (``tag`` -> ``src/flask/json/tag.py``,
    ``flask.json`` -> ``src/flask/json/``), non-test and shallowest first."""
    name = value.replace(".", "/").replace("::", "/") if "/" not in value else value
    folders = sorted({posixpath.dirname(p) for p in paths} - {""})
    named = [f for f in folders if f == name or f.endswith("/" + name)]
    named = [f for f in named if tests or not _TEST_DIRS & set(f.split("/"))]
    if named:
        return Target("package", min(named, key=lambda f: (f.count("/"), f)))
    stem = [
        p
        for p in paths
        if posixpath.splitext(p)[0] == name or posixpath.splitext(p)[0].endswith("/" + name)
    ]
    stem = [p for p in stem if reader.file_row(p) is not None]  # code files
    ranked = sorted(stem, key=lambda p: (_is_test_path(reader, p), p.count("/"), p))
    if ranked and (tests or not _is_test_path(reader, ranked[0])):
        return Target("file", ranked[0])
    return None


def _first_definition(hits: tuple[ScoredRow, ...], tests: bool) -> DefinitionRow | None:
    """The leading definition, a non-test one first; none from tests when ``tests=False``."""
    rows = [h.row for h in hits if isinstance(h.row, DefinitionRow)]
    rows.sort(key=lambda r: r.is_test)  # stable: the resolver's order otherwise
    if rows and (tests or not rows[0].is_test):
        return rows[0]
    return None


def _parents(folder: str) -> list[str]:
    parts = folder.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _unknown_message(value: str, names: list[str], paths: list[str], folders: list[str]) -> str:
    msgs = strings("en")
    pool = paths + [f + "/" for f in folders]
    by_base = {posixpath.basename(p.rstrip("/")): p for p in sorted(pool, reverse=True)}
    close = difflib.get_close_matches(posixpath.basename(value), list(by_base), n=5, cutoff=0.6)
    found = list(dict.fromkeys([by_base[c] for c in close] + names))[:6]
    head = msgs.t("unknown_target", target=value)
    if found:
        return head + msgs.t("candidates", candidates=", ".join(found))
    return head + msgs.t("no_candidates")
