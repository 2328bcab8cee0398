"""Language detection, test/doc conventions and separator ladders, all driven by data files.

``data/languages.toml`` maps extensions, well-known file names and shebang interpreters to
language ids and lists each language's test-file conventions; ``data/separators.toml`` holds the
recursive splitter's separator ladder per language. Both are loaded once, on first use.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = [
    "DOC_KIND",
    "LanguageInfo",
    "detect_language",
    "is_doc",
    "is_inline_test",
    "is_test",
    "known_languages",
    "ladder_for",
    "language_info",
    "rust_module",
    "shebang_interpreter",
]

DOC_KIND = "doc"
UNKNOWN = "unknown"
_VERSION_TAIL = re.compile(r"[\d.\-_]+$")


@dataclass(frozen=True, slots=True)
class LanguageInfo:
    """What the data file says about one language."""

    id: str
    kind: str  # code | doc | data | config | markup
    extensions: tuple[str, ...]
    names: tuple[str, ...]
    name_globs: tuple[str, ...]
    interpreters: tuple[str, ...]
    tests: tuple[str, ...]
    builtin_types: frozenset[str] = frozenset()  # never a ``references`` relation


@dataclass(frozen=True, slots=True)
class _Tables:
    languages: dict[str, LanguageInfo]
    by_name: dict[str, str]
    name_globs: tuple[tuple[str, str], ...]
    by_ext: dict[str, str]
    max_ext_parts: int
    by_interpreter: dict[str, str]
    test_dirs: frozenset[str]
    doc_dirs: frozenset[str]
    doc_names: tuple[str, ...]
    not_doc_names: tuple[str, ...]


def _load_toml(name: str) -> dict[str, Any]:
    data = resources.files("ragstrata.data").joinpath(name).read_text(encoding="utf-8")
    return tomllib.loads(data)


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    raw = _load_toml("languages.toml")
    languages: dict[str, LanguageInfo] = {}
    by_name: dict[str, str] = {}
    globs: list[tuple[str, str]] = []
    by_ext: dict[str, str] = {}
    by_interp: dict[str, str] = {}
    for lang_id, spec in raw["languages"].items():
        info = LanguageInfo(
            id=lang_id,
            kind=spec.get("kind", "code"),
            extensions=tuple(e.lower() for e in spec.get("extensions", ())),
            names=tuple(spec.get("names", ())),
            name_globs=tuple(spec.get("name_globs", ())),
            interpreters=tuple(i.lower() for i in spec.get("interpreters", ())),
            tests=tuple(spec.get("tests", ())),
            builtin_types=frozenset(spec.get("builtin_types", ())),
        )
        languages[lang_id] = info
        by_name.update(dict.fromkeys(info.names, lang_id))
        globs.extend((g, lang_id) for g in info.name_globs)
        by_ext.update(dict.fromkeys(info.extensions, lang_id))
        by_interp.update(dict.fromkeys(info.interpreters, lang_id))
    conv = raw["conventions"]
    return _Tables(
        languages=languages,
        by_name=by_name,
        name_globs=tuple(globs),
        by_ext=by_ext,
        max_ext_parts=max(e.count(".") + 1 for e in by_ext),
        by_interpreter=by_interp,
        test_dirs=frozenset(d.lower() for d in conv["test_dirs"]),
        doc_dirs=frozenset(d.lower() for d in conv["doc_dirs"]),
        doc_names=tuple(g.lower() for g in conv["doc_names"]),
        not_doc_names=tuple(g.lower() for g in conv["not_doc_names"]),
    )


def known_languages() -> tuple[str, ...]:
    """Every language id of the data file, sorted."""
    return tuple(sorted(_tables().languages))


def language_info(language: str) -> LanguageInfo | None:
    """The data file's entry for a language id, or None."""
    return _tables().languages.get(language)


def shebang_interpreter(first_line: str) -> str | None:
    """The interpreter a ``#!`` line names, normalised (``/usr/bin/env python3.11`` -> python)."""
    if not first_line.startswith("#!"):
        return None
    words = first_line[2:].strip().split()
    if not words:
        return None
    prog = words[0].rsplit("/", 1)[-1]
    if prog == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        prog = rest[0].rsplit("/", 1)[-1]
    prog = prog.lower()
    return _VERSION_TAIL.sub("", prog) or prog


