"""Read stored rows by layer and path, in index order (path, then the file's row order).

The :class:`~ragstrata.store.base.Store` protocol reads rows only by id; repository-wide
relation resolution needs every definition and relation. A store that offers
``scan_rows(layers, paths)`` (proposed for the protocol) is used as is; the two backends of
this package are read directly until they do. Order matters: the resolver is order-sensitive
for duplicate names, so rows come back sorted by path and, within a file, as written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ragstrata.errors import StoreError
from ragstrata.ingest.rows import Layer, Row
from ragstrata.store.base import Store, row_from_payload

__all__ = ["scan_rows"]

_CHUNK = 500


def scan_rows(
    store: Store, layers: Iterable[Layer] | None = None, paths: Iterable[str] | None = None
) -> dict[str, list[Row]]:
    """Stored rows of ``layers`` (all when None) in ``paths`` (all when None), by path
    (keys sorted), each list in the file's row order."""
    wanted = None if layers is None else {Layer(x) for x in layers}
    only = None if paths is None else sorted(set(paths))
    native = getattr(store, "scan_rows", None)
    if callable(native):
        rows: Iterable[Row] = native(layers=tuple(sorted(wanted)) if wanted else None, paths=only)
        return _group(rows)
    from ragstrata.store.sqlite import SQLiteStore
    from ragstrata.testing.memory_store import InMemoryStore

    if isinstance(store, SQLiteStore):
        return _group(_sqlite_rows(store, wanted, only))
    if isinstance(store, InMemoryStore):
        return _group(_memory_rows(store, wanted, only))
    raise StoreError(f"store {type(store).__name__} cannot list its rows (no scan_rows method)")


def _group(rows: Iterable[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for row in rows:
        out.setdefault(row.path, []).append(row)
    return {path: out[path] for path in sorted(out)}


def _sqlite_rows(store: Any, wanted: set[Layer] | None, only: Sequence[str] | None) -> list[Row]:
    where, args = [], []
    if wanted is not None:
        where.append(f"layer IN ({','.join('?' * len(wanted))})")
        args.extend(sorted(str(x) for x in wanted))
    sql = "SELECT payload FROM rows"
    out: list[Row] = []
    with store._read() as conn:  # the store's own read transaction (consistent snapshot)
        if only is None:
            clause = f" WHERE {' AND '.join(where)}" if where else ""
            for (payload,) in conn.execute(sql + clause + " ORDER BY path, seq", args):
                out.append(row_from_payload(payload))
            return out
        for start in range(0, len(only), _CHUNK):
            part = list(only[start : start + _CHUNK])
            clause = " WHERE " + " AND ".join([*where, f"path IN ({','.join('?' * len(part))})"])
            for (payload,) in conn.execute(sql + clause + " ORDER BY path, seq", [*args, *part]):
                out.append(row_from_payload(payload))
    return out


def _memory_rows(store: Any, wanted: set[Layer] | None, only: Sequence[str] | None) -> list[Row]:
    paths = sorted(store._by_path) if only is None else [p for p in only if p in store._by_path]
    out: list[Row] = []
    for path in paths:
        for row_id in store._by_path[path]:
            row = store._rows[row_id]
            if wanted is None or row.layer in wanted:
                out.append(row)
    return out
