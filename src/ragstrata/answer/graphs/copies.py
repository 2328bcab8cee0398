"""Which files of a how-question's window hold code beside the project's own working code: a
copy a build constraint keeps for old toolchains (Go's ``btree.go`` beside
``btree_generic.go``), a build's output beside its source under ``src/`` (he's ``he.js``,
sade's ``deno/mod.js``), and code in another language than the project's own (the C port
beside a Rust crate). A how-answer leads with the project's own code built today.
"""

from __future__ import annotations

import re
from collections import Counter

from ragstrata.answer.graphs.builds import file_header
from ragstrata.answer.graphs.doing import last_name
from ragstrata.core.evidence import Hit
from ragstrata.core.languages import detect_language, language_info
from ragstrata.core.paths import peripheral_path
from ragstrata.retrieve.reader import IndexReader

__all__ = ["copied_paths", "foreign_paths"]


def copied_paths(window: list[Hit], reader: IndexReader | None) -> set[str]:
    """The files of ``window`` holding a copy: kept for older toolchains, or built from a
    source under ``src/``."""
    return _legacy_paths(_copied(window), reader) | _built_copies(window)


# a build constraint keeping a file for toolchains older than a version (`//go:build !go1.18`,
# `// +build !go1.18`): the copy kept for them, beside the one built today
_LEGACY_BUILD = re.compile(r"^//\s*(?:go:build|\+build)\s.*!go1\.\d+", re.MULTILINE)


def _copied(window: list[Hit]) -> set[str]:
    """The Go files of ``window`` defining a name another of its Go files defines too: the
    only ones a build constraint may have copied (no other file's header is read)."""
    files: dict[str, set[str]] = {}
    for hit in window:
        if hit.path.endswith(".go"):
            files.setdefault(last_name(hit.symbol or ""), set()).add(hit.path)
    return {path for paths in files.values() if len(paths) > 1 for path in paths}


def _built_copies(window: list[Hit]) -> set[str]:
    """The files of ``window`` repeating a definition a file under ``src/`` holds (the same
    name, about as long): a build's output beside its source (he's ``he.js`` built from
    ``src/he.js``, sade's ``deno/mod.js`` from ``src/index.js``)."""
    sources = {
        (last_name(h.symbol or ""), h.end_line - h.start_line)
        for h in window
        if h.path.startswith("src/") or "/src/" in h.path
    }
    return {
        h.path
        for h in window
        if not (h.path.startswith("src/") or "/src/" in h.path)
        and any(
            (last_name(h.symbol or ""), h.end_line - h.start_line + d) in sources
            for d in range(-_COPY_SLACK, _COPY_SLACK + 1)
        )
    }


_COPY_SLACK = 3  # lines a build may add to or take from a definition it copies


def _legacy_paths(paths: set[str], reader: IndexReader | None) -> set[str]:
    """The ``paths`` built only for older toolchains: a how-answer leads with the code built
    today (``btree_generic.go``), not the copy kept for old compilers (``btree.go``)."""
    if reader is None:
        return set()
    legacy = set()
    for path in paths:
        if path.endswith(".go") and _LEGACY_BUILD.search(file_header(reader, path)):
            legacy.add(path)
    return legacy


_FAMILIES = {"typescript": "javascript", "tsx": "javascript", "cpp": "c", "objc": "c"}


def _family(path: str) -> str:
    """The language family of a code file ("" for docs, data and config)."""
    language = detect_language(path)
    info = language_info(language)
    if info is None or info.kind != "code":
        return ""
    return _FAMILIES.get(language, language)


def foreign_paths(window: list[Hit], reader: IndexReader | None) -> set[str]:
    """The paths of ``window`` in another language than the one most of the project's own code
    is written in (at least :data:`_MAIN_SHARE` of its code files): the C port beside a Rust
    crate, a C accelerator beside the Python it speeds up, a shell
    script beside Go: the project's own language tells how it works."""
    families = {h.path: _family(h.path) for h in window}
    if reader is None or len({f for f in families.values() if f}) < 2:
        return set()  # one language among the candidates: nothing to set aside, no catalog read
    counts = Counter(
        family for path in reader.paths() if not peripheral_path(path) and (family := _family(path))
    )
    if not counts:
        return set()
    main, files = counts.most_common(1)[0]
    if files * _MAIN_SHARE[1] < _MAIN_SHARE[0] * sum(counts.values()):
        return set()  # a project of several languages (a Go server, a TypeScript client)
    return {path for path, family in families.items() if family and family != main}


_MAIN_SHARE = (2, 3)  # the share of the code files the project's own language holds at least
