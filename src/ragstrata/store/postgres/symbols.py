"""Definitions by name and relations around a symbol: B-tree lookups on indexed name columns,
scored and ordered by the shared rules of :mod:`ragstrata.core.names` (as SQLite does)."""

from __future__ import annotations

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
from ragstrata.core.values import Direction, ScoredRow, SearchFilters, SymbolMode, scored_row
from ragstrata.store.records import row_from_payload

__all__ = ["hits", "lookup_symbol", "relations"]

_SYMBOL_COLS = "seq, name, symbol, layer, path, language, is_test, start_line, id"


def lookup_symbol(
    conn: Any,
    repo_id: int,
    name: str,
    mode: SymbolMode,
    filters: SearchFilters | None,
    limit: int,
) -> list[ScoredRow]:
    """C1 rows matching ``name`` (arguments already validated)."""
    sql = f"SELECT {_SYMBOL_COLS} FROM rs_rows WHERE repo_id = %s"
    if mode is SymbolMode.FUZZY:
        names = conn.execute(
            "SELECT DISTINCT name_lower FROM rs_rows WHERE repo_id = %s AND name_lower IS NOT NULL",
            (repo_id,),
        ).fetchall()
        query = fuzzy_key(last_segment(name))
        keep = [n for (n,) in names if fuzzy_key_score(query, fuzzy_key(n)) > 0]
        found = conn.execute(f"{sql} AND name_lower = ANY(%s)", (repo_id, keep)).fetchall()
    else:
        column, key = lookup_key(mode, name)
        found = conn.execute(f"{sql} AND {column} = %s", (repo_id, key)).fetchall()
    return hits(conn, repo_id, rank_symbol_matches(found, mode, name, filters, limit))


def relations(
    conn: Any,
    repo_id: int,
    symbol: str,
    direction: Direction,
    kinds: Sequence[str] | None,
    filters: SearchFilters | None,
    limit: int,
) -> list[ScoredRow]:
    """C2 rows into (callers) or out of (callees) ``symbol`` (arguments already validated)."""
    column = "to_last" if direction is Direction.CALLERS else "from_last"
    found = conn.execute(
        "SELECT r.seq, x.relation, x.from_symbol, x.to_name, x.to_symbol, r.layer, "
        "r.path, r.language, r.is_test, r.start_line, r.id FROM rs_relations x "
        "JOIN rs_rows r ON r.repo_id = x.repo_id AND r.seq = x.seq "
        f"WHERE x.repo_id = %s AND x.{column} = %s",
        (repo_id, last_segment(symbol)),
    ).fetchall()
    ranked = []
    for seq, kind, src, to_name, to_symbol, layer, path, lang, is_test, start, rid in found:
        if kinds is not None and kind not in kinds:
            continue
        if filters is not None and not filters.matches(layer, path, lang, is_test):
            continue
        score = relation_score(src, to_name, to_symbol, symbol, direction)
        if score > 0:
            ranked.append((-score, is_test, path, start, rid, seq))
    ranked.sort()
    return hits(conn, repo_id, ranked[:limit])


def hits(conn: Any, repo_id: int, ranked: Sequence[tuple[Any, ...]]) -> list[ScoredRow]:
    """Decode the rows of ``(-score, ..., seq)`` tuples, in that order."""
    if not ranked:
        return []
    payloads = dict(
        conn.execute(
            "SELECT seq, payload FROM rs_rows WHERE repo_id = %s AND seq = ANY(%s)",
            (repo_id, [r[-1] for r in ranked]),
        ).fetchall()
    )
    return [scored_row(row_from_payload(payloads[r[-1]]), -r[0]) for r in ranked]
