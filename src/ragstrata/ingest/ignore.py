"""What the walker skips and why: skip reasons, default skip rules and ignore files.

The default skips (VCS, virtualenv, dependency, build and tool folders, lock files, minified
and secret-bearing files) are data: ``data/walker.toml``, read once by :func:`skip_rules`.
Ignore files are ``.gitignore``, ``.ragstrataignore`` and ``.git/info/exclude``: each readable
one with at least one pattern becomes an :class:`IgnoreLevel` (its patterns, compiled, and the
folder it applies below). A folder's levels are those of its parents plus its own;
:func:`decide` asks them deepest first, as git does.

Speed (a no-op re-index asks these rules for every path of the tree): a glob tuple is compiled
once into one regular expression (:func:`matches`), the default rules of a name are looked up
once per distinct name (:func:`file_name_rules`, :func:`dir_name_rules`), and ignore files are
:class:`~ragstrata.ingest.gitignore.IgnoreSpec` (a screened ``GitIgnoreSpec``).
"""

from __future__ import annotations

import os
import re
import tomllib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fnmatch import translate
from functools import lru_cache
from importlib import resources
from typing import Any

from ragstrata.ingest.gitignore import IgnoreSpec, ignore_spec

__all__ = [
    "IGNORE_FILES",
    "IgnoreLevel",
    "SkipReason",
    "SkipReport",
    "SkipRules",
    "decide",
    "dir_name_rules",
    "exclude_levels",
    "file_name_rules",
    "matches",
    "push_levels",
    "read_level",
    "skip_rules",
]

IGNORE_FILES = frozenset({".gitignore", ".ragstrataignore"})
"""The per-folder ignore file names the walker reads."""

_MAX_EXAMPLES = 5  # example paths kept per skip reason
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


@dataclass
class SkipReport:
    """What a walk kept and skipped: counts per reason and a few example paths for each."""

    files: int = 0
    bytes: int = 0
    decode_errors: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, reason: SkipReason, path: str) -> None:
        """Record one skipped file or folder (a folder counts once, not per file inside)."""
        self.skipped[reason.value] += 1
        sample = self.examples.setdefault(reason.value, [])
        if len(sample) < _MAX_EXAMPLES:
            sample.append(path)

    @property
    def skipped_total(self) -> int:
        """Number of skipped entries over all reasons."""
        return sum(self.skipped.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for ``--json`` output."""
        return {
            "files": self.files,
            "bytes": self.bytes,
            "decode_errors": self.decode_errors,
            "skipped_total": self.skipped_total,
            "skipped": dict(sorted(self.skipped.items())),
            "examples": {k: list(v) for k, v in sorted(self.examples.items())},
        }


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


@lru_cache(maxsize=16384)
def file_name_rules(name: str) -> tuple[bool, bool, bool, SkipReason | None]:
    """The default rules on a file's name alone: (VCS, secret, secret unless code, the lock or
    minified reason or None). Names repeat across a tree (``__init__.py``, ``README.md``)."""
    rules = skip_rules()
    named = next((reason for reason, globs in rules.files if matches(name, globs)), None)
    return (
        matches(name, rules.vcs),
        matches(name, rules.secret),
        matches(name, rules.secret_unless_code),
        named,
    )


@lru_cache(maxsize=4096)
def dir_name_rules(name: str) -> tuple[bool, SkipReason | None]:
    """The default rules on a folder's name alone: (VCS, the first folder rule's reason)."""
    rules = skip_rules()
    named = next((reason for reason, globs in rules.dirs if matches(name, globs)), None)
    return matches(name, rules.vcs), named


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
