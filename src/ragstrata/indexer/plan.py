"""The catalog diff: which files are new, changed, removed, touched or unchanged.

A walk with the catalog at hand: a catalogued file whose ``mtime_ns`` and ``size`` both match
is unchanged and is not even read (that is what makes a no-op run cheap); any other file is
read and hashed by the walker, and a file whose SHA-256 matches the catalog is only *touched*
(its catalog entry is refreshed, its rows are kept). Catalogued paths the walk did not yield
are removed (deleted, or now ignored/skipped).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ragstrata.core.rows import SourceFile
from ragstrata.core.values import CatalogEntry
from ragstrata.ingest.walker import Walker
from ragstrata.settings import Settings

__all__ = ["Plan", "make_plan"]


class _CatalogWalker(Walker):
    """A walker that does not read catalogued files whose mtime and size are unchanged."""

    def __init__(self, root: Path, settings: Settings, known: Mapping[str, CatalogEntry]) -> None:
        super().__init__(root, settings.index, index_dir_name=settings.store.index_dir_name)
        self._known = known
        self.unchanged: list[str] = []

    def reuse(self, rel: str, st: os.stat_result) -> SourceFile | None:
        old = self._known.get(rel)
        if old is None or st.st_mtime_ns != old.mtime_ns or st.st_size != old.size:
            return None
        self.unchanged.append(rel)
        return SourceFile(
            path=rel, language="", is_test=False, is_doc=False, size=old.size,
            mtime_ns=old.mtime_ns, sha256=old.sha256, text="",
        )  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """What an index run has to do. ``files``: the read files of ``added``/``changed``; the
    indexer takes each one out as it extracts it (their texts are not kept for the run)."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    touched: tuple[str, ...]  # mtime/size differ, content the same: catalog entry refreshed
    unchanged: tuple[str, ...]
    files: dict[str, SourceFile] = field(default_factory=dict)
    entries: Mapping[str, CatalogEntry] = field(default_factory=dict)  # new entry per path
    skipped: Mapping[str, int] = field(default_factory=dict)

    @property
    def is_noop(self) -> bool:
        """Nothing to write."""
        return not (self.added or self.changed or self.removed or self.touched)

    @property
    def stale(self) -> int:
        """Files that differ from the catalog by the cheap check (new, removed, mtime/size)."""
        return len(self.added) + len(self.changed) + len(self.removed) + len(self.touched)


def make_plan(
    root: Path,
    settings: Settings,
    catalog: Mapping[str, CatalogEntry],
    *,
    extract_all: bool = False,
) -> Plan:
    """Walk ``root`` against ``catalog`` (see module docstring). ``extract_all``: every file
    on disk is read and extracted (catalogued ones count as changed), as when the extraction
    rules changed."""
    walker = _CatalogWalker(root, settings, {} if extract_all else catalog)
    unchanged = set()
    added, changed, touched = [], [], []
    files: dict[str, SourceFile] = {}
    entries: dict[str, CatalogEntry] = {}
    seen: set[str] = set()
    for source in walker.files():
        seen.add(source.path)
        if walker.unchanged and walker.unchanged[-1] == source.path:
            unchanged.add(source.path)
            continue
        entry = CatalogEntry(source.path, source.mtime_ns, source.size, source.sha256)
        old = catalog.get(source.path)
        if old is None:
            added.append(source.path)
        elif old.sha256 == source.sha256 and not extract_all:
            touched.append(source.path)
            entries[source.path] = entry
            continue
        else:
            changed.append(source.path)
        files[source.path] = source
        entries[source.path] = entry
    removed = sorted(set(catalog) - seen)
    return Plan(
        added=tuple(added),
        changed=tuple(changed),
        removed=tuple(removed),
        touched=tuple(touched),
        unchanged=tuple(sorted(unchanged)),
        files=files,
        entries=entries,
        skipped=dict(sorted(walker.report.skipped.items())),
    )
