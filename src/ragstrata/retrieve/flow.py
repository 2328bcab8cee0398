"""Flow evidence: from the definitions found, follow C2 one hop (callers and callees).

Callers are relations pointing at the definition ("who calls X"); callees are relations going
out of it ("what does X use"). Path scope is not applied here: a function in ``src/shop`` is
often called from elsewhere, and that is exactly what a flow question asks for.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragstrata.core.rows import RelationRow
from ragstrata.core.values import Direction, ScoredRow, SearchFilters
from ragstrata.retrieve.fusion import RankedList
from ragstrata.store.protocols import Store

__all__ = ["FLOW_KINDS", "flow_lists"]

FLOW_KINDS: tuple[str, ...] = ("calls", "inherits", "implements")
"""C2 relation kinds that count as flow (imports and contains are structure, not flow)."""


def flow_lists(
    store: Store,
    symbols: Sequence[str],
    filters: SearchFilters | None,
    weight: float,
    limit: int = 20,
    prefer: str | None = None,
    direction_weight: float = 1.0,
) -> list[RankedList]:
    """One list of callers and one of callees per qualified name in ``symbols``.

    ``prefer`` ("callers" / "callees") multiplies that side's weight by ``direction_weight`` and
    divides the other side's by it.
    """
    factors = {
        Direction.CALLERS: 1.0,
        Direction.CALLEES: 1.0,
    }
    if prefer in ("callers", "callees"):
        for d in factors:
            factors[d] = direction_weight if d.value == prefer else 1.0 / direction_weight
    scoped = SearchFilters(
        layers=("C2",),
        languages=filters.languages if filters else None,
        is_test=filters.is_test if filters else None,
    )
    out: list[RankedList] = []
    for symbol in dict.fromkeys(symbols):
        lists = _symbol_flow(store, symbol, scoped, weight, limit, factors)
        if not lists:
            # A class (or module) whose own name is never called still has flow through its
            # members: follow the `contains` edges one level down and take their relations.
            members = store.relations(symbol, Direction.CALLEES, ("contains",), scoped, limit)
            for member in dict.fromkeys(r.to_symbol for r in _relation_rows(members)):
                if member:
                    lists += _symbol_flow(store, member, scoped, weight * 0.8, limit, factors)
        out += lists
    return out


def _symbol_flow(
    store: Store,
    symbol: str,
    scoped: SearchFilters,
    weight: float,
    limit: int,
    factors: dict[Direction, float],
) -> list[RankedList]:
    out: list[RankedList] = []
    for direction in (Direction.CALLERS, Direction.CALLEES):
        rows = store.relations(symbol, direction, FLOW_KINDS, scoped, limit)
        if rows:
            label = f"flow:{direction.value} {symbol}"
            w = weight * factors[direction]
            out.append(RankedList("flow", "C2", label, w, tuple(rows)))
    return out


def _relation_rows(scored: Sequence[ScoredRow]) -> list[RelationRow]:
    return [s.row for s in scored if isinstance(s.row, RelationRow)]
