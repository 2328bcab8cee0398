"""Stored rows grouped by path, over :meth:`~ragstrata.store.protocols.RowReader.scan_rows`.

The one grouping of a store's rows by file: the indexer's relation resolver, the summary
planner and the row reader of ``retrieve/`` (answer graphs, gendocs, outlines) all use it.
Order matters (the resolver is order-sensitive for duplicate names): paths sorted, each
file's rows as written.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragstrata.core.rows import Layer, Row
from ragstrata.store.protocols import Store

__all__ = ["rows_by_path"]


def rows_by_path(
    store: Store, layers: Iterable[Layer | str] | None = None, paths: Iterable[str] | None = None
) -> dict[str, list[Row]]:
    """Rows of ``layers`` (all when None) in ``paths`` (all when None): path -> rows in the
    file's order, paths sorted."""
    out: dict[str, list[Row]] = {}
    chosen = None if paths is None else sorted(set(paths))
    for row in store.scan_rows(None if layers is None else tuple(layers), chosen):
        out.setdefault(row.path, []).append(row)
    return out
