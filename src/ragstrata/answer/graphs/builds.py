"""What a file of a how-question's window is built for: the platform a question names
(``backend_windows.go`` "on Windows", ``src/unix/linux.rs`` «на Linux»), or a program using the
library from outside (Go's ``cmd/fsnotify/main.go``, ``package main`` beside a library package at
the module's root): a how-answer leads with the library's own code for the platform asked.
"""

from __future__ import annotations

import re

from ragstrata.core.evidence import Hit
from ragstrata.core.platforms import fits_platform
from ragstrata.core.rows import ChunkRow, Layer
from ragstrata.retrieve.reader import IndexReader

__all__ = ["HEADER_LINES", "client_paths", "file_header", "platform_fits"]

HEADER_LINES = 40  # a build constraint, a package clause stand at a file's top
_PACKAGE = re.compile(r"^package\s+(\w+)", re.MULTILINE)


def file_header(reader: IndexReader, path: str) -> str:
    """The text of ``path``'s chunks starting in its first :data:`HEADER_LINES` lines."""
    return "\n".join(
        r.text
        for r in reader.file_rows(path, (Layer.C3,))
        if isinstance(r, ChunkRow) and r.start_line <= HEADER_LINES
    )


def _package(reader: IndexReader, path: str) -> str:
    found = _PACKAGE.search(file_header(reader, path))
    return found.group(1) if found else ""


def client_paths(window: list[Hit], reader: IndexReader | None) -> set[str]:
    """The Go files of ``window`` in a ``package main`` below the root of a module whose root
    package is a library: a command or demo using the library, not the library's own work."""
    mains = {h.path for h in window if h.path.endswith(".go") and "/" in h.path}
    if reader is None or not mains:
        return set()
    roots = [p for p in reader.paths() if "/" not in p and p.endswith(".go") and "_test" not in p]
    if not roots or _package(reader, roots[0]) in ("", "main"):
        return set()  # no library at the root (a command's repository): its mains are its work
    # every file of a Go folder is of one package: one header read a folder
    folders: dict[str, str] = {}
    for path in sorted(mains, key=lambda p: (p.endswith("_test.go"), p)):  # `x_test` aside
        folders.setdefault(path.rsplit("/", 1)[0], path)
    commands = {f for f, path in folders.items() if _package(reader, path) == "main"}
    return {path for path in mains if path.rsplit("/", 1)[0] in commands}


def platform_fits(
    window: list[Hit], reader: IndexReader | None, platforms: frozenset[str]
) -> dict[str, int]:
    """Each path of ``window`` to :func:`core.platforms.fits_platform` for the ``platforms`` a
    question names (0: written for one of them, 1: for every platform, 2: only for others);
    empty when the question names none."""
    if not platforms:
        return {}
    fits = {}
    for path in {h.path for h in window}:
        header = file_header(reader, path) if reader is not None and path.endswith(".go") else ""
        fits[path] = fits_platform(platforms, path, header)
    return fits
