"""Drift: generated pages whose sources changed, and doc sections naming symbols that are gone.

A generated page starts with ``<!-- ragstrata-gendocs {"sources": {path: sha256}, ...} -->``
(:data:`~ragstrata.docgen.render.HEADER_PREFIX`). :func:`check_drift` compares those hashes with
the index's catalog: a changed hash or a path no longer indexed makes the page stale.

Stale names: in every documentation section (D1) of the repository, a code span written as a
member of something (``Flask.run()``, ``Context::next``, ``Builder#build``) whose owner
(``Flask``) resolves to a definition of this repository but whose full name no longer resolves
is reported with its line. Owner-less names are not judged: prose names many things that are
not this repository's (``print()``, ``os.path``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ragstrata.docgen.render import HEADER_PREFIX
from ragstrata.ingest.rows import Layer, SectionRow
from ragstrata.retrieve.resolve import SymbolResolver
from ragstrata.retrieve.rows import rows_by_path
from ragstrata.store.base import Store, SymbolMode

__all__ = ["DriftReport", "check_drift", "page_header", "stale_names"]

_MEMBER = re.compile(r"`([A-Z][\w$]*)(?:\.|::|#)([A-Za-z_$][\w$]*)(\(\))?`")


@dataclass
class DriftReport:
    """Stale pages and stale doc names."""

    pages: int = 0
    sections: int = 0
    changed: list[tuple[str, str]] = field(default_factory=list)  # (page, source path)
    removed: list[tuple[str, str]] = field(default_factory=list)
    stale: list[tuple[str, int, str]] = field(default_factory=list)  # (doc path, line, name)

    @property
    def clean(self) -> bool:
        return not (self.changed or self.removed or self.stale)


def page_header(text: str) -> dict[str, object] | None:
    """The metadata comment of a generated page, or ``None``."""
    first = text.split("\n", 1)[0]
    if not first.startswith(HEADER_PREFIX) or not first.rstrip().endswith("-->"):
        return None
    try:
        data = json.loads(first[len(HEADER_PREFIX) :].rstrip().removesuffix("-->"))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def check_drift(folder: Path, store: Store) -> DriftReport:
    """Pages under ``folder`` whose sources changed, and stale names in the repository's docs."""
    report = DriftReport()
    catalog = store.catalog()
    for page in sorted(folder.rglob("*.md")):
        try:
            meta = page_header(page.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        if meta is None:
            continue
        report.pages += 1
        name = page.relative_to(folder).as_posix()
        sources = meta.get("sources")
        for path, sha in (sources.items() if isinstance(sources, dict) else ()):
            entry = catalog.get(str(path))
            if entry is None:
                report.removed.append((name, str(path)))
            elif entry.sha256 != sha:
                report.changed.append((name, str(path)))
    report.sections, report.stale = stale_names(store)
    return report


def stale_names(store: Store) -> tuple[int, list[tuple[str, int, str]]]:
    """``(sections checked, [(doc path, line, name)])`` (see the module docstring)."""
    resolver = SymbolResolver(store)
    owners: dict[str, bool] = {}
    fulls: dict[str, bool] = {}
    out: list[tuple[str, int, str]] = []
    count = 0
    for path, rows in rows_by_path(store, (Layer.D1,)).items():
        for sec in rows:
            if not isinstance(sec, SectionRow):
                continue
            count += 1
            for m in _MEMBER.finditer(sec.text):
                owner, member = m.group(1), m.group(2)
                if owner not in owners:
                    found = resolver.resolve(owner, limit=1, modes=(SymbolMode.EXACT,))
                    best = found.best
                    owners[owner] = bool(found.found and best is not None and best.name == owner
                                         and not best.is_test)
                if not owners[owner]:
                    continue
                full = f"{owner}.{member}"
                if full not in fulls:
                    fulls[full] = resolver.resolve(full, limit=1, modes=(SymbolMode.QUALIFIED, SymbolMode.SUFFIX)).found
                if not fulls[full]:
                    line = sec.start_line + sec.text.count("\n", 0, m.start())
                    out.append((path, line, m.group(0).strip("`")))
    return count, out
