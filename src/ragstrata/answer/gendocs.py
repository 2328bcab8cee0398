"""Markdown documentation for a file, a package (folder) or a symbol, from C0/C1/C2 rows.

Deterministic without an LLM (golden-testable): title; overview (the module's own doc comment
or the README section naming it); public API with signatures, doc comments converted to
Markdown (parameters, returns, raises, examples, deprecations), members defined in any file;
a Mermaid diagram of the calls between the main definitions; relations (precise, and possible
ones apart); examples quoted from the tests that call it. Every item is cited
``path:start-end``. Gathering is :mod:`ragstrata.docgen.collect`, writing
:mod:`ragstrata.docgen.render`; LLM prose :mod:`ragstrata.docgen.prose`.

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
from ragstrata.docgen.collect import Collector, Reader
from ragstrata.docgen.index_view import IndexView
from ragstrata.docgen.model import Page
from ragstrata.docgen.render import Link, render_page
from ragstrata.docgen.strings import strings
from ragstrata.errors import UserError
from ragstrata.ingest.rows import DefinitionRow
from ragstrata.retrieve.resolve import SymbolResolver
from ragstrata.store.base import Store

__all__ = [
    "GeneratedDocs",
    "Target",
    "build_docs",
    "collect_page",
    "generate_docs",
    "resolve_target",
]

_INIT_FILES = ("__init__.py", "mod.rs", "index.js", "index.ts")


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
    target: str, *, store: Store, language: str = "en", read: Reader | None = None
) -> str:
    """Markdown documentation for ``target`` (a file path, folder or symbol)."""
    return build_docs(target, store=store, language=language, read=read).markdown


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
    store: Store,
    language: str = "en",
    read: Reader | None = None,
    header: bool = False,
    link: Link | None = None,
) -> GeneratedDocs:
    """The documentation of ``target`` with its citations (see :func:`generate_docs`).

    ``read`` (path -> text) lets module documentation be read from the files themselves.
    """
    s = strings(language)
    resolved = resolve_target(target, store)
    page = collect_page(resolved, Collector(IndexView(store), read))
    out = render_page(page, s, header=header, link=link)
    return GeneratedDocs(target=resolved, markdown=out.markdown, citations=out.citations,
                         page=page)


# --------------------------------------------------------------------------- resolution


def _clean(target: str) -> str:
    value = target.strip().strip("`'\"").replace("\\", "/")
    while value.startswith("./"):
        value = value[2:]
    return value.rstrip("/")


def resolve_target(target: str, store: Store) -> Target:
    """Resolve ``target`` (module docstring); raise ``UserError`` with candidates if unknown."""
    if target.strip() in (".", "./"):
        return Target("package", "")  # the repository's root folder
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
    msgs = strings("en")
    pool = paths + [f + "/" for f in folders]
    by_base = {posixpath.basename(p.rstrip("/")): p for p in sorted(pool, reverse=True)}
    close = difflib.get_close_matches(posixpath.basename(value), list(by_base), n=5, cutoff=0.6)
    found = list(dict.fromkeys([by_base[c] for c in close] + names))[:6]
    head = msgs.t("unknown_target", target=value)
    if found:
        return head + msgs.t("candidates", candidates=", ".join(found))
    return head + msgs.t("no_candidates")
