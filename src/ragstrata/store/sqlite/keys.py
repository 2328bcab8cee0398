"""Light reads of the SQLite store for the incremental relation resolver: relation keys from
the ``relations`` table and definition keys from the ``definitions`` table, never a payload
decoded (see :class:`~ragstrata.core.values.RelationKey`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ragstrata.core.values import DefinitionKey, RelationKey, RelationScope
from ragstrata.store.sqlite.schema import chunks, marks

__all__ = ["definition_keys", "relation_keys"]

# driven from ``relations`` (CROSS JOIN keeps that order): a scope filters it before any row
# is looked up; every relations row is a C2 row
_KEYS = (
    "SELECT r.path, r.id, x.relation, x.from_symbol, x.to_name, x.receiver_type, r.language, "
    "x.to_symbol FROM relations x CROSS JOIN rows r ON r.id = x.row_id WHERE 1"
)
# by path: driven from the rows of those paths instead (the rows_path index)
_PATH_KEYS = (
    "SELECT r.path, r.id, x.relation, x.from_symbol, x.to_name, x.receiver_type, r.language, "
    "x.to_symbol FROM rows r CROSS JOIN relations x ON x.row_id = r.id WHERE r.layer = 'C2'"
)
_ORDER = " ORDER BY r.path, r.seq"
_DEFINITIONS = (
    "SELECT path, symbol, name, parent, kind, language, signature FROM definitions "
    "ORDER BY path, seq"
)


def relation_keys(
    conn: sqlite3.Connection, paths: Sequence[str] | None, scope: RelationScope | None
) -> list[RelationKey]:
    """Keys of the C2 rows in ``paths`` (all when None) that ``scope`` holds (all when None),
    in path, then row order."""
    sql, args = (_KEYS if paths is None else _PATH_KEYS), list[str]()
    if scope is not None:
        cond, args = _scope_sql(scope)
        sql += f" AND ({cond})"
    if paths is None:
        return list(map(RelationKey._make, conn.execute(sql + _ORDER, args)))
    out: list[RelationKey] = []
    for part in chunks(sorted(set(paths))):
        found = conn.execute(sql + f" AND r.path IN ({marks(part)}){_ORDER}", [*args, *part])
        out.extend(map(RelationKey._make, found))
    return out


def definition_keys(conn: sqlite3.Connection) -> list[DefinitionKey]:
    """Keys of every C1 row, in path, then row order."""
    return list(map(DefinitionKey._make, conn.execute(_DEFINITIONS)))


def _scope_sql(scope: RelationScope) -> tuple[str, list[str]]:
    """The SQL condition of a :class:`RelationScope` (over ``relations x`` and ``rows r``)."""
    parts: list[str] = []
    args: list[str] = []
    if scope.relations:
        parts.append(f"x.relation IN ({marks(sorted(scope.relations))})")
        args.extend(sorted(scope.relations))
    for text in sorted(scope.mentioning):  # instr: case-sensitive, like the scope's rule
        parts.append("instr(x.to_name, ?) OR instr(x.receiver_type, ?) OR instr(x.from_symbol, ?)")
        args.extend((text, text, text))
    if scope.first_of_file:
        parts.append(  # the (layer, path) index answers this without reading a row
            "x.row_id IN (SELECT id FROM rows WHERE seq IN "
            "(SELECT min(seq) FROM rows WHERE layer = 'C2' GROUP BY path))"
        )
    return " OR ".join(parts) or "0", args
