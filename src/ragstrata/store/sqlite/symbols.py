"""Definitions by name and relations around a symbol: lookups on the indexed name columns,
scored and ordered by the shared rules of :mod:`ragstrata.core.names` (as PostgreSQL does).
Every function runs inside the caller's read transaction; arguments are already validated."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ragstrata.core.names import (
    fuzzy_key,
    fuzzy_key_score,
    last_segment,
    lookup_key,
    rank_symbol_matches,
    relation_score,
)
from ragstrata.core.values import Direction, ScoredRow, SearchFilters, SymbolMode
from ragstrata.store.sqlite.derived import Snapshot
from ragstrata.store.sqlite.hits import hits
from ragstrata.store.sqlite.schema import chunks, marks

__all__ = ["lookup_symbol", "relations"]

_COLS = "SELECT seq, name, symbol, layer, path, language, is_test, start_line, id FROM rows"


def lookup_symbol(
    conn: sqlite3.Connection,
    snap: Snapshot | None,
    name: str,
    mode: SymbolMode,
    filters: SearchFilters | None,
    limit: int,
) -> list[ScoredRow]:
    """C1 rows matching ``name``, best first (``snap`` is needed for fuzzy matching only)."""
    if mode is SymbolMode.FUZZY:
        if snap is None:
            raise ValueError("fuzzy symbol lookup needs the index snapshot")
        found = _fuzzy_candidates(conn, snap, name)
    else:
        column, key = lookup_key(mode, name)
        found = conn.execute(f"{_COLS} WHERE {column} = ?", (key,)).fetchall()
    ranked = rank_symbol_matches(found, mode, name, filters, limit)
    return hits(conn, [(r[-1], -r[0]) for r in ranked], limit)


def _fuzzy_candidates(conn: sqlite3.Connection, snap: Snapshot, name: str) -> list[tuple[Any, ...]]:
    if snap.names is None:
        names: dict[str, list[int]] = {}
        sql = "SELECT seq, name_lower FROM rows WHERE name_lower IS NOT NULL"  # index only
        for seq, low in conn.execute(sql):
            names.setdefault(fuzzy_key(low), []).append(seq)
        snap.names = names
    query = fuzzy_key(last_segment(name))
    seqs = [s for key, ss in snap.names.items() if fuzzy_key_score(query, key) > 0 for s in ss]
    out: list[tuple[Any, ...]] = []
    for part in chunks(seqs):
        out.extend(conn.execute(f"{_COLS} WHERE seq IN ({marks(part)})", list(part)))
    return out


def relations(
    conn: sqlite3.Connection,
    symbol: str,
    direction: Direction,
    kinds: Sequence[str] | None,
    filters: SearchFilters | None,
    limit: int,
) -> list[ScoredRow]:
    """C2 rows into (callers) or out of (callees) ``symbol``, best first."""
    column = "to_last" if direction is Direction.CALLERS else "from_last"
    sql = (
        "SELECT r.seq, x.relation, x.from_symbol, x.to_name, x.to_symbol, r.layer, r.path, "
        "r.language, r.is_test, r.start_line, r.id FROM relations x "
        f"JOIN rows r ON r.id = x.row_id WHERE x.{column} = ?"
    )
    ranked = []
    for row in conn.execute(sql, (last_segment(symbol),)):
        seq, kind, src, to_name, to_symbol, layer, path, lang, is_test, start, rid = row
        if kinds is not None and kind not in kinds:
            continue
        if filters is not None and not filters.matches(layer, path, lang, is_test):
            continue
        score = relation_score(src, to_name, to_symbol, symbol, direction)
        if score > 0:
            ranked.append((-score, is_test, path, start, rid, seq))
    ranked.sort()
    return hits(conn, [(r[-1], -r[0]) for r in ranked[:limit]], limit)
