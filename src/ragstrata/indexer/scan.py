"""Stored rows grouped by path, over :meth:`~ragstrata.store.base.RowReader.scan_rows`.

Repository-wide relation resolution and the summary planner want every definition and
relation of some files, file by file. Order matters (the resolver is order-sensitive for
duplicate names): the store returns rows by path, then as written; the grouping keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragstrata.ingest.rows import Layer, Row
from ragstrata.store.base import Store

__all__ = ["scan_rows"]


def scan_rows(
    store: Store, layers: Iterable[Layer] | None = None, paths: Iterable[str] | None = None
) -> dict[str, list[Row]]:
    """Stored rows of ``layers`` (all when None) in ``paths`` (all when None), by path
    (keys sorted), each list in the file's row order."""
    out: dict[str, list[Row]] = {}
    chosen = None if paths is None else sorted(set(paths))
    for row in store.scan_rows(None if layers is None else tuple(layers), chosen):
        out.setdefault(row.path, []).append(row)
    return out
