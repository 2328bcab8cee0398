"""What the walker skips and why: skip reasons, default skip rules and ignore files.

The default skips (VCS, virtualenv, dependency, build and tool folders, lock files, minified
and secret-bearing files) are data: ``data/walker.toml``, read once by :func:`skip_rules`.
Ignore files are ``.gitignore``, ``.ragstrataignore`` and ``.git/info/exclude``: each readable
one with at least one pattern becomes an :class:`IgnoreLevel` (its ``GitIgnoreSpec`` and the
folder it applies below). A folder's levels are those of its parents plus its own;
:func:`decide` asks them deepest first, as git does.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase
from functools import lru_cache
from importlib import resources

from pathspec import GitIgnoreSpec

__all__ = [
    "IGNORE_FILES",
    "IgnoreLevel",
    "SkipReason",
    "SkipRules",
    "decide",
    "exclude_levels",
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
    """True when ``name`` matches one of the case-sensitive ``globs``."""
    return any(fnmatchcase(name, g) for g in globs)


@dataclass(frozen=True, slots=True)
class IgnoreLevel:
    """The patterns of one ignore file, relative to the folder ``base`` ("" or "a/b/")."""

    base: str
    spec: GitIgnoreSpec


def decide(levels: tuple[IgnoreLevel, ...], rel: str) -> bool | None:
    """True: ignored, False: explicitly kept (negation), None: no pattern matched.

    ``rel`` ends with "/" for a folder. Deeper files take precedence over shallower ones.
    """
    for level in reversed(levels):
        result = level.spec.check_file(rel[len(level.base) :])
        if result.include is not None:
            return bool(result.include)
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
    return IgnoreLevel(base, GitIgnoreSpec.from_lines(lines))


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
