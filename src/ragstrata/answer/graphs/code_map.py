"""The code's own map for an overview: its top-level packages / crates / modules, each with the
one-line summary of its package doc (docstring or doc comment) when it has one.

A package is a folder of non-test source files outside examples and docs; the top-level ones
are the shallowest such folders, largest first. Each is shown through one file that documents
the package (``doc.go``, ``__init__.py``, ``lib.rs`` / ``mod.rs``, ``index.ts``,
``package-info.java``...), else its file with a module docstring, else its first file.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ragstrata.answer.graphs.base import first_sentence
from ragstrata.ingest.languages import detect_language, is_test
from ragstrata.retrieve.rows import outline
from ragstrata.store.base import Store

__all__ = ["MAX_PACKAGES", "PackageEntry", "code_map"]

MAX_PACKAGES = 8
_PACKAGE_FILES = (
    "doc.go",
    "__init__.py",
    "lib.rs",
    "mod.rs",
    "main.rs",
    "index.ts",
    "index.js",
    "package-info.java",
    "mod.ts",
    "main.go",
    "__main__.py",
)
_SKIP_DIRS = (
    "examples",
    "example",
    "docs",
    "doc",
    "test",
    "tests",
    "testdata",
    "benchmarks",
    "bench",
    "scripts",
    "vendor",
    "node_modules",
    "third_party",
    "fixtures",
)
_NOT_CODE = ("markdown", "rst", "text", "json", "yaml", "toml", "xml", "html", "css", "unknown")
_MAX_FILES_READ = 3


@dataclass(frozen=True, slots=True)
class PackageEntry:
    """One package of the map: its folder, the file cited, its summary."""

    folder: str
    path: str
    start_line: int
    end_line: int
    summary: str


def _is_source(path: str) -> bool:
    language = detect_language(path)
    if language in _NOT_CODE or is_test(path, language):
        return False
    parts = path.lower().split("/")[:-1]
    return not any(p in _SKIP_DIRS or p.startswith(".") for p in parts)


def code_map(store: Store, paths: Iterable[str]) -> list[PackageEntry]:
    """The top-level packages, shallowest and largest first (see the module docstring)."""
    folders: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        if _is_source(path):
            folders[posixpath.dirname(path)].append(path)
    if not folders:
        return []
    ranked = sorted(folders, key=lambda f: (f.count("/") if f else -1, -len(folders[f]), f))
    top = ranked[0].count("/") if ranked[0] else -1
    chosen = [f for f in ranked if (f.count("/") if f else -1) <= top + 1][:MAX_PACKAGES]
    out = []
    for folder in chosen:
        files = sorted(
            folders[folder],
            key=lambda p: (
                _PACKAGE_FILES.index(posixpath.basename(p))
                if posixpath.basename(p) in _PACKAGE_FILES
                else len(_PACKAGE_FILES),
                p,
            ),
        )
        out.append(_entry(store, folder, files))
    return out


def _entry(store: Store, folder: str, files: list[str]) -> PackageEntry:
    first = None
    for path in files[:_MAX_FILES_READ]:
        rows = outline(store, path)
        module = next((r for r in rows if r.kind == "module"), None)
        if first is None:
            first = (path, module.end_line if module else 1)
        if module is not None and module.docstring:
            doc = first_sentence(module.docstring, 160)
            end = min(module.end_line, module.start_line + module.docstring.count("\n") + 1)
            return PackageEntry(folder or ".", path, module.start_line, end, doc)
    path, end = first or (files[0], 1)
    return PackageEntry(folder or ".", path, 1, max(1, min(end, 1)), "")
