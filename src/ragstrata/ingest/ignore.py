"""What the walker skips and why: skip reasons, default skip rules and ignore files.

The default skips (VCS, virtualenv, dependency, build and tool folders, lock files, minified
and secret-bearing files) are data: ``data/walker.toml``, read once by :func:`skip_rules`.
Ignore files are ``.gitignore``, ``.ragstrataignore`` and ``.git/info/exclude``: each readable
one with at least one pattern becomes an :class:`IgnoreLevel` (its ``GitIgnoreSpec`` and the
folder it applies below). A folder's levels are those of its parents plus its own;
:func:`decide` asks them deepest first, as git does.

Speed (a no-op re-index asks these rules for every file of the tree): a glob tuple is compiled
once into one regular expression (:func:`matches`), and every :class:`IgnoreSpec` carries a
*screen*, the union of its patterns' expressions, so that a path no pattern matches (nearly
every path) costs one regex search; a path the screen matches is decided by ``pathspec``
itself, so the result is always exactly ``GitIgnoreSpec``'s.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fnmatch import translate
from functools import lru_cache
from importlib import resources

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern
from pathspec.util import NORMALIZE_PATH_SEPS, normalize_file

__all__ = [
    "IGNORE_FILES",
    "IgnoreLevel",
    "IgnoreSpec",
    "SkipReason",
    "SkipRules",
    "decide",
    "exclude_levels",
    "ignore_spec",
    "matches",
    "push_levels",
    "read_level",
    "skip_rules",
]

IGNORE_FILES = frozenset({".gitignore", ".ragstrataignore"})
"""The per-folder ignore file names the walker reads."""

_MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024  # a hostile multi-GB .gitignore is read no further


class SkipReason(StrEnum):
    """Why the walker left a file or folder out."""

    GITIGNORED = "gitignored"
    RAGSTRATAIGNORE = "ragstrataignore"
    EXCLUDED = "excluded"  # settings.exclude
    NOT_INCLUDED = "not_included"  # settings.include given and not matched
    VCS_DIR = "vcs_dir"
    VENV = "venv"
    NODE_MODULES = "node_modules"
    BUILD_OUTPUT = "build_output"
    TOOL_DIR = "tool_dir"
    INDEX_DIR = "index_dir"
    LOCK_FILE = "lock_file"
    MINIFIED = "minified"
    BINARY = "binary"
    TOO_LARGE = "too_large"
    SECRET = "secret"
    SYMLINK = "symlink"  # settings.follow_symlinks is false
    SYMLINK_OUTSIDE = "symlink_outside"
    SYMLINK_LOOP = "symlink_loop"
    BROKEN_SYMLINK = "broken_symlink"
    SPECIAL_FILE = "special_file"  # FIFO, socket, device
    UNREADABLE = "unreadable"
    BAD_NAME = "bad_name"  # a file or folder name that is not valid UTF-8


@dataclass(frozen=True, slots=True)
class SkipRules:
    """The default skips of ``data/walker.toml``: folder, file-name and secret globs, limits."""

    vcs: tuple[str, ...]
    venv_markers: tuple[str, ...]
    dirs: tuple[tuple[SkipReason, tuple[str, ...]], ...]  # every other folder rule
    files: tuple[tuple[SkipReason, tuple[str, ...]], ...]  # lock files and minified names
    secret: tuple[str, ...]
    secret_unless_code: tuple[str, ...]
    sniff_bytes: int
    max_control_ratio: float
    minified_min_chars: int
    max_average_line: float


@lru_cache(maxsize=1)
def skip_rules() -> SkipRules:
    """The packaged default skip rules (read once)."""
    raw = tomllib.loads(
        resources.files("ragstrata.data").joinpath("walker.toml").read_text("utf-8")
    )
    dirs, files, limits = raw["dirs"], raw["files"], raw["limits"]
    return SkipRules(
        vcs=tuple(dirs["vcs_dir"]),
        venv_markers=tuple(dirs["venv_markers"]),
        dirs=tuple(
            (SkipReason(k), tuple(v))
            for k, v in dirs.items()
            if k not in ("vcs_dir", "venv_markers")
        ),
        files=(
            (SkipReason.LOCK_FILE, tuple(files["lock_file"])),
            (SkipReason.MINIFIED, tuple(files["minified"])),
        ),
        secret=tuple(files["secret"]),
        secret_unless_code=tuple(files["secret_unless_code"]),
        sniff_bytes=int(limits["sniff_bytes"]),
        max_control_ratio=float(limits["max_control_ratio"]),
        minified_min_chars=int(limits["minified_min_chars"]),
        max_average_line=float(limits["max_average_line"]),
    )


def matches(name: str, globs: tuple[str, ...]) -> bool:
    """True when ``name`` matches one of the case-sensitive ``globs`` (``fnmatchcase``)."""
    return _glob_regex(globs).match(name) is not None


@lru_cache(maxsize=64)
def _glob_regex(globs: tuple[str, ...]) -> re.Pattern[str]:
    # fnmatchcase(name, g) is re.compile(translate(g)).match(name); each translation is
    # anchored at both ends, so the alternation matches exactly when one of the globs does.
    return re.compile("|".join(translate(g) for g in globs) if globs else "(?!)")


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_NEVER = re.compile("(?!)")
_ANY_FOLDER = "^(?:.+/)?"  # how pathspec starts a pattern without a slash: in any folder
_SEPARATORS = tuple(NORMALIZE_PATH_SEPS)  # empty on POSIX: normalize_file only strips "/" "./"
_CACHED_SPEC_CHARS = 64 * 1024  # bigger ignore files are compiled afresh, never kept


class IgnoreSpec:
    """Gitignore-syntax patterns (``GitIgnoreSpec``) with a fast screen for non-matching paths.

    :meth:`check` answers exactly as ``GitIgnoreSpec.check_file(path).include`` does. The
    screen is one regex built from the very expressions ``pathspec`` compiles per pattern; the
    ``GitIgnoreSpec`` itself is compiled only once some path passes the screen. A pattern
    ``pathspec`` cannot compile (``[z-a]``: a range git matches nothing with) matches nothing
    here either instead of failing the walk; with ``strict`` it raises ``ValueError``.
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