def detect_language(path: str, first_line: str = "") -> str:
    """Language id of a repository-relative POSIX path (``first_line`` for a shebang).

    Order: well-known file name, file-name glob, extension, shebang, documentation file name
    (README, LICENSE... -> "text"), a file in a docs folder -> "text", else "unknown".
    """
    t = _tables()
    name = path.rsplit("/", 1)[-1]
    if name in t.by_name:
        return t.by_name[name]
    for glob, lang in t.name_globs:
        if fnmatchcase(name, glob):
            return lang
    parts = name.lower().split(".")
    # Longest compound suffix first ("d.ts" before "ts"); a leading dot is not an extension.
    for n in range(min(t.max_ext_parts, len(parts) - 1), 0, -1):
        if parts[0] == "" and n == len(parts) - 1:
            continue
        ext = ".".join(parts[-n:])
        if ext in t.by_ext:
            return t.by_ext[ext]
    interp = shebang_interpreter(first_line) if first_line else None
    if interp is not None and interp in t.by_interpreter:
        return t.by_interpreter[interp]
    lower = name.lower()
    if any(fnmatchcase(lower, g) for g in t.doc_names):
        return "text"
    folders = path.lower().split("/")[:-1]
    if "." not in name and any(f in t.doc_dirs for f in folders):
        return "text"
    return UNKNOWN


def is_doc(path: str, language: str) -> bool:
    """True for documentation: Markdown, reStructuredText, AsciiDoc anywhere; plain text at the
    top level, in a docs folder or with a documentation name (README, LICENSE...), and never a
    known non-prose text file such as requirements.txt."""
    t = _tables()
    info = t.languages.get(language)
    if info is None or info.kind != DOC_KIND:
        return False
    *folders, name = path.lower().split("/")
    if any(fnmatchcase(name, g) for g in t.not_doc_names):
        return False
    if language != "text" or not folders or any(fnmatchcase(name, g) for g in t.doc_names):
        return True
    return any(f in t.doc_dirs for f in folders)


def is_test(path: str, language: str) -> bool:
    """True for a test file: below a test folder (tests/, __tests__/, spec/, src/test/...) or
    named by its language's convention (test_*.py, *_test.go, *.spec.ts, *Test.java...).

    Documentation is never a test, even inside a test folder.
    """
    if is_doc(path, language):
        return False
    t = _tables()
    *folders, name = path.split("/")
    if any(f.lower() in t.test_dirs for f in folders):
        return True
    info = t.languages.get(language)
    return info is not None and any(fnmatchcase(name, g) for g in info.tests)


def is_inline_test(symbol: str, language: str) -> bool:
    """True for a Rust unit test written beside the code it tests (``#[test] fn test_parse``
    in ``src/line_range.rs``, or anything in a ``mod tests``): its file is no test file, the
    definition is one."""
    if language != "rust" or not symbol:
        return False
    segments = symbol.split("::")
    return segments[-1].startswith("test_") or "tests" in segments[:-1]


@lru_cache(maxsize=1)
def _ladders() -> dict[str, tuple[str, ...]]:
    raw = _load_toml("separators.toml")
    out: dict[str, tuple[str, ...]] = {}
    for lang, spec in raw.items():
        if "ladder" in spec:
            out[lang] = tuple(spec["ladder"])
    for lang, spec in raw.items():
        if "same_as" in spec:
            out[lang] = out[spec["same_as"]]
    return out


def ladder_for(language: str) -> tuple[str, ...]:
    """The splitter's separator ladder for a language id (the default ladder if it has none)."""
    ladders = _ladders()
    return ladders.get(language, ladders["default"])


def rust_module(path: str) -> str:
    """``src/shapes/circle.rs`` -> ``crate::shapes::circle``; ``src/lib.rs`` -> ``crate``."""
    parts = path.removesuffix(".rs").split("/")
    if "src" in parts[:-1]:
        parts = parts[len(parts) - parts[::-1].index("src") :]
    if parts and parts[-1] == "mod":
        parts.pop()
    if len(parts) == 1 and parts[0] in {"lib", "main"}:
        parts = []
    return "::".join(["crate", *(p for p in parts if p)])
