"""Gitignore patterns compiled for a walk that asks them about every path of a tree.

:class:`IgnoreSpec` answers exactly as ``pathspec``'s ``GitIgnoreSpec`` does (it *is* one,
behind a screen): one regular expression built from the very expressions ``pathspec`` compiles
for each pattern tells, in one ``match``, that no pattern matches a path (nearly every path of
a tree); only a path that passes the screen is asked of the full, ordered pattern list, whose
precedence rules (last match wins, negation, folder marks) stay ``pathspec``'s own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern
from pathspec.util import NORMALIZE_PATH_SEPS, normalize_file

__all__ = ["IgnoreSpec", "ignore_spec"]

_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_NEVER = re.compile("(?!)")
_ANY_FOLDER = "^(?:.+/)?"  # how pathspec starts a pattern without a slash: in any folder
_SEPARATORS = tuple(NORMALIZE_PATH_SEPS)  # empty on POSIX: normalize_file only strips "/" "./"
_CACHED_SPEC_CHARS = 64 * 1024  # bigger ignore files are compiled afresh, never kept


class IgnoreSpec:
    """Gitignore-syntax patterns (``GitIgnoreSpec``) with a fast screen for non-matching paths.

    :meth:`check` answers exactly as ``GitIgnoreSpec.check_file(path).include`` does. The
    screen is one regex built from the very expressions ``pathspec`` compiles per pattern; the
    ``GitIgnoreSpec`` itself is compiled only once some path passes the screen. A line
    ``pathspec`` cannot compile (``[z-a]``, a reversed range, which git reads as the letter
    ``z``) is dropped, matching nothing, instead of failing the walk; with ``strict`` it raises
    ``ValueError``.
    :func:`ignore_spec` shares the compiled form between walks.
    """

    __slots__ = ("_lines", "_screen", "_spec")

    def __init__(self, lines: Iterable[str], *, strict: bool = False) -> None:
        self._lines, self._screen = _screen(tuple(lines), strict=strict)
        self._spec: GitIgnoreSpec | None = None

    @property
    def spec(self) -> GitIgnoreSpec:
        """The ``GitIgnoreSpec`` of the compilable lines (built on first use)."""
        if self._spec is None:
            try:
                self._spec = GitIgnoreSpec.from_lines(self._lines)
            except (ValueError, re.error):  # pathspec escapes its input: not seen; never fail
                self._spec = GitIgnoreSpec.from_lines(ln for ln in self._lines if _compiles(ln))
        return self._spec

    def check(self, path: str) -> bool | None:
        """True: ignored, False: negated (kept), None: no pattern matched ``path``."""
        screen = self._screen
        if screen is not None:
            # normalize_file(path) is path itself unless it starts with "/" or "./" or the OS
            # has another separator; skipping the call is most of a non-matching check's cost.
            fast = not _SEPARATORS and not path.startswith(("/", "./"))
            if screen.match(path if fast else normalize_file(path)) is None:
                return None
        return self.spec.check_file(path).include

    def match(self, path: str) -> bool:
        """True when ``path`` is matched and not negated (``GitIgnoreSpec.match_file``)."""
        return bool(self.check(path))


def ignore_spec(lines: Iterable[str]) -> IgnoreSpec:
    """An :class:`IgnoreSpec` of ``lines``, shared by equal (small) ignore files: repeated walks
    in one process (watch, serve, a re-run) compile each ignore file once."""
    key = tuple(lines)
    if sum(map(len, key)) > _CACHED_SPEC_CHARS:
        return IgnoreSpec(key)
    return _shared_spec(key)


@lru_cache(maxsize=256)
def _shared_spec(lines: tuple[str, ...]) -> IgnoreSpec:
    return IgnoreSpec(lines)


def _screen(
    lines: tuple[str, ...], *, strict: bool
) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    """The lines ``pathspec`` can compile, and one regex that matches a path exactly when one
    of their patterns does (None: no screen; every path is asked of ``pathspec``)."""
    entries: list[tuple[str, str | None]] = []  # (line, its pattern's regex or None)
    screenable = True
    for line in lines:
        if not line:  # GitIgnoreSpec.from_lines skips empty lines too
            continue
        try:
            regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
        except ValueError as exc:  # GitIgnorePatternError
            if strict:
                raise ValueError(f"bad pattern {line!r}: {exc}") from None
            continue
        if include is None:  # a comment or blank line: compiled to nothing, never consulted
            entries.append((line, None))
        else:
            entries.append((line, regex))
            # a back-reference would need its named group (pathspec writes none)
            screenable = screenable and isinstance(regex, str) and "(?P=" not in regex
    if not screenable:
        return tuple(line for line, _ in entries), None
    union = _union([regex for _, regex in entries if regex is not None])
    if union is None:  # some pattern does not compile: find it (rare), drop it, screen the rest
        good = []
        for line, regex in entries:
            if regex is None or _compiles(line):
                good.append((line, regex))
            elif strict:
                raise ValueError(f"bad pattern {line!r}")
        entries = good
        union = _union([regex for _, regex in entries if regex is not None])
    return tuple(line for line, _ in entries), union


def _compiles(line: str) -> bool:
    try:
        GitIgnoreSpecPattern(line)
    except (ValueError, re.error):
        return False
    return True


def _union(regexes: list[str]) -> re.Pattern[str] | None:
    """One regex whose ``match`` succeeds on a path exactly when some ``regexes``' ``search``
    does (None if they do not compile).

    Nearly every gitignore pattern compiles to ``^(?:.+/)?NAME...`` (a name in any folder) or
    ``^PATH...``; the first kind share one ``(?:.+/)?`` so that a path's folders are tried once
    for all of them, not once per pattern. A match exists for the factored form exactly when it
    exists for one alternative; a regex that might hold a top-level ``|`` (so that a stripped
    anchor would not apply to all of it) is not factored but searched as it is. The named
    group each pathspec regex carries (the folder mark) becomes a plain group: a name may
    occur only once in an expression.
    """
    if not regexes:
        return _NEVER
    named, rooted, floating = [], [], []
    for regex in regexes:
        plain = _NAMED_GROUP.sub("(?:", regex)
        if plain.startswith(_ANY_FOLDER) and not _top_level_bar(plain[len(_ANY_FOLDER) :]):
            named.append(plain[len(_ANY_FOLDER) :])
        elif plain.startswith("^") and not _top_level_bar(plain[1:]):
            rooted.append(plain[1:])
        else:
            floating.append(plain)
    parts = [f"(?:{r})" for r in rooted]
    if named:
        parts.append("(?:.+/)?(?:" + "|".join(f"(?:{r})" for r in named) + ")")
    if floating:  # match(r"[\s\S]*?X") succeeds exactly when search("X") does
        parts.append(r"[\s\S]*?(?:" + "|".join(f"(?:{r})" for r in floating) + ")")
    try:
        return re.compile("|".join(parts))
    except re.error:
        return None


def _top_level_bar(regex: str) -> bool:
    """True when ``regex`` may hold a ``|`` outside every group (conservative: an unbalanced
    or unusual expression counts as having one)."""
    depth, i, n = 0, 0, len(regex)
    while i < n:
        char = regex[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":  # a character class: "]" right after "[" or "[^" is a literal
            i += 2 if regex.startswith("[^", i) else 1
            i += 1 if regex.startswith("]", i) else 0
            while i < n and regex[i] != "]":
                i += 2 if regex[i] == "\\" else 1
            if i >= n:
                return True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                return True
        elif char == "|" and depth == 0:
            return True
        i += 1
    return depth != 0
