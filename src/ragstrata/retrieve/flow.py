"""Flow evidence: from the definitions found, follow C2 one hop (callers and callees).

Callers are relations pointing at the definition ("who calls X"); callees are relations going
out of it ("what does X use"). Path scope is not applied here: a function in ``src/shop`` is
often called from elsewhere, and that is exactly what a flow question asks for.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragstrata.retrieve.fusion import RankedList
from ragstrata.store.base import Direction, SearchFilters, Store

__all__ = ["FLOW_KINDS", "flow_lists"]

FLOW_KINDS: tuple[str, ...] = ("calls", "inherits", "implements")
"""C2 relation kinds that count as flow (imports and contains are structure, not flow)."""


def flow_lists(
    store: Store,
    symbols: Sequence[str],
    filters: SearchFilters | None,
    weight: float,
    limit: int = 20,
) -> list[RankedList]:
    """One list of callers and one of callees per qualified name in ``symbols``."""
    scoped = SearchFilters(
        layers=("C2",),
        languages=filters.languages if filters else None,
        is_test=filters.is_test if filters else None,
    )
    out: list[RankedList] = []
    for symbol in dict.fromkeys(symbols):
        for direction in (Direction.CALLERS, Direction.CALLEES):
            rows = store.relations(symbol, direction, FLOW_KINDS, scoped, limit)
            if rows:
                label = f"flow:{direction.value} {symbol}"
                out.append(RankedList("flow", "C2", label, weight, tuple(rows)))
    return out
