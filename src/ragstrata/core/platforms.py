"""The operating systems a source file is built for: read off its name (`backend_windows.go`,
`src/unix/linux.rs`, `_unix.py`, `win.rs`) and a Go build constraint above its package clause
(`//go:build freebsd || darwin`). A question asking how something works "on Windows" or «на
Linux» (its platforms are a question facet, read in ``query/``) is answered from that
platform's file before the same function written for another one.

Each platform is one canonical name; a file for Unix is a file for Linux, macOS and the BSDs.
"""

from __future__ import annotations

import re

__all__ = ["PLATFORMS", "UNIX", "UNIX_WORDS", "file_platforms", "fits_platform"]

# canonical name -> the words naming it in a file name or a Go build constraint
PLATFORMS: dict[str, frozenset[str]] = {
    "windows": frozenset({"windows", "win", "win32", "wincon", "winterm", "winapi", "nt"}),
    "linux": frozenset({"linux", "inotify", "epoll"}),
    "macos": frozenset({"macos", "darwin", "osx", "apple", "mac", "kqueue", "fsevents"}),
    "bsd": frozenset({"bsd", "freebsd", "openbsd", "netbsd", "dragonfly", "kqueue"}),
    "solaris": frozenset({"solaris", "illumos", "fen", "aix"}),
    "android": frozenset({"android"}),
    "ios": frozenset({"ios"}),
    "wasm": frozenset({"wasm", "wasi", "wasm32", "js"}),
}
# a file (or a question) for Unix is for every platform below (and only those)
UNIX = frozenset({"linux", "macos", "bsd", "solaris", "android", "ios"})
UNIX_WORDS = frozenset({"unix", "posix", "nix"})
# `js` names a platform in a Go build constraint, never in a file name (`index.js`)
_NAME_ONLY_IN_BUILD = frozenset({"js", "apple", "mac", "fen", "nt"})
_WORD = re.compile(r"[a-z][a-z0-9]*")
_BUILD = re.compile(r"^//\s*(?:go:build|\+build)\s+(.+)$", re.MULTILINE)
_HEADER_CHARS = 2000  # a build constraint stands above the package clause


def _platforms_of(words: list[str], *, build: bool) -> set[str]:
    found: set[str] = set()
    for word in words:
        if word in UNIX_WORDS:
            found |= UNIX
            continue
        if not build and word in _NAME_ONLY_IN_BUILD:
            continue
        if "win32" in word or "win64" in word:  # `ansitowin32.py`
            word = "win32"
        found |= {name for name, names in PLATFORMS.items() if word in names}
    return found


def file_platforms(path: str, text: str = "") -> frozenset[str]:
    """The platforms a file is written for, or none (it builds everywhere). ``text``, when
    given, is the file's text: a Go build constraint in its header names them too, its
    negated terms (`!windows`) excluded."""
    name = path.lower().rsplit("/", 1)[-1].rsplit(".", 1)[0]
    folders = path.lower().split("/")[:-1]
    found = _platforms_of(_WORD.findall(name.replace("_", " ").replace("-", " ")), build=False)
    if not found:
        # a folder named for a platform (`src/windows/`, `unix/`), unless the name says more
        # (`src/unix/linux.rs` is for Linux only)
        found = _platforms_of([f for f in folders if _WORD.fullmatch(f)], build=False)
    if text and path.endswith(".go"):
        for line in _BUILD.findall(text[:_HEADER_CHARS]):
            kept = re.sub(r"!\s*\w+", " ", line.lower())
            found |= _platforms_of(_WORD.findall(kept), build=True)
    return frozenset(found)


def fits_platform(asked: frozenset[str], path: str, text: str = "") -> int:
    """0 when the file is written for a platform ``asked`` names, 1 when it builds everywhere,
    2 when it is written only for others (the Windows code, asked about Linux)."""
    mine = file_platforms(path, text)
    if not mine:
        return 1
    return 0 if mine & asked else 2
