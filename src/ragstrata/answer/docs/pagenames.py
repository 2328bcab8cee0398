"""File names of a site's pages: one per package folder, distinct, and safe on every system.

The readable name is the folder with ``/`` as ``__`` (``src/app`` -> ``src__app.md``; the
root -> ``_root.md``). It is then made safe: characters outside letters, digits and ``._-``
become ``_``, a leading dot or a Windows device name (``CON``, ``aux``, ``COM1`` ...) gets a
``_`` prefix, trailing dots and spaces go, and a name longer than :data:`MAX_BYTES` is cut and
ends with a hash of the folder. Names that still clash — ``a/b`` and ``a__b``, a package
named ``index`` (the site's ``index.md``), ``_root``, names equal but for case — all get a
hash of their folder, so the mapping is injective and never yields ``index.md``. Pure.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable

__all__ = ["INDEX", "MAX_BYTES", "page_names"]

INDEX = "index.md"
MAX_BYTES = 120  # well under the 255-byte limit of common file systems
_UNSAFE = re.compile(r"[^\w.\-]", re.UNICODE)
_DEVICES = frozenset(
    {"con", "prn", "aux", "nul", "clock$", "conin$", "conout$"}
    | {f"{p}{n}" for p in ("com", "lpt") for n in (*"123456789", "¹", "²", "³")}
)


def _hash(folder: str) -> str:
    return hashlib.sha256(folder.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def _readable(folder: str) -> str:
    stem = folder.replace("/", "__") if folder else "_root"
    stem = _UNSAFE.sub("_", stem).rstrip(". ")
    if not stem or stem.startswith(".") or stem.split(".")[0].lower() in _DEVICES:
        stem = "_" + stem
    if len(stem.encode("utf-8")) > MAX_BYTES:
        cut = stem.encode("utf-8")[: MAX_BYTES - 11].decode("utf-8", "ignore")
        stem = f"{cut}-{_hash(folder)}"
    return stem


def page_names(folders: Iterable[str]) -> dict[str, str]:
    """``folder -> page file name`` for every folder (see the module docstring)."""
    chosen = list(dict.fromkeys(folders))
    stems = {f: _readable(f) for f in chosen}
    clashes = Counter(s.lower() for s in stems.values())
    out: dict[str, str] = {}
    taken = {INDEX}
    for f in chosen:
        stem = stems[f]
        if clashes[stem.lower()] > 1 or stem.lower() == "index" or (f and stem == "_root"):
            base = stem.encode("utf-8")[: MAX_BYTES - 11].decode("utf-8", "ignore")
            stem = f"{base}-{_hash(f)}"
        name, n = stem + ".md", 1
        while name.lower() in taken:  # a readable name equal to another's hashed one
            n += 1
            name = f"{stem}-{n}.md"
        taken.add(name.lower())
        out[f] = name
    return out
