"""The operating systems a question names: "on Windows", «на Linux», "macOS and BSD",
"Unix-like systems". A how-question naming one is answered from that platform's file
(``core.platforms`` reads a file's platforms).
"""

from __future__ import annotations

import re

from ragstrata.core.platforms import PLATFORMS, UNIX, UNIX_WORDS

__all__ = ["asked_platforms"]

# each word (folded, whole) naming a platform in a question, to its canonical name
_WORDS: dict[str, tuple[str, ...]] = {
    "windows": ("windows",), "win32": ("windows",), "винда": ("windows",),
    "виндовс": ("windows",), "винде": ("windows",), "винды": ("windows",),
    "linux": ("linux",), "линукс": ("linux",), "линуксе": ("linux",), "линукса": ("linux",),
    "macos": ("macos",), "osx": ("macos",), "darwin": ("macos",), "макос": ("macos",),
    "bsd": ("bsd",), "freebsd": ("bsd",), "openbsd": ("bsd",), "netbsd": ("bsd",),
    "dragonfly": ("bsd",), "illumos": ("solaris",), "solaris": ("solaris",), "aix": ("solaris",),
    "android": ("android",), "андроид": ("android",), "андроиде": ("android",),
    "ios": ("ios",), "wasm": ("wasm",), "webassembly": ("wasm",), "wasi": ("wasm",),
}  # fmt: skip
_UNIX_WORDS = UNIX_WORDS | {"юникс", "юниксе", "юникса"}
# "Mac OS", "OS X": two words
_TWO_WORDS = re.compile(r"(?i)(?<!\w)(?:mac\s*os|os\s*x)(?!\w)")
_WORD = re.compile(r"\w+")


def asked_platforms(question: str) -> frozenset[str]:
    """The canonical platforms (keys of ``core.platforms.PLATFORMS``) ``question`` names."""
    found: set[str] = set()
    if _TWO_WORDS.search(question):
        found.add("macos")
    for word in _WORD.findall(question.lower().replace("ё", "е")):
        # «Unix-подобных», "unix-like": the word before the hyphen
        if word in _UNIX_WORDS:
            found.update(UNIX)
        found.update(_WORDS.get(word, ()))
    return frozenset(p for p in found if p in PLATFORMS)
