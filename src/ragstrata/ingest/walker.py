"""Repository walker: the files of a repository worth indexing, decoded, in sorted path order.

Ignore rules are evaluated as git does, with ``pathspec``'s ``GitIgnoreSpec``: every folder's
``.gitignore`` applies to its subtree (deeper files win; within a file the last match wins),
``.git/info/exclude`` below the root ``.gitignore``; an ignored folder is never entered, so
nothing inside it can be re-included. ``.ragstrataignore`` files use the same syntax and are
consulted first: a match ignores the path, a negated match (``!build/``) keeps it even if
``.gitignore`` or a default rule below would skip it. Settings ``exclude`` globs always skip,
``include`` globs (when given) are the only files kept. Secrets, binaries, oversize and
unreadable files are always skipped.

Default skips (VCS, virtualenv, dependency, build and tool folders, lock files, minified
files, secret-bearing files) are data: ``data/walker.toml``. Every skip is counted per reason in
a :class:`SkipReport`. Nothing here raises for a bad file (nor for a bad line in an ignore
file); only a missing root or a bad settings glob (``ConfigError``) does.

A walk against a catalog overrides :meth:`Walker.reuse` to yield a catalogued file without
reading it (``indexer/plan.py``); a binary file is read only as far as its sniffed head.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ragstrata.core.languages import detect_language, is_doc, is_test, language_info
from ragstrata.core.rows import SourceFile
from ragstrata.errors import ConfigError, RepositoryNotFoundError
from ragstrata.ingest.gitignore import IgnoreSpec
from ragstrata.ingest.ignore import (
    IGNORE_FILES,
    IgnoreLevel,
    SkipReason,
    SkipReport,
    decide,
    dir_name_rules,
    exclude_levels,
    file_name_rules,
    matches,
    push_levels,
    skip_rules,
)
from ragstrata.ingest.secrets import path_secret
from ragstrata.settings import IndexSettings

__all__ = ["SkipReason", "SkipReport", "Walker", "walk"]

_BOM = b"\xef\xbb\xbf"
_TEXT_CONTROLS = {8, 9, 10, 12, 13, 27}
# credentials.py, secrets.md, secret.html are modules and documents, not secret stores
# (plain text is not exempt: credentials.txt is a secret store).
_NOT_SECRET_KINDS = frozenset({"code", "doc", "markup"})
# bytes.translate(None, delete=_NOT_CONTROL) keeps only the control bytes of a sample.
_NOT_CONTROL = bytes(
    b for b in range(256) if not ((b < 32 and b not in _TEXT_CONTROLS) or b == 127)
)


@dataclass(slots=True)
class _Frame:
    """A folder being walked: its remaining entries and the rules in force below it."""

    entries: Iterator[os.DirEntry[str]]
    rel: str  # "" or "a/b/"
    git: tuple[IgnoreLevel, ...]
    rag: tuple[IgnoreLevel, ...]
    real: str  # real path of this folder
    ancestors: frozenset[str]  # real paths of this folder and the folders above it


# ---------------------------------------------------------------------------- the walker


class Walker:
    """Walk ``root`` with ``settings``: ``files()`` yields :class:`SourceFile` in sorted path
    order; ``report`` counts what was skipped and why (reset on each ``files()`` call)."""

    def __init__(
        self, root: Path, settings: IndexSettings, *, index_dir_name: str = ".ragstrata"
    ) -> None:
        self.root = Path(root)
        if not self.root.exists():
            raise RepositoryNotFoundError(f"repository path {str(self.root)!r} does not exist")
        if not self.root.is_dir():
            raise RepositoryNotFoundError(f"repository path {str(self.root)!r} is not a folder")
        self.settings = settings
        self.index_dir_name = index_dir_name
        self.report = SkipReport()
        self._exclude = _settings_spec("exclude", settings.exclude)
        self._include = _settings_spec("include", settings.include)

    # -- traversal

    def files(self) -> Iterator[SourceFile]:
        """Yield every accepted file, depth-first in sorted repository-relative path order."""
        self.report = SkipReport()
        root_real = os.path.realpath(self.root)
        git = exclude_levels(root_real)
        frame = self._enter(root_real, root_real, "", git, (), frozenset({root_real}))
        stack = [frame] if frame else []
        while stack:
            top = stack[-1]
            entry = next(top.entries, None)
            if entry is None:
                stack.pop()
                continue
            rel = top.rel + entry.name
            if not _valid_name(entry.name):
                self.report.add(SkipReason.BAD_NAME, rel.encode("utf-8", "replace").decode())
                continue
            if entry.is_symlink() and not self._symlink_ok(entry, rel, top, root_real):
                continue
            if self._is_dir(entry):
                child = self._dir_frame(entry, rel, top)
                if child is not None:
                    stack.append(child)
            else:
                source = self._file(entry, rel, top)
                if source is not None:
                    self.report.files += 1
                    self.report.bytes += source.size
                    self.report.decode_errors += source.decode_errors
                    yield source

    def _enter(
        self,
        path: str,
        real: str,
        rel: str,
        git: tuple[IgnoreLevel, ...],
        rag: tuple[IgnoreLevel, ...],
        ancestors: frozenset[str],
        listing: list[os.DirEntry[str]] | None = None,
    ) -> _Frame | None:
        entries = listing if listing is not None else _listing(path)
        if entries is None:
            self.report.add(SkipReason.UNREADABLE, rel or ".")
            return None
        # Only regular files are read: opening a FIFO named .gitignore would block forever.
        ignore_files = {e.name: e.path for e in entries if e.name in IGNORE_FILES and _is_file(e)}
        git, rag = push_levels(ignore_files, rel, git, rag)
        entries.sort(key=lambda e: e.name + "/" if self._is_dir(e) else e.name)
        return _Frame(iter(entries), rel, git, rag, real, ancestors)

    @staticmethod
    def _is_dir(entry: os.DirEntry[str]) -> bool:
        try:
            return entry.is_dir()
        except OSError:
            return False

    def _symlink_ok(self, entry: os.DirEntry[str], rel: str, frame: _Frame, root_real: str) -> bool:
        if not self.settings.follow_symlinks:
            self.report.add(SkipReason.SYMLINK, rel)
            return False
        try:
            target = os.path.realpath(entry.path, strict=True)
        except FileNotFoundError:
            self.report.add(SkipReason.BROKEN_SYMLINK, rel)
            return False
        except OSError:  # ELOOP: the link resolves to itself
            self.report.add(SkipReason.SYMLINK_LOOP, rel)
            return False
        if target != root_real and not target.startswith(root_real.rstrip(os.sep) + os.sep):
            self.report.add(SkipReason.SYMLINK_OUTSIDE, rel)
            return False
        if os.path.isdir(target):
            if target in frame.ancestors:
                self.report.add(SkipReason.SYMLINK_LOOP, rel)
                return False
            return True
        # A link must not smuggle in what its target's own name or place would exclude.
        rules = skip_rules()
        *folders, name = os.path.relpath(target, root_real).split(os.sep)
        if any(matches(folder, rules.vcs) for folder in folders):
            self.report.add(SkipReason.VCS_DIR, rel)
            return False
        if matches(name, rules.secret):
            self.report.add(SkipReason.SECRET, rel)
            return False
        return True

    def _dir_frame(self, entry: os.DirEntry[str], rel: str, frame: _Frame) -> _Frame | None:
        folder = rel + "/"
        reason, venv_unknown = self._dir_reason(entry, folder, frame)
        listing = None
        if reason is None and venv_unknown:
            # Virtualenv markers are looked for in the folder's own listing (read to walk it
            # anyway) before any stat; an ignored folder is not listed. Same verdicts as
            # checking the markers first, then the ignore files.
            if decide(frame.git, folder):
                reason = SkipReason.VENV if _has_venv_marker(entry.path) else SkipReason.GITIGNORED
            else:
                listing = _listing(entry.path)
                if _has_venv_marker(entry.path, listing):
                    reason = SkipReason.VENV
        if reason is not None:
            self.report.add(reason, folder)
            return None
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
        else:
            real = os.path.join(frame.real, entry.name)
        if real in frame.ancestors:
            self.report.add(SkipReason.SYMLINK_LOOP, folder)
            return None
        ancestors = frame.ancestors | {real}
        return self._enter(entry.path, real, folder, frame.git, frame.rag, ancestors, listing)

    def _dir_reason(
        self, entry: os.DirEntry[str], folder: str, frame: _Frame
    ) -> tuple[SkipReason | None, bool]:
        """The reason to skip a folder by its name and rules, and whether the virtualenv and
        .gitignore checks (in that order) are still to come."""
        vcs, named = dir_name_rules(entry.name)
        if vcs:  # VCS folders are never walked
            return SkipReason.VCS_DIR, False
        rag = decide(frame.rag, folder) if frame.rag else None
        if rag:
            return SkipReason.RAGSTRATAIGNORE, False
        if self._exclude is not None and self._exclude.match(folder):
            return SkipReason.EXCLUDED, False
        if rag is False:  # re-included by a .ragstrataignore negation
            return None, False
        if entry.name == self.index_dir_name:
            return SkipReason.INDEX_DIR, False
        return named, named is None

    # -- files

    def _name_reason(self, name: str, rel: str, frame: _Frame) -> SkipReason | None:
        vcs, secret, secret_unless_code, named = file_name_rules(name)
        if vcs:  # a `.git` file: the pointer of a worktree or submodule
            return SkipReason.VCS_DIR
        rag = decide(frame.rag, rel) if frame.rag else None
        if rag:
            return SkipReason.RAGSTRATAIGNORE
        if self._exclude is not None and self._exclude.match(rel):
            return SkipReason.EXCLUDED
        if self._include is not None and not self._include.match(rel):
            return SkipReason.NOT_INCLUDED
        if rag is None and decide(frame.git, rel):
            return SkipReason.GITIGNORED
        if secret:
            return SkipReason.SECRET
        if secret_unless_code:
            info = language_info(detect_language(rel))
            if info is None or info.kind not in _NOT_SECRET_KINDS or info.id == "text":
                return SkipReason.SECRET
        if rag is None and named is not None:
            return named
        return None

    def _file(self, entry: os.DirEntry[str], rel: str, frame: _Frame) -> SourceFile | None:
        reason = self._name_reason(entry.name, rel, frame)
        if reason is not None:
            self.report.add(reason, path_secret(rel) or rel)
            return None
        shown = path_secret(rel)
        if shown is not None:  # a token in the path: skipped, reported only redacted
            self.report.add(SkipReason.SECRET, shown)
            return None
        try:
            st = entry.stat()
            if not stat.S_ISREG(st.st_mode):
                self.report.add(SkipReason.SPECIAL_FILE, rel)
                return None
            if st.st_size > self.settings.max_file_bytes:
                self.report.add(SkipReason.TOO_LARGE, rel)
                return None
            known = self.reuse(rel, st)
            if known is not None:
                return known
            limit = self.settings.max_file_bytes
            with open(entry.path, "rb") as fh:
                # The binary verdict needs only the sniffed head: a binary file (never in the
                # catalog, so met again on every run) is not read further, unless it has grown
                # past the limit, which a whole read would report first.
                data = fh.read(min(skip_rules().sniff_bytes, limit + 1))
                whole = len(data) <= limit and os.fstat(fh.fileno()).st_size <= limit
                if whole and _looks_binary(data):
                    self.report.add(SkipReason.BINARY, rel)
                    return None
                data += fh.read(limit + 1 - len(data))
        except OSError:
            self.report.add(SkipReason.UNREADABLE, rel)
            return None
        if len(data) > self.settings.max_file_bytes:  # grew after stat
            self.report.add(SkipReason.TOO_LARGE, rel)
            return None
        if _looks_binary(data):
            self.report.add(SkipReason.BINARY, rel)
            return None
        return self._decode(rel, data, st.st_mtime_ns, frame)

    def reuse(self, rel: str, st: os.stat_result) -> SourceFile | None:
        """Hook for a walk against a catalog: a :class:`SourceFile` to yield for the accepted
        regular file ``rel`` (``st``: its stat, within the size limit) without reading it, or
        None to read it. The plain walker reads every file."""
        return None

    def _decode(self, rel: str, data: bytes, mtime_ns: int, frame: _Frame) -> SourceFile | None:
        had_bom = data.startswith(_BOM)
        body = data[len(_BOM) :] if had_bom else data
        try:
            text, bad = body.decode("utf-8"), False
        except UnicodeDecodeError:
            text, bad = body.decode("utf-8", "replace"), True
        first_line = text[: text.find("\n")] if text.startswith("#!") else ""
        language = detect_language(rel, first_line)
        doc = is_doc(rel, language)
        if not doc and _looks_minified(text) and decide(frame.rag, rel) is not False:
            self.report.add(SkipReason.MINIFIED, rel)
            return None
        return SourceFile(
            path=rel,
            language=language,
            is_test=is_test(rel, language),
            is_doc=doc,
            size=len(data),
            mtime_ns=mtime_ns,
            sha256=hashlib.sha256(data).hexdigest(),
            text=text,
            decode_errors=bad,
            had_bom=had_bom,
        )


def _settings_spec(key: str, globs: tuple[str, ...]) -> IgnoreSpec | None:
    if not globs:
        return None
    try:
        return IgnoreSpec(globs, strict=True)
    except ValueError as exc:
        raise ConfigError(f"settings {key}: {exc}") from None


def _listing(path: str) -> list[os.DirEntry[str]] | None:
    try:
        with os.scandir(path) as it:
            return list(it)
    except OSError:
        return None


def _has_venv_marker(path: str, listing: list[os.DirEntry[str]] | None = None) -> bool:
    """Whether the folder holds a virtualenv marker; with its ``listing``, markers whose first
    name is not in it (compared case-folded, for case-insensitive file systems) are not
    stat()ed."""
    markers = skip_rules().venv_markers
    if listing is not None:
        heads = {m.split("/", 1)[0].casefold() for m in markers}
        if not any(e.name.casefold() in heads for e in listing):
            return False
    return any(os.path.exists(os.path.join(path, m)) for m in markers)


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _valid_name(name: str) -> bool:
    """False for a name with bytes that are not UTF-8 (os.scandir keeps them as surrogates,
    which no JSON output, database or terminal downstream can carry)."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _looks_binary(data: bytes) -> bool:
    """A NUL byte, or too many control bytes, in the first ``sniff_bytes`` bytes."""
    rules = skip_rules()
    sample = data[: rules.sniff_bytes]
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    return len(sample.translate(None, _NOT_CONTROL)) / len(sample) > rules.max_control_ratio


def _looks_minified(text: str) -> bool:
    """Long text whose average line is very long (bundled, minified or generated)."""
    rules = skip_rules()
    if len(text) < rules.minified_min_chars:
        return False
    lines = text.count("\n") + 1
    return len(text) / lines > rules.max_average_line


def walk(root: Path, settings: IndexSettings | None = None) -> tuple[list[SourceFile], SkipReport]:
    """Walk a repository in one call: the accepted files (sorted by path) and the skip report."""
    walker = Walker(root, settings or IndexSettings.model_validate({}))
    files = list(walker.files())
    return files, walker.report
