"""Path rules for the router: extensions, well-known names and test paths (``paths.toml``).

``PathRules`` answers what a file name is (code, doc, test, its language); ``path_part`` and
``accept_slash_path`` decide what part of a question's text is a FILE_PATH anchor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ragstrata.query.models import RepoContext
from ragstrata.text.tokens import has_cyrillic

__all__ = ["LINE_RE", "PathRules", "accept_slash_path", "path_part"]

LINE_RE = re.compile(r"(?::L?\d+(?:[-:]L?\d+)?|#L\d+(?:-L?\d+)?)(?![\w.])")
"""A ``:12``, ``:L12-L20`` or ``#L12`` line suffix of a path."""


@dataclass(frozen=True, slots=True)
class PathRules:
    """Extensions, well-known names and test-path rules from ``paths.toml``."""

    code_ext: dict[str, str]
    doc_ext: frozenset[str]
    other_ext: frozenset[str]
    ambiguous_ext: frozenset[str]
    file_names: frozenset[str]
    doc_names: frozenset[str]
    dirs: frozenset[str]
    test_dirs: frozenset[str]
    test_file_re: re.Pattern[str]
    names_re: re.Pattern[str]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> PathRules:
        """Compile the ``paths.toml`` document."""
        ext = data["extensions"]
        names = data["names"]
        files = frozenset(names["files"])
        alts = "|".join(re.escape(n) for n in sorted(files, key=len, reverse=True))
        return cls(
            code_ext=dict(ext["code"]),
            doc_ext=frozenset(ext["doc"]),
            other_ext=frozenset(ext["other"]),
            ambiguous_ext=frozenset(ext["ambiguous"]),
            file_names=files,
            doc_names=frozenset(names["doc_files"]),
            dirs=frozenset(names["dirs"]),
            test_dirs=frozenset(data["tests"]["dirs"]),
            test_file_re=re.compile("|".join(f"(?:{p})" for p in data["tests"]["file_patterns"])),
            names_re=re.compile(rf"(?<![\w./\\-])(?:{alts})(?![\w/\\-])"),
        )

    def ext_of(self, name: str) -> str | None:
        """The known extension of a file name (lower-case), or ``None``."""
        base = name.rsplit("/", 1)[-1]
        if "." not in base.strip("."):
            return None
        ext = base.rsplit(".", 1)[1].lower()
        if ext in self.code_ext or ext in self.doc_ext or ext in self.other_ext:
            return ext
        return None

    def is_file_name(self, name: str) -> bool:
        """True for a name with a known extension or a well-known file name."""
        return self.ext_of(name) is not None or name in self.file_names

    def is_doc(self, path: str) -> bool:
        """True for a documentation file (doc extension or README-like name)."""
        base = path.rsplit("/", 1)[-1]
        ext = self.ext_of(base)
        stem = base.split(".", 1)[0]
        return (ext in self.doc_ext) or stem.upper() in self.doc_names

    def language(self, path: str) -> str | None:
        """The programming language of a file path, or ``None``."""
        ext = self.ext_of(path)
        return self.code_ext.get(ext) if ext else None

    def is_test(self, path: str) -> bool:
        """True for a test path (a test folder or a test file name)."""
        parts = [p for p in path.split("/") if p]
        if not parts:
            return False
        if any(p in self.test_dirs for p in parts[:-1]):
            return True
        last = parts[-1]
        return (self.ext_of(last) is None and last in self.test_dirs) or bool(
            self.test_file_re.fullmatch(last)
        )


def path_part(value: str) -> str:
    """A FILE_PATH value without ``:line`` / ``#L10`` / ``#section``."""
    m = LINE_RE.search(value)
    if m and m.end() == len(value):
        value = value[: m.start()]
    if "#" in value:
        value = value.split("#", 1)[0]
    return value


def accept_slash_path(cand: str, rules: PathRules, repo: RepoContext) -> tuple[str, float] | None:
    """Classify a slash candidate: (subtype, confidence), or ``None`` when it is not a path."""
    norm = cand.replace("\\", "/")
    segs = [s for s in norm.split("/") if s]
    if not segs:
        return None
    if all(len(s) <= 1 for s in segs):
        return None  # "w/ python3.6", a literal "\\n", "a/b": shorthand, not a path
    last = segs[-1]
    is_file = not norm.endswith("/") and rules.is_file_name(last)
    first = segs[0]
    prefixed = norm.startswith(("/", "./", "../", "~/")) or re.match(r"[A-Za-z]:/", norm)
    if is_file or (repo.top_dirs and first in repo.top_dirs):
        conf = 0.95
    elif prefixed:
        conf = 0.9
    elif first in rules.dirs or norm.endswith("/"):
        conf = 0.85
    elif norm.count("/") >= 2 and not any(has_cyrillic(s) for s in segs):
        conf = 0.8
    else:
        return None
    if all(has_cyrillic(s) for s in segs) and not is_file:
        return None
    return ("file" if is_file else "dir"), conf
