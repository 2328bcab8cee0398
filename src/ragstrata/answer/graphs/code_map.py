"""The code's own map for an overview: its top-level packages / crates / modules, each with the
one-line summary of its package doc (docstring or doc comment) when it has one.

A package is a folder of non-test source files outside examples and docs; the top-level ones
are the shallowest such folders, largest first (at most :data:`MAX_PACKAGES`). Each is shown through one file that documents
the package (``doc.go``, ``__init__.py``, ``lib.rs`` / ``mod.rs``, ``index.ts``,
``package-info.java``...), else its file with a module docstring, else its first file; the
summary is the module docstring or the doc comment at the top of the file (``// Package x``,
``//!``, ``/** */``), never a licence header.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from ragstrata.answer.graphs.base import first_sentence
from ragstrata.answer.graphs.focus import build_script
from ragstrata.core.languages import detect_language, is_test, language_info
from ragstrata.core.paths import peripheral_path
from ragstrata.retrieve.reader import IndexReader

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
    info = language_info(language)
    if info is None or info.kind != "code" or language in _NOT_CODE or is_test(path, language):
        return False
    if posixpath.basename(path).startswith("."):
        return False
    parts = path.lower().split("/")[:-1]
    if peripheral_path(path) or build_script(path):  # examples, benchmarks, build scripts
        return False
    return not any(p in _SKIP_DIRS or p.startswith(".") for p in parts)


def code_map(reader: IndexReader, paths: Iterable[str]) -> list[PackageEntry]:
    """The top-level packages, shallowest and largest first (see the module docstring)."""
    folders: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        if _is_source(path):
            folders[posixpath.dirname(path)].append(path)
    if not folders:
        return []
    ranked = sorted(folders, key=lambda f: (f.count("/") if f else -1, -len(folders[f]), f))
    chosen = ranked[:MAX_PACKAGES]
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
        out.append(_entry(reader, folder, files))
    return out


def _entry(reader: IndexReader, folder: str, files: list[str]) -> PackageEntry:
    for path in files[:_MAX_FILES_READ]:
        rows = reader.outline(path)
        module = next((r for r in rows if r.kind == "module"), None)
        if module is not None and module.docstring:
            doc = _summary(module.docstring)
            end = min(module.end_line, module.start_line + module.docstring.count("\n") + 1)
            return PackageEntry(folder or ".", path, module.start_line, end, doc)
        text = reader.file_text(path)
        found = leading_doc(text) if text else None
        if found is not None:
            start, end, doc = found
            return PackageEntry(folder or ".", path, start, end, _summary(doc))
    return PackageEntry(folder or ".", files[0], 1, 1, "")


_UNDERLINE = re.compile(r"^\s*[=\-~^*#`]{3,}\s*$", re.MULTILINE)


def _summary(doc: str) -> str:
    """The docstring's first sentence, without reStructuredText heading underlines."""
    return first_sentence(_UNDERLINE.sub("", doc), 160)


_COMMENT = re.compile(r"^\s*(?://[!/]?|/\*\*?|\*/?|#(?!!))\s?(.*?)\s*(?:\*/)?$")
_LICENCE = re.compile(r"copyright|licen[cs]e|spdx", re.IGNORECASE)


def leading_doc(text: str) -> tuple[int, int, str] | None:
    """The doc comment at the top of a source file (Go ``// Package x ...``, Rust ``//!``,
    ``/** ... */``, ``#`` lines), skipping a licence header: (first line, last line, text)."""
    blocks: list[tuple[int, int, list[str]]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        match = _COMMENT.match(line) if line.strip() else None
        if match is not None:
            if not current:
                start = number
            current.append(match.group(1))
            continue
        if current:
            blocks.append((start, number - 1, current))
            current = []
        if line.strip():  # the first code line ends the header
            break
    for first, last, lines in blocks:
        body = " ".join(x for x in lines if x).strip()
        if body and not _LICENCE.search(body):
            return first, last, body
    return None