@dataclass(frozen=True, slots=True)
class IgnoreLevel:
    """The patterns of one ignore file, relative to the folder ``base`` ("" or "a/b/")."""

    base: str
    spec: IgnoreSpec


def decide(levels: tuple[IgnoreLevel, ...], rel: str) -> bool | None:
    """True: ignored, False: explicitly kept (negation), None: no pattern matched.

    ``rel`` ends with "/" for a folder. Deeper files take precedence over shallower ones.
    """
    for level in reversed(levels):
        result = level.spec.check(rel[len(level.base) :])
        if result is not None:
            return result
    return None


def read_level(path: str, base: str) -> IgnoreLevel | None:
    """The ignore file at ``path`` applying below ``base``; None when unreadable or empty."""
    try:
        with open(path, "rb") as fh:
            lines = fh.read(_MAX_IGNORE_FILE_BYTES).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    lines = [line.removesuffix("\r") for line in lines]
    if not any(line.strip() and not line.startswith("#") for line in lines):
        return None
    return IgnoreLevel(base, ignore_spec(lines))


def exclude_levels(root_real: str) -> tuple[IgnoreLevel, ...]:
    """The repository's ``.git/info/exclude`` as the lowest git level (or no level)."""
    exclude_file = os.path.join(root_real, ".git", "info", "exclude")
    if os.path.isfile(exclude_file):
        level = read_level(exclude_file, "")
        return (level,) if level else ()
    return ()


def push_levels(
    ignore_files: Mapping[str, str],
    rel: str,
    git: tuple[IgnoreLevel, ...],
    rag: tuple[IgnoreLevel, ...],
) -> tuple[tuple[IgnoreLevel, ...], tuple[IgnoreLevel, ...]]:
    """The git and ragstrata levels in force below folder ``rel``.

    ``ignore_files`` maps the folder's ignore file names (of :data:`IGNORE_FILES`) to paths.
    """
    if ".gitignore" in ignore_files:
        level = read_level(ignore_files[".gitignore"], rel)
        git = (*git, level) if level else git
    if ".ragstrataignore" in ignore_files:
        level = read_level(ignore_files[".ragstrataignore"], rel)
        rag = (*rag, level) if level else rag
    return git, rag
